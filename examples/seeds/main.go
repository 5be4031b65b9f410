// Command seeds reproduces the measurements of the four seed threads on
// the simulator, each with its toggle off (the kernel before the patch, or
// without it) and on, on the same workload, in several simulation seeds.
// A thread's figure is a claim about a distribution: for each figure the
// command prints the median and the 10th–90th percentile range of each
// side over the seeds, and in how many seeds the thread's direction holds.
// A direction is reproduced when it holds in at least 8 of 10 seeds (80 %
// of them for another count). The thread-style tables are printed for the
// first seed.
//
//	go run ./examples/seeds            # the full runs, 10 seeds (several minutes)
//	go run ./examples/seeds --quick    # shorter runs, 3 seeds (seconds)
//	go run ./examples/seeds --seeds 000,004 --runs 20 --out results
//
// Flags:
//
//	--quick       short runs over 3 seeds, as CI uses them; their tables
//	              can point the other way from the full run's, and the
//	              output says so above them
//	--seed N      the first simulation seed (default 1); the others follow it
//	--runs N      simulation seeds per side, 1 to 1000 (default 10, 3 with
//	              --quick; only an absent flag means the default)
//	--seeds LIST  which experiments to run: 000, 002, 003, 004 (default all),
//	              each at most once
//	--out DIR     also write every run's report (JSON, CSV) and PNG plots:
//	              latency tails (1 − CDF, log scale, every seed), each
//	              figure's per-seed values (figure1, figure2, … in the order
//	              the verdicts are printed) and seed 004's CPU shares; for
//	              them seeds 000 and 002 run their default-slice column in
//	              every seed, which otherwise only the first seed's table
//	              needs
//	--quiet       no progress output; without it, a progress bar when
//	              stderr is a terminal, a line per quarter of a long
//	              experiment otherwise
//	--kernel K    the kernel preset: v7.3 (the default, the modelled
//	              kernel), v7.1, v7.0, v6.18, v6.12 or v6.6; the header
//	              names any other, and an experiment the kernel cannot run
//	              is printed as not run, with the reasons (kernel.go);
//	              the others run that kernel's fair class on every CPU
//	--eas         seed 002 also runs its two custom-slice sides with EAS
//	              on (the RB5's energy model, energy.RB5, attached) in
//	              every seed, prices every run of it by that model
//	              (energy at schedutil's states, time at max frequency),
//	              prints the comparison and the thread's directions with
//	              EAS on, and with --out plots energy against p99.9
//	              wakeup latency (seed002-energy-latency.png)
//
// A flag given with a value it cannot take (--runs 0, --out "", --seeds
// 000,000) is an error reported before any simulation, with exit status 2.
//
// Each experiment runs on the machine its thread describes, as far as the
// text allows (machine.go: CPUs, LLCs, SMT siblings, each detail with the
// words of the thread it comes from), and prints it with what it stands
// for, what is assumed and what the simulator does not model. A direction
// that does not reproduce is printed as such; the workloads are the
// threads' own, with parameters taken from the threads, not adjusted to
// agree.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/sim"
)

// options are the command line.
type options struct {
	quick bool
	quiet bool
	seed  uint64 // the first simulation seed
	runs  int    // simulation seeds per side
	out   string
	seeds map[string]bool
	// kernel is the preset the experiments run under (--kernel).
	kernel eevdf.Kernel
	// eas runs seed 002 with energy-aware scheduling too (--eas).
	eas bool
}

// seedList is the simulation seeds, in order: seed, seed+1, …
func (o options) seedList() []uint64 {
	l := make([]uint64, o.runs)
	for i := range l {
		l[i] = o.seed + uint64(i)
	}
	return l
}

