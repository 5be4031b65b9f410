package smp

import (
	"errors"
	"fmt"
	"slices"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// Errors wrapped by the System's errors.
var (
	// ErrBadOption: an invalid option to New (or a nil option to NewTask).
	ErrBadOption = errors.New("smp: bad option")
	// ErrBadCPU: a CPU id that is not a CPU of the machine.
	ErrBadCPU = errors.New("smp: no such CPU")
	// ErrForeignTask: a task of another System.
	ErrForeignTask = errors.New("smp: task of another system")
	// ErrTaskState: the operation does not apply to the task in its state
	// (starting a task twice, making a task of an entity already used, …).
	// ErrNotStarted and ErrExited wrap it.
	ErrTaskState = errors.New("smp: wrong task state")
	// ErrNotStarted: the task was made with NewTask but never started with
	// WakeUpNew, so it cannot be woken. It wraps ErrTaskState.
	ErrNotStarted = fmt.Errorf("%w: never started", ErrTaskState)
	// ErrExited: the task has exited (Exit); nothing applies to it any
	// more. It wraps ErrTaskState.
	ErrExited = fmt.Errorf("%w: exited", ErrTaskState)
	// ErrNilTask: a nil *Task where a task is needed.
	ErrNilTask = errors.New("smp: nil task")
	// ErrIdle: the CPU runs its idle task, so it has no task to block, end
	// or exec.
	ErrIdle = errors.New("smp: the CPU is idle")
	// ErrNotAllowed: an affinity mask without a CPU of the machine.
	ErrNotAllowed = errors.New("smp: no allowed CPU")
)

// NohzMode selects how idle CPUs tick (KERNEL-SPEC-SMP §0.2 item 3).
type NohzMode uint8

const (
	// NohzOff is a kernel booted with nohz=off: every CPU ticks, idle or
	// not, and runs its own periodic balancing (mode A).
	NohzOff NohzMode = iota
	// NohzIdle stops the tick of an idle CPU, which is then balanced by an
	// idle load balancer (mode B).
	NohzIdle
)

// String returns the mode as the configuration names it ("off", "idle"),
// or "NohzMode(n)" for a value that is no mode.
func (m NohzMode) String() string {
	switch m {
	case NohzOff:
		return "off"
	case NohzIdle:
		return "idle"
	}
	return fmt.Sprintf("NohzMode(%d)", uint8(m))
}

// Option configures New.
type Option func(*config) error

type config struct {
	feat     features.Set
	seed     uint64
	nohz     NohzMode
	preset   topology.Preset
	t0       uint64
	tickNsec uint64
	cost     NewidleCost
	rqOpts   []eevdf.Option

	jiffies0  uint64 // WithJiffies0
	baseSlice uint64 // WithBaseSlice: normalized, ns
	events    bool   // WithEvents

	energy *energy.Model // WithEnergyModel (energy.go)
}

// NewidleCost is the cost model of newly idle balancing (KERNEL-SPEC-SMP
// §5.4 rule 16): the kernel measures the time each domain's balance takes
// and compares it with how long the CPU is expected to idle; a simulator
// needs a deterministic, non-zero stand-in, or the cost and the success
// statistics never move. A balance of a domain of w CPUs costs Base +
// PerCPU·w ns; the first domain visited is also charged Blocked ns for the
// blocked-load update that precedes the walk. The simulated CPU does not
// spend this time: it goes idle (or runs what it pulled) at once.
type NewidleCost struct {
	Base    uint64 // ns charged for any domain's balance
	PerCPU  uint64 // ns more per CPU of the domain
	Blocked uint64 // ns for the blocked-load update, charged at the first domain
}

// DefaultNewidleCost is a balance of about the cost measured on current
// machines: 2 µs plus 0.1 µs per CPU of the domain, plus 1 µs for the
// blocked-load update.
var DefaultNewidleCost = NewidleCost{Base: 2000, PerCPU: 100, Blocked: 1000}

// WithNewidleCost sets the cost model of newly idle balancing (default
// DefaultNewidleCost). A cost of zero is refused: it would freeze the
// statistics the kernel adapts by.
func WithNewidleCost(c NewidleCost) Option {
	return func(cf *config) error {
		if c.Base == 0 && c.PerCPU == 0 {
			return fmt.Errorf("%w: a newidle balance must cost something", ErrBadOption)
		}
		cf.cost = c
		return nil
	}
}

// WithFeatures sets the feature set of every runqueue and of the
// placement and balancing code (default features.Default()).
func WithFeatures(s features.Set) Option {
	return func(c *config) error {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrBadOption, err)
		}
		c.feat = s
		return nil
	}
}

