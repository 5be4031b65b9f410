package eevdf

import (
	"fmt"
	"iter"
)

// The fair class's side of moving tasks between CPUs (KERNEL-SPEC-SMP §4):
// the cfs_tasks list the load balancer walks, the detach of a queued task,
// and migrate_task_rq_fair's PELT hand-over for a sleeping one. Each CPU's
// runqueue is a CfsRq; a caller that moves tasks between them (package smp)
// calls these in the order the kernel's core does. They need the PELT
// signals (WithPELT): a runqueue without them has no list and no load to
// hand over, and only the EEVDF half of a move happens.

// taskLink is se->group_node: the entity's place in its runqueue's
// cfs_tasks list, kept while the runqueue keeps PELT signals.
type taskLink struct {
	prev, next *SchedEntity
}

// taskList is rq->cfs_tasks: the queued tasks (delayed ones included), the
// most recently enqueued or picked at the head, the least recently run at
// the tail.
type taskList struct {
	head, tail *SchedEntity
	n          int
}

// push adds se at the head (list_add, in account_entity_enqueue).
func (l *taskList) push(se *SchedEntity) {
	se.link.prev, se.link.next = nil, l.head
	if l.head != nil {
		l.head.link.prev = se
	} else {
		l.tail = se
	}
	l.head = se
	l.n++
}

// remove takes se out (list_del_init, in account_entity_dequeue).
func (l *taskList) remove(se *SchedEntity) {
	if se.link.prev != nil {
		se.link.prev.link.next = se.link.next
	} else {
		l.head = se.link.next
	}
	if se.link.next != nil {
		se.link.next.link.prev = se.link.prev
	} else {
		l.tail = se.link.prev
	}
	se.link = taskLink{}
	l.n--
}

// moveToHead is list_move to the head.
func (l *taskList) moveToHead(se *SchedEntity) {
	if l.head == se {
		return
	}
	l.remove(se)
	l.push(se)
}

// Tasks returns the queued tasks in cfs_tasks order: the most recently
// enqueued or picked first, the least recently run last. The running task
// and delayed tasks are included. It is empty for a runqueue without PELT
// signals. The list must not change during the walk.
func (rq *CfsRq) Tasks() iter.Seq[*SchedEntity] {
	return func(yield func(*SchedEntity) bool) {
		if rq == nil {
			return
		}
		for se := rq.tasks.head; se != nil; se = se.link.next {
			if !yield(se) {
				return
			}
		}
	}
}

// LastTask returns the tail of cfs_tasks, the least recently run queued
// task, or nil: where detach_tasks starts.
func (rq *CfsRq) LastTask() *SchedEntity {
	if rq == nil {
		return nil
	}
	return rq.tasks.tail
}

// RotateTask moves a queued task to the head of cfs_tasks, as detach_tasks
// does with a task it may not take (so the walk from the tail meets the
// next one). It fails for a task that is not queued here.
func (rq *CfsRq) RotateTask(se *SchedEntity) error {
	if err := rq.checkMade(); err != nil {
		return err
	}
	if se == nil {
		return ErrNilEntity
	}
	if !se.onRq || se.rq != rq || !rq.pelt {
		return fmt.Errorf("%w: %s is not on cfs_tasks here", ErrNotQueued, se.name)
	}
	rq.tasks.moveToHead(se)
	return nil
}

// DetachTask takes a queued task off this runqueue for another CPU, as
// detach_task's deactivate_task with the task migrating: a dequeue that is
// not a sleep (its clamped lag saved, its deadline made relative under
// PLACE_REL_DEADLINE, a delayed task leaving still delayed), its PELT load
// detached from the queue at once (DO_DETACH), its utilization estimate
// removed unless it is delayed, and then set_task_cpu's
// migrate_task_rq_fair for a migrating task: only last_update_time = 0, so
// that the destination attaches it. The caller then enqueues it on the
// destination with EnqueueMigrated (attach_task).
//
// The running task cannot be detached (put it back first, as the CPU
// stopper does, with PutPrev).
func (rq *CfsRq) DetachTask(se *SchedEntity) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	switch {
	case !se.onRq || se.rq != rq:
		return fmt.Errorf("%w: %s", ErrNotQueued, se.name)
	case se == rq.curr:
		return fmt.Errorf("%w: %s is running", ErrRunning, se.name)
	}
	if rq.pelt && !se.delayed {
		rq.utilEstDequeue(se)
	}
	rq.dequeueTask(se, dequeueMigrating)
	se.avg.LastUpdateTime = 0
	return nil
}

