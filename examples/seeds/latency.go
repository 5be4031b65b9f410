package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/sim/plot"
)

// The cyclictest-under-hackbench measurement of seeds 000 and 002:
//
//	hackbench -T -p -l 16000000 -g 2 &
//	cyclictest -t 1 -i 2777 -D <duration> --policy=fair -h 20000 -q
//
// with custom slices (sched_setattr) of 8 ms for cyclictest and 20 ms for
// hackbench in the second and third columns, the kernel's default slices in
// the first, as in the threads' tables.

// latencyColumn is one variant of the measurement.
type latencyColumn struct {
	title   string
	tokens  string        // features, applied to the defaults
	ctSlice time.Duration // cyclictest's custom slice, 0: default
	hbSlice time.Duration // hackbench's
	slug    string        // file name stem for --out
}

// latencyMachine is the threads' Snapdragon RB5, or with --quick its
// smaller stand-in.
func latencyMachine(o options) machine {
	if o.quick {
		return rb5Quick
	}
	return rb5
}

// latencyConfig is one column's run in one simulation seed: cyclictest
// against hackbench.
func latencyConfig(m machine, seed uint64, d time.Duration, c latencyColumn) sim.Config {
	ct := sim.Cyclictest(1, 2777*time.Microsecond, sim.TaskOptions{Slice: c.ctSlice})
	hb := sim.Hackbench(2, 20, 16000000, true, true, sim.TaskOptions{Slice: c.hbSlice})
	return m.config(seed, d, parse(c.tokens), ct, hb)
}

// runLatency simulates the columns in every seed and prints the table of
// the first seed; it returns the summaries by seed, then column. The
// first column (the default slices) enters only the table, the first
// seed's, and no verdict: the other seeds run it only for --out's files
// and plots, and their summaries of it are zero otherwise.
func runLatency(o options, w io.Writer, progress func(float64), id string, d time.Duration, cols []latencyColumn) ([][]sim.LatencySummary, error) {
	sums, _, _, err := runLatencyEAS(o, w, progress, id, d, cols, nil)
	return sums, err
}