// WithSeed seeds sched_rng, the per-CPU generators of newly idle balancing
// (default 0). The same seed gives the same decisions.
func WithSeed(seed uint64) Option {
	return func(c *config) error {
		c.seed = seed
		return nil
	}
}

// WithNohz selects the tick mode of idle CPUs (default NohzOff).
func WithNohz(m NohzMode) Option {
	return func(c *config) error {
		if m > NohzIdle {
			return fmt.Errorf("%w: %v", ErrBadOption, m)
		}
		c.nohz = m
		return nil
	}
}

// WithPreset selects the state the machine starts in (KERNEL-SPEC-SMP
// §1.9): topology.Boot (default), exact for a freshly booted kernel, or
// topology.Warm, a machine that has been up and idle since t0 (t0 > 0), the
// clock at which the simulation starts.
func WithPreset(p topology.Preset, t0 uint64) Option {
	return func(c *config) error {
		if p > topology.Warm || (p == topology.Warm && t0 == 0) {
			return fmt.Errorf("%w: preset %v at t0 = %d (warm needs t0 > 0)", ErrBadOption, p, t0)
		}
		c.preset, c.t0 = p, t0
		return nil
	}
}

// WithTickNsec sets TICK_NSEC, the time between two jiffies (default
// 1000000, HZ=1000); eevdf.TickNsecForHZ converts from HZ.
func WithTickNsec(ns uint64) Option {
	return func(c *config) error {
		if ns < 1000 || ns > 1e9 {
			return fmt.Errorf("%w: tick of %d ns", ErrBadOption, ns)
		}
		c.tickNsec = ns
		return nil
	}
}

// WithRunqueueOptions passes options to every CPU's eevdf.NewCfsRq, after
// the System's own (PELT on, the scaled base slice, the features and the
// tick): a timeline backend, a hierarchy of task groups (each runqueue
// becomes the next CPU of it), an arithmetic or kernel preset. A nil
// option is refused.
func WithRunqueueOptions(opts ...eevdf.Option) Option {
	return func(c *config) error {
		for i, o := range opts {
			if o == nil {
				return fmt.Errorf("%w: runqueue option %d is nil", ErrBadOption, i)
			}
		}
		c.rqOpts = append(c.rqOpts, opts...)
		return nil
	}
}

