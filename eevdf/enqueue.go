package eevdf

import (
	"fmt"

	"github.com/schedmodel/fairclass/features"
)

// Enqueue is enqueue_task_fair: make se runnable on this runqueue.
//
// flags carry the kernel's meaning: EnqueueWakeup for a wakeup of a fully
// dequeued task, EnqueueInitial (without EnqueueWakeup) for a new task,
// EnqueueRestore after a save, EnqueueDelayed for the wakeup of a delayed
// task (which only requeues it), EnqueueMigrated for an arrival from
// another CPU. Enqueue does not run the wakeup-preemption check; the
// caller follows a wakeup with WakeupPreempt, as the core does (Wakeup
// and WakeUpNew do both).
//
// Errors, each leaving everything unchanged: ErrNilRunqueue, ErrNilEntity,
// ErrForeignEntity or ErrForeignGroup for an entity this runqueue may not
// take; ErrBadFlags for bits outside the exported flags (checked before
// anything that depends on the flags); ErrNotQueued or ErrNotDelayed for
// EnqueueDelayed of an entity that is not queued here or not delayed;
// ErrAlreadyQueued for any other enqueue of a queued entity.
func (rq *CfsRq) Enqueue(se *SchedEntity, flags EnqueueFlags) error {
	// The common enqueue, decided in one run of tests: an entity of the
	// root group last queued here, with defined flags, passes every check
	// of checkEnqueue if it is asleep (neither on_rq nor delayed) for an
	// enqueue, or delayed (and so on_rq) for EnqueueDelayed. Each field
	// is read once, and the error paths stay out of this frame.
	requeue := flags&EnqueueDelayed != 0
	if rq == nil || se == nil || se.rq != rq || se.group != nil || flags&^enqueueFlagsMask != 0 ||
		se.onRq != requeue || se.delayed != requeue {
		if err := rq.checkEnqueue(se, flags); err != nil {
			return err
		}
	}
	if requeue && !rq.pelt {
		// enqueueTask's path for EnqueueDelayed without PELT, without
		// its call (a call fewer at each wakeup of a delayed entity).
		rq.requeueDelayedEntity(se, rq.kernel < KernelV71)
		return nil
	}
	rq.enqueueTask(se, flags)
	return nil
}

// checkEnqueue is Enqueue's validation in full, in the order of its
// errors; nil if se may be enqueued with flags.
func (rq *CfsRq) checkEnqueue(se *SchedEntity, flags EnqueueFlags) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	if stray := flags &^ enqueueFlagsMask; stray != 0 {
		return errStrayFlags("enqueue flags", uint32(stray))
	}
	if flags&EnqueueDelayed != 0 {
		switch {
		case !se.onRq || se.rq != rq:
			return fmt.Errorf("%w: EnqueueDelayed of %s", ErrNotQueued, se.name)
		case !se.delayed:
			return fmt.Errorf("%w: EnqueueDelayed of %s", ErrNotDelayed, se.name)
		}
	} else if se.onRq {
		return fmt.Errorf("%w: %s", ErrAlreadyQueued, se.name)
	}
	return nil
}

// enqueueTask is enqueue_task_fair and enqueue_hierarchy for a flat queue.
// The order of effects is the kernel's: curr is charged first (judged with
// the counts as they were), then the entity is counted, its effective
// weight installed, and it is placed and inserted.
func (rq *CfsRq) enqueueTask(se *SchedEntity, flags EnqueueFlags) {
	isCurr := rq.curr == se
	if rq.pelt {
		if flags&EnqueueInitial != 0 && se.rq == nil {
			// sched_fork and wake_up_new_task: the first signals.
			rq.initEntityPELT(se)
		}
		// util_est_enqueue, unless a delayed task is restored (it was not
		// taken out).
		if !se.delayed || flags&EnqueueDelayed != 0 {
			rq.utilEstEnqueue(se)
		}
	}
	if rq.before71() {
		// v7.1 requeued a delayed entity before charging curr (its lag
		// update saw a stale V), and placed a current entity before the
		// charge.
		if flags&EnqueueDelayed != 0 {
			rq.requeueDelayedEntity(se, false)
			return
		}
		if isCurr {
			rq.placeEntity(se, flags)
		}
		rq.updateCurr()
	} else {
		if c := rq.curr; c != nil && int64(rq.clock-c.execStart) > 0 {
			rq.chargeCurr(c) // updateCurr (no inline mark)
		}
		if flags&EnqueueDelayed != 0 {
			rq.requeueDelayedEntity(se, false) // curr charged just above
			return
		}
		if isCurr {
			rq.placeEntity(se, flags)
		}
	}
	if isCurr {
		// A current entity enqueued again after a dequeue is placed before
		// it is counted, so it is in neither nr nor V.
		if rq.feat.Has(features.PlaceJoinLag) {
			rq.sumJlagAdd(se)
		}
	}
	// (An on_rq delayed entity enqueued without EnqueueDelayed would be
	// requeued here; Enqueue refuses an on_rq entity, so it cannot happen.)

	var w uint64
	if rq.pelt {
		w = rq.enqueueHierarchy(se, flags)
	} else {
		w = rq.enqueueFlat(se, flags)
	}
	if !isCurr {
		if se.hload != w { // reweightEevdf's own test, without the call
			rq.reweightEevdf(se, w, false)
		}
		rq.placeEntity(se, flags|enqueueQueued)
		if rq.feat.Has(features.PlaceJoinLag) {
			rq.sumJlagAdd(se)
		}
		rq.enqueueEntity(se)
	}
	rq.nrRunning++
}

