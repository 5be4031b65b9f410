package main

import (
	"fmt"
	"io"
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
func seed004(o options, w io.Writer, progress func(float64)) ([]*figure, error) {
	total, yieldFor := 30*time.Second, 5*time.Second
	if o.quick {
		total, yieldFor = 10*time.Second, 2*time.Second
	}
	one, pair := pinnedCPU.under(o.kernel), smtPair.under(o.kernel)
	coreVariants := yieldVariants[2:]
	perSeed := len(yieldVariants) + len(coreVariants)
	var cfgs []sim.Config
	for _, seed := range o.seedList() {
		for _, v := range yieldVariants {
			cfgs = append(cfgs, yieldConfig(seed, total, yieldFor, v.tokens))
		}
		for _, v := range coreVariants {
			cfgs = append(cfgs, coreConfig(seed, total, yieldFor, v.tokens))
		}
	}
	reports, err := sweep(o, cfgs, progress)
	if err != nil {
		return nil, err
	}
	for i, r := range reports {
		k, j := i/perSeed, i%perSeed
		name := "seed004-" + slugTokens(yieldVariants[min(j, len(yieldVariants)-1)].tokens)
		if j >= len(yieldVariants) {
			name = "seed004-core-" + slugTokens(coreVariants[j-len(yieldVariants)].tokens)
		}
		if err := save(o, fmt.Sprintf("%s-s%d", name, o.seedList()[k]), r); err != nil {
			return nil, err
		}
	}

	type split struct{ stressRun, stressMax, yieldRun, yieldMax uint64 }
	first := reports[:perSeed]
	io.WriteString(w, one.describe(total))
	fmt.Fprintf(w, "workload: yield_loop (sched_yield for %v, then spin) & stress (one hog)\n", yieldFor)
	fmt.Fprintf(w, "the tables are simulation seed %d's; the verdicts below are over %s\n\n", o.seed, o.seedsText())
	fmt.Fprintf(w, "%-34s %12s %14s %12s %14s\n", "yield variant", "stress run", "stress max", "yield run", "yield max")
	for i, v := range yieldVariants {
		y, s := first[i].Tasks[0], first[i].Tasks[1]
		fmt.Fprintf(w, "%-34s %12s %14s %12s %14s\n", v.title, secs(s.RuntimeNs), ms(s.MaxDelayNs), secs(y.RuntimeNs), ms(y.MaxDelayNs))
	}
	fmt.Fprintf(w, "\nperf sched latency, merged form:\n")
	if err := first[len(yieldVariants)-1].WriteSchedLatency(w); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\n%s", pair.describe(total))
	fmt.Fprintf(w, "workload: two processes with their own cookies: yield_loop + busy_loop, and two busy loops\n")
	fmt.Fprintf(w, "model: the kernel's core scheduling (package smp): the core-wide pick compares the siblings'\n")
	fmt.Fprintf(w, "picks by cfs_prio_less and runs a task of the winner's cookie on each thread or forces it idle;\n")
	fmt.Fprintf(w, "task_tick_core hands the core over after half a slice, a forced-idle thread may steal a task of\n")
	fmt.Fprintf(w, "the core's cookie, and the kernel's fork and wakeup placement puts the tasks on the threads\n\n")
	fmt.Fprintf(w, "%-34s %12s %14s %12s %14s %14s\n", "yield variant", "busy run", "busy max", "yield run", "yield max", "forced idle")
	for i, v := range coreVariants {
		r := first[len(yieldVariants)+i]
		b, y := r.Tasks[0], r.Tasks[1]
		var fi uint64
		for _, c := range r.CPUStats {
			fi += c.ForcedIdleNs
		}
		fmt.Fprintf(w, "%-34s %12s %14s %12s %14s %14s\n", v.title, secs(b.RuntimeNs), ms(b.MaxDelayNs), secs(y.RuntimeNs), ms(y.MaxDelayNs), secs(fi))
	}
	fmt.Fprintln(w)
	if o.out != "" {
		err := writePNG(o, "seed004-share-bump.png", func(w io.Writer) error {
			return plot.RuntimeShare(w, first[0], false, plot.Options{Title: fmt.Sprintf("seed 004, YIELD_BUMP_DEADLINE: CPU share (simulation seed %d)", o.seed)})
		})
		if err != nil {
			return nil, err
		}
	}

	bound := 2*uint64(one.baseSlice()) + uint64(time.Millisecond)
	starve := &figure{claim: "YIELD_BUMP_DEADLINE starves the hog (thread: stress 2.4 s of 30 s, max delay 25 s)",
		name: "the hog's maximum delay", durations: true, base: "merged", patch: "v6.6 bump", format: msf}
	slice := &figure{claim: fmt.Sprintf("the merged yield keeps the hog's max delay at about a slice (thread: 2 ms; bound here 2 slices + 1 ms = %s)", ms(bound)),
		name: "the hog's maximum delay", durations: true, patch: "merged", format: msf,
		bound: float64(bound), boundName: "bound: 2 slices + 1 ms = " + ms(bound)}
	core := &figure{claim: "under core scheduling, forfeiting always lets delays run away (thread: 273 ms / 552 ms max delay), the merged form does not",
		name: "the larger maximum delay of the pair", durations: true, base: "merged", patch: "v2 forfeit always", format: msf}
	for k := range o.seedList() {
		rs := reports[k*perSeed : (k+1)*perSeed]
		var res []split
		for i := range yieldVariants {
			y, s := rs[i].Tasks[0], rs[i].Tasks[1]
			res = append(res, split{s.RuntimeNs, s.MaxDelayNs, y.RuntimeNs, y.MaxDelayNs})
		}
		var cs []split
		for i := range coreVariants {
			b, y := rs[len(yieldVariants)+i].Tasks[0], rs[len(yieldVariants)+i].Tasks[1]
			cs = append(cs, split{b.RuntimeNs, b.MaxDelayNs, y.RuntimeNs, y.MaxDelayNs})
		}
		bump, merged := res[0], res[3]
		forfeit, mergedCore := max(cs[0].yieldMax, cs[0].stressMax), max(cs[1].yieldMax, cs[1].stressMax)
		starve.add(float64(merged.stressMax), float64(bump.stressMax),
			bump.stressMax > 100*merged.stressMax && bump.stressRun < merged.stressRun)
		slice.add(0, float64(merged.stressMax), merged.stressMax <= bound)
		core.add(float64(mergedCore), float64(forfeit), forfeit > 10*mergedCore)
	}
	return []*figure{starve, slice, core}, nil
}

// yieldConfig is the yield experiment on one side (tokens) in one
// simulation seed: yield_loop and one stress hog on one CPU.
func yieldConfig(seed uint64, total, yieldFor time.Duration, tokens string) sim.Config {
	cfg := pinnedCPU.config(seed, total, parse(tokens),
		sim.YieldLoop(yieldFor, sim.TaskOptions{}), sim.Stress(1, sim.TaskOptions{}))
	// The CPU-share plot of --out reads these samples; taking them changes
	// nothing else in the run, and every run takes them, so that --out
	// does not change what is simulated.
	cfg.ShareInterval = shareInterval
	return cfg
}

// coreConfig is the core-scheduling experiment on one side (tokens) in
// one simulation seed. The thread's program, started twice with taskset
// -c 0,1: each process tags itself with a new cookie and forks; in the
// first the child yields for 5 s before it spins, in the second it spins
// at once; the parents spin. Four CPU-bound tasks, two cookies, two
// siblings.
func coreConfig(seed uint64, total, yieldFor time.Duration, tokens string) sim.Config {
	return smtPair.config(seed, total, parse(tokens),
		named(sim.Stress(1, sim.TaskOptions{Cookie: 1}), "busy_loop"),
		sim.YieldLoop(yieldFor, sim.TaskOptions{Cookie: 1}),
		named(sim.Stress(1, sim.TaskOptions{Cookie: 2}), "busy_loop2"),
		named(sim.Stress(1, sim.TaskOptions{Cookie: 2}), "busy_loop3"))
}

// shareInterval is the sampling interval of the CPU-share plot: 300
// samples of two tasks over the thread's 30 s.
const shareInterval = 100 * time.Millisecond

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
