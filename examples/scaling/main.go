// Command scaling runs one hackbench on machines of 1, 2, 4, 8, 16 and 64
// CPUs and prints a markdown table of what the simulated kernel did and
// what the simulation cost: hackbench's completion time, the context
// switches and migrations, the scheduler events processed, and the wall
// time and event rate of the simulation on the computer running it.
//
//	go run ./examples/scaling                       # the table (a minute or two)
//	go run ./examples/scaling --machine smt         # SMT machines instead
//	go run ./examples/scaling --cpus 1,8 --loops 100
//
// Flags:
//
//	--cpus LIST     CPU counts (default 1,2,4,8,16,64)
//	--machine KIND  llc (default): N single-thread cores sharing one LLC,
//	                so that only the CPU count changes from row to row;
//	                smt: N/2 cores of two SMT threads sharing one LLC,
//	                numbered as x86 numbers them (one CPU: one core)
//	--groups N      hackbench -g (default 16)
//	--fds N         hackbench -f (default 20)
//	--loops N       hackbench -l (default 5000)
//	--pipe          hackbench -p: pipes instead of sockets
//	--seed N        the simulation seed (default 1)
//
// Every machine runs the same hackbench (process mode, the simulator's
// default costs of 2 µs per write and per read), every CPU ticking
// (HZ=1000), a warm start, a context switch of 2 µs and the tasks created
// within 1 ms, as examples/seeds runs them. The simulated columns are
// deterministic for a seed; the wall time and the event rate are this
// computer's. The runs are sequential, so that each has the computer to
// itself; progress goes to stderr.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/topology"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line.
type options struct {
	cpus               []int
	smt                bool
	groups, fds, loops int
	pipe               bool
	seed               uint64
	progressEvery      time.Duration // how often the progress line is redrawn
	wall               func() time.Time
}

// stopTime bounds each run's simulated time; hackbench ends long before.
const stopTime = time.Hour

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scaling", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{progressEvery: 200 * time.Millisecond, wall: time.Now}
	cpus := fs.String("cpus", "1,2,4,8,16,64", "CPU counts, comma separated")
	kind := fs.String("machine", "llc", "llc: single-thread cores in one LLC; smt: two-thread cores in one LLC")
	fs.IntVar(&o.groups, "groups", 16, "hackbench -g")
	fs.IntVar(&o.fds, "fds", 20, "hackbench -f")
	fs.IntVar(&o.loops, "loops", 5000, "hackbench -l")
	fs.BoolVar(&o.pipe, "pipe", false, "hackbench -p")
	fs.Uint64Var(&o.seed, "seed", 1, "the simulation seed")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "scaling: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := o.parse(*cpus, *kind); err != nil {
		fmt.Fprintln(stderr, "scaling:", err)
		return 2
	}
	if err := o.table(stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "scaling:", err)
		return 1
	}
	return 0
}

// parse checks the flags that need more than their type.
func (o *options) parse(cpus, kind string) error {
	switch kind {
	case "llc":
	case "smt":
		o.smt = true
	default:
		return fmt.Errorf("--machine %q: want llc or smt", kind)
	}
	for _, f := range strings.Split(cpus, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > topology.MaxCPUs {
			return fmt.Errorf("--cpus: %q is not a CPU count from 1 to %d", f, topology.MaxCPUs)
		}
		if o.smt && n > 1 && n%2 != 0 {
			return fmt.Errorf("--cpus: %d CPUs do not make two-thread cores (--machine smt)", n)
		}
		o.cpus = append(o.cpus, n)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"--groups", o.groups}, {"--fds", o.fds}, {"--loops", o.loops}} {
		if c.v < 1 {
			return fmt.Errorf("%s %d: want at least 1", c.name, c.v)
		}
	}
	// The messages are counted in an int: keep them far from overflow.
	if m := int64(o.groups) * int64(o.fds) * int64(o.fds) * int64(o.loops); o.groups > 1<<20 || o.fds > 1<<20 || o.loops > 1<<30 || m > 1<<40 {
		return fmt.Errorf("hackbench -g %d -f %d -l %d: too many messages", o.groups, o.fds, o.loops)
	}
	return nil
}

// machine is the machine of n CPUs.
func (o *options) machine(n int) topology.Machine {
	if o.smt && n > 1 {
		return topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: n / 2, ThreadsPerCore: 2, Numbering: topology.X86}
	}
	return topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: n, ThreadsPerCore: 1}
}

