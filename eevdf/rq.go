package eevdf

import (
	"fmt"

	"github.com/schedmodel/fairclass/features"
)

// initialZeroVruntime is init_cfs_rq's zero point, (u64)−(1 << 20): the
// first entity placed on an empty queue gets it as its vruntime, and the
// values wrap within the first millisecond of virtual time.
const initialZeroVruntime = ^uint64(0) - (1 << 20) + 1

// CfsRq is one CPU's fair runqueue (struct cfs_rq with the rq-level state
// the fair class touches): tasks only in the timeline, with the task groups
// of an optional Hierarchy folded into their weights; no bandwidth control.
//
// The caller owns the task clock: SetClock before each scheduler entry, as
// update_rq_clock does; every operation reads it. Operations are named
// after the kernel paths they model and follow their order of effects
// exactly, so that every field of every entity agrees with the kernel's.
//
// The running entity (Curr) lives outside the timeline and the weighted
// sums, as in the kernel; queries that should include it add it
// explicitly. A CfsRq is not safe for concurrent use; distinct runqueues
// are independent.
//
// Every method may be called on a nil *CfsRq and on a CfsRq that NewCfsRq
// did not make (its zero value): such a runqueue holds nothing and takes
// no entity. The operations on entities, Sleep and SetFeatures return an
// error wrapping ErrNilRunqueue (on a nil runqueue SetClock and Check
// too), the other operations do nothing, and queries return zero values
// (a nil pick, V = 0, empty lists, the empty feature set).
type CfsRq struct {
	feat          features.Set
	baseSlice     uint64 // sysctl_sched_base_slice
	normBaseSlice uint64 // normalized_sysctl_sched_base_slice
	tickNsec      uint64 // TICK_NSEC, for the lag clamp
	arith         Arithmetic
	backend       Backend
	kernel        Kernel
	featGiven     bool      // WithFeatures was given; else an earlier kernel runs with its own defaults
	floor         floorMode // readFloorMode(feat), kept by setFeat

	clock uint64    // rq_clock_task
	pc    peltClock // the PELT clock below capacity 1024 (peltclock.go)
	// peltClocked is pc.capacity != 0 (set with it by WithCapacity): the
	// PELT clock advances with the task clock.
	peltClocked bool

	curr *SchedEntity // cfs_rq->curr (and h_curr: equal on a flat queue)
	next *SchedEntity // the next buddy

	zeroVruntime uint64
	sumWVruntime int64  // Σ_tree entity_key·w
	sumWeight    uint64 // Σ_tree w
	sumShift     uint   // PARANOID_AVG's weight shift
	sumJlag      int64  // Σ vlag·w of the joined entities (PLACE_JOIN_LAG)
	// scaledW: avgWeight does more than return the weight (an earlier
	// kernel's scale_load_down, or a sumShift above 0), so that the
	// common case is one test.
	scaledW bool
	// vAtZero: V is zero_vruntime, so that avg_vruntime would move
	// nothing and the key bound of eligibility is 0 (avgVruntimeTest's
	// state after its move, over a positive load). Set only there, and
	// cleared by every write of what V is made of: the sums, the
	// reference point, and an on_rq curr's vruntime, weight and on_rq.
	// The pick and the wakeup check that follow a lag update then skip
	// the sums and the division (Check verifies it).
	vAtZero bool

	// The root queue's counters (load.weight, nr_queued, h_nr_queued —
	// what every EEVDF test reads —, h_nr_runnable, h_nr_idle) and PELT
	// signals; with groups, nr_queued and load count top-level entities.
	cfsQueue
	nrRunning int // rq->nr_running (fair tasks only)

	h    *Hierarchy // the cgroup tree, nil for a flat runqueue
	cpu  int        // this runqueue's CPU number in h
	pelt bool       // keep PELT signals
	leaf leafList   // rq->leaf_cfs_rq_list and tmp_alone_branch (PELT only)

	needResched bool         // the hard request (TIF_NEED_RESCHED)
	lazyResched bool         // the lazy request, set only under PreemptLazy (resched.go)
	preempt     PreemptModel // the preemption model
	seq         uint64       // insertion counter for the timeline's tie order

	tl    timeline
	tasks taskList // cfs_tasks, kept with the PELT signals
	match eligibleMatcher
	stats Stats
}

