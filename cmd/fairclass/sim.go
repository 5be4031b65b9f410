package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/sim"
)

const simHelp = `Usage: fairclass sim CONFIG.json [flags]

Runs the simulation that CONFIG.json describes (the schema is in the
documentation of sim.ParseConfig; sim/testdata/config.json uses every
field) and prints its report: totals, on several CPUs the placements by
rule and the migrations by cause, each workload's latency table in the
cyclictest layout, and perf sched latency's table of every task.

The machine is "cpus": N (N single-thread cores in one LLC) or "machine":
{"packages", "llcs_per_package", "cores_per_llc", "threads_per_core",
"numbering": "linear"|"x86"} (sim/testdata/machine.json: two sockets of
four SMT cores); "nohz": "off" (default: every CPU ticks) or "idle";
"preset": "warm" (default) or "boot". Wakeup and fork placement are the
kernel's (package smp).

Flags:
  --json FILE     also write the whole report as JSON
  --csv FILE      also write every metric as CSV
  --trace FILE    also write a Chrome/Perfetto trace (turns "trace" on): a
                  track per CPU, migration arrows between them
  --ftrace FILE   also write the run as raw ftrace text (sched_switch,
                  sched_wakeup, sched_wakeup_new, sched_migrate_task and the
                  tick's hrtimer_expire_entry at the simulated ns), the
                  format "fairclass trace replay" reads
  --seed N        override the configuration's seed, 0..18446744073709551615
  --kernel K      override the configuration's "kernel": v7.3 (default),
                  v7.1, v7.0, v6.18, v6.12 or v6.6; the configuration's
                  "features" stay the same changes, applied to K's defaults
  --quiet         no progress bar (there is none unless standard error is
                  a terminal)

The configuration, the simulation it describes and the output files are
checked before the simulation runs: a file that cannot be written is an
error at once. Configuration errors are FILE:LINE:COL: reason.
`

func simCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	jsonOut := &output{flag: "--json"}
	csvOut := &output{flag: "--csv"}
	traceOut := &output{flag: "--trace"}
	ftraceOut := &output{flag: "--ftrace"}
	fs.StringVar(&ftraceOut.path, "ftrace", "", "")
	fs.StringVar(&jsonOut.path, "json", "", "")
	fs.StringVar(&csvOut.path, "csv", "", "")
	fs.StringVar(&traceOut.path, "trace", "", "")
	seed := fs.String("seed", "", "")
	quiet := fs.Bool("quiet", false, "")
	kernel := fs.String("kernel", "", "")
	files, code, done := parseArgs(fs, args, 1, "configuration file", simHelp, stdout, stderr)
	if done {
		return code
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "fairclass sim: "+format+"\n", args...)
		return code
	}
	var seedValue uint64
	if given(fs, "seed") {
		v, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			return fail(2, "--seed %s: want an integer 0..%d", *seed, uint64(math.MaxUint64))
		}
		seedValue = v
	}
	var kernelValue eevdf.Kernel
	if given(fs, "kernel") {
		k, err := eevdf.ParseKernel(*kernel)
		if err != nil {
			return fail(2, "--kernel: %v", err)
		}
		kernelValue = k
	}

	// Everything is checked before the simulation runs: the
	// configuration, the simulation it describes (sim.New), then the
	// output files, which are opened.
	cfg, err := sim.LoadConfig(files[0])
	var ce *sim.ConfigError
	if errors.As(err, &ce) {
		fmt.Fprintln(stderr, err) // FILE:LINE:COL: reason, as replay prints a scenario's errors
		return 1
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	if given(fs, "seed") {
		cfg.Seed = seedValue
	}
	if given(fs, "kernel") {
		if err := sim.SetKernel(&cfg, kernelValue); err != nil {
			return fail(1, "%s: --kernel: %v", files[0], err)
		}
	}
	if traceOut.path != "" {
		cfg.Trace = true // recording the schedule changes none of it
	}
	if !*quiet {
		cfg.Progress = progressBar(stderr)
	}
	s, err := sim.New(cfg)
	if err != nil {
		return fail(1, "%s: %s", files[0], reason(err, "sim"))
	}
	outs := []*output{jsonOut, csvOut, traceOut, ftraceOut}
	if err := openOutputs(outs, func(f string) bool { return given(fs, f[2:]) }, files[0]); err != nil {
		return fail(1, "%v", err)
	}
	if ftraceOut.f != nil {
		// The text is written as the run goes (the simulator buffers
		// it and flushes it at the end of the run).
		w, err := ftraceOut.writer()
		if err == nil {
			err = s.WriteFtrace(w)
		}
		if err != nil {
			discard(outs)
			return fail(1, "%v", err)
		}
	}
	r, err := s.Run()
	if err != nil {
		discard(outs)
		return fail(1, "%s: %s", files[0], reason(err, "sim"))
	}
	if err := ftraceOut.close(); err != nil {
		discard(outs)
		return fail(1, "--ftrace %s: %v", ftraceOut.path, err)
	}
	w := bufio.NewWriter(stdout)
	if err := r.WriteText(w); err != nil {
		discard(outs)
		return fail(1, "%v", err)
	}
	w.Flush()
	for _, out := range []struct {
		o     *output
		write func(io.Writer) error
	}{{jsonOut, r.WriteJSON}, {csvOut, r.WriteCSV}, {traceOut, r.WriteTrace}} {
		if out.o.f == nil {
			continue
		}
		if err := out.o.write(out.write); err != nil {
			discard(outs)
			return fail(1, "%v", err)
		}
	}
	return 0
}

// progressBar returns the simulation's progress callback: a bar redrawn
// in place with \r once a run has taken a second, when w is a terminal;
// nil (no progress at all) when it is not, as in a pipe or a log file.
func progressBar(w io.Writer) func(frac float64) {
	if !isTerminal(w) {
		return nil
	}
	start := time.Now()
	return func(frac float64) {
		if time.Since(start) > time.Second {
			n := int(frac * 30)
			fmt.Fprintf(w, "\rsimulating [%s%s] %3d%%", strings.Repeat("=", n), strings.Repeat(" ", 30-n), int(frac*100))
			if frac >= 1 {
				fmt.Fprint(w, "\r"+strings.Repeat(" ", 50)+"\r")
			}
		}
	}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
