package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/replay"
	"github.com/schedmodel/fairclass/sim/plot"
	"github.com/schedmodel/fairclass/trace"
)

const traceReplayHelp = `Usage: fairclass trace replay [flags] FILE

Replays a scheduling trace (any format "fairclass trace import" reads)
through the model and reports where the model's picks and the kernel's
recorded ones agree.

Mode a (pinned, the default) keeps the trace's placement: each CPU has
one runqueue, driven at the recorded times by the recorded wakeups,
sleeps, migrations and ticks (made every TICK_NSEC when the trace has
none); at each recorded switch the model picks, then the kernel's task
is forced, so the model never drifts. The report gives the pick agreement
overall, by cause (block, wakeup preemption, slice end, from idle) and
per CPU; whether the model asked for the kernel's preemptions; the first
disagreements with every runnable task's model vruntime, deadline, lag
and eligibility; each task's wakeup latency and run delay as the trace
recorded them; and the coverage (events used and dropped, switches left
out as inconsistent, of other classes or in the burn-in).

Mode b (free) turns each fair task into a simulator program (run as long
as the trace ran it between blocks; wait for the traced waker's message,
sent at the same point of the waker's run, or for the recorded time when
a timer, an interrupt or idle woke it) and runs them on as many CPUs with
the model's own placement, balancing and preemption; it reports run
time, switches, preemptions, wakeups, migrations, wakeup latency and run
delay, trace against model, overall and per task. --kernel sets the fair
class every simulated CPU follows; placement and balancing stay v7.3's.

Flags:
  --mode a|b          a: pinned (default); b: free, the model's own
                      placement (see below)
  --kernel v7.3|v7.1|v7.0|v6.18|v6.12|v6.6
                      the fair.c to follow, with its feature defaults and
                      base slice (default v7.3)
  --features TOKENS   debugfs tokens on top of the kernel's defaults, e.g.
                      "NO_RUN_TO_PARITY NO_DELAY_DEQUEUE"
  --compare TOKENS    mode b: run the model a second time with these
                      tokens on the kernel's defaults and show it beside
                      the first ("toggled")
  --plot FILE.png     also draw the replay as a PNG image: mode a, the
                      pick agreement over the trace's time (all CPUs and
                      each CPU) above the distributions of the trace's
                      wakeup latency and run delay; mode b, the wakeup
                      latency's CDF, trace against model (and toggled)
  --burn-in DUR       replay but do not score the first DUR of the trace
                      (e.g. 200ms; default 0)
  --hz N              TICK_NSEC's rate (default: from the trace's ticks,
                      else 1000)
  --cpus N            online CPUs, for the base slice's scaling (default:
                      the highest CPU in the trace, plus one)
  --examples N        disagreements shown in full (default 10)
  --tasks N           tasks in the latency table, busiest first (default
                      20; 0: all)
  --json              print the report as JSON instead
  --lenient           skip malformed lines of the trace
  --format NAME       ftrace, trace-cmd, perf, systrace or perfetto instead
                      of detecting it
`

func traceReplayCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	mode := fs.String("mode", "a", "")
	kernel := fs.String("kernel", "v7.3", "")
	feat := fs.String("features", "", "")
	compare := fs.String("compare", "", "")
	burnIn := fs.String("burn-in", "0", "")
	hz := fs.Int("hz", 0, "")
	cpus := fs.Int("cpus", 0, "")
	examples := fs.Int("examples", 10, "")
	tasks := fs.Int("tasks", 20, "")
	asJSON := fs.Bool("json", false, "")
	lenient := fs.Bool("lenient", false, "")
	format := fs.String("format", "", "")
	plotOut := &output{flag: "--plot"}
	fs.StringVar(&plotOut.path, "plot", "", "")
	pos, code, done := parseArgs(fs, args, 1, "trace file", traceReplayHelp, stdout, stderr)
	if done {
		return code
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "fairclass trace replay: "+format+"; see \"fairclass help trace\"\n", a...)
		return 2
	}
	switch *mode {
	case "a", "pinned":
	case "b", "model", "free":
	default:
		return usage("--mode %q: want a (pinned) or b (model)", *mode)
	}
	var opt replay.Options
	k, err := eevdf.ParseKernel(*kernel)
	if err != nil {
		return usage("--kernel: %v", err)
	}
	opt.Kernel = k
	base := features.Default()
	if k != eevdf.KernelV73 {
		if base, err = features.Preset(k.String()); err != nil {
			return usage("--kernel: %v", err)
		}
	}
	if *feat != "" {
		s, err := base.Apply(*feat)
		if err != nil {
			return usage("--features: %v", err)
		}
		opt.Features = &s
	}
	d, err := time.ParseDuration(*burnIn)
	if err != nil || d < 0 {
		return usage("--burn-in %q: want a duration such as 200ms", *burnIn)
	}
	opt.BurnIn = int64(d)
	switch {
	case *hz < 0 || *hz > 100000:
		return usage("--hz %d: want 1..100000, or 0 for the trace's own", *hz)
	case *cpus < 0 || *cpus > replay.MaxCPUs:
		return usage("--cpus %d: want 1..%d, or 0 for the trace's count", *cpus, replay.MaxCPUs)
	case *tasks < 0:
		return usage("--tasks %d: want 0 or more", *tasks)
	}
	opt.HZ, opt.CPUs = *hz, *cpus
	opt.Examples = *examples
	if *examples == 0 {
		opt.Examples = -1
	}

	if (*mode == "a" || *mode == "pinned") && *compare != "" {
		return usage("--compare is for mode b")
	}
	if *mode != "a" && *mode != "pinned" && (given(fs, "burn-in") || given(fs, "examples")) {
		return usage("--burn-in and --examples are for mode a")
	}
	var compareSet *features.Set
	if *compare != "" {
		c, err := base.Apply(*compare)
		if err != nil {
			return usage("--compare: %v", err)
		}
		compareSet = &c
	}
	// The image is opened before the trace is read, so that a path that
	// cannot be written fails at once; a file this run created is removed
	// again if it fails.
	outs := []*output{plotOut}
	if err := openOutputs(outs, func(f string) bool { return given(fs, f[2:]) }, pos[0]); err != nil {
		fmt.Fprintf(stderr, "fairclass trace replay: %v\n", err)
		return 1
	}
	defer discard(outs) // a no-op once the image is written

	topt := trace.Options{Lenient: *lenient, Name: pos[0]}
	if *format != "" {
		f, ok := traceFormats[*format]
		if !ok {
			return usage("unknown --format %q", *format)
		}
		topt.Format = f
	}
	var r *trace.Reader
	if pos[0] == "-" {
		topt.Name = "stdin"
		r, err = trace.NewReader(stdin, topt)
	} else {
		r, err = trace.Open(pos[0], topt)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fairclass trace replay: %v\n", err)
		return 1
	}
	defer r.Close()
	var evs []trace.Event
	for ev, err := range r.All() {
		if err != nil {
			fmt.Fprintf(stderr, "fairclass trace replay: %v\n", err)
			if errors.Is(err, trace.ErrSyntax) && !*lenient {
				fmt.Fprintln(stderr, "fairclass trace replay: --lenient skips malformed lines")
			}
			return 1
		}
		evs = append(evs, ev)
	}
	type report interface {
		WriteJSON(io.Writer) error
		WriteText(io.Writer, int) error
	}
	var rep report
	if *mode == "a" || *mode == "pinned" {
		rep, err = replay.Pinned(evs, opt)
	} else {
		opt.Compare = compareSet
		rep, err = replay.Free(evs, opt)
	}
	if errors.Is(err, replay.ErrOptions) {
		return usage("%v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fairclass trace replay: %v\n", err)
		return 1
	}
	w := bufio.NewWriter(stdout)
	if *asJSON {
		err = rep.WriteJSON(w)
	} else {
		fmt.Fprintf(w, "%s: %s, %d events\n", topt.Name, r.Format(), len(evs))
		err = rep.WriteText(w, *tasks)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(stderr, "fairclass trace replay: %v\n", err)
		return 1
	}
	if plotOut.f != nil {
		// Drawn in memory first: a replay with nothing to draw leaves no
		// file behind (discard removes one this run created).
		var img bytes.Buffer
		title := fmt.Sprintf("%s: %s", filepath.Base(topt.Name), r.Format())
		switch rep := rep.(type) {
		case *replay.Report:
			err = plot.PinnedReplay(&img, pinnedPlot(rep), plot.Options{Title: title + ", mode A (pinned), kernel " + rep.Kernel,
				OthersLabel: "thin lines: one task each", MaxPoints: 300})
		case *replay.FreeReport:
			err = freePlot(&img, rep, title)
		}
		if err == nil {
			err = plotOut.write(func(w io.Writer) error { _, err := img.WriteTo(w); return err })
		} else {
			err = fmt.Errorf("--plot %s: %s", plotOut.path, reason(err, "plot"))
		}
		if err != nil {
			fmt.Fprintf(stderr, "fairclass trace replay: %v\n", err)
			return 1
		}
	}
	return 0
}

