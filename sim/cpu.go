package sim

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/smp"
)

// cpu is one simulated CPU: what it runs, as the simulator accounts it.
// Its runqueue is the System's (rq is kept for queries; every operation
// goes through the System or s.rq, which sets the clock first).
type cpu struct {
	id             int32
	rq             *eevdf.CfsRq
	curr           int32 // task the CPU runs, −1 for idle
	currT          *task // curr's task (nil for idle): the switch-out reads it without indexing the tasks
	reschedPending bool  // an evResched is queued (Config.WakeupCost)
	inCall         bool  // its task is inside a zero-time system call (kernel mode, preempt.go)

	capacity uint64 // arch_scale_cpu_capacity: 1024 but on an asymmetric machine (asym.go)

	// Metrics.
	switches    uint64
	preemptions uint64
	busy        uint64 // time with a task running
	busySince   uint64
}

// clock is the simulated time at which the CPU's running task is charged
// (rq_clock_task less the clock origin: no interrupt or steal time).
func (s *Sim) clock(c *cpu) uint64 { return s.now }

// schedule is __schedule on c, a preemption point: smp's Schedule (the
// pick, and whatever smp does when the CPU would idle), then the switch
// if the pick differs from the running task. Under core scheduling smp's
// pick is the core-wide one, which may ask the CPU's SMT siblings to
// reschedule (collected here) and may leave the CPU forced idle.
func (s *Sim) schedule(c *cpu) {
	if s.slog != nil {
		if !s.slog.mute {
			s.logOp("schedule", "", "")
		}
		s.slog.mute = false
	}
	s.switchTo(c, s.idx(s.sys.Schedule(int(c.id))))
	if s.core != nil {
		s.syncForced(c)
	}
	s.collectResched()
}

// switchTo makes next (−1: idle) the task c runs, after the runqueue has
// made it curr. A context switch happens iff next differs from the running
// task; it is a preemption when the task switched out is still runnable.
//
// The switch-out of the previous task and the switch-in of the next are
// written out here, their only caller, in that order: as two functions
// of their own they cost two calls and a second lookup of a task at
// every context switch.
func (s *Sim) switchTo(c *cpu, next int32) {
	prev := c.curr
	if prev == next {
		return
	}
	var nt *task // next's, found once for the test below and the switch-in
	if next >= 0 {
		nt = &s.tasks[next]
		if nt.state == stRunning && nt.runCPU != c.id {
			// smp moved a task that another CPU was running (the CPU
			// stopper preempts it first): that CPU catches up first.
			o := &s.cpus[nt.runCPU]
			s.switchTo(o, s.idx(s.sys.Curr(int(o.id))))
		}
	}
	preempt := false
	if prev >= 0 {
		// The switch-out: the CPU time prev got since its switch-in is
		// added up, its Run phase progress is recorded, and its pending
		// completion or resume event is made stale (a completion kept
		// apart, on one CPU, is dropped). It is a preemption if prev
		// stays runnable.
		t := c.currT
		t.runtime += s.clock(c) - t.tcIn
		if t.progressing {
			// spin first: a spinning task (a hog) is decided by one
			// test, and a Run phase still takes two, as before.
			switch {
			case t.spin:
				t.work += workIn(c, s.now-t.segStart)
			case t.inRun:
				// remaining −= the work of this segment (asym.go)
				w := min(workIn(c, s.now-t.segStart), t.remaining)
				t.remaining -= w
				t.work += w
			}
			t.progressing = false
		}
		t.gen++
		if s.donePosted && s.doneTask == t {
			s.donePosted = false // stale now: dropped rather than popped
		}
		if s.outHooks { // the trace or the debug check: one test for both
			s.switchOutHooks(c, prev, t)
		}
		t.runCPU = -1
		if t.state == stRunning {
			t.state = stRunnable
			t.runnableSince = s.now
			t.preempted++
			preempt = true
		}
		c.busy += s.now - c.busySince
	}
	c.curr, c.currT = next, nt
	s.ftraceSwitch(c, prev, next)
	c.switches++
	s.ctxSwitches++
	if preempt {
		c.preemptions++
		s.preemptions++
	}
	if nt == nil {
		if s.cfg.Nohz == smp.NohzIdle && s.tickStops(c) {
			s.ticking.Clear(int(c.id)) // the idle CPU stops its tick
		}
		return
	}
	// The switch-in: next's run delay (since it became runnable) is
	// recorded, and it starts to progress after the switch cost.
	c.busySince = s.now
	t := nt
	t.state = stRunning
	t.runCPU = c.id
	t.tcIn = s.clock(c)
	t.switches++
	d := s.now - t.runnableSince
	t.delayCount++
	t.delaySum += d
	if d > t.delayMax || t.delayCount == 1 {
		t.delayMax = d
		t.delayMaxAt = t.runnableSince
	}
	// One test of inHooks where the switch-in tested the trace, the
	// switch cost and the nohz mode one by one: without any of them
	// (the common configuration), all that is left is the resume.
	if s.inHooks {
		s.switchInHooks(c, t)
	} else {
		s.pushResume(c.id, t)
	}
}

