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
func seed003(o options, w io.Writer, progress func(float64)) ([]verdict, error) {
	m := machine{cpus: 8, switchCost: switchCost}
	groups := []int{1, 10, 20}
	if o.quick {
		groups = []int{1, 4}
	}
	type row struct {
		label       string
		base, patch *sim.Report
	}
	var rows []*row
	var cfgs []sim.Config
	for _, pipe := range []bool{false, true} {
		for _, threads := range []bool{false, true} {
			for _, g := range groups {
				r := &row{}
				r.label = fmt.Sprintf("%s%s %d group", map[bool]string{true: "pipe "}[pipe], map[bool]string{false: "process", true: "thread"}[threads], g)
				for _, tok := range []string{"", "PLACE_JOIN_LAG"} {
					hb := sim.Hackbench(g, 20, 100, pipe, threads, sim.TaskOptions{})
					cfgs = append(cfgs, m.config(o, 100*time.Second, parse(tok), hb))
				}
				rows = append(rows, r)
			}
		}
	}
	reports, err := sweep(cfgs, progress)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "machine: %s\n", m)
	fmt.Fprintf(w, "workload: hackbench [-p] [-T|-P] -g N -f 20 -l 100, run to completion\n\n")
	fmt.Fprintf(w, "%-22s %10s %10s %8s   %10s %10s %8s\n", "hackbench test", "base (s)", "patch (s)", "opt", "base sw", "patch sw", "opt")
	var baseT, patchT, baseSw, patchSw uint64
	for i, r := range rows {
		r.base, r.patch = reports[2*i], reports[2*i+1]
		bw, pw := r.base.Workloads[0], r.patch.Workloads[0]
		if !bw.Done || !pw.Done {
			return nil, fmt.Errorf("%s: hackbench did not finish in the simulated time", r.label)
		}
		fmt.Fprintf(w, "%-22s %10.4f %10.4f %7.1f%%   %10d %10d %7.1f%%\n", r.label,
			float64(bw.RunTimeNs)/1e9, float64(pw.RunTimeNs)/1e9, pct(bw.RunTimeNs, pw.RunTimeNs),
			r.base.ContextSwitches, r.patch.ContextSwitches, pct(r.base.ContextSwitches, r.patch.ContextSwitches))
		baseT += bw.RunTimeNs
		patchT += pw.RunTimeNs
		baseSw += r.base.ContextSwitches
		patchSw += r.patch.ContextSwitches
		for j, rep := range []*sim.Report{r.base, r.patch} {
			if err := save(o, fmt.Sprintf("seed003-%s-%s", slug(r.label), []string{"base", "patch"}[j]), rep); err != nil {
				return nil, err
			}
		}
	}
	fmt.Fprintf(w, "%-22s %10.4f %10.4f %7.1f%%   %10d %10d %7.1f%%\n\n", "total",
		float64(baseT)/1e9, float64(patchT)/1e9, pct(baseT, patchT), baseSw, patchSw, pct(baseSw, patchSw))
	return []verdict{
		{
			claim: "fewer context switches with PLACE_JOIN_LAG (thread: the cause of its gains)",
			ok:    patchSw < baseSw,
			got:   fmt.Sprintf("%d -> %d over the matrix (%+.1f%%)", baseSw, patchSw, pct(baseSw, patchSw)),
		},
		{
			claim: "shorter hackbench with PLACE_JOIN_LAG (thread: 4% to 33% shorter)",
			ok:    patchT < baseT,
			got:   fmt.Sprintf("%.4f s -> %.4f s over the matrix (%+.1f%%)", float64(baseT)/1e9, float64(patchT)/1e9, pct(baseT, patchT)),
		},
	}, nil
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
