package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/schedmodel/fairclass/sim"
)

// threadFigures are a thread's cyclictest figures in µs, one per column of
// its table (default slices, custom slices, the patch): the median, the
// 99.9th percentile and the maximum.
type threadFigures struct {
	p50, p999, max [3]uint64
}

// The tables of the threads (the board's runs, copied from their mails).
var (
	thread000 = threadFigures{p50: [3]uint64{60, 56, 56}, p999: [3]uint64{8528, 2707, 1300}, max: [3]uint64{17735, 14273, 13525}}
	thread002 = threadFigures{p50: [3]uint64{57, 57, 58}, p999: [3]uint64{3400, 2288, 727}, max: [3]uint64{5037, 9252, 7461}}
)

// printBesideThread prints the thread's median, 99.9th percentile and
// maximum beside the simulation's for each column: simulation seed 1's
// for the default slices (the only seed that runs them without --out),
// else the median over the seeds with the 10th–90th percentile range.
func printBesideThread(w io.Writer, o options, cols []latencyColumn, sums [][]sim.LatencySummary, th threadFigures) {
	fmt.Fprintf(w, "beside the thread (us): the thread's figure, then the simulation's\n")
	line := fmt.Sprintf("%-19s", "")
	for _, c := range cols {
		line += fmt.Sprintf(" %-28s", c.title)
	}
	fmt.Fprintln(w, strings.TrimRight(line, " "))
	for _, st := range []struct {
		name   string
		thread [3]uint64
		stat   func(sim.LatencySummary) uint64
	}{
		{"median", th.p50, func(l sim.LatencySummary) uint64 { return l.P50 }},
		{"99.9th percentile", th.p999, p999},
		{"maximum", th.max, maxLat},
	} {
		line := fmt.Sprintf("%-19s", st.name)
		for c := range cols {
			var cell string
			if c == 0 {
				cell = fmt.Sprintf("%d / %d (seed %d)", st.thread[c], usRound(st.stat(sums[0][0])), o.seed)
			} else {
				vals := make([]float64, len(sums))
				for k := range sums {
					vals[k] = float64(st.stat(sums[k][c]))
				}
				cell = fmt.Sprintf("%d / %.0f (%.0f–%.0f)", st.thread[c], quantile(vals, 0.5)/1000,
					quantile(vals, 0.1)/1000, quantile(vals, 0.9)/1000)
			}
			line += fmt.Sprintf(" %-28s", cell)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	fmt.Fprintf(w, "(the simulation's median of the seeds' values, p10–p90 in brackets, over %s)\n\n", o.seedsText())
}

// usRound rounds nanoseconds to whole microseconds.
func usRound(ns uint64) uint64 { return (ns + 500) / 1000 }
