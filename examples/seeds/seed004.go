package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/sim/plot"
)

// yieldVariants are the yield forms of seed 004, in the thread's order.
var yieldVariants = []struct{ title, tokens string }{
	{"v6.6 (deadline += slice)", "YIELD_BUMP_DEADLINE"},
	{"v1 (deadline = vruntime + slice)", "YIELD_CLAMP_DEADLINE"},
	{"v2 (forfeit always)", "YIELD_FORFEIT_ALWAYS"},
	{"merged (forfeit when eligible)", ""},
}

// seed004: a task that yields for 5 s and then spins, against a CPU hog,
// for 30 s on one CPU (the thread's yield_loop and stress, measured with
// perf sched latency); then the thread's core-scheduling program on two
// SMT siblings.
func seed004(o options, w io.Writer, progress func(float64)) ([]verdict, error) {
	total, yieldFor := 30*time.Second, 5*time.Second
	if o.quick {
		total, yieldFor = 10*time.Second, 2*time.Second
	}
	one := machine{cpus: 1, switchCost: switchCost}
	pair := machine{cpus: 2, switchCost: switchCost}
	var cfgs []sim.Config
	for _, v := range yieldVariants {
		cfgs = append(cfgs, one.config(o, total, parse(v.tokens),
			sim.YieldLoop(yieldFor, sim.TaskOptions{}), sim.Stress(1, sim.TaskOptions{})))
	}
	// The core-scheduling program, started twice with taskset -c 0,1: each
	// process tags itself with a new cookie and forks; in the first the
	// child yields for 5 s before it spins, in the second it spins at once;
	// the parents spin. Four CPU-bound tasks, two cookies, two siblings.
	coreVariants := yieldVariants[2:]
	for _, v := range coreVariants {
		cfg := pair.config(o, total, parse(v.tokens),
			named(sim.Stress(1, sim.TaskOptions{Cookie: 1}), "busy_loop"),
			sim.YieldLoop(yieldFor, sim.TaskOptions{Cookie: 1}),
			named(sim.Stress(1, sim.TaskOptions{Cookie: 2}), "busy_loop2"),
			named(sim.Stress(1, sim.TaskOptions{Cookie: 2}), "busy_loop3"))
		cfg.CorePairs = [][2]int{{0, 1}}
		cfgs = append(cfgs, cfg)
	}
	reports, err := sweep(cfgs, progress)
	if err != nil {
		return nil, err
	}

	fmt.Fprintf(w, "machine: %s; %v simulated\n", one, total)
	fmt.Fprintf(w, "workload: yield_loop (sched_yield for %v, then spin) & stress (one hog)\n\n", yieldFor)
	fmt.Fprintf(w, "%-34s %12s %14s %12s %14s\n", "yield variant", "stress run", "stress max", "yield run", "yield max")
	type split struct{ stressRun, stressMax, yieldRun, yieldMax uint64 }
	var res []split
	for i, v := range yieldVariants {
		r := reports[i]
		y, s := r.Tasks[0], r.Tasks[1]
		res = append(res, split{s.RuntimeNs, s.MaxDelayNs, y.RuntimeNs, y.MaxDelayNs})
		fmt.Fprintf(w, "%-34s %12s %14s %12s %14s\n", v.title, secs(s.RuntimeNs), ms(s.MaxDelayNs), secs(y.RuntimeNs), ms(y.MaxDelayNs))
		if err := save(o, "seed004-"+slugTokens(v.tokens), r); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(w, "\nperf sched latency, merged form:\n")
	if err := reports[len(yieldVariants)-1].WriteSchedLatency(w); err != nil {
		return nil, err
	}

	fmt.Fprintf(w, "\nmachine: %s, one SMT pair under core scheduling; %v simulated\n", pair, total)
	fmt.Fprintf(w, "workload: two processes with their own cookies: yield_loop + busy_loop, and two busy loops\n")
	fmt.Fprintf(w, "model: the core-wide pick takes the sibling pick with the larger lag and forces a task of its\n")
	fmt.Fprintf(w, "cookie (smallest vruntime) on the other; no load balancer moves tasks between the siblings\n\n")
	fmt.Fprintf(w, "%-34s %12s %14s %12s %14s %8s\n", "yield variant", "busy run", "busy max", "yield run", "yield max", "forced")
	var core []split
	for i, v := range coreVariants {
		r := reports[len(yieldVariants)+i]
		b, y := r.Tasks[0], r.Tasks[1]
		core = append(core, split{b.RuntimeNs, b.MaxDelayNs, y.RuntimeNs, y.MaxDelayNs})
		fmt.Fprintf(w, "%-34s %12s %14s %12s %14s %8d\n", v.title, secs(b.RuntimeNs), ms(b.MaxDelayNs), secs(y.RuntimeNs), ms(y.MaxDelayNs), r.ForcedPicks)
		if err := save(o, "seed004-core-"+slugTokens(v.tokens), r); err != nil {
			return nil, err
		}
	}
	fmt.Fprintln(w)
	if o.out != "" {
		f, err := os.Create(filepath.Join(o.out, "seed004-share-bump.png"))
		if err == nil {
			err = plot.RuntimeShare(f, reports[0], false, plot.Options{Title: "seed 004, YIELD_BUMP_DEADLINE: CPU share"})
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return nil, err
		}
	}

	bump, merged := res[0], res[3]
	forfeit, mergedCore := core[0], core[1]
	return []verdict{
		{
			claim: "YIELD_BUMP_DEADLINE starves the hog (thread: stress 2.4 s of 30 s, max delay 25 s)",
			ok:    bump.stressMax > 100*merged.stressMax && bump.stressRun < merged.stressRun,
			got:   fmt.Sprintf("stress %s, max delay %s", secs(bump.stressRun), ms(bump.stressMax)),
		},
		{
			claim: "the merged yield keeps the hog's max delay at about a slice (thread: 2 ms)",
			ok:    merged.stressMax <= 2*uint64(one.baseSlice())+uint64(time.Millisecond),
			got:   fmt.Sprintf("max delay %s (base slice %v)", ms(merged.stressMax), one.baseSlice()),
		},
		{
			claim: "under core scheduling, forfeiting always lets delays run away (thread: 273 ms / 552 ms max delay), the merged form does not",
			ok:    max(forfeit.yieldMax, forfeit.stressMax) > 10*max(mergedCore.yieldMax, mergedCore.stressMax),
			got: fmt.Sprintf("max delays %s / %s against %s / %s", ms(forfeit.yieldMax), ms(forfeit.stressMax),
				ms(mergedCore.yieldMax), ms(mergedCore.stressMax)),
		},
	}, nil
}

func secs(ns uint64) string { return fmt.Sprintf("%.2f s", float64(ns)/1e9) }

func slugTokens(tokens string) string {
	if tokens == "" {
		return "merged"
	}
	return slug(tokens)
}

// named relabels a stress workload.
func named(s *sim.StressWorkload, label string) *sim.StressWorkload {
	s.Label = label
	return s
}
