package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/topology"
)

// machine is the simulated computer of an experiment.
type machine struct {
	cpus int
	// switchCost is the CPU time of a context switch. The same 2 µs is used
	// by every experiment, baseline and patch alike: a typical cost of a
	// switch on the arm64 and x86 machines the threads measured on.
	switchCost time.Duration
}

const switchCost = 2 * time.Microsecond

// startJitter spreads the creation of the tasks over one tick (HZ=1000),
// drawn from the simulation seed: the phase of task creation against the
// tick and against each other is what differs between two runs of the
// same benchmark on a real machine, and it is what makes the seeds differ
// for workloads with no random phases of their own.
const startJitter = time.Millisecond

// baseSlice is sysctl_sched_base_slice as the kernel scales it with the
// default logarithmic tunable scaling, 0.7 ms · (1 + ilog2(min(cpus, 8))):
// the value the simulator gives every runqueue of the machine.
func (m machine) baseSlice() time.Duration {
	return time.Duration(topology.BaseSliceFor(m.cpus))
}

func (m machine) String() string {
	return fmt.Sprintf("%d CPU(s) (one LLC, no SMT), base slice %v, HZ=1000, context switch %v, tasks created within %v",
		m.cpus, m.baseSlice(), m.switchCost, startJitter)
}

// config is one run of the machine with one simulation seed. The machine
// is the simulator's default for a CPU count (one LLC of single-thread
// cores, every CPU ticking, a warm start), placed by package smp.
func (m machine) config(seed uint64, d time.Duration, fs features.Set, ws ...sim.Workload) sim.Config {
	return sim.Config{
		Seed:        seed,
		CPUs:        m.cpus,
		Duration:    d,
		Features:    &fs,
		HZ:          1000,
		SwitchCost:  m.switchCost,
		StartJitter: startJitter,
		Workloads:   ws,
	}
}

// parse is features.Parse for tokens known to be valid.
func parse(tokens string) features.Set {
	fs, err := features.Parse(tokens)
	if err != nil {
		panic(err) // the experiments' own tokens
	}
	return fs
}

// save writes a run's report as JSON and CSV into --out.
func save(o options, name string, r *sim.Report) error {
	if o.out == "" {
		return nil
	}
	for _, f := range []struct {
		ext   string
		write func(*os.File) error
	}{
		{".json", func(f *os.File) error { return r.WriteJSON(f) }},
		{".csv", func(f *os.File) error { return r.WriteCSV(f) }},
	} {
		file, err := os.Create(filepath.Join(o.out, name+f.ext))
		if err != nil {
			return err
		}
		err = f.write(file)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func ms(ns uint64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }
func us(ns uint64) string { return fmt.Sprintf("%d us", ns/1000) }
