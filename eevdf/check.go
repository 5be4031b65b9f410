package eevdf

import (
	"errors"
	"fmt"
	"math/bits"
)

// Check verifies every invariant the runqueue keeps between operations
// and returns an error naming the first broken one and the entity
// involved, or nil:
//
//  1. the timeline is ordered by (deadline, insertion), every subtree
//     aggregate (min vruntime, min and max slice) equals its definition, and
//     the cached leftmost is the first entity;
//  2. an entity is in the timeline iff it is on_rq and not curr; the
//     running entity is not delayed (it is on_rq, except between its
//     Dequeue for a sleep and the next PickNext); no entity is on another
//     runqueue;
//  3. the weighted sums equal their definitions recomputed from scratch,
//     and when the runqueue holds V as known to be zero_vruntime (the
//     state a move of the reference point leaves, which the pick and the
//     wakeup check read instead of summing again), it is: the load is
//     positive and ⌊Σ key·w / Σ w⌋ is 0;
//  4. Σ w_i·(V − v_i) over the queued entities lies in (−Σ w_i, 0], the
//     rounding of V toward −∞;
//  5. the counters agree: nr_queued = h_nr_queued = nr_running = the
//     queued entities; h_nr_runnable = those not delayed; h_nr_idle = the
//     SCHED_IDLE ones; load = Σ load.weight;
//  6. a non-empty queue has an eligible entity, so the pick is never nil;
//  7. the next buddy is queued here, not delayed (v7.1 allowed that) and
//     not SCHED_IDLE;
//  8. queued entities carry their load weight as effective weight (with
//     groups: the root group's tasks);
//  9. with PELT signals, cfs_tasks holds exactly the queued tasks
//     (curr and delayed ones included), linked both ways;
//  10. with groups, every queue's counters and load equal their
//     definitions recomputed from the queued tasks (KERNEL-SPEC-GROUPS
//     §5.8), a group entity is queued iff its queue holds a task, and a
//     non-empty group's entity weighs what the share function of its
//     last update gives: exactly where the value is PELT-free, within the
//     function's range where it reads PELT or other CPUs' load (see
//     checkWeight). Tasks' h_load has no closed form (it is the value of
//     the last refresh point) and is checked only for root-group tasks.
//
// Check runs in O(n) and allocates little; call it after every step in
// tests and fuzzing.
func (rq *CfsRq) Check() error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.tl.verify(); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	var (
		n, runnable, idle int
		load, sumW        uint64
		sumWV             int64
		prevSe            *SchedEntity
		err               error
	)
	account := func(se *SchedEntity) {
		n++
		if !se.delayed {
			runnable++
		}
		if se.policy == PolicyIdle {
			idle++
		}
		load += se.load.weight
		if rq.taskGroupRq(se) == nil && se.hload != calcPropWeight(se) && err == nil {
			err = fmt.Errorf("effective weight: %s has h_load %d, load %d", se.name, se.hload, se.load.weight)
		}
	}
	rq.tl.ascend(func(se *SchedEntity) bool {
		switch {
		case !se.onRq:
			err = fmt.Errorf("membership: %s is in the timeline but not on_rq", se.name)
		case se == rq.curr:
			err = fmt.Errorf("membership: curr %s is in the timeline", se.name)
		case se.rq != rq:
			err = fmt.Errorf("membership: %s is in the timeline of another runqueue", se.name)
		case prevSe != nil && rq.kernel != KernelV66 && !(entityAug{}).Less(prevSe, se),
			prevSe != nil && rq.kernel == KernelV66 && vBefore(se.vruntime, prevSe.vruntime): // v6.6: by vruntime
			err = fmt.Errorf("order: %s (deadline %d) after %s (deadline %d)", se.name, se.deadline, prevSe.name, prevSe.deadline)
		}
		if err != nil {
			return false
		}
		prevSe = se
		account(se)
		sumW += uint64(rq.w(se))
		sumWV += rq.entityKey(se) * rq.w(se)
		return true
	})
	if err != nil {
		return err
	}
	if c := rq.curr; c != nil {
		switch {
		case c.rq != rq:
			return fmt.Errorf("membership: curr %s belongs to another runqueue", c.name)
		case c.delayed:
			return fmt.Errorf("membership: curr %s is delayed", c.name)
		}
		// A curr that is not on_rq has been dequeued for a sleep and is
		// waiting for PickNext; it counts nowhere.
		if c.onRq {
			account(c)
		}
	}
	if err != nil {
		return err
	}
	if sumW != rq.sumWeight || sumWV != rq.sumWVruntime {
		return fmt.Errorf("sums: sum_weight %d, sum_w_vruntime %d; recomputed %d, %d",
			rq.sumWeight, rq.sumWVruntime, sumW, sumWV)
	}
	if rq.vAtZero && (rq.kernel.minVruntimeRef() || rq.eligibility().load <= 0 || rq.avgDelta() != 0) {
		return fmt.Errorf("sums: V held as zero_vruntime %d, but it is %d", rq.zeroVruntime, rq.V())
	}
	if rq.h != nil {
		if err := rq.checkGroups(); err != nil {
			return err
		}
	} else {
		if n != rq.nrQueued || n != rq.hNrQueued || n != rq.nrRunning {
			return fmt.Errorf("counters: %d queued entities, nr_queued %d, h_nr_queued %d, nr_running %d",
				n, rq.nrQueued, rq.hNrQueued, rq.nrRunning)
		}
		if runnable != rq.hNrRunnable || idle != rq.hNrIdle || load != rq.loadWeight {
			return fmt.Errorf("counters: h_nr_runnable %d (want %d), h_nr_idle %d (want %d), load %d (want %d)",
				rq.hNrRunnable, runnable, rq.hNrIdle, idle, rq.loadWeight, load)
		}
	}
	if err := rq.checkAverage(); err != nil {
		return err
	}
	if err := rq.checkTaskList(); err != nil {
		return err
	}
	if nx := rq.next; nx != nil {
		switch {
		case !nx.onRq || nx.rq != rq:
			return fmt.Errorf("buddy: %s is not queued here", nx.name)
		case nx.delayed && !rq.before71(): // v7.1's set_next_buddy took delayed entities
			return fmt.Errorf("buddy: %s is delayed", nx.name)
		case nx.policy == PolicyIdle:
			return fmt.Errorf("buddy: %s is SCHED_IDLE", nx.name)
		}
	}
	return nil
}