// System is the fair class of a machine: a runqueue per CPU and the state
// that placement and balancing keep per CPU, per LLC and per domain. Create
// it with New. A System is not safe for concurrent use; independent
// Systems are.
//
// Bad input never panics. The entry points that return an error (SetClock,
// NewTask, Block, Exit, Advance, Conservation) report it, wrapping one of the
// package's Err sentinels. Tick, Schedule, Exec, WakeUpNew and
// TryToWakeUp keep the kernel's shape, with no error result: on bad input
// they change nothing and return their documented neutral value (nothing,
// nil, −1). Each has a checked twin of the same name and arguments on
// Checked (s.Checked().Tick(cpu)), which does the same work and returns an
// error saying what was wrong: ErrBadCPU for a CPU id outside
// 0..NumCPUs()−1, ErrIdle for an operation on the running task of a CPU
// that runs none, ErrNilTask, ErrForeignTask (a task of another System),
// ErrNotStarted and ErrExited. The queries (Curr, CPU, RQ, LLC,
// TickStopped) answer a bad id with their zero value.
type System struct {
	top      *topology.Topology
	feat     features.Set
	nohz     NohzMode
	tickNsec uint64
	hz       uint64 // jiffies per second

	now      uint64 // the simulated time: every rq's clock, lazily set
	nextTick uint64 // the first tick instant Advance has not run, in ticks since time 0
	epoch    uint64 // counts the changes of now; a runqueue whose clockEpoch differs is behind
	jiffies  uint64 // jiffies0 + ⌊now / TICK_NSEC⌋
	jiffyEnd uint64 // the time at which jiffies next grows (0: not yet computed)

	jiffies0    uint64  // the jiffies at time 0 (WithJiffies0)
	traceEvents bool    // WithEvents: record events
	events      []Event // the balancing trace since ClearEvents

	cpus  []cpuState
	oneRq bool // one CPU without PELT: SetClock sets its runqueue's clock at once (New)

	// clock1 is oneRq's runqueue once the first SetClock has started
	// the System, while no work is deferred; nil otherwise and on any
	// other machine. While it is set, SetClock sets its clock at every
	// change of the time, so that it is rq(0) without rq's work: the
	// wakeup, the sleep and __schedule, given an id that can only be 0
	// then, take it by one load and test (rq := s.clock1, and rq(cpu)
	// only when it is nil), where rq indexes the CPUs (a bounds check
	// and a multiplication by the size of a cpuState) and tests the
	// epoch. rq itself, at the compiler's inlining budget, has no room
	// for the test.
	clock1 *eevdf.CfsRq

	llcs   []llcState   // by LLC id: the sched_domain_shared runtime fields
	doms   []domState   // by Domain.ID: each CPU's balancing state per level
	groups []groupState // by Group.ID: the sched_group_capacity runtime fields
	tasks  []*Task

	overloaded bool // the root domain's overloaded flag
	affinePull bool // the current wakeup's wake_affine chose the waking CPU
	work       conservation
	cost       NewidleCost
	nohzState  nohzGlobal

	// Scratch masks, as the kernel's per-CPU cpumask variables.
	lbCpus  *topology.Mask // load_balance_mask: env.cpus
	swbCpus *topology.Mask // should_we_balance_tmpmask
	lbTasks []*Task        // env.tasks, the detached list

	deferred deferredWork // ILB kicks and stopper works of the current instant

	// onSweep, if set, sees each CPU an ILB sweep visits (tests).
	onSweep func(ilb, cpu int)

	scratch *topology.Mask // select_idle_cpu's per-CPU select_rq_mask
	stats   Stats

	caps []uint64 // per CPU: capacity_of (fits.go)
	asym bool     // sched_asym_cpucap_active()

	easOn bool     // sched_energy_enabled() (energy.go)
	eas   easState // the energy model, rd->pd, rd->overutilized

	// tickHooks is asym || easOn || core.on (setTickHooks): the tick has
	// work beyond the class's tick and the balance trigger.
	tickHooks bool

	resched     *topology.Mask // CPUs asked to reschedule by the System's operations
	reschedAny  bool           // resched has members (it is set since its last Reset)
	reschedList []int          // Resched's result, reused

	core coreSched // core scheduling (coresched.go)
}

// cpuState is one CPU: its runqueue and the per-rq fields the fair class
// keeps outside the cfs_rq.
type cpuState struct {
	rq         *eevdf.CfsRq
	clockEpoch uint64 // the System epoch rq's clock was last set in

	idle wakee // the idle task's wakee statistics (it can be "current")

	idleStamp          uint64 // rq->idle_stamp: when a failed newidle began this idle period (0: none)
	avgIdle            uint64 // rq->avg_idle
	maxIdleBalanceCost uint64 // rq->max_idle_balance_cost

	misfitTaskLoad uint64 // rq->misfit_task_load (misfit.go)

	stopped       bool   // the CPU stopper preempted the running task; __schedule is due
	noDomains     bool   // the CPU has no scheduling domain (topology.Base is nil): it never balances
	nextBalance   uint64 // rq->next_balance (jiffies)
	idleBalance   bool   // rq->idle_balance: idle_cpu at the last tick
	activeBalance bool   // rq->active_balance: a stopper work is queued
	pushCPU       int    // rq->push_cpu
	rng           schedRNG

	// NOHZ (KERNEL-SPEC-SMP §5.15).
	tickStopped               bool   // rq->nohz_tick_stopped
	hasBlockedLoad            bool   // rq->has_blocked_load
	lastBlockedLoadUpdateTick uint64 // jiffies
	nohzFlags                 nohzFlag
	nohzIdleBalance           nohzFlag // flags handed to the softirq
}