// Backend selects the timeline structure.
type Backend uint8

const (
	// BTree is a B+-tree built for the timeline, the default: entities in
	// wide leaves that each entity records (an erase needs no search),
	// deadlines, vruntimes and slices kept in the nodes' arrays. It
	// executes fewer instructions per pick than RBTree at every size (see
	// README.md's benchmarks) and costs 56 bytes per queued entity.
	BTree Backend = iota
	// RBTree is the kernel's augmented red-black tree (lib/rbtree.c),
	// intrusive in the entities.
	RBTree
)

// String returns "btree", "rbtree", or "Backend(n)" for another value.
func (b Backend) String() string {
	switch b {
	case BTree:
		return "btree"
	case RBTree:
		return "rbtree"
	}
	return fmt.Sprintf("Backend(%d)", uint8(b))
}

// Option configures NewCfsRq.
type Option func(*CfsRq) error

// WithFeatures sets the feature set (default features.Default(), or with
// WithKernel that kernel's features.Preset).
func WithFeatures(s features.Set) Option {
	return func(rq *CfsRq) error {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrBadOption, err)
		}
		rq.feat = s
		rq.featGiven = true
		return nil
	}
}

// WithBaseSlice sets sysctl_sched_base_slice and its normalized value
// (default 700000 ns, one CPU), as writing debugfs base_slice_ns on one
// CPU does.
func WithBaseSlice(ns uint64) Option {
	return func(rq *CfsRq) error {
		if ns == 0 || ns > MaxCustomSlice*10 {
			return fmt.Errorf("%w: base slice %d ns", ErrBadOption, ns)
		}
		rq.baseSlice, rq.normBaseSlice = ns, ns
		return nil
	}
}

// WithScaledBaseSlice sets the base slice as the kernel scales it for a
// machine with cpus online CPUs under the default logarithmic tunable
// scaling: normalized·(1 + ilog2(min(cpus, 8))). Protection without
// RUN_TO_PARITY keeps using the normalized value.
func WithScaledBaseSlice(normalized uint64, cpus int) Option {
	return func(rq *CfsRq) error {
		if normalized == 0 || normalized > MaxCustomSlice*10 || cpus < 1 {
			return fmt.Errorf("%w: base slice %d ns on %d CPUs", ErrBadOption, normalized, cpus)
		}
		factor := uint64(1)
		for c := min(cpus, 8); c > 1; c >>= 1 {
			factor++
		}
		rq.normBaseSlice, rq.baseSlice = normalized, normalized*factor
		return nil
	}
}

// WithTickNsec sets TICK_NSEC (default 1000000, HZ=1000); it only enters
// the lag clamp. TickNsecForHZ converts from HZ.
func WithTickNsec(ns uint64) Option {
	return func(rq *CfsRq) error {
		if ns == 0 || ns > 1e9 {
			return fmt.Errorf("%w: tick %d ns", ErrBadOption, ns)
		}
		rq.tickNsec = ns
		return nil
	}
}

// TickNsecForHZ returns TICK_NSEC for a HZ value: (10^9 + HZ/2) / HZ.
func TickNsecForHZ(hz uint64) uint64 {
	if hz == 0 {
		return 0
	}
	return (1e9 + hz/2) / hz
}

// WithTimeline selects the timeline backend (default BTree). Both give
// identical results.
func WithTimeline(b Backend) Option {
	return func(rq *CfsRq) error {
		if b > RBTree {
			return fmt.Errorf("%w: %v", ErrBadOption, b)
		}
		rq.backend = b
		return nil
	}
}

