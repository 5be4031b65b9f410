package eevdf

import (
	"fmt"

	"github.com/schedmodel/fairclass/features"
)

// Stats counts what the pick path did, for benchmarks and simulators.
type Stats struct {
	Picks    uint64 // pick_eevdf calls
	Descents uint64 // picks that needed the heap descent
	// Visited counts the aggregates the descents examined: one per node
	// with the red-black tree; with the B-tree, children's and items'
	// own, so the two backends' counts are not comparable.
	Visited uint64
	Flushed uint64 // delayed dequeues completed by a pick
}

// Stats returns the pick-path counters.
func (rq *CfsRq) Stats() Stats {
	if rq == nil {
		return Stats{}
	}
	return rq.stats
}

// pickEevdf is pick_eevdf: the entity to run.
//
// EEVDF runs the eligible entity (v ≤ V) with the earliest virtual
// deadline. In the kernel's order: a lone queued entity is returned without
// any test; an eligible next buddy wins (only when protect); an eligible
// curr still inside its protected slice is kept (only when protect); else
// the first eligible entity of the timeline — the leftmost if eligible,
// otherwise the heap descent, which relies on eligibility being monotone
// in vruntime and on exact subtree minima — unless an eligible curr has a
// strictly earlier deadline (a tie goes to the timeline entity). v6.6's
// pick over its vruntime-ordered timeline is pickEevdf66.
//
// The callers on the pick paths make the dispatch themselves (a call
// fewer: two calls exceed the inlining budget): pickNextEntity tests the
// kernel, and the first rounds of PickNext and of the wakeup check, which
// v6.6 (like v6.18 and v6.12) leaves to pickNextEntity, call pickDeadline.
func (rq *CfsRq) pickEevdf(protect bool) *SchedEntity {
	if rq.kernel == KernelV66 {
		return rq.pickEevdf66()
	}
	se, _ := rq.pickDeadline(protect)
	return se
}

// pickDeadline is pick_eevdf over the deadline-ordered timeline (every
// kernel but v6.6).
//
// It also returns what it learnt of V: on a queue of more than one entity
// (whose load is then positive), V's offset from zero_vruntime,
// ⌊Σ key·w / Σ w⌋ over the timeline and an on_rq curr (0 when V is held
// at zero_vruntime); on a queue of one, 0, which means nothing. It is the
// bound on the key the pick tests against (keyLimit's quotient is
// floorAvg's), so that the wakeup check's protection update, which
// follows the pick with nothing changed in between, moves zero_vruntime
// by it as avg_vruntime would, without summing and dividing again. The
// result travels in a register: the callers that drop it pay nothing,
// where storing it in the runqueue at every pick cost more than the sums
// it spared.
func (rq *CfsRq) pickDeadline(protect bool) (*SchedEntity, int64) {
	rq.stats.Picks++
	// The leftmost entity: the B-tree's field read directly, the red-black
	// tree's first node otherwise (no inline mark).
	var leftmost *SchedEntity
	if t := rq.tl.rb; t == nil {
		leftmost = rq.tl.b.first
	} else {
		leftmost = t.first()
	}
	c := rq.curr
	if rq.hNrQueued == 1 {
		if c != nil && c.onRq {
			return c, 0
		}
		return leftmost, 0
	}
	if c != nil && !c.onRq {
		c = nil // not a candidate
	}
	// Nothing below moves zero_vruntime or the sums: the two sides of
	// the eligibility test are computed once, as eligibility does,
	// written out (a call fewer a pick), and the pick's tests (the buddy,
	// curr, the leftmost) use them as a bound on the key, as the
	// descent's matcher does: one division here instead of a 128-bit
	// product a test (keyLimit). When V is held at zero_vruntime
	// (vAtZero: a lag update or a renewed deadline has just moved it
	// there, and nothing V is made of changed since), the bound is 0
	// without the sums or the division; the sums {0, 1} express it to
	// the descent (0 ≥ key·1 iff key ≤ 0).
	elig := eligibilityTest{load: 1, zero: rq.zeroVruntime}
	var lim int64
	if !rq.vAtZero {
		elig.avg, elig.load = rq.sumWVruntime, int64(rq.sumWeight)
		if c != nil {
			w := rq.w(c)
			elig.avg += rq.entityKey(c) * w
			elig.load += w
		}
		lim = elig.keyLimit()
	}
	// v7.0 tested the buddy in every pick, the wakeup check's SHORT pick
	// (protect false) included (KERNEL-SPEC-LTS P1).
	if rq.next != nil && (protect && rq.kernel < KernelV618 || rq.kernel == KernelV70) && rq.feat.Has(features.PickBuddy) && int64(rq.next.vruntime-elig.zero) <= lim {
		return rq.next, lim
	}
	if c != nil && int64(c.vruntime-elig.zero) > lim {
		c = nil
	}
	if c != nil && protect && (rq.kernel < KernelV612 && protectSlice(c) || rq.kernel >= KernelV612 && rq.parityMark(c)) {
		return c, lim
	}
	var best *SchedEntity
	if leftmost != nil && int64(leftmost.vruntime-elig.zero) <= lim {
		best = leftmost
	} else if leftmost != nil {
		rq.stats.Descents++
		// When the ineligible leftmost entity holds the timeline's
		// minimum vruntime, nothing in it is eligible (eligibility is
		// monotone in vruntime) and the descent would find nothing: on
		// a queue of two, every pick that keeps curr.
		// timeline.root and timeline.findEligible, the backend tested
		// once and the B-tree's root read inline.
		if t := rq.tl.rb; t == nil {
			if rq.tl.b.agg.minV != leftmost.vruntime {
				rq.match.setLimit(elig, lim)
				best = rq.tl.b.findEligible(&rq.match)
				rq.stats.Visited += uint64(rq.match.visited)
			}
		} else if a, _ := t.root(); a.minV != leftmost.vruntime {
			rq.match.setLimit(elig, lim)
			best = t.findEligible(&rq.match)
			rq.stats.Visited += uint64(rq.match.visited)
		}
	}
	if best == nil || (c != nil && entityBefore(c, best)) {
		best = c
	}
	return best, lim
}

