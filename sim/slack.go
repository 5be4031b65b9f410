package sim

import "github.com/schedmodel/fairclass/smp"

// Timer slack (KERNEL-SPEC-PREEMPT §7.3).
//
// A task's timed sleep — a Sleep, SleepUntil, a cyclictest Timer or an
// rt-app timer — arms an hrtimer whose soft expiry is the requested time
// and whose hard expiry is that plus the task's timer slack. The timer
// interrupt is programmed for the hard expiry; an interrupt that runs the
// CPU's timer queue earlier — a tick of that CPU, or another timer's
// expiry on it — fires every timer whose soft expiry has passed. So a
// sleeper wakes at its hard expiry, or at the first such interrupt on its
// CPU at or after its soft expiry. The latency reference stays the
// requested time.
//
// The kernel gives fair tasks 50 µs of slack by default. Here slack is
// Config.TimerSlack (default 0, so that existing configurations keep
// their numbers) unless a task sets its own (TaskOptions.TimerSlack); a
// configuration that models the kernel's default says "timer_slack":
// "50us".

// slackTimer is a timed sleep with slack, pending in the CPU's queue.
type slackTimer struct {
	task       int32
	cpu        int32  // the CPU the timer was armed on (where the sleeper ran)
	gen        uint32 // the task's wakeGen for this sleep
	soft, hard uint64
}

// armSlack records the timed sleep of task ti on c until at with its
// slack, and returns the hard expiry, at which the timer is posted.
func (s *Sim) armSlack(c *cpu, ti int32, at uint64) uint64 {
	t := &s.tasks[ti]
	hard := addSat(at, t.slack)
	s.slackq = append(s.slackq, slackTimer{task: ti, cpu: c.id, gen: t.wakeGen, soft: at, hard: hard})
	return hard
}

// pending reports whether st's sleep still waits.
func (s *Sim) pending(st *slackTimer) bool {
	t := &s.tasks[st.task]
	return t.state == stBlocked && t.wakeGen == st.gen
}

// expireSlack is a timer interrupt on cpu at the current instant: it wakes
// every pending sleeper armed there whose soft expiry has passed, in
// arming order, and drops the entries that are done.
func (s *Sim) expireSlack(cpu int32) {
	keep := s.slackq[:0]
	for i := range s.slackq {
		st := s.slackq[i]
		if !s.pending(&st) {
			continue
		}
		if st.cpu == cpu && st.soft <= s.now {
			s.events++
			s.here = cpu
			s.wake(&s.tasks[st.task], -1, false)
			continue
		}
		keep = append(keep, st)
	}
	s.slackq = keep
}

// tickSlack is expireSlack for every CPU that ticks at this tick instant,
// before the tick handlers run (the tick is itself an hrtimer of the same
// interrupt).
func (s *Sim) tickSlack() {
	keep := s.slackq[:0]
	for i := range s.slackq {
		st := s.slackq[i]
		if !s.pending(&st) {
			continue
		}
		if st.soft <= s.now && s.ticksNow(st.cpu) {
			s.events++
			s.here = st.cpu
			s.wake(&s.tasks[st.task], -1, false)
			continue
		}
		keep = append(keep, st)
	}
	s.slackq = keep
}

// ticksNow reports whether cpu's tick runs at the current tick instant.
func (s *Sim) ticksNow(cpu int32) bool {
	return s.cfg.Nohz != smp.NohzIdle || s.ticking.Test(int(cpu))
}