// domState is the balancing state of one CPU's domain at one level
// (KERNEL-SPEC-SMP §1.3): every CPU owns its own.
type domState struct {
	lastBalance        uint64 // jiffies
	balanceInterval    uint64 // ms
	nrBalanceFailed    uint64
	maxNewidleLBCost   uint64 // ns
	lastDecayMaxLBCost uint64 // jiffies
	newidleCall        uint64
	newidleSuccess     uint64
	newidleRatio       uint64
	newidleStamp       uint64 // ns
	nohzIdle           bool   // sd->nohz_idle, on the CPU's sd_llc
}

// groupState is the runtime part of a group's sched_group_capacity.
type groupState struct {
	imbalance bool // sgc->imbalance: affinity kept this group unbalanced
}

// llcState is the runtime part of an LLC's sched_domain_shared.
type llcState struct {
	hasIdleCores bool
	nrIdleScan   int
	nrBusyCPUs   int
}

// New builds the System of machine t: every CPU idle, runqueues with PELT
// signals (on a machine of more than one CPU) and the base slice the kernel
// uses on t (topology.BaseSlice), in the start state of the preset. A nil
// t, a nil option or an option's bad value is an error wrapping
// ErrBadOption.
func New(t *topology.Topology, opts ...Option) (*System, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil topology", ErrBadOption)
	}
	c := config{feat: features.Default(), tickNsec: eevdf.DefaultTickNsec, cost: DefaultNewidleCost, baseSlice: topology.NormalizedBaseSlice}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: option %d is nil", ErrBadOption, i)
		}
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	n := t.NumCPUs()
	s := &System{
		top:      t,
		feat:     c.feat,
		nohz:     c.nohz,
		tickNsec: c.tickNsec,
		hz:       max(1, 1e9/c.tickNsec),
		cpus:     make([]cpuState, n),
		llcs:     make([]llcState, t.NumSharedIDs()), // the LLCs', then an asym domain's above them
		scratch:  t.NewMask(),
		resched:  t.NewMask(),
		doms:     make([]domState, t.NumDomainIDs()),
		groups:   make([]groupState, t.NumGroupIDs()),
		cost:     c.cost,
		lbCpus:   t.NewMask(),
		swbCpus:  t.NewMask(),

		jiffies0:    c.jiffies0,
		jiffies:     c.jiffies0,
		traceEvents: c.events,
	}
	s.nohzState.idle = t.NewMask()
	s.work.init(n)
	rqInit, err := t.InitialRQ(c.preset, c.t0, c.nohz == NohzIdle)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOption, err)
	}
	shInit, err := t.InitialShared(c.preset, c.nohz == NohzIdle)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOption, err)
	}
	// A one-CPU machine has nothing to place or balance, and its
	// runqueue costs what a lone runqueue costs: no PELT signals unless
	// asked for (WithRunqueueOptions(eevdf.WithPELT(true)), or groups).
	base := []eevdf.Option{
		eevdf.WithFeatures(c.feat),
		eevdf.WithPELT(n > 1),
		eevdf.WithScaledBaseSlice(c.baseSlice, n),
		eevdf.WithTickNsec(c.tickNsec),
	}
	s.initCapacities(t)
	if err := s.initEnergy(c.energy); err != nil {
		return nil, err
	}
	for i := range s.cpus {
		opts := base[:len(base):len(base)]
		if o := s.rqCapacityOption(i); o != nil {
			opts = append(opts, o)
		}
		rq, err := eevdf.NewCfsRq(append(opts, c.rqOpts...)...)
		if err != nil {
			return nil, fmt.Errorf("smp: CPU %d: %w", i, err)
		}
		cs := &s.cpus[i]
		cs.rq = rq
		cs.idleStamp = rqInit.IdleStamp
		cs.avgIdle = rqInit.AvgIdle
		cs.maxIdleBalanceCost = rqInit.MaxIdleBalanceCost
		cs.rng = newSchedRNG(c.seed, i)
		cs.pushCPU = -1
		cs.noDomains = t.Base(i) == nil
		if rqInit.InNohzIdleMask && t.Base(i) != nil {
			cs.tickStopped = true
			s.nohzState.idle.Set(i)
		}
		for _, d := range t.Domains(i) {
			in := d.Init()
			s.doms[d.ID()] = domState{
				balanceInterval: in.BalanceInterval,
				nrBalanceFailed: in.NrBalanceFailed,
				newidleCall:     in.NewidleCall,
				newidleSuccess:  in.NewidleSuccess,
				newidleRatio:    in.NewidleRatio,
			}
		}
		if sd := t.SDLLC(i); sd != nil && rqInit.InNohzIdleMask {
			s.doms[sd.ID()].nohzIdle = true
		}
	}
	if err := s.checkHierarchy(); err != nil {
		return nil, err
	}
	// On one CPU its runqueue is used at nearly every instant, and without
	// PELT its clock is a plain time that nothing reads before the next
	// SetClock but through rq: SetClock sets it at once, which costs one
	// call where the first use of the instant made two (syncCPU, then the
	// runqueue's SetClock).
	s.oneRq = n == 1 && !s.cpus[0].rq.PELT()
	for i := range s.llcs {
		if sh := t.SharedByID(i); sh != nil {
			s.llcs[i] = llcState{hasIdleCores: shInit.HasIdleCores, nrIdleScan: shInit.NrIdleScan, nrBusyCPUs: shInit.NrBusyCPUs}
		}
	}
	if n := t.NumLLCs(); len(s.llcs) > n {
		// An asym domain's own object above the LLCs: only its
		// nr_idle_scan is read, 0 at boot and its span's weight warm,
		// as the preset gives an LLC's.
		if shInit.NrIdleScan > 0 {
			for cpu := range t.NumCPUs() {
				if sh := t.SDBalanceShared(cpu); sh != nil && sh.ID() == n {
					s.llcs[n].nrIdleScan = sh.Weight()
					break
				}
			}
		}
	}
	if c.t0 != 0 {
		if err := s.SetClock(c.t0); err != nil {
			return nil, err
		}
	}
	// What the kernel stamps with jiffies or sched_clock() at boot starts
	// at the first jiffy and clock.
	for i := range s.cpus {
		cs := &s.cpus[i]
		cs.nextBalance = s.jiffies
		cs.lastBlockedLoadUpdateTick = s.jiffies
		for _, d := range t.Domains(i) {
			ds := &s.doms[d.ID()]
			ds.lastBalance = s.jiffies
			ds.lastDecayMaxLBCost = s.jiffies
			ds.newidleStamp = s.now
		}
	}
	s.nohzState.nextBalance = s.jiffies
	s.nohzState.nextBlocked = s.jiffies
	s.nextTick = s.jiffies + 1
	s.setTickHooks()
	return s, nil
}

