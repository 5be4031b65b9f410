package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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

func latencyMachine(o options) machine {
	if o.quick {
		return machine{cpus: 2, switchCost: switchCost}
	}
	return machine{cpus: 8, switchCost: switchCost} // the threads' Snapdragon RB5 has 8 CPUs
}

// runLatency simulates every column and prints the table; it returns the
// summaries in column order.
func runLatency(o options, w io.Writer, progress func(float64), id string, d time.Duration, cols []latencyColumn) ([]sim.LatencySummary, error) {
	m := latencyMachine(o)
	var cfgs []sim.Config
	for _, c := range cols {
		ct := sim.Cyclictest(1, 2777*time.Microsecond, sim.TaskOptions{Slice: c.ctSlice})
		hb := sim.Hackbench(2, 20, 16000000, true, true, sim.TaskOptions{Slice: c.hbSlice})
		cfgs = append(cfgs, m.config(o, d, parse(c.tokens), ct, hb))
	}
	reports, err := sweep(cfgs, progress)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "machine: %s; %v simulated\n", m, d)
	fmt.Fprintf(w, "workload: hackbench -T -p -l 16000000 -g 2 & cyclictest -t 1 -i 2777 --policy=fair\n\n")
	var table []sim.LatencyColumn
	var sums []sim.LatencySummary
	var series []plot.Series
	for i, r := range reports {
		ct := r.Workloads[0]
		table = append(table, sim.LatencyColumn{Title: cols[i].title, Summary: *ct.Latency})
		sums = append(sums, *ct.Latency)
		series = append(series, plot.Series{Name: cols[i].title, Samples: ct.Samples})
		if err := save(o, "seed"+id+"-"+cols[i].slug, r); err != nil {
			return nil, err
		}
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
		return nil, err
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
		f, err := os.Create(filepath.Join(o.out, "seed"+id+"-latency-cdf.png"))
		if err != nil {
			return nil, err
		}
		err = plot.LatencyCDF(f, series, plot.Options{Title: "seed " + id + ": cyclictest latency", LogX: true})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return sums, nil
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
		{title: "before", tokens: before, slug: "default-slices"},
		{title: "before", tokens: before, ctSlice: ct, hbSlice: hb, slug: "before"},
		{title: patchTitle, tokens: patched, ctSlice: ct, hbSlice: hb, slug: "patched"},
	}
}

// lower is the verdict that the patch (column 2) lowered a statistic
// against the baseline with the same slices (column 1).
func lower(claim string, s []sim.LatencySummary, stat func(sim.LatencySummary) uint64) verdict {
	return verdict{claim: claim, ok: stat(s[2]) < stat(s[1]), got: fmt.Sprintf("%s -> %s", us(stat(s[1])), us(stat(s[2])))}
}

func p999(s sim.LatencySummary) uint64   { return s.P999 }
func maxLat(s sim.LatencySummary) uint64 { return s.Max }

// seed000: DELAY_LAG_FLOOR. Baseline: the kernel of the thread (no floor;
// the wakeup-check flush of seed 002 did not exist yet either).
func seed000(o options, w io.Writer, progress func(float64)) ([]verdict, error) {
	d := 60 * time.Second
	if o.quick {
		d = 10 * time.Second
	}
	cols := threadColumns("NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED", "NO_PREEMPT_FLUSH_DELAYED", "+DELAY_LAG_FLOOR")
	s, err := runLatency(o, w, progress, "000", d, cols)
	if err != nil {
		return nil, err
	}
	return []verdict{
		lower("99.9th percentile wakeup latency lower with DELAY_LAG_FLOOR (thread: 2707 -> 1300 us)", s, p999),
	}, nil
}

// seed002: PREEMPT_FLUSH_DELAYED, on the modelled kernel (the floor of
// seed 000 is merged).
func seed002(o options, w io.Writer, progress func(float64)) ([]verdict, error) {
	d := 63 * time.Second // the thread's -D 63
	if o.quick {
		d = 10 * time.Second
	}
	cols := threadColumns("NO_PREEMPT_FLUSH_DELAYED", "", "+FLUSH_DELAYED")
	s, err := runLatency(o, w, progress, "002", d, cols)
	if err != nil {
		return nil, err
	}
	return []verdict{
		lower("99.9th percentile wakeup latency lower with PREEMPT_FLUSH_DELAYED (thread: 2288 -> 727 us)", s, p999),
		lower("maximum wakeup latency lower with PREEMPT_FLUSH_DELAYED (thread: 9252 -> 7461 us)", s, maxLat),
	}, nil
}