// switchOutHooks is the part of switchTo's switch-out of prev (its task
// t) on c that outHooks stands for: the end of its trace slice, and the
// debug check of its runtime against the model's.
func (s *Sim) switchOutHooks(c *cpu, prev int32, t *task) {
	if s.cfg.Trace {
		s.endSlice(c, prev, s.now)
	}
	if s.debug && t.runtime != t.se.SumExecRuntime() {
		s.fail(fmt.Errorf("%s: simulator runtime %d ns, eevdf sum_exec_runtime %d ns", t.name, t.runtime, t.se.SumExecRuntime()))
	}
}

// switchInHooks ends switchTo's switch-in of t on c when inHooks is set:
// the trace's slice start and migration arrow, the resume after the
// switch cost (or at once), and under nohz idle the restart of c's tick.
func (s *Sim) switchInHooks(c *cpu, t *task) {
	if s.cfg.Trace {
		// The trace's slice begins (set here, behind inHooks: nothing
		// reads it without the trace). If it last ran elsewhere: a
		// migration arrow from that slice to this one, recorded once
		// this one has ended.
		t.traceStart = s.now
		t.flowPending = t.lastCPU >= 0 && t.lastCPU != c.id
		t.flowFrom, t.flowStart, t.flowEnd = t.lastCPU, t.lastStart, t.lastEnd
	}
	if s.swCost == 0 {
		s.pushResume(c.id, t)
	} else {
		s.post(s.now+s.swCost, evResume, t.idx, c.id, t.gen)
	}
	if s.cfg.Nohz == smp.NohzIdle && !s.ticking.Test(int(c.id)) {
		// A CPU leaving idle restarts its tick, at the next tick
		// instant (ticks are aligned on all CPUs, §7.2 item 3).
		s.ticking.Set(int(c.id))
		if !s.tickPosted {
			s.postTick()
		}
	}
}

// syncCurr brings the simulator's view of c to what its runqueue runs:
// a CPU that smp switched on its own (not through Schedule) reports it in
// Resched, and is switched here.
func (s *Sim) syncCurr(c *cpu) {
	if next := s.idx(s.sys.Curr(int(c.id))); next != c.curr {
		s.switchTo(c, next)
	}
	if s.core != nil {
		s.syncForced(c)
	}
}

// postTick sets the next tick instant, the next multiple of TICK_NSEC, as
// the pending one (tickAt: the tick is not in the event heap).
func (s *Sim) postTick() {
	s.tickPosted = true
	s.tickAt = (s.now/s.tickNsec + 1) * s.tickNsec
}

// postNextTick sets the tick instant after the current one as the
// pending one.
func (s *Sim) postNextTick() {
	s.tickPosted = true
	s.tickAt = s.now + s.tickNsec
}

// ticks is a tick instant (§7.3 steps 3 and 4): the tick handler of every
// CPU that ticks, in ascending CPU id — all of them with nohz off, with
// nohz idle the busy ones and idle ones that have not stopped their tick
// yet (idle since boot) —, then the work the ticks sent to other CPUs
// (idle-load-balancer kicks, CPU stopper works of active balancing) and
// the reschedules it asks for.
func (s *Sim) ticks() {
	s.tickPosted = false
	if len(s.slackq) > 0 {
		s.tickSlack() // each tick's interrupt runs the timers inside their slack
	}
	if s.cfg.Nohz == smp.NohzOff {
		if len(s.cpus) == 1 {
			// One CPU: tick, written out (no loop to set up, and
			// one call less at every tick instant).
			c := &s.cpus[0]
			s.events++
			if s.slog != nil && c.curr >= 0 {
				s.logOp("tick", "", "")
			}
			s.here = c.id
			s.ftraceTick(c)
			s.sys.Tick(int(c.id))
			if s.preemptNow(c) {
				s.undue(c.id)
				s.schedule(c)
			} else {
				s.collectResched()
			}
		} else {
			for i := range s.cpus {
				s.tick(&s.cpus[i])
			}
		}
		s.here = -1
		// runPending, written out: its two tests inline here, where
		// its call cost more than they do.
		s.sys.RunPending()
		s.collectResched()
		s.postNextTick()
		return
	}
	for id := s.ticking.First(); id >= 0; id = s.ticking.Next(id) {
		c := &s.cpus[id]
		s.tick(c)
		if c.curr < 0 && s.tickStops(c) {
			s.ticking.Clear(id)
		}
	}
	s.here = -1
	s.runPending()
	if !s.ticking.Empty() {
		s.postNextTick()
	}
}