// pickNextEntity is pick_next_entity, in the loop both its callers run
// around it: a delayed entity chosen by the pick has spent its lag; its
// sleep completes here and the pick is made again while the queue is not
// empty. With charge, curr is charged before each pick, as pick_task_fair
// does. It returns nil for an empty queue, and when nothing was eligible,
// which intact sums never allow (Check reports it).
//
// The loop is here rather than in each caller so that a pick is one call
// fewer deep: each level cost about ten instructions a schedule.
func (rq *CfsRq) pickNextEntity(protect, charge bool) *SchedEntity {
	if c := rq.curr; charge && c != nil && c.onRq && int64(rq.clock-c.execStart) > 0 {
		rq.chargeCurr(c) // updateCurr's test on c, curr read once
	}
	for rq.hNrQueued != 0 {
		if rq.kernel.minVruntimeRef() && rq.next != nil && rq.feat.Has(rq.kernel.buddyFeature()) && rq.entityEligible(rq.next) {
			return rq.next // v6.18 and v6.12 tested the buddy here, in real picks only
		}
		var se *SchedEntity
		if rq.kernel == KernelV66 { // pickEevdf, its dispatch written here (a call fewer)
			se = rq.pickEevdf66()
		} else {
			se, _ = rq.pickDeadline(protect)
		}
		if se == nil || !se.delayed {
			return se
		}
		rq.stats.Flushed++
		rq.dequeueTask(se, DequeueSleep|DequeueDelayed)
		// Charged before the loop's test rather than after it, which
		// is the same: an on_rq curr counts in h_nr_queued, so the
		// loop goes on whenever there is a curr to charge.
		if c := rq.curr; charge && c != nil && c.onRq {
			rq.updateCurr()
		}
	}
	return nil
}

// pickTaskFair is pick_task_fair: charge curr and pick, completing the
// delayed dequeues the pick meets, until a runnable entity comes out or the
// queue is empty (nil: idle).
func (rq *CfsRq) pickTaskFair() *SchedEntity { return rq.pickNextEntity(true, true) }

