package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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
  --trace FILE    also write a Chrome/Perfetto trace (needs "trace": true):
                  a track per CPU, migration arrows between them
  --seed N        override the configuration's seed
  --quiet         no progress bar
`

func simCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	jsonOut := fs.String("json", "", "")
	csvOut := fs.String("csv", "", "")
	traceOut := fs.String("trace", "", "")
	seed := fs.Int64("seed", -1, "")
	quiet := fs.Bool("quiet", false, "")
	files, code, done := parseArgs(fs, args, 1, "configuration file", simHelp, stdout, stderr)
	if done {
		return code
	}
	cfg, err := sim.LoadConfig(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "fairclass sim: %v\n", err)
		return 1
	}
	if *seed >= 0 {
		cfg.Seed = uint64(*seed)
	}
	if !*quiet {
		start := time.Now()
		cfg.Progress = func(frac float64) {
			if time.Since(start) > time.Second {
				n := int(frac * 30)
				fmt.Fprintf(stderr, "\rsimulating [%s%s] %3d%%", strings.Repeat("=", n), strings.Repeat(" ", 30-n), int(frac*100))
				if frac >= 1 {
					fmt.Fprint(stderr, "\r"+strings.Repeat(" ", 50)+"\r")
				}
			}
		}
	}
	r, err := sim.Simulate(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "fairclass sim: %s: %v\n", filepath.Base(files[0]), err)
		return 1
	}
	w := bufio.NewWriter(stdout)
	if err := r.WriteText(w); err != nil {
		fmt.Fprintf(stderr, "fairclass sim: %v\n", err)
		return 1
	}
	w.Flush()
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{*jsonOut, r.WriteJSON}, {*csvOut, r.WriteCSV}, {*traceOut, r.WriteTrace}} {
		if out.path == "" {
			continue
		}
		if err := writeFile(out.path, out.write); err != nil {
			fmt.Fprintf(stderr, "fairclass sim: %v\n", err)
			return 1
		}
	}
	return 0
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
