package eevdf

import "fmt"

// The core scheduler's sequences around the fair class's hooks, each in
// one call: what kernel/sched/core.c does for a new task, a wakeup and a
// blocking task on one CPU (KERNEL-SPEC §11.1–§11.3). They are the
// scenario language's new, wakeup and sleep, step for step; the hooks
// they call remain available one by one (Enqueue, WakeupPreempt, Dequeue,
// PickNext) for callers that interleave other work, as package smp does.

// WakeUpNew is wake_up_new_task on this CPU: se, never enqueued before, is
// enqueued as a new task (EnqueueInitial: placed at V with half a request
// under PLACE_DEADLINE_INITIAL), then the wakeup-preemption check runs with
// WFFork. It does not switch: a reschedule it requests is honoured by the
// caller's next PickNext.
//
// Errors, each leaving everything unchanged: those of Enqueue, and
// ErrLifecycle for an entity that was enqueued before (a task is new only
// once; wake it with Wakeup).
func (rq *CfsRq) WakeUpNew(se *SchedEntity) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	switch {
	case se.onRq:
		return fmt.Errorf("%w: %s", ErrAlreadyQueued, se.name)
	case se.rq != nil:
		return fmt.Errorf("%w: WakeUpNew of %s, which was enqueued before", ErrLifecycle, se.name)
	}
	rq.enqueueTask(se, EnqueueInitial)
	rq.wakeupPreempt(se, WFFork)
	return nil
}

// Wakeup is try_to_wake_up of se on this CPU, with the wake flags wf (WFTTWU
// is added; WFSync, WFRqSelected and WFMigrated are passed on to the
// check):
//
//   - a delayed se (asleep, still queued) is requeued where it is
//     (ttwu_runnable: Enqueue with EnqueueDelayed), then, unless it is the
//     running entity, the wakeup-preemption check runs;
//   - a fully dequeued se is enqueued with EnqueueWakeup (and
//     EnqueueMigrated if wf has WFMigrated, as ttwu_do_activate adds it),
//     then the check runs.
//
// It does not switch: a reschedule it requests is honoured by the caller's
// next PickNext. With wf = 0 it is the scenario language's wakeup.
//
// Errors, each leaving everything unchanged: ErrNilRunqueue, ErrNilEntity,
// ErrForeignEntity, ErrForeignGroup as for Enqueue; ErrBadFlags for bits
// outside the WF_* flags, for WFFork (a new task goes through WakeUpNew)
// and for WFMigrated with a delayed se (it is woken on the CPU it is
// queued on); ErrLifecycle for an entity never enqueued (a new task starts
// with WakeUpNew); ErrRunning for the running entity, not delayed (a task
// between its Dequeue for a sleep and the next PickNext cannot be woken);
// ErrAlreadyQueued for a queued entity that is not delayed.
func (rq *CfsRq) Wakeup(se *SchedEntity, wf WakeFlags) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	switch {
	case wf&^wakeFlagsMask != 0:
		return errStrayFlags("wake flags", uint32(wf&^wakeFlagsMask))
	case wf&WFFork != 0:
		return fmt.Errorf("%w: WFFork in a wakeup of %s (a new task goes through WakeUpNew)", ErrBadFlags, se.name)
	case se.delayed && wf&WFMigrated != 0:
		return fmt.Errorf("%w: WFMigrated in a wakeup of %s, which is delayed here", ErrBadFlags, se.name)
	case se.delayed && (!se.onRq || se.rq != rq):
		// Detached while delayed (DetachTask): it is still sched_delayed
		// but on no timeline; it must be attached somewhere first.
		return fmt.Errorf("%w: Wakeup of %s, delayed but not queued here (attach it with Enqueue first)", ErrLifecycle, se.name)
	case se.delayed:
		if rq.pelt {
			rq.enqueueTask(se, EnqueueDelayed)
		} else {
			// enqueueTask's path for EnqueueDelayed without PELT,
			// without its call, as in Enqueue.
			rq.requeueDelayedEntity(se, !rq.before71())
		}
		if se != rq.curr {
			rq.wakeupPreempt(se, wf|WFTTWU)
		}
		return nil
	case se.rq == nil:
		return fmt.Errorf("%w: Wakeup of %s, never enqueued (a new task starts with WakeUpNew)", ErrLifecycle, se.name)
	case se == rq.curr:
		return fmt.Errorf("%w: Wakeup of %s", ErrRunning, se.name)
	case se.onRq:
		return fmt.Errorf("%w: %s", ErrAlreadyQueued, se.name)
	}
	flags := EnqueueWakeup
	if wf&WFMigrated != 0 {
		flags |= EnqueueMigrated
	}
	rq.enqueueTask(se, flags)
	rq.wakeupPreempt(se, wf|WFTTWU)
	return nil
}

// Sleep blocks the running entity and schedules: Dequeue with DequeueSleep
// (block_task: under DELAY_DEQUEUE an ineligible sleeper stays queued as
// delayed), then PickNext (__schedule), which returns what Sleep returns:
// the new running entity, nil if the idle task runs.
//
// Errors, each leaving everything unchanged: ErrNilRunqueue; ErrIdle while
// the idle task runs; ErrNotQueued for a running entity already dequeued
// (between a Dequeue and the next PickNext).
func (rq *CfsRq) Sleep() (*SchedEntity, error) {
	if err := rq.checkMade(); err != nil {
		return nil, err
	}
	curr := rq.curr
	if curr == nil {
		return nil, fmt.Errorf("%w: Sleep", ErrIdle)
	}
	if _, err := rq.Dequeue(curr, DequeueSleep); err != nil {
		return nil, err
	}
	return rq.PickNext(), nil
}
