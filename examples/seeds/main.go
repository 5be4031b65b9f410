// Command seeds reproduces the measurements of the four seed threads on
// the simulator, each with its toggle off (the kernel before the patch, or
// without it) and on, on the same workload and the same seed, and prints
// the thread-style tables side by side with the direction each thread
// reported and whether the simulation shows it.
//
//	go run ./examples/seeds            # the full runs (a minute or two)
//	go run ./examples/seeds --quick    # shorter runs (seconds)
//	go run ./examples/seeds --seeds 000,004 --out results
//
// Flags:
//
//	--quick       short runs, as CI uses them
//	--seed N      the simulation seed (default 1)
//	--seeds LIST  which experiments to run: 000, 002, 003, 004 (default all)
//	--out DIR     also write every run's report (JSON, CSV) and PNG plots
//
// The simulated machine is stated with each experiment. A direction that
// does not reproduce is printed as such; the workloads are the threads'
// own, with parameters taken from the threads, not adjusted to agree.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/sim"
)

// options are the command line.
type options struct {
	quick bool
	seed  uint64
	out   string
	seeds map[string]bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// experiment is one seed thread's measurement.
type experiment struct {
	id    string
	title string
	run   func(o options, w io.Writer, progress func(float64)) (verdicts []verdict, err error)
}

// verdict is one direction a thread reported, checked on the simulation.
type verdict struct {
	claim string // what the thread measured
	ok    bool   // the simulation shows the same direction
	got   string // what the simulation measured
}

var experiments = []experiment{
	{"000", `"sched: fair: Prevent negative lag increase during delayed dequeue"`, seed000},
	{"002", `"wakeup_preempt_fair: dequeue delayed entities when checking preemption"`, seed002},
	{"003", `"sched/fair: make task join/leave scheduling more stable" v3`, seed003},
	{"004", `"sched/fair: Forfeit vruntime on yield" and its variants`, seed004},
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("seeds", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var list string
	fs.BoolVar(&o.quick, "quick", false, "short runs (seconds), as CI uses them")
	fs.Uint64Var(&o.seed, "seed", 1, "simulation seed")
	fs.StringVar(&list, "seeds", "000,002,003,004", "experiments to run, comma separated")
	fs.StringVar(&o.out, "out", "", "directory for JSON and CSV reports and PNG plots")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "seeds: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	o.seeds = map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		known := false
		for _, e := range experiments {
			known = known || e.id == s
		}
		if !known {
			fmt.Fprintf(stderr, "seeds: unknown seed %q (want 000, 002, 003 or 004)\n", s)
			return 2
		}
		o.seeds[s] = true
	}
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			fmt.Fprintln(stderr, "seeds:", err)
			return 1
		}
	}

	mode := "full runs"
	if o.quick {
		mode = "quick runs (--quick)"
	}
	fmt.Fprintf(stdout, "fairclass seed experiments: %s, seed %d\n", mode, o.seed)
	var all []verdict
	for _, e := range experiments {
		if !o.seeds[e.id] {
			continue
		}
		fmt.Fprintf(stdout, "\n=== seed %s: %s\n", e.id, e.title)
		bar := newProgress(stderr, "seed "+e.id)
		vs, err := e.run(o, stdout, bar.update)
		bar.done()
		if err != nil {
			fmt.Fprintf(stderr, "seeds: %s: %v\n", e.id, err)
			return 1
		}
		for _, v := range vs {
			fmt.Fprintf(stdout, "  %s %s: %s\n", mark(v.ok), v.claim, v.got)
		}
		all = append(all, vs...)
	}
	n := 0
	for _, v := range all {
		if v.ok {
			n++
		}
	}
	fmt.Fprintf(stdout, "\n%d of %d reported directions reproduced.\n", n, len(all))
	return 0
}

func mark(ok bool) string {
	if ok {
		return "[reproduced]    "
	}
	return "[NOT reproduced]"
}

// progress draws a bar on stderr for runs that take longer than a second.
type progress struct {
	w     io.Writer
	label string
	start time.Time
	drawn bool
	last  int
}

func newProgress(w io.Writer, label string) *progress {
	return &progress{w: w, label: label, start: time.Now(), last: -1}
}

func (p *progress) update(frac float64) {
	if time.Since(p.start) < time.Second {
		return
	}
	pct := int(frac * 100)
	if pct == p.last {
		return
	}
	p.last = pct
	const width = 30
	n := min(width, pct*width/100)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%%", p.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), pct)
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", len(p.label)+40))
	}
}

// sweep runs the configurations in parallel with a progress callback.
func sweep(cfgs []sim.Config, progress func(float64)) ([]*sim.Report, error) {
	return sim.Sweep(cfgs, sim.SweepOptions{Progress: progress})
}