// enqueueFlat is enqueueHierarchy on a runqueue without groups or PELT:
// the task's level alone, the only one there is.
//
// The level's update_curr is left out: enqueueTask charged curr at this
// clock, so it would find nothing to charge.
func (rq *CfsRq) enqueueFlat(se *SchedEntity, flags EnqueueFlags) uint64 {
	se.rq = rq
	rq.loadWeight += se.load.weight
	rq.nrQueued++
	if flags&EnqueueMigrated != 0 {
		se.execStart = 0
	}
	se.onRq = true
	rq.vAtZero = false // a current se joins V
	if flags&EnqueueWakeup != 0 || !se.delayed {
		rq.hNrRunnable++ // a delayed task restored after a save stays not runnable
	}
	rq.hNrQueued++
	if se.policy == PolicyIdle {
		rq.hNrIdle++
	}
	return calcPropWeight(se)
}

// calcPropWeight is __calc_prop_weight for a task of the root group:
// NICE_0_LOAD·load/NICE_0_LOAD, floored at MIN_SHARES.
func calcPropWeight(se *SchedEntity) uint64 { return max(se.load.weight, minShares) }

// enqueueEntity is __enqueue_entity: into the weighted sums and the
// timeline, as a new insertion (later than any equal deadline).
func (rq *CfsRq) enqueueEntity(se *SchedEntity) {
	if !rq.feat.Has(features.ParanoidAvg) { // sumAdd's common case, written out: a call fewer
		rq.vAtZero = false
		w := rq.w(se)
		rq.sumWVruntime += rq.entityKey(se) * w
		rq.sumWeight += uint64(w)
	} else {
		rq.sumAdd(se)
	}
	rq.seq++
	se.seq = rq.seq
	if rq.tl.rb == nil { // timeline.insert, one call fewer for the default backend
		rq.tl.b.insert(se)
	} else {
		rq.tl.rb.insert(se)
	}
}

// dequeueEntity is __dequeue_entity: out of the timeline and the sums.
func (rq *CfsRq) dequeueEntity(se *SchedEntity) {
	if rq.tl.rb == nil { // timeline.erase, one call fewer for the default backend
		rq.tl.b.erase(se)
	} else {
		rq.tl.rb.erase(se)
	}
	rq.sumSub(se)
}

// requeueDelayedEntity is requeue_delayed_entity: the wakeup of a delayed
// entity, which never left the queue. Its lag is brought up to date with
// the delayed clamps; if a clamp changed it, the entity is re-placed with
// the clamped lag and a fresh deadline, otherwise it keeps its vruntime and
// deadline. Seed 000's toggle selects the clamps (lag.go).
//
// charge asks for update_curr first, as the kernels after v7.1 make it
// before the requeue (v7.1 made it after, and enqueueTask's own paths
// charge curr themselves): Enqueue's and Wakeup's paths without PELT
// call this directly, and the charge is here rather than written out in
// each of them.
func (rq *CfsRq) requeueDelayedEntity(se *SchedEntity, charge bool) {
	if c := rq.curr; charge && c != nil && int64(rq.clock-c.execStart) > 0 {
		rq.chargeCurr(c) // updateCurr (no inline mark)
	}
	replace := false
	switch rq.floor { // floorMode (no inline mark)
	case floorFinal:
		replace, _ = rq.updateEntityLag(se)
	case floorPosted:
		// The posted v1: under DELAY_ZERO, clamp(cur, recorded, 0) and
		// re-place iff that changed the lag.
		if rq.feat.Has(features.DelayZero) {
			recorded := se.vlag
			rq.updateEntityLag(se)
			cur := se.vlag
			if vlag := kernelClamp(cur, recorded, 0); vlag != cur {
				se.vlag = vlag
				replace = true
			}
		}
	case floorOff:
		// v7.0: under DELAY_ZERO only positive lag is cut (to 0).
		if rq.feat.Has(features.DelayZero) {
			rq.updateEntityLag(se)
			if se.vlag > 0 {
				se.vlag = 0
				replace = true
			}
		}
	}
	if replace {
		rq.hNrQueued--
		if se != rq.curr {
			rq.dequeueEntity(se)
		}
		rq.placeEntity(se, 0)
		if se != rq.curr {
			rq.enqueueEntity(se)
		}
		rq.hNrQueued++
	}
	if rq.pelt {
		// The kernel passes rq->cfs here, not the task's own queue: the
		// task is aged against the root queue's h_curr, and the root
		// queue is the one decayed.
		rq.updateLoadAvgTask(se, nil, 0)
	}
	rq.clearDelayed(se)
}

// setDelayed is set_delayed: the entity sleeps but stays queued.
func (rq *CfsRq) setDelayed(se *SchedEntity) {
	se.delayed = true
	rq.addRunnable(se, -1)
}

// clearDelayed is clear_delayed.
func (rq *CfsRq) clearDelayed(se *SchedEntity) {
	se.delayed = false
	rq.addRunnable(se, 1)
}
