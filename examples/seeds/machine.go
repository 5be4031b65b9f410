package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/topology"
)

// machine is the simulated computer of an experiment: the thread's own
// machine as far as its text describes it, with what the description
// leaves out or the simulator cannot model stated in the output.
type machine struct {
	// topo is the machine whose scheduling domains the simulator builds.
	topo topology.Machine
	// source says what the machine stands for and where that comes from:
	// the thread's words, or that it is an assumption.
	source string
	// unmodelled is what of the thread's machine the simulation lacks;
	// empty if nothing is known to be missing.
	unmodelled string
	// coreSched says its tasks carry cookies: smp's core scheduling runs
	// on the machine's SMT threads.
	coreSched bool
	// switchCost is the CPU time of a context switch. The same 2 µs is used
	// by every experiment, baseline and patch alike: a typical cost of a
	// switch on the arm64 and x86 machines the threads measured on.
	switchCost time.Duration
	// preset names the topology machine preset (its capacities; the shape
	// is topo's), "" for CPUs of capacity 1024.
	preset string
	// hz is the kernel's tick rate; 0 is 1000.
	hz int
	// timerSlack is every fair task's timer slack (0: timers fire on time)
	// and wakeupCost the time from a wakeup's request to its preemption
	// point (the interrupt and wakeup path), both Config's.
	timerSlack, wakeupCost time.Duration
	// kernel says what kernel configuration the settings above stand for,
	// "" for none in particular.
	kernel string
	// release is the kernel preset the experiment runs under (--kernel;
	// the zero value is the modelled v7.3): it sets the base slice the
	// description gives. sweep puts the runs themselves under it.
	release eevdf.Kernel
}

// under is the machine with its experiments run under kernel k.
func (m machine) under(k eevdf.Kernel) machine {
	m.release = k
	return m
}

const switchCost = 2 * time.Microsecond

// rb5Kernel is what the RB5's settings stand for.
const rb5Kernel = "arm64 defconfig (full preemption, HZ=250); cyclictest's default timer slack; wakeup path 4µs + the switch"

// oneLLC is n single-thread cores sharing one last-level cache.
func oneLLC(n int) topology.Machine {
	return topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: n, ThreadsPerCore: 1}
}

// The machines of the experiments.
var (
	// rb5 is the Qualcomm Robotics RB5 of seeds 000 and 002 ("Test on
	// snapdragon rb5" in both threads): a QRB5165 (Snapdragon 865), eight
	// Kryo 585 CPUs in one DynamIQ cluster sharing its L3, one thread per
	// core, so one LLC of eight single-thread cores and one MC domain. The
	// threads' tables agree on the count: their default slice, 2.8 ms,
	// is the kernel's for eight or more CPUs. The cores are of two kinds,
	// which the kernel sees as CPU capacities (SD_ASYM_CPUCAPACITY,
	// capacity-aware wakeup placement, misfit migration): the topology
	// preset "rb5" (KERNEL-SPEC-ASYM §10.1: 284 for CPUs 0–3, 871 for 4–6,
	// 1024 for the prime CPU 7). Its kernel is built from arm64's
	// defconfig (KERNEL-SPEC-PREEMPT §9.1): HZ 250 and full preemption;
	// cyclictest --policy=fair is a SCHED_OTHER task, which sleeps with
	// the default timer slack of 50 µs. The wakeup path (interrupt,
	// try_to_wake_up, the switch and the syscall return: about 6–7 µs by
	// the threads' median, §7.4) is the 2 µs switch and a 4 µs wakeup cost.
	rb5 = machine{
		topo:       oneLLC(8),
		preset:     "rb5",
		source:     "the threads' Snapdragon RB5 (QRB5165): one cluster of 8 cores sharing its L3, no SMT; 4 little CPUs and 4 big ones",
		unmodelled: "frequency (every CPU at its highest), energy-aware placement, idle states",
		switchCost: switchCost,
		hz:         250,
		timerSlack: 50 * time.Microsecond,
		wakeupCost: 4 * time.Microsecond,
		kernel:     rb5Kernel,
	}
	// rb5Quick stands in for rb5 in --quick runs: the same workload on
	// fewer CPUs, one little and one big, simulates several times faster.
	rb5Quick = machine{
		topo:       oneLLC(2),
		preset:     "biglittle:1*284,1*1024",
		source:     "--quick: 2 CPUs (one little of capacity 284, one big) standing in for the threads' 8-CPU Snapdragon RB5, to keep the run short",
		switchCost: switchCost,
		hz:         250,
		timerSlack: 50 * time.Microsecond,
		wakeupCost: 4 * time.Microsecond,
		kernel:     rb5Kernel,
	}
	// assumed8 is seed 003's machine. The thread gives hackbench times
	// only and names no machine: eight CPUs in one LLC is an assumption.
	assumed8 = machine{
		topo:       oneLLC(8),
		source:     "an assumption: the thread names no machine",
		switchCost: switchCost,
	}
	// pinnedCPU is seed 004's yield experiment: "taskset -c 1 yield_loop &
	// taskset -c 1 stress --cpu 1" pins both tasks to CPU 1 of a machine
	// the thread does not name, so no other CPU can run either of them,
	// and one CPU is the part of the machine that schedules them. What the
	// other CPUs change is the base slice, which the kernel scales by the
	// number of online CPUs.
	pinnedCPU = machine{
		topo:       oneLLC(1),
		source:     "CPU 1 of the thread's unnamed machine, where taskset -c 1 pins both tasks",
		unmodelled: "its other CPUs (neither task may use them); the base slice, which the kernel scales with the CPU count, is one CPU's here",
		switchCost: switchCost,
	}
	// smtPair is seed 004's core-scheduling experiment: both programs run
	// under "taskset -c 0,1", and the thread's argument — "the core
	// scheduler picks the best task across the SMT mask, and then the
	// siblings run a matching task no matter what" — needs CPUs 0 and 1
	// to be the two SMT threads of one core. One core of two threads
	// builds an SMT domain spanning both, and the kernel's core
	// scheduling (package smp) runs its siblings once a task has a
	// cookie.
	smtPair = machine{
		topo:       topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 2},
		source:     "the thread's taskset -c 0,1: the two SMT siblings of one core, under core scheduling",
		unmodelled: "the rest of its unnamed machine (no task may use it); the base slice, which the kernel scales with the CPU count, is two CPUs' here",
		coreSched:  true,
		switchCost: switchCost,
	}
)