// WithArithmetic selects __calc_delta's division (default Division, the
// modelled kernel's; FixedPoint reproduces v7.0).
func WithArithmetic(a Arithmetic) Option {
	return func(rq *CfsRq) error {
		if a > FixedPoint {
			return fmt.Errorf("%w: arithmetic %d", ErrBadOption, a)
		}
		rq.arith = a
		return nil
	}
}

// NewCfsRq returns an empty runqueue at clock 0 with the idle task running.
func NewCfsRq(opts ...Option) (*CfsRq, error) {
	rq := &CfsRq{
		feat:          features.Default(),
		baseSlice:     DefaultBaseSlice,
		normBaseSlice: DefaultBaseSlice,
		tickNsec:      DefaultTickNsec,
		zeroVruntime:  initialZeroVruntime,
	}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: option %d is nil", ErrBadOption, i)
		}
		if err := o(rq); err != nil {
			return nil, err
		}
	}
	if rq.h != nil {
		if rq.before71() {
			return nil, fmt.Errorf("%w: task groups are modelled for the single runqueue (v7.3) only", ErrBadOption)
		}
		rq.attachHierarchy()
	}
	if rq.preempt == PreemptLazy && !rq.kernel.HasLazy() {
		return nil, fmt.Errorf("%w: kernel %v has no lazy preemption model", ErrBadOption, rq.kernel)
	}
	rq.tl = newTimeline(rq.backend)
	if rq.kernel.staleAggregates() {
		st := newStaleTree(rq.kernel.noMaxSlice())
		st.v66 = rq.kernel == KernelV66
		rq.tl = timeline{rb: &rbTimeline{st: st}}
	}
	if !rq.featGiven && rq.kernel != KernelV73 {
		rq.feat, _ = features.Preset(rq.kernel.String())
	}
	rq.setFeat(rq.feat)
	return rq, nil
}

// Features returns the runqueue's feature set (the empty set for a nil
// runqueue).
func (rq *CfsRq) Features() features.Set {
	if rq == nil {
		return features.Set{}
	}
	return rq.feat
}

// SetFeatures replaces the feature set at run time, as a write to debugfs
// sched/features does. As in the kernel, nothing is recomputed at the
// write: each toggle takes effect at its next use — the next placement
// reads PLACE_LAG, the next switch to a new curr (and the next wakeup
// check) RUN_TO_PARITY, the next dequeue the lag-floor toggles — and
// state built under the old set
// stays as it is (a delayed entity stays delayed after NO_DELAY_DEQUEUE
// until a pick, a wakeup or a flush ends it; PARANOID_AVG's sum_shift and
// PLACE_JOIN_LAG's sum_jlag keep their values). The runqueue caches
// one thing derived from the features, the lag-floor mode, which setFeat
// recomputes with the assignment: the one place a write has to reach.
//
// A set that WithFeatures would refuse (two YIELD_* variants: see
// features.Set.Validate) returns an error wrapping ErrBadOption and
// changes nothing; so does a runqueue NewCfsRq did not make
// (ErrNilRunqueue).
func (rq *CfsRq) SetFeatures(s features.Set) error {
	if err := rq.checkMade(); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadOption, err)
	}
	rq.setFeat(s)
	return nil
}

// setFeat installs a feature set with what the runqueue keeps derived
// from it (the lag-floor mode): NewCfsRq and SetFeatures write the
// features through it only.
func (rq *CfsRq) setFeat(s features.Set) {
	rq.feat = s
	rq.floor = readFloorMode(s)
}

// BaseSlice returns sysctl_sched_base_slice.
func (rq *CfsRq) BaseSlice() uint64 {
	if rq == nil {
		return 0
	}
	return rq.baseSlice
}

// TickNsec returns TICK_NSEC.
func (rq *CfsRq) TickNsec() uint64 {
	if rq == nil {
		return 0
	}
	return rq.tickNsec
}

// Backend returns the timeline backend.
func (rq *CfsRq) Backend() Backend {
	if rq == nil {
		return 0
	}
	return rq.backend
}

