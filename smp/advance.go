package smp

// Driving a System by hand (KERNEL-SPEC-SMP §7.3). A simulator interleaves
// its own events with the kernel's; one who only wants the fair class to
// run between the operations of its tasks calls Advance.

// Advance runs the System up to the instant now as the kernel's core code
// would run it, in the serial order of KERNEL-SPEC-SMP §7.3, and leaves the
// clock at now. It first finishes the current instant: the work the ticks
// left (RunPending) and the reschedules the caller's operations asked for
// (Schedule on each CPU Resched returns, until none is left). Then, for
// each tick instant (a multiple of TICK_NSEC) up to now that it has not run
// yet, in order:
//
//  1. the clock is set to the instant (SetClock: the jiffies advance);
//  2. every CPU whose tick is due ticks, in ascending CPU order (all of
//     them with NohzOff; with NohzIdle, those that are not idle with their
//     tick stopped — an idle CPU of a one-CPU machine has nothing to balance
//     and does not tick), each followed at once by Schedule if its runqueue
//     asks for a reschedule (RQ(cpu).NeedResched());
//  3. the ILB kicks and CPU stopper works the ticks queued (RunPending);
//  4. the reschedules still pending (Resched), in ascending CPU order,
//     until none is left.
//
// Last the clock is set to now, if no tick instant fell on it, and the
// work and reschedules pending at now run.
//
// The tick instants are those after the System was made (the first one
// strictly after its start clock). Advance remembers which it has run: a
// tick instant equal to the clock runs once, so that timer wakeups of that
// instant, made after SetClock(now) and before Advance(now), come before
// its ticks as §7.3 orders them. An instant the clock passed without
// Advance (a SetClock past it) is not run. The task-initiated operations
// (WakeUpNew, TryToWakeUp, Block, Exit, Exec) are the caller's, made
// between two calls at the clock of the first; Advance runs the
// reschedules they asked for before time moves on, and Advance(Clock())
// runs them at once, as a simulator does after each (§7.3 step 6).
//
// Advance fails, changing nothing, with an error wrapping
// eevdf.ErrClockBackwards if now is before Clock(). Its cost is linear in
// the tick instants it runs times the CPUs: a second of simulated time is
// HZ instants.
func (s *System) Advance(now uint64) error {
	if now < s.now {
		return s.clockErr(now)
	}
	if s.nextTick*s.tickNsec < s.now {
		// The clock passed tick instants without Advance: they are gone.
		s.nextTick = s.now / s.tickNsec
		if s.now%s.tickNsec != 0 {
			s.nextTick++
		}
	}
	for last := now / s.tickNsec; s.nextTick <= last; s.nextTick++ {
		at := s.nextTick * s.tickNsec
		if at != s.now {
			s.settle()         // the instant before ends
			_ = s.SetClock(at) // at > the clock: cannot fail
		}
		for cpu := range s.cpus {
			if s.tickDue(cpu) {
				s.tick(cpu, &s.cpus[cpu])
				if s.cpus[cpu].rq.NeedResched() {
					s.scheduleCPU(cpu, &s.cpus[cpu])
				}
			}
		}
		s.settle()
	}
	if now != s.now {
		s.settle()
		_ = s.SetClock(now)
	}
	s.settle()
	return nil
}

// tickDue reports whether cpu ticks at a tick instant: every CPU with nohz
// off; with nohz idle, a CPU that is not idle with its tick stopped, and
// not an idle CPU without scheduling domains (a one-CPU machine), whose
// tick stops at once.
func (s *System) tickDue(cpu int) bool {
	if s.nohz == NohzOff {
		return true
	}
	return !s.TickStopped(cpu) && !(s.top.Base(cpu) == nil && s.idleCPU(cpu))
}

// settle runs the work the ticks queued and the reschedules pending, in
// ascending CPU order, until none is left (§7.3 steps 4 and 5).
func (s *System) settle() {
	s.RunPending()
	for {
		cpus := s.Resched()
		if len(cpus) == 0 {
			return
		}
		// Resched's slice is only reused by its next call.
		for _, cpu := range cpus {
			s.scheduleCPU(cpu, &s.cpus[cpu])
		}
	}
}