// tickStops reports whether an idle CPU's tick stops with nohz idle: smp
// says so once the CPU entered the NOHZ idle state; a CPU without
// scheduling domains (a one-CPU machine) has nothing to balance and
// stops it at once.
func (s *Sim) tickStops(c *cpu) bool {
	return s.sys.TickStopped(int(c.id)) || s.sys.Topology().Base(int(c.id)) == nil
}

// runPending is §7.3 step 4: the ILB kicks and stopper works the ticks
// queued, then the reschedules they ask for.
func (s *Sim) runPending() {
	s.sys.RunPending()
	s.collectResched()
}

// tick is one CPU's tick handler: sched_tick (task_tick_fair on the
// running task, and whatever smp runs from the tick), then, if the CPU
// was asked to reschedule, the return-from-interrupt preemption point at
// once. CPUs the tick asked to reschedule elsewhere wait for step 5.
func (s *Sim) tick(c *cpu) {
	s.events++
	if s.slog != nil && c.curr >= 0 {
		s.logOp("tick", "", "")
	}
	s.here = c.id
	s.ftraceTick(c)
	s.sys.Tick(int(c.id))
	if s.preemptNow(c) {
		s.undue(c.id)
		s.schedule(c) // which collects what the tick asked of other CPUs
	} else {
		s.collectResched()
	}
	if s.debug && s.err == nil && len(s.cpus) > 1 {
		s.fail(s.check())
	}
}

// collectResched takes the CPUs that smp's operations asked to
// reschedule (System.Resched) after every call into smp: each first
// catches up with a switch smp made on its own, then its reschedule is
// due now or, with a wakeup cost, at an evResched that much later.
//
// It is small enough to inline: most calls find neither an ftrace log nor
// a pending reschedule, and cost two tests instead of a call.
func (s *Sim) collectResched() {
	if s.ftrace != nil || s.sys.ReschedPending() {
		s.collectReschedSlow()
	}
}

// collectReschedSlow is collectResched's work when there may be some.
func (s *Sim) collectReschedSlow() {
	s.ftraceMoves()
	if ids := s.sys.Resched(); len(ids) > 0 {
		s.reschedule(ids)
	}
}

// reschedule is collectResched for the CPUs ids, kept out of line: most
// calls into smp ask for no reschedule.
func (s *Sim) reschedule(ids []int) {
	for _, id := range ids {
		c := &s.cpus[id]
		s.syncCurr(c)
		if s.lazyRemote(c) {
			continue // a lazy request to another CPU sends no IPI
		}
		switch {
		case s.wakeCost == 0:
			s.markDue(c.id)
		case !c.reschedPending:
			c.reschedPending = true
			s.post(s.now+s.wakeCost, evResched, -1, c.id, 0)
		}
	}
}

func (s *Sim) markDue(id int32) {
	if !s.due.Test(int(id)) {
		s.due.Set(int(id))
		s.nDue++
	}
}

// undue drops id's due reschedule, if it has one. Most calls (a tick's
// preemption) find none due at all, which nDue tells without the mask.
func (s *Sim) undue(id int32) {
	if s.nDue > 0 && s.due.Test(int(id)) {
		s.due.Clear(int(id))
		s.nDue--
	}
}

// flushDue runs the due reschedules in ascending CPU id, including those
// they set off: __schedule on each CPU still asked to reschedule. It runs
// at the end of the timer, tick and reschedule steps of an instant (§7.3
// step 5), and after every call a task's program makes into smp (step 6).
func (s *Sim) flushDue() {
	if s.nDue > 0 && !s.flushing {
		s.runDue()
	}
}

// runDue is flushDue's loop, kept out of line: most of its calls find
// nothing due, a test that then inlines.
func (s *Sim) runDue() {
	s.flushing = true
	for s.nDue > 0 && s.err == nil {
		id := int32(s.due.First())
		s.undue(id)
		c := &s.cpus[id]
		if s.preemptNow(c) {
			s.schedule(c)
		}
	}
	s.flushing = false
}