// SetClock sets the task clock (update_rq_clock). It fails with
// ErrClockBackwards if now is before the current clock.
//
// The common case — a runqueue, a clock that does not go back, no PELT
// clock of its own to advance — is one test that inlines into the
// callers; the rest is setClockSlow. (Tested as three conditions, the
// capacity through rq.pc, the test exceeded the inlining budget by two:
// peltClocked is the capacity's test as a plain field.)
func (rq *CfsRq) SetClock(now uint64) error {
	if rq != nil && now >= rq.clock && !rq.peltClocked {
		rq.clock = now
		return nil
	}
	return rq.setClockSlow(now)
}

// setClockSlow is SetClock in full.
func (rq *CfsRq) setClockSlow(now uint64) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if now < rq.clock {
		return rq.errClockBackwards(now)
	}
	if rq.pc.capacity != 0 {
		rq.advancePELTClock(now)
	}
	rq.clock = now
	return nil
}

// errClockBackwards is SetClock's error.
func (rq *CfsRq) errClockBackwards(now uint64) error {
	return fmt.Errorf("%w: %d after %d", ErrClockBackwards, now, rq.clock)
}

// Clock returns the task clock.
func (rq *CfsRq) Clock() uint64 {
	if rq == nil {
		return 0
	}
	return rq.clock
}

// Curr returns the running entity, or nil while the idle task runs. Between
// Dequeue of the running entity for a sleep and the next PickNext it is the
// sleeper, no longer on_rq.
func (rq *CfsRq) Curr() *SchedEntity {
	if rq == nil {
		return nil
	}
	return rq.curr
}

// NextBuddy returns the next buddy, or nil.
func (rq *CfsRq) NextBuddy() *SchedEntity {
	if rq == nil {
		return nil
	}
	return rq.next
}

// NeedResched reports whether a reschedule is requested, hard or lazy
// (NeedReschedHard, NeedReschedLazy): set by every reschedule request,
// cleared only by PickNext, SetNext and PutPrev.
func (rq *CfsRq) NeedResched() bool {
	if rq == nil {
		return false
	}
	return rq.needResched || rq.lazyResched
}

// NrQueued returns h_nr_queued: the queued entities, the running one and
// delayed ones included.
func (rq *CfsRq) NrQueued() int {
	if rq == nil {
		return 0
	}
	return rq.hNrQueued
}

// NrQueuedEntities returns the root queue's nr_queued: the entities
// directly on it — with groups, the root group's tasks and the queued
// top-level group entities; without, the same as NrQueued.
func (rq *CfsRq) NrQueuedEntities() int {
	if rq == nil {
		return 0
	}
	return rq.nrQueued
}

// NrRunnable returns h_nr_runnable: the queued entities that are not delayed.
func (rq *CfsRq) NrRunnable() int {
	if rq == nil {
		return 0
	}
	return rq.hNrRunnable
}

// NrRunning returns rq->nr_running: like NrQueued, a delayed entity counts
// until its dequeue completes.
func (rq *CfsRq) NrRunning() int {
	if rq == nil {
		return 0
	}
	return rq.nrRunning
}

// Load returns cfs_rq->load.weight, the sum of the queued entities' load
// weights at full resolution.
func (rq *CfsRq) Load() uint64 {
	if rq == nil {
		return 0
	}
	return rq.loadWeight
}

// ZeroVruntime returns zero_vruntime, the reference point of the weighted
// sums (with KernelV618 that kernel's cfs_rq->min_vruntime): V as of the
// last avg_vruntime call, which this package makes at the kernel's call
// sites only (see CfsPrioLess: core scheduling snapshots it, so the moment
// of each move is observable).
func (rq *CfsRq) ZeroVruntime() uint64 {
	if rq == nil {
		return 0
	}
	return rq.zeroVruntime
}