// PickNext is __schedule for the fair class: pick first, while the
// previous entity is still curr (it competes if it is still on_rq, e.g.
// delayed); then, only if the pick differs from it, put the previous
// entity back (put_prev_task_fair) and install the new one
// (set_next_task_fair with first = true, which arms its slice protection).
// Picking the running entity again changes nothing. It clears
// need-resched and returns the new current entity, nil for idle.
func (rq *CfsRq) PickNext() *SchedEntity {
	if rq == nil {
		return nil
	}
	prev := rq.curr
	var next *SchedEntity
	if rq.hNrQueued != 0 && !rq.kernel.minVruntimeRef() {
		// pick_task_fair's first round, written here: pickNextEntity's
		// loop without the buddy test of v6.18 and v6.12, so that a
		// schedule reaches pick_eevdf one call less deep. A delayed
		// pick is flushed as the loop does, and the loop goes on from
		// its charge (which finds nothing to charge at this clock).
		if prev != nil && prev.onRq && int64(rq.clock-prev.execStart) > 0 {
			rq.chargeCurr(prev) // updateCurr's test on prev, curr read once
		}
		next, _ = rq.pickDeadline(true) // pickEevdf, not v6.6
		if next != nil && next.delayed {
			rq.stats.Flushed++
			rq.dequeueTask(next, DequeueSleep|DequeueDelayed)
			next = rq.pickTaskFair()
		}
	} else {
		next = rq.pickTaskFair()
	}
	if next != prev {
		if next != nil {
			rq.setNextTaskFair(prev, next, true) // the pick charged prev
		} else {
			if prev != nil {
				rq.putPrevTaskFair(prev, nil, true) // the pick charged it
			}
			rq.enterIdlePELT() // set_next_task_idle
		}
	}
	rq.needResched, rq.lazyResched = false, false // clearResched (no inline mark)
	return next
}

// PickTask is pick_task_fair alone: charge the running entity and pick,
// completing the delayed dequeues the pick meets, without installing the
// pick (nil: idle). Core scheduling picks this way on every sibling before
// it decides what each runs; it then installs the choice with SetNext, or
// leaves the CPU idle with PutPrev. PickNext is PickTask followed by the
// install.
func (rq *CfsRq) PickTask() *SchedEntity {
	if rq == nil {
		return nil
	}
	if rq.hNrQueued == 0 || rq.kernel.minVruntimeRef() {
		return rq.pickTaskFair()
	}
	// pick_task_fair's first round, written here as in PickNext (a pick
	// one call less deep, without pickNextEntity's parameters and loop):
	// curr charged, pick_eevdf, a delayed pick flushed and the loop going
	// on in pickNextEntity.
	if c := rq.curr; c != nil && c.onRq && int64(rq.clock-c.execStart) > 0 {
		rq.chargeCurr(c) // updateCurr's test on c, curr read once
	}
	se, _ := rq.pickDeadline(true) // pickEevdf, not v6.6
	if se != nil && se.delayed {
		rq.stats.Flushed++
		rq.dequeueTask(se, DequeueSleep|DequeueDelayed)
		se = rq.pickTaskFair()
	}
	return se
}

// PutPrev puts the running entity back (put_prev_task_fair) and leaves
// the idle task running, as a core-scheduling forced idle does. It clears
// need-resched; with nothing running it only does that.
func (rq *CfsRq) PutPrev() {
	if rq == nil {
		return
	}
	if prev := rq.curr; prev != nil {
		rq.putPrevTaskFair(prev, nil, false)
		rq.enterIdlePELT() // set_next_task_idle
	}
	rq.clearResched()
}

// SetNext forces se to run, as core scheduling does when it selects a task
// for a sibling's cookie: the running entity is put back and se installed,
// eligible or not, without a pick (no delayed dequeue completes). Forcing
// the running entity picks it again. It clears need-resched.
func (rq *CfsRq) SetNext(se *SchedEntity) error {
	// The common call, decided in one run of tests: a runnable entity of
	// the root group queued here passes every check of checkSetNext
	// (each field read once; the error paths out of this frame).
	if rq == nil || se == nil || se.rq != rq || se.group != nil || !se.onRq || se.delayed {
		if err := rq.checkSetNext(se); err != nil {
			return err
		}
	}
	if prev := rq.curr; prev != se {
		// put_prev_task_fair's charge: updateCurr's test on prev, curr
		// (no inline mark).
		if prev != nil && prev.onRq && int64(rq.clock-prev.execStart) > 0 {
			rq.chargeCurr(prev)
		}
		rq.setNextTaskFair(prev, se, true)
	}
	rq.needResched, rq.lazyResched = false, false // clearResched (no inline mark)
	return nil
}

// checkSetNext is SetNext's validation in full, in the order of its
// errors; nil if se may be forced to run.
func (rq *CfsRq) checkSetNext(se *SchedEntity) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	switch {
	case !se.onRq || se.rq != rq:
		return fmt.Errorf("%w: %s", ErrNotQueued, se.name)
	case se.delayed:
		return fmt.Errorf("%w: forced pick of %s", ErrDelayed, se.name)
	}
	return nil
}