// startJitter spreads the creation of the tasks over 1 ms (a tick at HZ
// 1000, a quarter of one on the RB5 at HZ 250),
// drawn from the simulation seed: the phase of task creation against the
// tick and against each other is what differs between two runs of the
// same benchmark on a real machine, and it is what makes the seeds differ
// for workloads with no random phases of their own.
const startJitter = time.Millisecond

// cpus is the number of CPUs.
func (m machine) cpus() int { return m.topo.NumCPUs() }

// baseSlice is sysctl_sched_base_slice as the kernel scales it with the
// default logarithmic tunable scaling, 0.7 ms · (1 + ilog2(min(cpus, 8)))
// (0.75 ms for the factor under v6.12 and v6.6): the value the simulator
// gives every runqueue of the machine.
func (m machine) baseSlice() time.Duration {
	return time.Duration(m.release.BaseSlice() * topology.SchedFactor(m.cpus(), topology.ScalingLog))
}

// layout describes the topology and the scheduling domains the kernel
// builds for it, as CPU 0 sees them.
func (m machine) layout() string {
	t := m.topo
	n := t.NumCPUs()
	var shape string
	switch {
	case n == 1:
		shape = "1 CPU"
	case t.Packages == 1 && t.LLCsPerPackage == 1 && t.ThreadsPerCore == 1:
		shape = fmt.Sprintf("%d CPUs, one LLC of %d single-thread cores", n, t.CoresPerLLC)
	case t.Packages == 1 && t.LLCsPerPackage == 1 && t.CoresPerLLC == 1:
		shape = fmt.Sprintf("%d CPUs, one core of %d SMT threads", n, t.ThreadsPerCore)
	default:
		shape = fmt.Sprintf("%d CPUs, %d package(s) of %d LLC(s) of %d core(s) of %d thread(s)",
			n, t.Packages, t.LLCsPerPackage, t.CoresPerLLC, t.ThreadsPerCore)
	}
	shape += fmt.Sprintf(" (%v)", t)
	topo, err := m.build()
	if err != nil {
		return shape + ": " + err.Error()
	}
	var doms []string
	for _, d := range topo.Domains(0) {
		doms = append(doms, fmt.Sprintf("%s {%v}", d.Name(), d.Span()))
	}
	if len(doms) == 0 {
		return shape + ", no scheduling domains"
	}
	shape += ", domains " + strings.Join(doms, " ")
	if caps := topo.Capacities(); caps != nil {
		shape += fmt.Sprintf(", capacities %v (%s)", caps, m.preset)
	}
	return shape
}

// build builds the machine's topology, with its preset's capacities.
func (m machine) build() (*topology.Topology, error) {
	if m.preset == "" {
		return topology.Build(m.topo)
	}
	p, err := topology.LookupMachine(m.preset)
	if err != nil {
		return nil, err
	}
	return topology.BuildCapacities(m.topo, p.Capacities)
}

// hzOr1000 is the machine's HZ.
func (m machine) hzOr1000() int {
	if m.hz == 0 {
		return 1000
	}
	return m.hz
}

// describe is the machine's paragraph in the output; d, if positive, is
// the simulated time of each run.
func (m machine) describe(d time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "machine: %s\n", m.layout())
	fmt.Fprintf(&b, "  stands for: %s\n", m.source)
	if m.unmodelled != "" {
		fmt.Fprintf(&b, "  not modelled: %s\n", m.unmodelled)
	}
	if m.coreSched {
		fmt.Fprintf(&b, "  core scheduling: the kernel's (package smp), on the core's SMT threads, for the tasks' cookies\n")
	}
	if m.kernel != "" {
		fmt.Fprintf(&b, "  kernel: %s\n", m.kernel)
	}
	fmt.Fprintf(&b, "  base slice %v, HZ=%d, context switch %v", m.baseSlice(), m.hzOr1000(), m.switchCost)
	if m.timerSlack > 0 || m.wakeupCost > 0 {
		fmt.Fprintf(&b, ", timer slack %v, wakeup cost %v", m.timerSlack, m.wakeupCost)
	}
	fmt.Fprintf(&b, ", tasks created within %v", startJitter)
	if d > 0 {
		fmt.Fprintf(&b, "; %v simulated", d)
	}
	b.WriteByte('\n')
	return b.String()
}

// config is one run of the machine with one simulation seed: every CPU
// ticking, a warm start, placement and balancing by package smp.
func (m machine) config(seed uint64, d time.Duration, fs features.Set, ws ...sim.Workload) sim.Config {
	return sim.Config{
		Seed:       seed,
		Machine:    m.topo,
		Duration:   d,
		Features:   &fs,
		HZ:         m.hzOr1000(),
		SwitchCost: m.switchCost,
		// The RB5's capacities, timer slack and wakeup path; none
		// elsewhere, where these are zero.
		MachinePreset: m.preset,
		TimerSlack:    m.timerSlack,
		WakeupCost:    m.wakeupCost,
		StartJitter:   startJitter,
		Workloads:     ws,
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