// settle ends a call a task's program made into smp: the reschedules it
// asked for run now (§7.3 step 6).
func (s *Sim) settle() {
	s.collectResched()
	s.flushDue()
}

// startTask is wake_up_new_task (smp's WakeUpNew: fork placement from the
// CPU the task was made on, the enqueue as new, the wakeup-preemption
// check with WF_FORK). A creation is task-initiated: its launcher forks.
func (s *Sim) startTask(ti int32) {
	t := &s.tasks[ti]
	if s.slog != nil {
		s.logOp("new", t.name, "")
	}
	if s.sys.WakeUpNew(t.st) < 0 {
		s.fail(fmt.Errorf("%s: could not be started", t.name))
		return
	}
	s.ftraceWake(ti, -1, true)
	t.state = stRunnable
	t.runnableSince = s.now
	s.settle()
}

// wake is try_to_wake_up of the blocked task t (smp's TryToWakeUp) by the
// running task waker, or by a timer (waker −1: the expiry runs on the CPU
// the sleeper last ran on, whose current task is the waker). A task still
// queued as delayed is requeued in place; any other is placed by
// select_task_rq_fair, migrates if that is another CPU, is enqueued and
// checked against that CPU's running task. sync adds WF_SYNC. The
// reschedules it asks for are collected; a task-initiated wakeup's caller
// runs them (settle), a timer's wait for step 5 of their instant.
func (s *Sim) wake(t *task, waker int32, sync bool) {
	var wf eevdf.WakeFlags
	if sync {
		wf |= eevdf.WFSync
	}
	var w *smp.Task
	if waker >= 0 {
		w = s.tasks[waker].st
	}
	s.wakeBy(t, w, wf)
}

// wakeBy is wake with the waker's task (nil: a timer) and the wake flags
// found: a timer's expiry calls it itself, which spares the tests of a
// waker and of WF_SYNC at the most common wakeup.
func (s *Sim) wakeBy(t *task, w *smp.Task, wf eevdf.WakeFlags) {
	t.state = stRunnable
	t.runnableSince = s.now
	t.wakeups++
	if s.slog != nil {
		s.logOp("wakeup", t.name, "")
	}
	if s.sys.TryToWakeUp(t.st, w, wf) < 0 {
		s.fail(fmt.Errorf("%s: could not be woken", t.name))
		return
	}
	if s.ftrace != nil { // ftraceWake, with the waker's index found only for it
		s.ftrace.wake(s, t.idx, s.idx(w), false)
	}
	if t.st.Placement() == smp.RuleInPlace {
		t.delayedWakeups++
		s.delayedWakeups++
	}
	s.collectResched()
}

// block puts the running task t to sleep (stBlocked): smp's BlockNext, a
// dequeue with DEQUEUE_SLEEP, which may leave it queued as delayed, and
// __schedule, whose pick it returns (no call of Curr finds it again).
// The simulator then switches to what c runs now (under core scheduling
// smp's pick is the core-wide one). An exit has a function of its own,
// blockDead, which spares every sleep the tests of an exit.
func (s *Sim) block(c *cpu, t *task) {
	t.state = stBlocked
	if s.slog != nil {
		s.logOp("sleep", "", "")
		s.slog.mute = true
	}
	next, err := s.sys.BlockNext(int(c.id))
	if err != nil {
		s.fail(err)
		return
	}
	if s.slog != nil {
		s.slog.mute = false
	}
	s.switchTo(c, s.idx(next))
	if s.core != nil {
		s.syncForced(c)
	}
	// settle, written out: its two tests inline here, where its call
	// cost more than they do at every sleep.
	s.collectResched()
	s.flushDue()
}

// blockDead ends the running task t (stExited): smp's Exit, a dead
// task's dequeue (DEQUEUE_SPECIAL, never delayed), __schedule and the
// removal of its load; then, as block, the switch to what c runs now.
func (s *Sim) blockDead(c *cpu, t *task) {
	t.state = stExited
	if s.slog != nil {
		s.fail(errExitNotScenario)
		return
	}
	if err := s.sys.Exit(int(c.id)); err != nil {
		s.fail(err)
		return
	}
	s.switchTo(c, s.idx(s.sys.Curr(int(c.id))))
	if s.core != nil {
		s.syncForced(c)
	}
	s.collectResched()
	s.flushDue()
}