// setNextTaskFair is set_next_task_fair / set_next_entity: se becomes curr,
// leaving the timeline and the sums. With groups each level of its path
// becomes its queue's h_curr, except, on a real switch, the levels still
// current for the previous task (shared ancestors, which put_prev left);
// an on_rq task then takes its effective weight from the fold. A real
// switch (first) arms its slice protection; the re-install after a nice,
// slice or group change does not.
//
// prev, the running entity or nil, is put back first (put_prev_task_fair
// with next = se): a real switch's two halves in one function, a call
// fewer a switch. Its charge is the caller's (the pick made it, or
// SetNext before the call); a caller that has put curr back itself passes
// nil.
func (rq *CfsRq) setNextTaskFair(prev, se *SchedEntity, first bool) {
	if prev != nil {
		// putPrevTaskFair without its charge, written here; curr is
		// not cleared, as nothing reads it before se replaces it below
		// (a pointer store and its write-barrier test fewer).
		if rq.pelt {
			rq.putPrevLevels(prev, se)
		}
		if prev.onRq {
			// __enqueue_entity written out, as in putPrevTaskFair.
			if !rq.feat.Has(features.ParanoidAvg) {
				w := rq.w(prev) // curr's term into the sums: V stays
				rq.sumWVruntime += rq.entityKey(prev) * w
				rq.sumWeight += uint64(w)
			} else {
				rq.sumAdd(prev)
			}
			rq.seq++
			prev.seq = rq.seq
			if rq.tl.rb == nil {
				rq.tl.b.insert(prev)
			} else {
				rq.tl.rb.insert(prev)
			}
		}
	}
	if rq.next == se { // clearBuddies (no inline mark)
		rq.next = nil
	}
	if se.onRq {
		// __dequeue_entity (dequeueEntity) written out, a call fewer a
		// switch: out of the timeline and the sums.
		if rq.tl.rb == nil {
			rq.tl.b.erase(se)
		} else {
			rq.tl.rb.erase(se)
		}
		// sumSub without its clearing of vAtZero: with no curr, se's
		// term moves from the sums to curr unchanged, and V with it.
		w := rq.w(se)
		rq.sumWVruntime -= rq.entityKey(se) * w
		rq.sumWeight -= uint64(w)
	}
	if rq.pelt {
		if se.onRq {
			// The task about to run goes to the head of cfs_tasks, which
			// is thus in most-recently-run order.
			rq.tasks.moveToHead(se)
		}
		rq.setNextLevels(se, first)
	}
	se.execStart = rq.clock
	se.prevSumExec = se.sumExec
	se.rq = rq
	rq.curr = se
	if se.onRq {
		w := calcPropWeight(se)
		if rq.h != nil {
			w = rq.propWeight(se)
		}
		if se.hload != w {
			rq.reweightEevdf(se, w, true) // which does nothing for an unchanged weight
		}
		switch {
		case rq.kernel >= KernelV612:
			se.vlag = int64(se.deadline) // the RUN_TO_PARITY mark, at every set_next_entity
		case first || rq.kernel == KernelV618: // v6.18 armed it at every set_next_entity
			// set_protect_slice, written here (its only caller; a call
			// fewer a switch): protected up to its deadline, unless a
			// shorter request is queued (RUN_TO_PARITY), or, without
			// RUN_TO_PARITY, its slice is longer than the normalized
			// base slice. Then PREEMPT_SHORT ends the protection where
			// se would turn ineligible; otherwise (and always in v7.1)
			// it lasts the shorter slice.
			slice := se.slice // min(the slice below, se's), se's taken first
			vprot := se.deadline
			if rq.feat.Has(features.RunToParity) {
				// cfs_rq_min_slice, written out as in the wakeup
				// check's update_protect_slice: the smallest slice of
				// an on_rq curr (se here) and the timeline.
				// timeline.root, inline for the B-tree: its
				// minimum read only when it holds an entity (no
				// flag kept across the backend's test).
				if t := rq.tl.rb; t == nil {
					if rq.tl.b.count != 0 {
						slice = min(slice, rq.tl.b.agg.minSlice)
					}
				} else if a, ok := t.root(); ok {
					slice = min(slice, a.minSlice)
				}
			} else {
				slice = min(rq.normBaseSlice, slice)
			}
			if slice != se.slice {
				if rq.feat.Has(features.PreemptShort) && !rq.before71() {
					vprot = minVruntime(vprot, rq.ineligibleVruntime())
				} else {
					vprot = minVruntime(vprot, se.vruntime+rq.calcDeltaFair(slice, se))
				}
			}
			se.vprot = vprot
			if rq.kernel == KernelV618 { // shareVprot (no inline mark)
				se.vlag = int64(se.vprot)
			}
		}
	}
}