// Topology returns the machine.
func (s *System) Topology() *topology.Topology { return s.top }

// NumCPUs returns the number of CPUs.
func (s *System) NumCPUs() int { return len(s.cpus) }

// Features returns the feature set.
func (s *System) Features() features.Set { return s.feat }

// Nohz returns the tick mode of idle CPUs.
func (s *System) Nohz() NohzMode { return s.nohz }

// SetClock sets the simulated time: every CPU's task clock (update_rq_clock,
// applied to a runqueue when it is next used, so the cost does not grow with
// the CPU count) and the jiffies, ⌊now / TICK_NSEC⌋. It fails with an error
// wrapping eevdf.ErrClockBackwards if now is before the current time.
func (s *System) SetClock(now uint64) error {
	if rq := s.clock1; rq != nil && now > s.now {
		// One CPU, the time moving on (every call of a one-CPU
		// simulation but the first): the path below without the tests
		// that cannot pass here (the accounting of conservation is off
		// on one CPU, and the first call started it). The epoch stays:
		// it tells rq that a runqueue's clock is behind, and the one
		// runqueue's clock is set here at every change of the time, so
		// its clockEpoch, equal to the epoch since the first call,
		// stays equal without both being counted up. One pointer found
		// at the first call replaces the test of two flags and the
		// index of the CPU; it is nil while work is deferred (queueing
		// it clears the pointer), so that the general path runs that
		// work first, and sets the pointer again.
		s.now = now
		if now >= s.jiffyEnd {
			s.nextJiffy(now)
		}
		_ = rq.SetClock(now)
		return nil
	}
	if now != s.now {
		if now < s.now {
			return s.clockErr(now)
		}
		s.RunPending()             // what the previous instant left
		s.advanceConservation(now) // a test of a flag on one CPU
		s.epoch++
	}
	if !s.work.started {
		s.work.begin(now)
	}
	s.now = now
	if now >= s.jiffyEnd {
		s.nextJiffy(now)
	}
	if s.oneRq {
		// syncCPU without its call: the runqueue's clock never goes
		// backwards here, and the accounting of conservation is off
		// on one CPU (conservation.init).
		c := &s.cpus[0]
		_ = c.rq.SetClock(now)
		c.clockEpoch = s.epoch
		if !s.deferred.pending() {
			s.clock1 = c.rq // started above: the next calls take the path at the top
		}
	}
	return nil
}

