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
func (rq *CfsRq) Stats() Stats { return rq.stats }

// pickEevdf is pick_eevdf: the entity to run.
//
// EEVDF runs the eligible entity (v ≤ V) with the earliest virtual
// deadline. In the kernel's order: a lone queued entity is returned without
// any test; an eligible next buddy wins (only when protect); an eligible
// curr still inside its protected slice is kept (only when protect); else
// the first eligible entity of the timeline — the leftmost if eligible,
// otherwise the heap descent, which relies on eligibility being monotone
// in vruntime and on exact subtree minima — unless an eligible curr has a
// strictly earlier deadline (a tie goes to the timeline entity).
func (rq *CfsRq) pickEevdf(protect bool) *SchedEntity {
	rq.stats.Picks++
	leftmost := rq.tl.first()
	c := rq.curr
	if rq.hNrQueued == 1 {
		if c != nil && c.onRq {
			return c
		}
		return leftmost
	}
	// Nothing below moves zero_vruntime or the sums: the two sides of
	// the eligibility test are computed once.
	elig := rq.eligibility()
	if protect && rq.next != nil && rq.feat.Has(features.PickBuddy) && elig.eligible(rq.next.vruntime) {
		return rq.next
	}
	if c != nil && (!c.onRq || !elig.eligible(c.vruntime)) {
		c = nil
	}
	if c != nil && protect && protectSlice(c) {
		return c
	}
	var best *SchedEntity
	if leftmost != nil && elig.eligible(leftmost.vruntime) {
		best = leftmost
	} else if leftmost != nil {
		rq.stats.Descents++
		rq.match.set(elig)
		best = rq.tl.findEligible(&rq.match)
		rq.stats.Visited += uint64(rq.match.visited)
	}
	if best == nil || (c != nil && entityBefore(c, best)) {
		best = c
	}
	return best
}

// pickNextEntity is pick_next_entity: a delayed entity chosen by the pick
// has spent its lag; its sleep completes here and the caller picks again
// (ok is then true with a nil entity). A nil pick with ok false means
// nothing was eligible, which intact sums never allow.
func (rq *CfsRq) pickNextEntity(protect bool) (se *SchedEntity, ok bool) {
	se = rq.pickEevdf(protect)
	if se == nil {
		return nil, false
	}
	if se.delayed {
		rq.stats.Flushed++
		rq.dequeueTask(se, DequeueSleep|DequeueDelayed)
		return nil, true
	}
	return se, true
}

// pickTaskFair is pick_task_fair: charge curr and pick, completing the
// delayed dequeues the pick meets, until a runnable entity comes out or the
// queue is empty (nil: idle).
func (rq *CfsRq) pickTaskFair() *SchedEntity {
	for rq.hNrQueued != 0 {
		if c := rq.curr; c != nil && c.onRq {
			rq.updateCurr()
		}
		se, ok := rq.pickNextEntity(true)
		if se != nil {
			return se
		}
		if !ok {
			return nil // only with broken sums; Check reports it
		}
	}
	return nil
}

// PickNext is __schedule for the fair class: pick first, while the
// previous entity is still curr (it competes if it is still on_rq, e.g.
// delayed); then, only if the pick differs from it, put the previous
// entity back (put_prev_task_fair) and install the new one
// (set_next_task_fair with first = true, which arms its slice protection).
// Picking the running entity again changes nothing. It clears
// need-resched and returns the new current entity, nil for idle.
func (rq *CfsRq) PickNext() *SchedEntity {
	prev := rq.curr
	next := rq.pickTaskFair()
	if next != prev {
		if prev != nil {
			rq.putPrevTaskFair(prev)
		}
		if next != nil {
			rq.setNextTaskFair(next, true)
		}
	}
	rq.needResched = false
	return next
}

// PickTask is pick_task_fair alone: charge the running entity and pick,
// completing the delayed dequeues the pick meets, without installing the
// pick (nil: idle). Core scheduling picks this way on every sibling before
// it decides what each runs; it then installs the choice with SetNext, or
// leaves the CPU idle with PutPrev. PickNext is PickTask followed by the
// install.
func (rq *CfsRq) PickTask() *SchedEntity { return rq.pickTaskFair() }

// PutPrev puts the running entity back (put_prev_task_fair) and leaves
// the idle task running, as a core-scheduling forced idle does. It clears
// need-resched; with nothing running it only does that.
func (rq *CfsRq) PutPrev() {
	if prev := rq.curr; prev != nil {
		rq.putPrevTaskFair(prev)
	}
	rq.needResched = false
}

// SetNext forces se to run, as core scheduling does when it selects a task
// for a sibling's cookie: the running entity is put back and se installed,
// eligible or not, without a pick (no delayed dequeue completes). Forcing
// the running entity picks it again. It clears need-resched.
func (rq *CfsRq) SetNext(se *SchedEntity) error {
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	switch {
	case !se.onRq || se.rq != rq:
		return fmt.Errorf("%w: %s", ErrNotQueued, se.name)
	case se.delayed:
		return fmt.Errorf("%w: forced pick of %s", ErrDelayed, se.name)
	}
	if prev := rq.curr; prev != se {
		if prev != nil {
			rq.putPrevTaskFair(prev)
		}
		rq.setNextTaskFair(se, true)
	}
	rq.needResched = false
	return nil
}

// setNextTaskFair is set_next_task_fair / set_next_entity: se becomes curr,
// leaving the timeline and the sums. A real switch (first) arms its slice
// protection; the re-install after a nice or slice change does not.
func (rq *CfsRq) setNextTaskFair(se *SchedEntity, first bool) {
	rq.clearBuddies(se)
	if se.onRq {
		rq.dequeueEntity(se)
	}
	se.execStart = rq.clock
	se.prevSumExec = se.sumExec
	se.rq = rq
	rq.curr = se
	if se.onRq {
		rq.reweightEevdf(se, calcPropWeight(se), true)
		if first {
			rq.setProtectSlice(se)
		}
	}
}

// putPrevTaskFair is put_prev_task_fair / put_prev_entity: an on_rq curr is
// charged and goes back into the timeline with its current vruntime and
// deadline (a new insertion for ties); one that really slept is not
// charged again and not reinserted.
func (rq *CfsRq) putPrevTaskFair(prev *SchedEntity) {
	if prev.onRq {
		rq.updateCurr()
	}
	rq.curr = nil
	if prev.onRq {
		rq.enqueueEntity(prev)
	}
}
