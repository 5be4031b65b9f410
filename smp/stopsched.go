package smp

// scheduleAfterStop is __schedule on cpu once the CPU stopper's work is
// done and the stop task blocks. The previous task is of a class above
// the fair one, so the kernel takes the slow path of the class pick: each
// class's balance hook first — the fair one balances newly idle only if
// no fair task is queued at all, delayed ones included — then the class
// picks, and a fair pick that finds nothing after completing delayed
// dequeues leaves the idle task to run without another balance. With an
// empty queue this is schedule's own path (a newly idle balance, a pick
// again if it pulled).
func (s *System) scheduleAfterStop(cpu int) *Task {
	if s.core.on {
		return s.coreSchedule(cpu, false)
	}
	rq := s.rq(cpu)
	if rq.NrRunning() == 0 {
		return s.schedule(cpu, false)
	}
	next := s.pickTask(cpu)
	if next == nil {
		rq.PutPrev()
		s.updateIdleCore(cpu) // set_next_task_idle
		s.idleEntry(cpu)
		return nil
	}
	_ = rq.SetNext(next) // a pick is never delayed
	s.updateMisfitStatus(s.ownTask(next), cpu)
	return taskOf(next)
}