// AvgVruntime returns V, the load-weighted average vruntime of the queued
// entities (the running one if on_rq, delayed ones included), rounded
// toward −∞. Like the kernel's avg_vruntime it moves the reference point
// zero_vruntime to V, which changes no decision of this runqueue (core
// scheduling's snapshots read it: CfsPrioLess).
func (rq *CfsRq) AvgVruntime() uint64 {
	if rq == nil {
		return 0
	}
	return rq.avgVruntime()
}

// V returns what AvgVruntime would return, without moving zero_vruntime.
func (rq *CfsRq) V() uint64 {
	if rq == nil {
		return 0
	}
	return rq.zeroVruntime + uint64(rq.avgDelta())
}

// Eligible reports entity_eligible for a queued entity of this runqueue:
// its vruntime is not after V (with its own weight counted). It is false
// for an entity that is not queued here, and for a nil one.
func (rq *CfsRq) Eligible(se *SchedEntity) bool {
	// An on_rq entity's rq is the runqueue that enqueued it, never nil:
	// the test below also refuses everything to a nil runqueue.
	if se == nil || !se.onRq || se.rq != rq {
		return false
	}
	return rq.entityEligible(se)
}

// Lag returns (s64)(V − vruntime) for se (queued or not), V as V returns
// it: the live lag, not clamped (VLag is the clamped value saved at the
// last dequeue). It is 0 for a nil se and on a nil runqueue.
func (rq *CfsRq) Lag(se *SchedEntity) int64 {
	if se == nil || rq == nil {
		return 0
	}
	return int64(rq.zeroVruntime + uint64(rq.avgDelta()) - se.vruntime)
}

// Entities returns the queued entities in timeline order (deadline, then
// insertion), then the running entity if any.
func (rq *CfsRq) Entities() []*SchedEntity {
	if rq == nil {
		return nil
	}
	out := make([]*SchedEntity, 0, rq.tl.len()+1)
	rq.tl.ascend(func(se *SchedEntity) bool {
		out = append(out, se)
		return true
	})
	if rq.curr != nil {
		out = append(out, rq.curr)
	}
	return out
}

// resched is resched_curr: a hard request. resched_curr_lazy is
// reschedLazy (resched.go).
func (rq *CfsRq) resched() { rq.needResched = true }

// checkOwner fails unless se may be operated on by rq: nil, or queued or
// running on another runqueue, it may not. An entity last enqueued here
// and in the root group passes both tests; that common case is decided
// inline, the rest by checkOwnerSlow.
//
// rq must not be nil: the exported callers test that first, which keeps
// this test within the inlining budget. checkOwnerSlow refuses every
// entity to a runqueue NewCfsRq did not make (no base slice): an entity
// passes the inline test only once an enqueue on rq passed the full one.
func (rq *CfsRq) checkOwner(se *SchedEntity) error {
	if se != nil && se.rq == rq && se.group == nil {
		return nil
	}
	return rq.checkOwnerSlow(se)
}

// checkOwnerSlow is checkOwner in full.
func (rq *CfsRq) checkOwnerSlow(se *SchedEntity) error {
	if err := rq.checkMade(); err != nil {
		return err
	}
	if se == nil {
		return ErrNilEntity
	}
	if se.load.weight == 0 {
		return fmt.Errorf("%w: %q is a SchedEntity that NewEntity did not make", ErrNilEntity, se.name)
	}
	if se.rq != nil && se.rq != rq && (se.onRq || se.rq.curr == se) {
		return fmt.Errorf("%w: %s", ErrForeignEntity, se.name)
	}
	if se.group != nil && se.group.parent != nil && se.group.h != rq.h {
		return fmt.Errorf("%w: %s is in group %s", ErrForeignGroup, se.name, se.group.Path())
	}
	return nil
}

// checkMade fails for a nil runqueue and for one NewCfsRq did not make.
func (rq *CfsRq) checkMade() error {
	switch {
	case rq == nil:
		return ErrNilRunqueue
	case rq.baseSlice == 0:
		return fmt.Errorf("%w: a CfsRq not made by NewCfsRq", ErrNilRunqueue)
	}
	return nil
}