// nextJiffy sets the jiffies at now, the first time in a jiffy SetClock
// is called (or its first call): the division only then. Near the end of
// time the product wraps to a small jiffyEnd, and every later call
// divides, which is still right.
func (s *System) nextJiffy(now uint64) {
	q := now / s.tickNsec
	s.jiffies = s.jiffies0 + q
	s.jiffyEnd = (q + 1) * s.tickNsec
}

// clockErr is SetClock's error for a time before the current one.
func (s *System) clockErr(now uint64) error {
	return fmt.Errorf("%w: %d after %d", eevdf.ErrClockBackwards, now, s.now)
}

// Clock returns the simulated time.
func (s *System) Clock() uint64 { return s.now }

// Jiffies returns the tick count of the simulated time.
func (s *System) Jiffies() uint64 { return s.jiffies }

// RQ returns cpu's runqueue, its clock brought to the simulated time (nil
// for an id that is not a CPU). The caller may query it; changing it other
// than through the System (an enqueue, a pick) breaks the System's view.
func (s *System) RQ(cpu int) *eevdf.CfsRq {
	if uint(cpu) >= uint(len(s.cpus)) {
		return nil
	}
	return s.rq(cpu)
}

// rq is update_rq_clock and cpu_rq: the runqueue with its clock at now.
// Only the first use in an instant has work to do (syncCPU); rq is kept
// small enough to inline, so that the uses after it cost a comparison.
func (s *System) rq(cpu int) *eevdf.CfsRq {
	c := &s.cpus[cpu]
	if c.clockEpoch != s.epoch {
		s.syncCPU(c, cpu)
	}
	return c.rq
}

// syncCPU is rq's update_rq_clock for c, the state of CPU cpu, which rq
// has already found: the runqueue is brought to now and listed as used in
// the instant.
func (s *System) syncCPU(c *cpuState, cpu int) {
	// SetClock never goes backwards, so this cannot fail.
	_ = c.rq.SetClock(s.now)
	c.clockEpoch = s.epoch
	s.work.use(cpu)
}

// Curr returns the task cpu runs, or nil while its idle task runs.
func (s *System) Curr(cpu int) *Task {
	if cpu < 0 || cpu >= len(s.cpus) {
		return nil
	}
	return s.ownTask(s.cpus[cpu].rq.Curr())
}

// CPUInfo is the per-CPU placement state of a CPU, for reports and tests.
type CPUInfo struct {
	Curr               *Task  // the running task, nil for idle
	NrRunning          int    // rq->nr_running (delayed tasks included)
	Idle               bool   // idle_cpu
	IdleStamp          uint64 // rq->idle_stamp
	AvgIdle            uint64 // rq->avg_idle
	MaxIdleBalanceCost uint64 // rq->max_idle_balance_cost
}

// CPU returns cpu's placement state (the zero CPUInfo for a bad id).
func (s *System) CPU(cpu int) CPUInfo {
	if cpu < 0 || cpu >= len(s.cpus) {
		return CPUInfo{}
	}
	c := &s.cpus[cpu]
	return CPUInfo{
		Curr:               s.ownTask(c.rq.Curr()),
		NrRunning:          c.rq.NrRunning(),
		Idle:               s.idleCPU(cpu),
		IdleStamp:          c.idleStamp,
		AvgIdle:            c.avgIdle,
		MaxIdleBalanceCost: c.maxIdleBalanceCost,
	}
}

