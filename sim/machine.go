package sim

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// The simulated machine: a topology.Machine (or Config.CPUs, its
// shorthand) whose fair class is an smp.System, built from the
// configuration once per simulation.

// machine returns the configured machine: Config.Machine if any count of
// it is set, else Config.CPUs single-thread cores in one LLC (1 by
// default). Giving both is an error unless they agree on the CPU count.
func (cfg *Config) machine() (topology.Machine, error) {
	m := cfg.Machine
	if m == (topology.Machine{}) {
		n := cfg.CPUs
		if n == 0 {
			n = 1
		}
		if n < 1 || n > topology.MaxCPUs {
			return m, fmt.Errorf("cpus %d outside 1..%d", cfg.CPUs, topology.MaxCPUs)
		}
		return topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: n, ThreadsPerCore: 1}, nil
	}
	if err := m.Validate(); err != nil {
		return m, fmt.Errorf("machine: %w", err)
	}
	if cfg.CPUs != 0 && cfg.CPUs != m.NumCPUs() {
		return m, fmt.Errorf("cpus %d and machine %v (%d CPUs) disagree", cfg.CPUs, m, m.NumCPUs())
	}
	return m, nil
}

// newSystem builds the fair class of the machine: one runqueue per CPU in
// an smp.System, with the simulation's features, tick, nohz mode, start
// preset, timeline, base slice override and task groups.
//
// The clock origin (KERNEL-SPEC-SMP §7.2): the System's clock is the
// simulated time plus s.origin. On several CPUs the origin is one tick, so
// that everything the run forks at time 0 is forked at a positive clock
// (a PELT last_update_time of 0 means "never attached", which a kernel,
// whose clocks are far from 0, never sees), and tick instants stay on
// jiffy boundaries: jiffies = 1 + ⌊t / TICK_NSEC⌋ at simulated time t.
// On one CPU the origin is 0: no placement reads PELT there, the numbers
// of one-CPU runs stay what they were, and a scenario log replays at the
// simulated times. Reports always give simulated times, from 0.
func (s *Sim) newSystem(top *topology.Topology) error {
	cfg := &s.cfg
	n := top.NumCPUs()
	if n > 1 {
		s.origin = s.tickNsec
	}
	opts := []smp.Option{
		smp.WithFeatures(s.feat),
		smp.WithSeed(cfg.Seed),
		smp.WithNohz(cfg.Nohz),
		smp.WithTickNsec(s.tickNsec),
	}
	if n > 1 {
		// The start state (§1.9) at the origin. On one CPU there is
		// nothing to place, scan or balance, and no preset changes a
		// thing; the clock stays at 0.
		opts = append(opts, smp.WithPreset(s.preset, s.origin))
	}
	rqOpts := []eevdf.Option{eevdf.WithTimeline(cfg.Timeline)}
	if cfg.Kernel != eevdf.KernelV73 {
		// The kernel's fair class on every runqueue, and its normalized
		// base slice, scaled by smp for the machine.
		rqOpts = append(rqOpts, eevdf.WithKernel(cfg.Kernel))
		opts = append(opts, smp.WithBaseSlice(cfg.Kernel.BaseSlice()))
	}
	if cfg.Preempt != eevdf.PreemptFull {
		rqOpts = append(rqOpts, eevdf.WithPreempt(cfg.Preempt))
	}
	if cfg.BaseSlice > 0 {
		// An explicit sysctl_sched_base_slice replaces the kernel's
		// scaled value (a write to debugfs' base_slice_ns).
		rqOpts = append(rqOpts, eevdf.WithBaseSlice(uint64(cfg.BaseSlice)))
	}
	if len(cfg.Groups) > 0 {
		// One cgroup tree for the machine, every runqueue one CPU of it
		// (tg_cpus() for the concur and max share functions).
		s.hier = eevdf.NewHierarchy(eevdf.WithCgroupMode(cfg.CgroupMode), eevdf.WithOnlineCPUs(n))
		rqOpts = append(rqOpts, eevdf.WithHierarchy(s.hier))
	}
	if cfg.EnergyModel != nil && !cfg.EnergyEstimateOnly {
		opts = append(opts, smp.WithEnergyModel(cfg.EnergyModel))
	}
	opts = append(opts, smp.WithRunqueueOptions(rqOpts...))
	sys, err := smp.New(top, opts...)
	if err != nil {
		return err
	}
	if err := sys.SetClock(s.origin); err != nil {
		return err
	}
	s.top, s.sys = top, sys
	s.baseSlice = sys.RQ(0).BaseSlice()
	return s.newEnergyMeter()
}

// rq returns c's runqueue with its clock at the current instant.
func (s *Sim) rq(c *cpu) *eevdf.CfsRq { return s.sys.RQ(int(c.id)) }

// idx maps an smp task to the simulator's task index (−1 for nil: idle).
// The index is the task's smp ID: the simulator makes every task of its
// System, one at a time in the order of s.tasks (addTask checks that the
// two agree). Read from the task, the index inlines into every switch, a
// load where the type assertion on the task's Data, with its error path
// for a task of no simulator, was a call.
func (s *Sim) idx(st *smp.Task) int32 { return int32(st.ID()) }

// taskOf maps a scheduling entity back to its task (−1 for nil: idle).
func (s *Sim) taskOf(se *eevdf.SchedEntity) int32 {
	if se == nil {
		return -1
	}
	st, _ := se.Data().(*smp.Task)
	if st == nil {
		s.fail(fmt.Errorf("unknown entity %s", se.Name()))
		return -1
	}
	return s.idx(st)
}