// errNoEligible reports a non-empty queue without an eligible entity.
var errNoEligible = errors.New("eligibility: no queued entity is eligible")

// checkAverage checks invariants 4 and 6.
func (rq *CfsRq) checkAverage() error {
	if rq.hNrQueued == 0 {
		return nil
	}
	v := rq.V()
	var (
		hi, lo uint64 // Σ w·(V − v) as a 128-bit two's-complement sum
		wsum   uint64
		any    bool
	)
	visit := func(se *SchedEntity) {
		w := rq.w(se)
		d := int64(v - se.vruntime)
		ph, pl := mul128(d, w)
		var carry uint64
		lo, carry = bits.Add64(lo, pl, 0)
		hi += ph + carry
		wsum += uint64(w)
		if rq.entityEligible(se) {
			any = true
		}
	}
	rq.tl.ascend(func(se *SchedEntity) bool { visit(se); return true })
	if c := rq.currOnRq(); c != nil {
		visit(c)
	}
	if !any {
		return errNoEligible
	}
	// Σ w·(V − v) = W·V − Σ w·v ∈ (−W, 0] because V = ⌊Σ w·v / W⌋.
	neg := int64(hi) < 0
	switch {
	case !neg && (hi != 0 || lo != 0):
		return fmt.Errorf("average: Σ w·(V − v) = +%d > 0 (V=%d)", lo, v)
	case neg && (hi != ^uint64(0) || -lo >= wsum || lo == 0):
		return fmt.Errorf("average: Σ w·(V − v) ≤ −Σ w (V=%d, Σ w=%d)", v, wsum)
	}
	return nil
}

// queueCount is what a queue's counters should be.
type queueCount struct {
	load                     uint64
	nr, queued, runnable, id int
}

// checkGroups checks invariant 10 and the root queue's counters with groups.
func (rq *CfsRq) checkGroups() error {
	want := map[*cfsQueue]*queueCount{&rq.cfsQueue: {}}
	count := func(q *cfsQueue) *queueCount {
		c := want[q]
		if c == nil {
			c = &queueCount{}
			want[q] = c
		}
		return c
	}
	nr := 0
	account := func(se *SchedEntity) {
		nr++
		on := rq.taskGroupRq(se)
		q := rq.queueOf(on)
		c := count(q)
		c.load += se.load.weight
		c.nr++
		run, idle := b2i(!se.delayed), b2i(se.policy == PolicyIdle)
		c.queued++
		c.runnable += run
		c.id += idle
		if q.idle {
			idle = 1
		}
		for g := on; g != nil; g = g.parent {
			pq := g.queue()
			pc := count(pq)
			pc.queued++
			pc.runnable += run
			pc.id += idle
			if pq.idle {
				idle = 1
			}
		}
	}
	rq.tl.ascend(func(se *SchedEntity) bool { account(se); return true })
	if c := rq.currOnRq(); c != nil {
		account(c)
	}
	for _, tg := range rq.h.groups {
		g := tg.cpu[rq.cpu]
		c := count(&g.q)
		if g.onRq != (c.queued > 0) {
			return fmt.Errorf("groups: %s's entity on_rq %v with %d queued tasks", tg.Path(), g.onRq, c.queued)
		}
		if g.onRq {
			pc := count(g.queue())
			pc.load += g.weight
			pc.nr++
		}
	}
	if nr != rq.hNrQueued || nr != rq.nrRunning {
		return fmt.Errorf("counters: %d queued tasks, h_nr_queued %d, nr_running %d", nr, rq.hNrQueued, rq.nrRunning)
	}
	check := func(name string, q *cfsQueue) error {
		c := count(q)
		if q.loadWeight != c.load || q.nrQueued != c.nr || q.hNrQueued != c.queued || q.hNrRunnable != c.runnable || q.hNrIdle != c.id {
			return fmt.Errorf("counters of %s: load %d nr_queued %d h_nr_queued %d h_nr_runnable %d h_nr_idle %d; want %d %d %d %d %d",
				name, q.loadWeight, q.nrQueued, q.hNrQueued, q.hNrRunnable, q.hNrIdle, c.load, c.nr, c.queued, c.runnable, c.id)
		}
		return nil
	}
	if err := check("the root queue", &rq.cfsQueue); err != nil {
		return err
	}
	for _, tg := range rq.h.groups {
		g := tg.cpu[rq.cpu]
		if err := check(tg.Path(), &g.q); err != nil {
			return err
		}
		if err := g.checkWeight(); err != nil {
			return err
		}
	}
	return rq.checkLeafList()
}