// seedsText names the simulation seeds for the output.
func (o options) seedsText() string {
	if o.runs == 1 {
		return fmt.Sprintf("simulation seed %d only", o.seed)
	}
	return fmt.Sprintf("%d simulation seeds, %d to %d", o.runs, o.seed, o.seed+uint64(o.runs)-1)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// experiment is one seed thread's measurement: it runs both sides in every
// simulation seed and returns the thread's figures.
type experiment struct {
	id    string
	title string
	run   func(o options, w io.Writer, progress func(float64)) ([]*figure, error)
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
	var list, kernel string
	fs.BoolVar(&o.quick, "quick", false, "short runs (seconds), as CI uses them")
	fs.Uint64Var(&o.seed, "seed", 1, "the first simulation seed")
	fs.IntVar(&o.runs, "runs", 10, "simulation seeds per side, 1 to 1000 (3 with --quick unless given)")
	fs.StringVar(&list, "seeds", "000,002,003,004", "experiments to run, comma separated")
	fs.StringVar(&o.out, "out", "", "directory for JSON and CSV reports and PNG plots")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress output")
	fs.BoolVar(&o.eas, "eas", false, "seed 002 also runs its custom-slice sides with the RB5 energy model (EAS on) and prices every run")
	fs.StringVar(&kernel, "kernel", eevdf.KernelV73.String(), "the kernel preset: v7.3, v7.1, v7.0, v6.18, v6.12 or v6.6")
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
	// Only an absent flag takes the default: a value given is used as
	// given, or refused.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case given["runs"] && (o.runs < 1 || o.runs > 1000):
		fmt.Fprintf(stderr, "seeds: --runs %d: want 1 to 1000 seeds\n", o.runs)
		return 2
	case !given["runs"] && o.quick:
		o.runs = 3
	}
	if given["out"] && o.out == "" {
		fmt.Fprintln(stderr, `seeds: --out "": want a directory (leave the flag out to write no files)`)
		return 2
	}
	k, err := eevdf.ParseKernel(kernel)
	if err != nil {
		fmt.Fprintf(stderr, "seeds: --kernel %q: want v7.3, v7.1, v7.0, v6.18, v6.12 or v6.6\n", kernel)
		return 2
	}
	o.kernel = k
	if o.seed > ^uint64(0)-uint64(o.runs) {
		fmt.Fprintf(stderr, "seeds: --seed %d: the %d seeds from it overflow 64 bits\n", o.seed, o.runs)
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
		if o.seeds[s] {
			fmt.Fprintf(stderr, "seeds: --seeds %q: seed %s is listed twice\n", list, s)
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
	fmt.Fprintf(stdout, "fairclass seed experiments: %s, %s%s\n", mode, o.seedsText(), kernelHeader(o.kernel))
	if o.quick {
		io.WriteString(stdout, quickWarning)
	}
	var all []*figure
	var notRun []string
	for _, e := range experiments {
		if !o.seeds[e.id] {
			continue
		}
		fmt.Fprintf(stdout, "\n=== seed %s: %s\n", e.id, e.title)
		if why := kernelLimits(e.id, o.kernel); len(why) > 0 {
			printNotRun(stdout, o.kernel, why)
			notRun = append(notRun, e.id)
			continue
		}
		bar := newProgress(stderr, "seed "+e.id, progressMode(o, stderr))
		figs, err := e.run(o, stdout, bar.update)
		bar.done()
		if err != nil {
			fmt.Fprintf(stderr, "seeds: %s: %v\n", e.id, err)
			return 1
		}
		for i, f := range figs {
			f.print(stdout)
			if err := f.plot(o, fmt.Sprintf("seed%s-figure%d-per-seed.png", e.id, i+1)); err != nil {
				fmt.Fprintf(stderr, "seeds: %s: %v\n", e.id, err)
				return 1
			}
		}
		all = append(all, figs...)
	}
	n := 0
	for _, f := range all {
		if f.reproduced() {
			n++
		}
	}
	if len(all) > 0 || len(notRun) == 0 {
		fmt.Fprintf(stdout, "\n%d of %d reported directions reproduced: each holds in at least 80%% of the %s.\n", n, len(all), o.seedsText())
	} else {
		fmt.Fprintln(stdout)
	}
	if len(notRun) > 0 {
		fmt.Fprintf(stdout, "not run under %v: %s (the reasons are above).\n", o.kernel, seedList(notRun))
	}
	return 0
}

func mark(ok bool) string {
	if ok {
		return "[reproduced]    "
	}
	return "[NOT reproduced]"
}

// quickWarning stands above the tables of a --quick run: a short run on
// a smaller machine is a smoke test, not a measurement, and its tables
// can contradict the full run's. The example is simulation seed 1's.
const quickWarning = `warning: --quick runs are shorter and, for seeds 000 and 002, on 2 CPUs instead of 8: their tables
  can point the other way from the full run's. Seed 000's custom-slice "before" column, simulation
  seed 1: maximum +209 % against the default slices in the quick table, -47 % in the full run.
`

// How progress is shown.
type progressStyle int

const (
	progressNone  progressStyle = iota // --quiet
	progressLines                      // stderr is a file or a pipe: a line per quarter
	progressBar                        // stderr is a terminal: a bar redrawn in place
)

// progressMode is --quiet's choice, or else the terminal's: a bar drawn
// with carriage returns only where a terminal interprets them.
func progressMode(o options, stderr io.Writer) progressStyle {
	switch {
	case o.quiet:
		return progressNone
	case isTerminal(stderr):
		return progressBar
	}
	return progressLines
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress reports an experiment's progress on stderr once it has run for
// a second: as a bar redrawn in place, or as a plain line at each quarter.
type progress struct {
	w     io.Writer
	label string
	style progressStyle
	start time.Time
	drawn bool
	last  int
}

func newProgress(w io.Writer, label string, style progressStyle) *progress {
	return &progress{w: w, label: label, style: style, start: time.Now(), last: -1}
}

func (p *progress) update(frac float64) {
	if p.style == progressNone || time.Since(p.start) < time.Second {
		return
	}
	pct := int(frac * 100)
	if p.style == progressLines {
		pct = pct / 25 * 25
	}
	if pct == p.last || (p.style == progressLines && pct == 0) {
		return
	}
	p.last = pct
	if p.style == progressLines {
		fmt.Fprintf(p.w, "%s: %d%%\n", p.label, pct)
		return
	}
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

// sweep runs the configurations in parallel with a progress callback,
// under the kernel of --kernel (underKernel).
func sweep(o options, cfgs []sim.Config, progress func(float64)) ([]*sim.Report, error) {
	if o.kernel != eevdf.KernelV73 {
		for i := range cfgs {
			if err := underKernel(&cfgs[i], o.kernel); err != nil {
				return nil, err
			}
		}
	}
	return sim.Sweep(cfgs, sim.SweepOptions{Progress: progress})
}

// underKernel moves one side of an experiment to kernel k. Its
// SCHED_FEATs keep their changes from the modelled kernel's defaults,
// applied to k's own (sim.SetKernel); its seed toggles are the experiment
// itself and keep their values, on or off: the patched side of seed 000
// has DELAY_LAG_FLOOR on under v7.0 too, although v7.0's own default is
// off and the side's tokens never name it (it is v7.3's default).
func underKernel(cfg *sim.Config, k eevdf.Kernel) error {
	side := *cfg.Features
	if err := sim.SetKernel(cfg, k); err != nil {
		return err
	}
	fs := *cfg.Features
	for _, f := range features.All() {
		if f.Seed() {
			fs = fs.Toggle(f, side.Has(f))
		}
	}
	cfg.Features = &fs
	return nil
}