// LLCInfo is the runtime state of an LLC's sched_domain_shared.
type LLCInfo struct {
	HasIdleCores bool // has_idle_cores
	NrIdleScan   int  // nr_idle_scan
	NrBusyCPUs   int  // nr_busy_cpus
}

// LLC returns the sched_domain_shared state of LLC llc (topology.LLC
// numbers them); the zero LLCInfo for an LLC without one or a bad id. The
// id topology.NumLLCs(), when topology.NumSharedIDs() is larger, is the
// object of an asymmetric domain above the LLCs (only its NrIdleScan is
// kept).
func (s *System) LLC(llc int) LLCInfo {
	if llc < 0 || llc >= len(s.llcs) {
		return LLCInfo{}
	}
	l := s.llcs[llc]
	return LLCInfo{HasIdleCores: l.hasIdleCores, NrIdleScan: l.nrIdleScan, NrBusyCPUs: l.nrBusyCPUs}
}

// Overloaded returns the root domain's overloaded flag: set when a CPU's
// nr_running reaches 2.
func (s *System) Overloaded() bool { return s.overloaded }

// Tasks returns the tasks made with NewTask, in creation order.
func (s *System) Tasks() []*Task { return s.tasks }

// llcOf returns cpu's sched_domain_shared runtime state, or nil without one.
// asymSharedOf is the runtime state of the shared object of cpu's
// asymmetric domain when that domain is above the LLCs (its ID follows the
// LLCs'); nil when cpu has no such domain.
func (s *System) asymSharedOf(cpu int) *llcState {
	sd := s.top.SDAsymCPUCapacity(cpu)
	if sd == nil || sd == s.top.SDLLC(cpu) {
		return nil
	}
	sh := s.top.SDBalanceShared(cpu)
	if sh == nil || sh.ID() < s.top.NumLLCs() || sh.ID() >= len(s.llcs) {
		return nil
	}
	return &s.llcs[sh.ID()]
}

func (s *System) llcOf(cpu int) *llcState {
	sh := s.top.LLCShared(cpu)
	if sh == nil {
		return nil
	}
	return &s.llcs[sh.ID()]
}

// addNrRunning is add_nr_running's root-domain side after an enqueue:
// a CPU whose nr_running rose from below 2 to 2 or more marks the root
// domain overloaded.
func (s *System) addNrRunning(cpu, before int) {
	if before < 2 && s.cpus[cpu].rq.NrRunning() >= 2 {
		s.overloaded = true
	}
}

// markResched notes that cpu's runqueue may have been asked to reschedule
// by an operation on it (a wakeup, a fork, an attach).
func (s *System) markResched(cpu int) {
	s.markReschedRq(cpu, s.cpus[cpu].rq)
}

// markReschedRq is markResched for a caller that holds cpu's runqueue, rq:
// the CPUs are not indexed again.
func (s *System) markReschedRq(cpu int, rq *eevdf.CfsRq) {
	if rq.NeedResched() {
		s.addResched(cpu)
	}
}

// addResched lists cpu among the CPUs Resched returns, keeping reschedAny
// (which spares Resched its walk when the list is empty) true with it.
func (s *System) addResched(cpu int) {
	s.resched.Set(cpu)
	s.reschedAny = true
}

// Resched returns, in ascending order, the CPUs on which __schedule is due
// because of the System's own operations since the last call — wakeups,
// forks and the moves of balancing that asked for a reschedule, and CPUs
// whose running task the CPU stopper preempted — and forgets them: a
// simulator runs Schedule on each (KERNEL-SPEC-SMP §7.3 step 5). The slice
// is reused by the next call; it is nil when no CPU is due.
func (s *System) Resched() []int {
	if !s.reschedAny {
		return nil // most operations ask for no reschedule: nothing to walk
	}
	return s.reschedScan()
}

// ReschedPending reports whether Resched may have CPUs to return: false
// means that Resched would return nil, so a caller that asks after every
// operation can skip the call. It changes nothing and costs a load.
func (s *System) ReschedPending() bool { return s.reschedAny }

