package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedmodel/fairclass/sim"
)

// seed003: PLACE_JOIN_LAG against the kernel's lag inflation, on the
// thread's hackbench matrix (process/thread, socket/pipe, 1, 10 and 20
// groups of 20 senders and 20 receivers, 100 loops): run time and context
// switches, lower with the patch according to the thread.
func seed003(o options, w io.Writer, progress func(float64)) ([]*figure, error) {
	m := assumed8.under(o.kernel)
	groups := []int{1, 10, 20}
	if o.quick {
		groups = []int{1, 4}
	}
	type cell struct {
		label         string
		pipe, threads bool
		groups        int
	}
	var cells []cell
	for _, pipe := range []bool{false, true} {
		for _, threads := range []bool{false, true} {
			for _, g := range groups {
				label := fmt.Sprintf("%s%s %d group", map[bool]string{true: "pipe "}[pipe], map[bool]string{false: "process", true: "thread"}[threads], g)
				cells = append(cells, cell{label, pipe, threads, g})
			}
		}
	}
	var cfgs []sim.Config
	for _, seed := range o.seedList() {
		for _, c := range cells {
			for _, tok := range []string{"", "PLACE_JOIN_LAG"} {
				cfgs = append(cfgs, hackbenchConfig(m, seed, c.groups, c.pipe, c.threads, tok))
			}
		}
	}
	reports, err := sweep(o, cfgs, progress)
	if err != nil {
		return nil, err
	}
	io.WriteString(w, m.describe(0))
	fmt.Fprintf(w, "workload: hackbench [-p] [-T|-P] -g N -f 20 -l 100, run to completion\n")
	fmt.Fprintf(w, "the table is simulation seed %d's; the verdicts below are over %s\n\n", o.seed, o.seedsText())
	fmt.Fprintf(w, "%-22s %10s %10s %8s   %10s %10s %8s\n", "hackbench test", "base (s)", "patch (s)", "opt", "base sw", "patch sw", "opt")
	sw := &figure{claim: "fewer context switches with PLACE_JOIN_LAG (thread: the cause of its gains)",
		name: "context switches over the matrix", base: "base", patch: "PLACE_JOIN_LAG", format: countf}
	rt := &figure{claim: "shorter hackbench with PLACE_JOIN_LAG (thread: 4% to 33% shorter)",
		name: "hackbench time over the matrix", durations: true, base: "base", patch: "PLACE_JOIN_LAG", format: secsf}
	for k, seed := range o.seedList() {
		var baseT, patchT, baseSw, patchSw uint64
		for i, c := range cells {
			base, patch := reports[2*(k*len(cells)+i)], reports[2*(k*len(cells)+i)+1]
			bw, pw := base.Workloads[0], patch.Workloads[0]
			if !bw.Done || !pw.Done {
				return nil, fmt.Errorf("%s (simulation seed %d): hackbench did not finish in the simulated time", c.label, seed)
			}
			if k == 0 {
				fmt.Fprintf(w, "%-22s %10.4f %10.4f %7.1f%%   %10d %10d %7.1f%%\n", c.label,
					float64(bw.RunTimeNs)/1e9, float64(pw.RunTimeNs)/1e9, pct(bw.RunTimeNs, pw.RunTimeNs),
					base.ContextSwitches, patch.ContextSwitches, pct(base.ContextSwitches, patch.ContextSwitches))
			}
			baseT += bw.RunTimeNs
			patchT += pw.RunTimeNs
			baseSw += base.ContextSwitches
			patchSw += patch.ContextSwitches
			for j, rep := range []*sim.Report{base, patch} {
				if err := save(o, fmt.Sprintf("seed003-%s-%s-s%d", slug(c.label), []string{"base", "patch"}[j], seed), rep); err != nil {
					return nil, err
				}
			}
		}
		if k == 0 {
			fmt.Fprintf(w, "%-22s %10.4f %10.4f %7.1f%%   %10d %10d %7.1f%%\n\n", "total",
				float64(baseT)/1e9, float64(patchT)/1e9, pct(baseT, patchT), baseSw, patchSw, pct(baseSw, patchSw))
		}
		sw.add(float64(baseSw), float64(patchSw), patchSw < baseSw)
		rt.add(float64(baseT), float64(patchT), patchT < baseT)
	}
	return []*figure{sw, rt}, nil
}

// hackbenchConfig is one cell of seed 003's matrix on one side (tokens)
// in one simulation seed: hackbench [-p] [-T|-P] -g groups -f 20 -l 100,
// run to completion (100 s is a stop time it never reaches).
func hackbenchConfig(m machine, seed uint64, groups int, pipe, threads bool, tokens string) sim.Config {
	hb := sim.Hackbench(groups, 20, 100, pipe, threads, sim.TaskOptions{})
	return m.config(seed, 100*time.Second, parse(tokens), hb)
}

// pct is the change from a to b in percent.
func pct(a, b uint64) float64 {
	if a == 0 {
		return 0
	}
	return 100 * (float64(b) - float64(a)) / float64(a)
}

func slug(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == ' ' {
			b[i] = '-'
		}
	}
	return string(b)
}