// plotTasks bounds the tasks drawn one by one in mode A's latency panel.
const plotTasks = 8

// pinnedPlot is what --plot draws of a mode A replay: the agreement in
// the report's default windows, overall and (up to 16 CPUs) per CPU, and
// the CDFs of the trace's wakeup latencies and run delays over every fair
// task, with the busiest tasks' own as thin curves.
func pinnedPlot(r *replay.Report) plot.Pinned {
	width := r.TimelineWidth()
	line := func(name string, cpu int32) plot.Agreement {
		a := plot.Agreement{Name: name}
		for _, w := range r.Timeline(cpu, width) {
			a.TimesNs = append(a.TimesNs, w.Start-r.Start+width/2)
			v := math.NaN()
			if w.Scored > 0 {
				v = w.Percent()
			}
			a.Percent = append(a.Percent, v)
		}
		return a
	}
	p := plot.Pinned{
		AgreementTitle: fmt.Sprintf("pick agreement in windows of %s: %d of %d scored picks (%.2f%%)",
			time.Duration(width), r.Overall.Agreed, r.Overall.Scored, r.Overall.Percent()),
		Overall: line("all CPUs", -1),
	}
	if len(r.PerCPU) <= 16 {
		for _, c := range r.PerCPU {
			if c.Scored > 0 {
				p.PerCPU = append(p.PerCPU, line(fmt.Sprintf("CPU %d", c.CPU), c.CPU))
			}
		}
	}
	lat := slices.Clone(r.Latency)
	slices.SortStableFunc(lat, func(a, b replay.TaskLatency) int { return b.RunDelay.Count - a.RunDelay.Count })
	wake := plot.Series{Name: "wakeup to switch-in"}
	delay := plot.Series{Name: "runnable to switch-in"}
	for i, l := range lat {
		wake.Samples = appendNs(wake.Samples, l.WakeupSamples)
		delay.Samples = appendNs(delay.Samples, l.RunDelaySamples)
		if i < plotTasks && len(l.WakeupSamples) > 0 {
			wake.Others = append(wake.Others, appendNs(nil, l.WakeupSamples))
		}
		if i < plotTasks && len(l.RunDelaySamples) > 0 {
			delay.Others = append(delay.Others, appendNs(nil, l.RunDelaySamples))
		}
	}
	for _, s := range []plot.Series{wake, delay} {
		if len(s.Samples) > 0 {
			p.Latency = append(p.Latency, s)
		}
	}
	p.LatencyTitle = fmt.Sprintf("the trace's latencies over its %d fair tasks, and the %d busiest tasks' own", len(lat), min(len(lat), plotTasks))
	return p
}

// freePlot draws a mode B replay: the CDF of the wakeup latency over
// every task, trace against model (and the toggled model).
func freePlot(w io.Writer, r *replay.FreeReport, title string) error {
	var series []plot.Series
	for _, s := range []struct {
		name string
		xs   []int64
	}{{"trace", r.Samples.Trace}, {"model, kernel " + r.Kernel, r.Samples.Model}, {"model with " + cmp.Or(r.Compare, "the toggles"), r.Samples.Toggled}} {
		if len(s.xs) > 0 {
			series = append(series, plot.Series{Name: s.name, Samples: appendNs(nil, s.xs)})
		}
	}
	if len(series) == 0 {
		return errors.New("no wakeup latency in the trace or the model: nothing to draw")
	}
	return plot.FreeReplay(w, series, plot.Options{Title: title + ", mode B (free): wakeup latency over every task"})
}

// appendNs appends latencies to a plot's samples (a negative one, which a
// trace's clock should never give, as 0).
func appendNs(dst []uint64, xs []int64) []uint64 {
	for _, x := range xs {
		dst = append(dst, uint64(max(x, 0)))
	}
	return dst
}