// reschedScan is Resched's walk of the CPUs asked to reschedule.
func (s *System) reschedScan() []int {
	s.reschedList = s.reschedList[:0]
	for c := s.resched.First(); c >= 0; c = s.resched.Next(c) {
		if s.cpus[c].rq.NeedResched() || s.cpus[c].stopped {
			s.reschedList = append(s.reschedList, c)
		}
	}
	if len(s.reschedList) > 0 {
		s.resched.Reset()
		s.reschedAny = false
	}
	return s.reschedList
}

// Check verifies the System between operations and returns the first
// violation, or nil: every runqueue's invariants (eevdf's Check); that
// every entity queued or running on a CPU is a task of the System whose
// task_cpu is that CPU (an entity enqueued on RQ(cpu) directly, behind the
// System's back, is reported); and that every task is where the System
// believes it is — a queued or running task on its task_cpu's runqueue, a
// sleeping one nowhere (or still queued there, delayed), a dead or new one
// nowhere. With task groups, each group's tg->load_avg and
// tg->runnable_avg equal the sums of what its queues published on every
// CPU, and each CPU's leaf list keeps the kernel's order rules (eevdf's
// Check); under core scheduling, the core invariants hold (checkCore).
// Its cost is linear in the tasks and the groups × CPUs.
func (s *System) Check() error {
	for i := range s.cpus {
		if err := s.cpus[i].rq.Check(); err != nil {
			return fmt.Errorf("CPU %d: %w", i, err)
		}
		if err := s.checkQueued(i); err != nil {
			return err
		}
	}
	for _, t := range s.tasks {
		if err := s.checkTask(t); err != nil {
			return err
		}
	}
	if err := s.checkGroups(); err != nil {
		return err
	}
	if err := s.checkCore(); err != nil {
		return err
	}
	if err := s.checkCapacities(); err != nil {
		return err
	}
	if err := s.checkEnergy(); err != nil {
		return err
	}
	return s.checkConservation()
}

// checkQueued checks that every entity cpu queues or runs is a task of the
// System on that CPU.
func (s *System) checkQueued(cpu int) error {
	rq := s.cpus[cpu].rq
	queued := rq.Tasks()
	if !rq.PELT() {
		queued = slices.Values(rq.Entities()) // no cfs_tasks list without PELT
	}
	check := func(se *eevdf.SchedEntity, where string) error {
		t := taskOf(se)
		switch {
		case t == nil:
			return fmt.Errorf("CPU %d: entity %q %s but is no task of the System (enqueued on its runqueue directly?)", cpu, se.Name(), where)
		case t.sys != s:
			return fmt.Errorf("CPU %d: entity %q %s but is a task of another System", cpu, se.Name(), where)
		case t.cpu != cpu:
			return fmt.Errorf("CPU %d: task %s %s but its task_cpu is %d", cpu, t, where, t.cpu)
		}
		return nil
	}
	for se := range queued {
		if err := check(se, "is queued"); err != nil {
			return err
		}
	}
	if se := rq.Curr(); se != nil {
		return check(se, "runs")
	}
	return nil
}

func (s *System) checkTask(t *Task) error {
	se := t.se
	rq := s.cpus[t.cpu].rq
	switch t.state {
	case taskNew, taskDead:
		if se.OnRq() {
			return fmt.Errorf("task %s: %v but queued", t, t.state)
		}
	case taskRunnable:
		if !se.OnRq() || se.Delayed() {
			return fmt.Errorf("task %s: runnable but on_rq %v delayed %v", t, se.OnRq(), se.Delayed())
		}
	case taskSleeping:
		if se.OnRq() && !se.Delayed() {
			return fmt.Errorf("task %s: asleep but queued and not delayed", t)
		}
	}
	if se.OnRq() {
		found := false
		queued := rq.Tasks()
		if !rq.PELT() {
			queued = slices.Values(rq.Entities()) // no cfs_tasks list without PELT
		}
		for x := range queued {
			if x == se {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("task %s: queued, but not on CPU %d's runqueue", t, t.cpu)
		}
	}
	for i := range s.cpus {
		if i != t.cpu && s.cpus[i].rq.Curr() == se {
			return fmt.Errorf("task %s: runs on CPU %d but task_cpu is %d", t, i, t.cpu)
		}
	}
	return nil
}