// runLatencyEAS is runLatency that, with a model, also prices every run
// by it (sim.Config.EnergyEstimateOnly: the columns' runs are unchanged)
// and runs the custom-slice columns (1 and 2) with EAS on (the model
// attached) in every seed, in the same sweep. It returns the columns'
// reports by seed, then column (nil for a default-slice run not made),
// and the EAS runs' by seed, then column 1 and 2.
func runLatencyEAS(o options, w io.Writer, progress func(float64), id string, d time.Duration, cols []latencyColumn, model *energy.Model) ([][]sim.LatencySummary, []*sim.Report, []*sim.Report, error) {
	m := latencyMachine(o).under(o.kernel)
	type run struct{ k, c int }
	var runs []run
	var cfgs []sim.Config
	for k, seed := range o.seedList() {
		for c, col := range cols {
			if c == 0 && k > 0 && o.out == "" {
				continue
			}
			runs = append(runs, run{k, c})
			cfg := latencyConfig(m, seed, d, col)
			if model != nil {
				cfg.EnergyModel, cfg.EnergyEstimateOnly = model, true
			}
			cfgs = append(cfgs, cfg)
		}
	}
	n := len(cfgs)
	if model != nil {
		for _, seed := range o.seedList() {
			for _, col := range cols[1:3] {
				cfg := latencyConfig(m, seed, d, col)
				cfg.EnergyModel = model
				cfgs = append(cfgs, cfg)
			}
		}
	}
	all, err := sweep(o, cfgs, progress)
	if err != nil {
		return nil, nil, nil, err
	}
	got, eas := all[:n], all[n:]
	sums := make([][]sim.LatencySummary, o.runs)
	reports := make([]*sim.Report, o.runs*len(cols))
	for k := range sums {
		sums[k] = make([]sim.LatencySummary, len(cols))
	}
	for i, r := range got {
		k, c := runs[i].k, runs[i].c
		sums[k][c] = *r.Workloads[0].Latency
		reports[k*len(cols)+c] = r
		if err := save(o, fmt.Sprintf("seed%s-%s-s%d", id, cols[c].slug, o.seedList()[k]), r); err != nil {
			return nil, nil, nil, err
		}
	}
	for i, r := range eas {
		k, c := i/2, 1+i%2
		if err := save(o, fmt.Sprintf("seed%s-%s-eas-s%d", id, cols[c].slug, o.seedList()[k]), r); err != nil {
			return nil, nil, nil, err
		}
	}
	io.WriteString(w, m.describe(d))
	fmt.Fprintf(w, "workload: hackbench -T -p -l 16000000 -g 2 & cyclictest -t 1 -i 2777 --policy=fair\n")
	fmt.Fprintf(w, "the table is simulation seed %d's; the verdicts below are over %s\n\n", o.seed, o.seedsText())
	var table []sim.LatencyColumn
	for c, r := range reports[:len(cols)] {
		table = append(table, sim.LatencyColumn{Title: cols[c].title, Summary: *r.Workloads[0].Latency})
	}
	row := func(label string, cell func(c latencyColumn) string) {
		fmt.Fprintf(w, "%-23s ", label)
		for _, c := range cols {
			fmt.Fprintf(w, " %16s", cell(c))
		}
		fmt.Fprintln(w)
	}
	row("", func(c latencyColumn) string { return c.title })
	row("cyclictest slice  (ms)", func(c latencyColumn) string { return sliceMs(c.ctSlice, m) })
	row("hackbench slice   (ms)", func(c latencyColumn) string { return sliceMs(c.hbSlice, m) })
	// The table without its own heading (the rows above are it).
	var buf strings.Builder
	if err := sim.WriteLatencyTable(&buf, table); err != nil {
		return nil, nil, nil, err
	}
	_, body, _ := strings.Cut(buf.String(), "\n")
	io.WriteString(w, body)
	fmt.Fprintln(w, "features:")
	for _, c := range cols {
		tok := c.tokens
		if tok == "" {
			tok = "(the modelled kernel's defaults)"
		}
		fmt.Fprintf(w, "  %-16s %s\n", c.title, tok)
	}
	fmt.Fprintln(w)
	if o.out != "" {
		series := tailSeries(o, cols, reports)
		title := fmt.Sprintf("seed %s: cyclictest latency tail, %s", id, o.seedsText())
		err := writePNG(o, "seed"+id+"-latency-tail.png", func(w io.Writer) error {
			return plot.LatencyTail(w, series, plot.Options{Title: title, OthersLabel: "thin: the other seeds"})
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return sums, reports, eas, nil
}

// tailSeries are the columns' latency samples in every simulation seed
// (reports by seed, then column) for the tail plot: each column's median
// seed by 99.9th percentile in full, named in the legend, and its other
// seeds as thin curves, so that the plot shows how far the seeds spread
// and which curve stands for them.
func tailSeries(o options, cols []latencyColumn, reports []*sim.Report) []plot.Series {
	seeds := o.seedList()
	var series []plot.Series
	for c, col := range cols {
		runs := make([]*sim.WorkloadReport, len(seeds))
		for k := range seeds {
			runs[k] = &reports[k*len(cols)+c].Workloads[0]
		}
		m := medianRun(runs)
		s := plot.Series{Name: col.title, Samples: runs[m].Samples}
		if len(seeds) > 1 {
			s.Name = fmt.Sprintf("%s (median seed %d)", col.title, seeds[m])
		}
		for k, r := range runs {
			if k != m {
				s.Others = append(s.Others, r.Samples)
			}
		}
		series = append(series, s)
	}
	return series
}

// medianRun is the index of the run whose 99.9th percentile is the median
// of the runs' (the lower of the middle two for an even count; the earlier
// seed among equal percentiles).
func medianRun(runs []*sim.WorkloadReport) int {
	idx := make([]int, len(runs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(runs[a].Latency.P999, runs[b].Latency.P999) })
	return idx[(len(idx)-1)/2]
}

func sliceMs(s time.Duration, m machine) string {
	if s == 0 {
		return fmt.Sprintf("(default)%.1f", m.baseSlice().Seconds()*1000)
	}
	return fmt.Sprintf("%.0f", s.Seconds()*1000)
}

// threadColumns are the three columns of the threads' tables: the kernel
// before the patch with its default slices, the same with the threads'
// custom slices (8 ms for cyclictest, 20 ms for hackbench), and the patch.
func threadColumns(before, patched, patchTitle string) []latencyColumn {
	const ct, hb = 8 * time.Millisecond, 20 * time.Millisecond
	return []latencyColumn{
		{title: "before, defaults", tokens: before, slug: "default-slices"},
		{title: "before", tokens: before, ctSlice: ct, hbSlice: hb, slug: "before"},
		{title: patchTitle, tokens: patched, ctSlice: ct, hbSlice: hb, slug: "patched"},
	}
}

// lower is the figure of a statistic the patch (column 2) lowered against
// the baseline with the same slices (column 1), according to the thread.
func lower(claim, name string, cols []latencyColumn, sums [][]sim.LatencySummary, stat func(sim.LatencySummary) uint64) *figure {
	f := &figure{claim: claim, name: name, durations: true, base: cols[1].title, patch: cols[2].title, format: usf}
	for _, s := range sums {
		b, p := stat(s[1]), stat(s[2])
		f.add(float64(b), float64(p), p < b)
	}
	return f
}

func p999(s sim.LatencySummary) uint64   { return s.P999 }
func maxLat(s sim.LatencySummary) uint64 { return s.Max }

// seed000Columns are seed 000's sides: without DELAY_LAG_FLOOR (twice,
// with the default and the custom slices) and with it.
func seed000Columns() []latencyColumn {
	return threadColumns("NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED", "NO_PREEMPT_FLUSH_DELAYED", "+DELAY_LAG_FLOOR")
}

// seed002Columns are seed 002's sides: without PREEMPT_FLUSH_DELAYED
// (twice, with the default and the custom slices) and with it.
func seed002Columns() []latencyColumn {
	return threadColumns("NO_PREEMPT_FLUSH_DELAYED", "", "+FLUSH_DELAYED")
}

// seed000: DELAY_LAG_FLOOR. Baseline: the kernel of the thread (no floor;
// the wakeup-check flush of seed 002 did not exist yet either).
func seed000(o options, w io.Writer, progress func(float64)) ([]*figure, error) {
	d := 60 * time.Second
	if o.quick {
		d = 10 * time.Second
	}
	cols := seed000Columns()
	s, err := runLatency(o, w, progress, "000", d, cols)
	if err != nil {
		return nil, err
	}
	printBesideThread(w, o, cols, s, thread000)
	return []*figure{
		lower("99.9th percentile wakeup latency lower with DELAY_LAG_FLOOR (thread: 2707 -> 1300 us)", "p99.9 wakeup latency", cols, s, p999),
	}, nil
}

// seed002: PREEMPT_FLUSH_DELAYED, on the modelled kernel (the floor of
// seed 000 is merged).
func seed002(o options, w io.Writer, progress func(float64)) ([]*figure, error) {
	d := 63 * time.Second // the thread's -D 63
	if o.quick {
		d = 10 * time.Second
	}
	cols := seed002Columns()
	if o.eas {
		return seed002EAS(o, w, progress, d, cols)
	}
	s, err := runLatency(o, w, progress, "002", d, cols)
	if err != nil {
		return nil, err
	}
	printBesideThread(w, o, cols, s, thread002)
	return []*figure{
		lower("99.9th percentile wakeup latency lower with PREEMPT_FLUSH_DELAYED (thread: 2288 -> 727 us)", "p99.9 wakeup latency", cols, s, p999),
		lower("maximum wakeup latency lower with PREEMPT_FLUSH_DELAYED (thread: 9252 -> 7461 us)", "maximum wakeup latency", cols, s, maxLat),
	}, nil
}