// hackbench is the workload, the same on every machine.
func (o *options) hackbench() *sim.HackbenchWorkload {
	return sim.Hackbench(o.groups, o.fds, o.loops, o.pipe, false, sim.TaskOptions{})
}

// config is the run on n CPUs.
func (o *options) config(n int) sim.Config {
	return sim.Config{
		Seed:        o.seed,
		Machine:     o.machine(n),
		Duration:    stopTime,
		HZ:          1000,
		SwitchCost:  2 * time.Microsecond,
		StartJitter: time.Millisecond,
		Workloads:   []sim.Workload{o.hackbench()},
	}
}

// row is one machine's measurements.
type row struct {
	cpus    int
	machine string
	report  *sim.Report
	wall    time.Duration
}

// table runs every machine in turn and prints the table.
func (o *options) table(stdout, stderr io.Writer) error {
	hb := o.hackbench()
	transport := "sockets"
	if o.pipe {
		transport = "pipes"
	}
	layout := "N single-thread cores in one LLC"
	if o.smt {
		layout = "N/2 cores of two SMT threads in one LLC, x86 numbering"
	}
	var rows []row
	start := o.wall()
	for i, n := range o.cpus {
		drawn := false
		r, wall, err := o.measure(n, func(frac float64) {
			fmt.Fprintf(stderr, "\rscaling: %d of %d, %d CPU(s): %3.0f%%", i+1, len(o.cpus), n, 100*frac)
			drawn = true
		})
		if drawn {
			fmt.Fprintf(stderr, "\r%s\r", strings.Repeat(" ", 50))
		}
		if err != nil {
			return fmt.Errorf("%d CPUs: %w", n, err)
		}
		fmt.Fprintf(stderr, "scaling: %d CPU(s) done in %.1f s of wall time\n", n, wall.Seconds())
		rows = append(rows, row{n, o.machine(n).String(), r, wall})
	}

	fmt.Fprintf(stdout, "hackbench -g %d -f %d -l %d, processes over %s: %d tasks, %d messages; simulation seed %d\n",
		o.groups, o.fds, o.loops, transport, 2*o.groups*o.fds, hb.Messages(), o.seed)
	fmt.Fprintf(stdout, "machines: %s; every CPU ticking (HZ=1000), warm start, context switch 2µs, tasks created within 1ms\n\n", layout)
	fmt.Fprintln(stdout, "| CPUs | machine | hackbench time | context switches | migrations | events | wall time | events/s |")
	fmt.Fprintln(stdout, "|---:|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		w := r.report.Workloads[0]
		fmt.Fprintf(stdout, "| %d | %s | %.3f s | %d | %d | %d | %.1f s | %.1f M |\n", r.cpus, r.machine,
			float64(w.RunTimeNs)/1e9, r.report.ContextSwitches, r.report.Migrations, r.report.Events,
			r.wall.Seconds(), float64(r.report.Events)/r.wall.Seconds()/1e6)
	}
	fmt.Fprintf(stdout, "\nwall time in all: %.1f s\n", o.wall().Sub(start).Seconds())
	return nil
}

// measure runs the hackbench on n CPUs to completion, reporting the
// fraction of its messages received so far to progress about every
// progressEvery of wall time, and returns the report and the wall time.
func (o *options) measure(n int, progress func(float64)) (*sim.Report, time.Duration, error) {
	start := o.wall()
	s, err := sim.New(o.config(n))
	if err != nil {
		return nil, 0, err
	}
	total := float64(o.hackbench().Messages())
	last := start
	for steps := 1; ; steps++ {
		more, err := s.Step()
		if err != nil {
			return nil, 0, err
		}
		if !more {
			break
		}
		// A report costs a pass over the tasks: look at the clock only
		// every few thousand steps, and take one only when it is time.
		if steps%4096 == 0 {
			if now := o.wall(); now.Sub(last) >= o.progressEvery {
				last = now
				var got uint64
				for _, c := range s.Report().Channels {
					got += c.Received
				}
				progress(float64(got) / total)
			}
		}
	}
	wall := o.wall().Sub(start)
	r := s.Report()
	if len(r.Workloads) != 1 || !r.Workloads[0].Done {
		return nil, 0, fmt.Errorf("hackbench did not finish within %v of simulated time", stopTime)
	}
	return r, wall, nil
}
