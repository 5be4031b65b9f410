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
type CfsRq struct {
	feat          features.Set
	baseSlice     uint64 // sysctl_sched_base_slice
	normBaseSlice uint64 // normalized_sysctl_sched_base_slice
	tickNsec      uint64 // TICK_NSEC, for the lag clamp
	arith         Arithmetic
	backend       Backend
	kernel        Kernel

	clock uint64 // rq_clock_task

	curr *SchedEntity // cfs_rq->curr (and h_curr: equal on a flat queue)
	next *SchedEntity // the next buddy

	zeroVruntime uint64
	sumWVruntime int64  // Σ_tree entity_key·w
	sumWeight    uint64 // Σ_tree w
	sumShift     uint   // PARANOID_AVG's weight shift
	sumJlag      int64  // Σ vlag·w of the joined entities (PLACE_JOIN_LAG)

	// The root queue's counters (load.weight, nr_queued, h_nr_queued —
	// what every EEVDF test reads —, h_nr_runnable, h_nr_idle) and PELT
	// signals; with groups, nr_queued and load count top-level entities.
	cfsQueue
	nrRunning int // rq->nr_running (fair tasks only)

	h    *Hierarchy // the cgroup tree, nil for a flat runqueue
	cpu  int        // this runqueue's CPU number in h
	pelt bool       // keep PELT signals

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

// WithFeatures sets the feature set (default features.Default()).
func WithFeatures(s features.Set) Option {
	return func(rq *CfsRq) error {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrBadOption, err)
		}
		rq.feat = s
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
		if normalized == 0 || cpus < 1 {
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
	for _, o := range opts {
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
	return rq, nil
}

// Features returns the runqueue's feature set.
func (rq *CfsRq) Features() features.Set { return rq.feat }

// BaseSlice returns sysctl_sched_base_slice.
func (rq *CfsRq) BaseSlice() uint64 { return rq.baseSlice }

// TickNsec returns TICK_NSEC.
func (rq *CfsRq) TickNsec() uint64 { return rq.tickNsec }

// Backend returns the timeline backend.
func (rq *CfsRq) Backend() Backend { return rq.backend }

// SetClock sets the task clock (update_rq_clock). It fails with
// ErrClockBackwards if now is before the current clock.
func (rq *CfsRq) SetClock(now uint64) error {
	if now < rq.clock {
		return rq.errClockBackwards(now)
	}
	rq.clock = now
	return nil
}

// errClockBackwards is SetClock's error, out of line so that SetClock
// inlines into its callers.
func (rq *CfsRq) errClockBackwards(now uint64) error {
	return fmt.Errorf("%w: %d after %d", ErrClockBackwards, now, rq.clock)
}

// Clock returns the task clock.
func (rq *CfsRq) Clock() uint64 { return rq.clock }

// Curr returns the running entity, or nil while the idle task runs. Between
// Dequeue of the running entity for a sleep and the next PickNext it is the
// sleeper, no longer on_rq.
func (rq *CfsRq) Curr() *SchedEntity { return rq.curr }

// NextBuddy returns the next buddy, or nil.
func (rq *CfsRq) NextBuddy() *SchedEntity { return rq.next }

// NeedResched reports whether a reschedule is requested, hard or lazy
// (NeedReschedHard, NeedReschedLazy): set by every reschedule request,
// cleared only by PickNext, SetNext and PutPrev.
func (rq *CfsRq) NeedResched() bool { return rq.needResched || rq.lazyResched }

// NrQueued returns h_nr_queued: the queued entities, the running one and
// delayed ones included.
func (rq *CfsRq) NrQueued() int { return rq.hNrQueued }

// NrQueuedEntities returns the root queue's nr_queued: the entities
// directly on it — with groups, the root group's tasks and the queued
// top-level group entities; without, the same as NrQueued.
func (rq *CfsRq) NrQueuedEntities() int { return rq.nrQueued }

// NrRunnable returns h_nr_runnable: the queued entities that are not delayed.
func (rq *CfsRq) NrRunnable() int { return rq.hNrRunnable }

// NrRunning returns rq->nr_running: like NrQueued, a delayed entity counts
// until its dequeue completes.
func (rq *CfsRq) NrRunning() int { return rq.nrRunning }

// Load returns cfs_rq->load.weight, the sum of the queued entities' load
// weights at full resolution.
func (rq *CfsRq) Load() uint64 { return rq.loadWeight }

// ZeroVruntime returns the reference point of the weighted sums.
func (rq *CfsRq) ZeroVruntime() uint64 { return rq.zeroVruntime }

// AvgVruntime returns V, the load-weighted average vruntime of the queued
// entities (the running one if on_rq, delayed ones included), rounded
// toward −∞. Like the kernel's avg_vruntime it moves the reference point
// zero_vruntime to V, which changes no decision.
func (rq *CfsRq) AvgVruntime() uint64 { return rq.avgVruntime() }

// V returns what AvgVruntime would return, without moving zero_vruntime.
func (rq *CfsRq) V() uint64 { return rq.zeroVruntime + uint64(rq.avgDelta()) }

// Eligible reports entity_eligible for a queued entity of this runqueue:
// its vruntime is not after V (with its own weight counted). It is false
// for an entity that is not queued here.
func (rq *CfsRq) Eligible(se *SchedEntity) bool {
	if se == nil || !se.onRq || se.rq != rq {
		return false
	}
	return rq.entityEligible(se)
}

// Lag returns (s64)(V − vruntime) for se (queued or not), V as V returns it.
func (rq *CfsRq) Lag(se *SchedEntity) int64 { return int64(rq.V() - se.vruntime) }

// Entities returns the queued entities in timeline order (deadline, then
// insertion), then the running entity if any.
func (rq *CfsRq) Entities() []*SchedEntity {
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
func (rq *CfsRq) checkOwner(se *SchedEntity) error {
	if se != nil && se.rq == rq && se.group == nil {
		return nil
	}
	return rq.checkOwnerSlow(se)
}

// checkOwnerSlow is checkOwner in full.
func (rq *CfsRq) checkOwnerSlow(se *SchedEntity) error {
	if se == nil {
		return ErrNilEntity
	}
	if se.rq != nil && se.rq != rq && (se.onRq || se.rq.curr == se) {
		return fmt.Errorf("%w: %s", ErrForeignEntity, se.name)
	}
	if se.group != nil && se.group.parent != nil && se.group.h != rq.h {
		return fmt.Errorf("%w: %s is in group %s", ErrForeignGroup, se.name, se.group.Path())
	}
	return nil
}