// setNextLevels is the per-level part of set_next_entity: PELT (UPDATE_TG)
// for a queued entity, before it becomes its queue's h_curr.
func (rq *CfsRq) setNextLevels(se *SchedEntity, first bool) {
	on := rq.taskGroupRq(se)
	if q := rq.queueOf(on); !first || q.hCurr == nil {
		if se.onRq {
			rq.updateLoadAvgTask(se, on, updateTG)
		}
		q.hCurr = se
	}
	for g := on; g != nil; g = g.parent {
		if q := g.queue(); !first || q.hCurr == nil {
			if g.onRq {
				rq.updateLoadAvgGroup(g, updateTG)
			}
			q.hCurr = g
		}
	}
}

// putPrevTaskFair is put_prev_task_fair / put_prev_entity: an on_rq curr is
// charged and goes back into the timeline with its current vruntime and
// deadline (a new insertion for ties); one that really slept is not
// charged again and not reinserted. next is the task that will run (nil:
// idle, or a parameter change): with groups, the levels of prev's path are
// put up to the queue it shares with next's path, and the ancestors above
// stay current.
//
// charged says that prev was charged at this clock already, as
// pick_task_fair does before every pick, so that put_prev_entity's
// update_curr would find nothing to charge: PickNext passes it and skips
// the test (its loads and comparison: 5 to 7 instructions a schedule in
// the pick loops). A switch to another entity puts prev back in
// setNextTaskFair, which holds a copy of this body without the charge.
func (rq *CfsRq) putPrevTaskFair(prev, next *SchedEntity, charged bool) {
	if prev.onRq && !charged {
		rq.updateCurr() // which charges nothing else (after a pick, at its clock)
	}
	if rq.pelt {
		rq.putPrevLevels(prev, next)
	}
	rq.curr = nil
	if prev.onRq {
		// __enqueue_entity (enqueueEntity) written out, a call fewer a
		// switch: into the weighted sums and the timeline, as a new
		// insertion.
		if !rq.feat.Has(features.ParanoidAvg) {
			// curr's term moves into the sums unchanged: V, and
			// vAtZero, stay as they are.
			w := rq.w(prev)
			rq.sumWVruntime += rq.entityKey(prev) * w
			rq.sumWeight += uint64(w)
		} else {
			rq.sumAdd(prev)
		}
		rq.seq++
		prev.seq = rq.seq
		if rq.tl.rb == nil {
			rq.tl.b.insert(prev)
		} else {
			rq.tl.rb.insert(prev)
		}
	}
}

// level is one entity of a task's path: the task itself (g nil) or a
// group entity.
type level struct {
	task *SchedEntity
	g    *groupRq
}

func (l level) ok() bool { return l.task != nil || l.g != nil }

func (rq *CfsRq) levelQueue(l level) *cfsQueue {
	if l.task != nil {
		return rq.queueOf(rq.taskGroupRq(l.task))
	}
	return l.g.queue()
}

func (rq *CfsRq) levelParent(l level) level {
	if l.task != nil {
		return level{g: rq.taskGroupRq(l.task)}
	}
	return level{g: l.g.parent}
}

func levelDepth(l level) int {
	if l.task != nil {
		return taskDepth(l.task)
	}
	return l.g.depth()
}

// putPrevLevels walks prev's path as put_prev_task_fair does: each level
// that is current is put (PELT with no flags if the entity is queued,
// h_curr cleared) until the level whose queue next's path shares; next's
// path is climbed in step, the deeper side first.
func (rq *CfsRq) putPrevLevels(prev, next *SchedEntity) {
	se := level{task: prev}
	var nse level
	if next != nil {
		nse = level{task: next}
	}
	for se.ok() {
		q := rq.levelQueue(se)
		if !nse.ok() || q.hCurr != nil {
			rq.putPrevEntity(se, q)
		}
		if nse.ok() {
			if q == rq.levelQueue(nse) {
				break
			}
			if d := levelDepth(nse) - levelDepth(se); d >= 0 {
				nse = rq.levelParent(nse)
				if d > 0 {
					continue
				}
			}
		}
		se = rq.levelParent(se)
	}
}

// putPrevEntity is put_prev_entity's PELT part for one level (the charge
// of the task's level is done by the caller).
func (rq *CfsRq) putPrevEntity(l level, q *cfsQueue) {
	if l.task != nil {
		if l.task.onRq {
			rq.updateLoadAvgTask(l.task, rq.taskGroupRq(l.task), 0)
		}
	} else if l.g.onRq {
		rq.updateLoadAvgGroup(l.g, 0)
	}
	q.hCurr = nil
}