// MigrateOut is migrate_task_rq_fair for a sleeping task that leaves this
// runqueue on its wakeup (set_task_cpu from try_to_wake_up): its load goes
// to the queue's removed accumulators (remove_entity_load_avg, after a sync
// to the queue's last update), to come off at the queue's next update; if
// this CPU idles, the task is decayed further to the present
// (migrate_se_pelt_lag: the estimate of the idle CPU's PELT time is the
// clock less its lost idle time, the clock itself at capacity 1024); and
// last_update_time = 0, so that the destination attaches it at the
// enqueue. vruntime, vlag and deadline are untouched: the enqueue there
// places the task with its saved lag.
//
// The task must not be queued (a delayed task is woken in place and never
// migrates at wakeup).
func (rq *CfsRq) MigrateOut(se *SchedEntity) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	if se.onRq {
		return fmt.Errorf("%w: %s migrates only while it sleeps", ErrAlreadyQueued, se.name)
	}
	if rq.pelt && se.avg.LastUpdateTime != 0 {
		rq.removeEntityLoadAvg(se)
		if rq.curr == nil && !se.avg.IsDecayed() {
			se.avg.UpdateBlocked(rq.idlePELTNow(), seWeight(se.load.weight))
		}
	}
	se.avg.LastUpdateTime = 0
	return nil
}

// RemoveLoadAvg is remove_entity_load_avg for a task that leaves this
// runqueue for good (task_dead_fair, after an exit): its load waits in the
// queue's removed accumulators until the queue's next update. The task
// must not be queued.
func (rq *CfsRq) RemoveLoadAvg(se *SchedEntity) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	if se.onRq {
		return fmt.Errorf("%w: %s", ErrAlreadyQueued, se.name)
	}
	if rq.pelt && se.avg.LastUpdateTime != 0 {
		rq.removeEntityLoadAvg(se)
	}
	return nil
}

// removeEntityLoadAvg is remove_entity_load_avg: sync the blocked task to
// its queue's last update (so that the averages removed are the queue's
// view of it), then add them to the queue's removed accumulators.
func (rq *CfsRq) removeEntityLoadAvg(se *SchedEntity) {
	q := rq.queueOf(rq.taskGroupRq(se))
	se.avg.Sync(q.avg.LastUpdateTime, seWeight(se.load.weight))
	q.removed.Add(&se.avg)
}

// SyncLoadAvg is sync_entity_load_avg: a task's signals decayed, as if
// blocked, to its queue's last update — what the fork and exec slow path
// does before comparing CPUs. It does nothing to a task never attached.
func (rq *CfsRq) SyncLoadAvg(se *SchedEntity) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	if rq.pelt && se.avg.LastUpdateTime != 0 {
		q := rq.queueOf(rq.taskGroupRq(se))
		se.avg.Sync(q.avg.LastUpdateTime, seWeight(se.load.weight))
	}
	return nil
}

// NrIdle returns the root queue's h_nr_idle: the queued SCHED_IDLE tasks
// (and, with groups, every task below an idle group).
func (rq *CfsRq) NrIdle() int {
	if rq == nil {
		return 0
	}
	return rq.hNrIdle
}

// UpdateBlockedAverages is the fair part of
// __sched_balance_update_blocked_averages (__update_blocked_fair), which
// load balancing runs on a CPU to decay the load its sleeping tasks left
// behind. It walks the CPU's leaf list head to tail (children before
// parents, the root queue last; see LeafList): each queue is brought to
// the clock (pending removed load applied) and, if that changed it,
// publishes its group contribution; its group entity is updated when it
// still carries load or has a change to pass up; a queue left empty and
// fully decayed leaves the list. It reports whether any walked queue still
// has a load or utilization average to decay (cfs_rq_has_blocked). A CPU
// with nothing listed changes nothing and reports false.
func (rq *CfsRq) UpdateBlockedAverages() bool {
	if rq == nil || !rq.pelt {
		return false
	}
	blocked := false
	for q := rq.leaf.head; q != nil; {
		next := q.leafNext // the walk survives q's removal
		if rq.updateCfsRqLoadAvg(rq.peltNow(), q) {
			rq.updateTgLoadAvg(q.grp)
		}
		// skip_blocked_update: nothing left on the entity, nothing to
		// propagate.
		if g := q.grp; g != nil && (g.avg.LoadAvg != 0 || g.avg.UtilAvg != 0 || g.q.prop.Pending) {
			rq.updateLoadAvgGroup(g, updateTG)
		}
		if rq.cfsRqIsDecayed(q) {
			rq.listDelLeaf(q)
		}
		if q.avg.LoadAvg != 0 || q.avg.UtilAvg != 0 {
			blocked = true
		}
		q = next
	}
	return blocked
}

// TasksFromTail returns the queued tasks in reverse cfs_tasks order, the
// least recently run first, as detach_one_task walks them. The walk may
// stop after it takes a task off the list, but must not change the list
// otherwise.
func (rq *CfsRq) TasksFromTail() iter.Seq[*SchedEntity] {
	return func(yield func(*SchedEntity) bool) {
		if rq == nil {
			return
		}
		for se := rq.tasks.tail; se != nil; se = se.link.prev {
			if !yield(se) {
				return
			}
		}
	}
}