// checkWeight checks that a non-empty group's entity weighs what its share
// function allows, written from KERNEL-SPEC-GROUPS §2.4 and §3.1 rather
// than from calcShares. Every change of the group's composition, shares
// or descendants on this CPU recomputes the weight (update_cfs_group), so
// the value holds whenever the queue has load; an empty group keeps a
// stale weight and is not checked. The function is the one of the last
// recomputation: a cgroup_mode switch reaches an entity only at its next
// update (§2.4).
//
// With S the shares and N the online CPUs, on a machine where no other
// CPU ever ran the group (this runqueue is the hierarchy's only one), the
// group's load over all CPUs is this queue's, the load term cancels, and
//
//	up, smp  S
//	max      min(N·S, 90891264)
//	concur   k·S with 1 ≤ k ≤ N (k: the runnable tasks the group had
//	         published, at most N; exactly S on one CPU)
//	tasks    k·S with k ≥ 1
//
// k comes from PELT and may have been published again since the weight
// was computed, so only its range is checked. With several runqueues the
// other CPUs' load enters: up is still S, the others lie between
// MIN_SHARES and their upper clamp (S, N·S, min(N·S, 90891264), none).
func (g *groupRq) checkWeight() error {
	if g.q.loadWeight == 0 {
		return nil
	}
	h := g.tg.h
	s, w := g.tg.shares, g.weight
	n := uint64(max(h.onlineCPUs, 1))
	capped := min(n*s, 88761<<10) // the nice -20 weight, scaled
	alone := len(h.rqs) == 1
	var lo, hi, step uint64 // the allowed range; step ≠ 0: a multiple of it
	switch g.sharesMode {
	case ModeUp:
		lo, hi = s, s
	case ModeSMP:
		lo, hi = s, s
	case ModeMax:
		lo, hi = capped, capped
	case ModeConcur:
		lo, hi, step = s, n*s, s
	default: // ModeTasks
		lo, hi, step = s, ^uint64(0), s
	}
	if !alone && g.sharesMode != ModeUp {
		lo, step = minShares, 0
	}
	if w < lo || w > hi || step != 0 && w%step != 0 {
		return fmt.Errorf("groups: %s's entity weighs %d; mode %v with shares %d on %d CPUs allows %d..%d (multiples of %d)",
			g.tg.Path(), w, g.sharesMode, s, n, lo, hi, step)
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkTaskList checks invariant 9: cfs_tasks is kept with the PELT
// signals, and holds every queued task once.
func (rq *CfsRq) checkTaskList() error {
	if !rq.pelt {
		if rq.tasks.n != 0 || rq.tasks.head != nil {
			return errors.New("cfs_tasks: a list on a runqueue without PELT signals")
		}
		return nil
	}
	n := 0
	var prev *SchedEntity
	for se := rq.tasks.head; se != nil; se = se.link.next {
		switch {
		case se.link.prev != prev:
			return fmt.Errorf("cfs_tasks: %s's back link does not point at %s", se.name, prev)
		case !se.onRq || se.rq != rq:
			return fmt.Errorf("cfs_tasks: %s is listed but not queued here", se.name)
		}
		prev = se
		if n++; n > rq.hNrQueued {
			return fmt.Errorf("cfs_tasks: more than h_nr_queued = %d tasks", rq.hNrQueued)
		}
	}
	if rq.tasks.tail != prev || n != rq.tasks.n || n != rq.hNrQueued {
		return fmt.Errorf("cfs_tasks: %d tasks listed (count %d), h_nr_queued %d", n, rq.tasks.n, rq.hNrQueued)
	}
	return nil
}
