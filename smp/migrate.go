package smp

import "github.com/schedmodel/fairclass/eevdf"

// Moving a task between runqueues (KERNEL-SPEC-SMP §4.1–§4.4). The EEVDF
// and PELT effects are eevdf's (DetachTask, MigrateOut, an enqueue with
// EnqueueMigrated); the core's side is here: set_task_cpu and the order of
// the steps of each path.

// setTaskCPU is set_task_cpu for a sleeping task woken onto another CPU
// (path 1): migrate_task_rq_fair on the old runqueue (the task's load goes
// to its removed accumulators, decayed to now if that CPU idles, and the
// task will attach at its enqueue), then nr_migrations and
// __set_task_cpu.
func (s *System) setTaskCPU(t *Task, cpu int) {
	// The task sleeps, so MigrateOut cannot fail.
	_ = s.rq(t.cpu).MigrateOut(t.se)
	s.moved(t, cpu)
}

// moved is the bookkeeping half of set_task_cpu: nr_migrations, and
// task_cpu and wake_cpu (__set_task_cpu).
func (s *System) moved(t *Task, cpu int) {
	t.migrations++
	s.stats.Migrations++
	t.cpu, t.wakeCPU = cpu, cpu
}

// detachTask is detach_task (paths 2, 3 and 5): the queued task leaves its
// runqueue as migrating (deactivate_task: lag and relative deadline kept,
// PELT detached at once) and set_task_cpu points it at dst, where
// attachTask enqueues it.
func (s *System) detachTask(t *Task, dst int) {
	// The caller only detaches queued tasks that do not run.
	src := t.cpu
	was := s.schedIdleRq(src)
	s.coreDequeue(src, t, false)
	_ = s.rq(src).DetachTask(t.se)
	s.dequeued(src, was) // deactivate_task is a dequeue like any other
	s.moved(t, dst)
}

// attachTask is attach_task: activate_task on the task's new CPU (with
// ENQUEUE_MIGRATED, which makes it cache-cold: exec_start = 0; a delayed
// task arrives still delayed), then wakeup_preempt with no wake flags.
func (s *System) attachTask(t *Task) {
	rq := s.rq(t.cpu)
	before := rq.NrRunning()
	_ = rq.Enqueue(t.se, eevdf.EnqueueMigrated)
	s.coreEnqueue(t.cpu, t)
	s.addNrRunning(t.cpu, before)
	rq.WakeupPreempt(t.se, 0)
	s.markResched(t.cpu)
}

// moveQueuedTask is move_queued_task (path 3): detach and attach back to
// back.
func (s *System) moveQueuedTask(t *Task, dst int) {
	s.detachTask(t, dst)
	s.attachTask(t)
}
