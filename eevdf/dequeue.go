package eevdf

import (
	"fmt"

	"github.com/schedmodel/fairclass/features"
)

// Dequeue is dequeue_task_fair: take se off the runqueue. It returns false
// when the dequeue was delayed: with DELAY_DEQUEUE a sleeping entity
// (DequeueSleep) that is not eligible stays queued, as delayed, until its
// negative lag is spent (a pick completes it), it is woken (Enqueue with
// EnqueueDelayed) or a wakeup check flushes it.
//
// DequeueSleep|DequeueDelayed completes the dequeue of a delayed entity;
// DequeueSave saves it for a nice or slice change (never delayed, the
// deadline made relative). Dequeuing the running entity for a sleep leaves
// it Curr, no longer on_rq, until the next PickNext (Sleep does both).
//
// Errors, each leaving everything unchanged: ErrNilRunqueue, ErrNilEntity,
// ErrForeignEntity or ErrForeignGroup for an entity this runqueue may not
// take; ErrBadFlags for bits outside the exported flags (checked first) or
// DequeueDelayed without DequeueSleep; ErrNotQueued for an entity not
// queued here; ErrNotDelayed for DequeueDelayed of an entity that is not
// delayed; ErrDelayed for a second sleep of a delayed entity.
func (rq *CfsRq) Dequeue(se *SchedEntity, flags DequeueFlags) (bool, error) {
	// The common dequeue, decided in one run of tests: a runnable entity
	// of the root group queued here, with defined flags other than
	// DequeueDelayed, passes every check of checkDequeue. Each field is
	// read once (checkOwner's inline test and the queued test read se.rq
	// twice), and the checks' error paths stay out of this frame.
	if rq == nil || se == nil || se.rq != rq || se.group != nil || !se.onRq || se.delayed ||
		flags&^(dequeueFlagsMask&^DequeueDelayed) != 0 {
		if err := rq.checkDequeue(se, flags); err != nil {
			return false, err
		}
	}
	if rq.pelt && !se.delayed {
		rq.utilEstDequeue(se) // dequeue_task_fair: util_est_dequeue, then __dequeue_task
	}
	return rq.dequeueTask(se, flags), nil
}

// checkDequeue is Dequeue's validation in full, in the order of its
// errors; nil if se may be dequeued with flags.
func (rq *CfsRq) checkDequeue(se *SchedEntity, flags DequeueFlags) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	if stray := flags &^ dequeueFlagsMask; stray != 0 {
		return errStrayFlags("dequeue flags", uint32(stray))
	}
	if !se.onRq || se.rq != rq {
		return fmt.Errorf("%w: %s", ErrNotQueued, se.name)
	}
	switch {
	case flags&DequeueDelayed != 0 && !se.delayed:
		return fmt.Errorf("%w: DequeueDelayed of %s", ErrNotDelayed, se.name)
	case flags&DequeueDelayed != 0 && flags&DequeueSleep == 0:
		return fmt.Errorf("%w: DequeueDelayed without DequeueSleep", ErrBadFlags)
	case flags&DequeueDelayed == 0 && flags&DequeueSleep != 0 && se.delayed:
		return fmt.Errorf("%w: %s already sleeps", ErrDelayed, se.name)
	}
	return nil
}

// dequeueTaskFair is dequeue_task_fair: the utilization estimate leaves
// the CPU unless the task is delayed (it left at the delay), then
// __dequeue_task. The completion of a delayed dequeue by a pick goes to
// __dequeue_task directly. (Dequeue inlines the same two steps.)
func (rq *CfsRq) dequeueTaskFair(se *SchedEntity, flags DequeueFlags) bool {
	if rq.pelt && !se.delayed {
		rq.utilEstDequeue(se)
	}
	return rq.dequeueTask(se, flags)
}

// dequeueTask is __dequeue_task: true if se left the queue, false if it
// stays as delayed.
//
// Order matters: the buddy is dropped, curr charged (with the counts still
// including se), and se's lag saved before anything is decided, with V
// still counting se; on_rq is cleared before the relative-deadline step and
// the timeline removal.
func (rq *CfsRq) dequeueTask(se *SchedEntity, flags DequeueFlags) bool {
	sleep := flags&DequeueSleep != 0
	completing := flags&DequeueDelayed != 0

	// clear_buddies and update_curr's test, written out (no inline mark).
	if rq.next == se {
		rq.next = nil
	}
	if c := rq.curr; c != nil && int64(rq.clock-c.execStart) > 0 {
		rq.chargeCurr(c)
	}
	// Seed 000: the merged and posted forms save the lag before the delay
	// decision, so a sleeper that becomes delayed records its sleep-time
	// lag; v7.0 saved it only on the real-removal path.
	fm := rq.floor // floorMode (no inline mark)
	early := fm != floorOff
	var elig keyBound // entity_eligible's test, as the lag update left it
	if early {
		_, elig = rq.updateEntityLag(se)
	}
	// A sleep, neither completing a delayed dequeue nor special: one
	// test of the three flags.
	if flags&(DequeueSleep|DequeueDelayed|DequeueSpecial) == DequeueSleep && rq.feat.Has(features.DelayDequeue) {
		if !early {
			elig = rq.eligibility().bound()
		}
		if !elig.eligible(se.vruntime) { // !entity_eligible(se)
			if rq.pelt {
				rq.updateLoadAvgTask(se, rq.taskGroupRq(se), updateUtilEst)
			}
			rq.setDelayed(se)
			return false
		}
	}
	if !early {
		rq.updateEntityLag(se)
	}
	if rq.feat.Has(features.PlaceJoinLag) {
		rq.sumJlagSub(se) // while se still counts in the load
	}

	if rq.pelt {
		rq.dequeueHierarchy(se, flags)
	} else {
		rq.dequeueFlat(se, flags)
	}

	// The kernel makes the deadline relative and then removes se from the
	// timeline; the order is reversed here, with the same result, because
	// the B-tree timeline keeps a copy of each queued entity's deadline,
	// which must not change while the entity is in it.
	if se != rq.curr {
		rq.dequeueEntity(se)
	}
	if rq.feat.Has(features.PlaceRelDeadline) && !sleep {
		se.deadline -= se.vruntime
		se.relDeadline = true
	}
	rq.nrRunning--
	if rq.kernel.minVruntimeRef() && flags&(DequeueSave|DequeueMove) != DequeueSave {
		rq.updateMinVruntime()
	}
	if completing {
		rq.clearDelayed(se)
		// v7.0 (and the posted v1, which left the completion alone): only
		// positive lag is cut when the delayed state ends.
		if fm != floorFinal && rq.feat.Has(features.DelayZero) && se.vlag > 0 {
			se.vlag = 0
		}
	}
	return true
}

// dequeueFlat is dequeueHierarchy on a runqueue without groups or PELT:
// the task's level alone.
//
// The level's update_curr is left out: dequeueTask charged curr at this
// clock, so it would find nothing to charge.
func (rq *CfsRq) dequeueFlat(se *SchedEntity, flags DequeueFlags) {
	se.onRq = false
	rq.vAtZero = false // a current se leaves V
	rq.loadWeight -= se.load.weight
	rq.nrQueued--
	if flags&(DequeueSleep|DequeueDelayed) != 0 || !se.delayed {
		rq.hNrRunnable-- // a delayed task saved for a change was not runnable
	}
	rq.hNrQueued--
	if se.policy == PolicyIdle {
		rq.hNrIdle--
	}
}
