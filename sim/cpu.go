package sim

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
)

// cpu is one simulated CPU: its fair runqueue and what it runs.
type cpu struct {
	id             int32
	rq             *eevdf.CfsRq
	curr           int32 // task the CPU runs, −1 for idle
	sibling        int32 // core-scheduling sibling, −1 for none
	tickArmed      bool
	reschedPending bool

	forced      bool   // idle by core scheduling with tasks queued
	forcedSince uint64 // when that forced idle began

	// Metrics.
	switches    uint64
	preemptions uint64
	busy        uint64 // time with a task running
	busySince   uint64
	forcedIdle  uint64
}

// clock is the CPU's task clock (rq_clock_task) at the current time: the
// simulated time (no interrupt or steal time is modelled).
func (s *Sim) clock(c *cpu) uint64 { return s.now }

// setClock is update_rq_clock: every call into a runqueue is preceded by it.
func (s *Sim) setClock(c *cpu) {
	if err := c.rq.SetClock(s.clock(c)); err != nil {
		s.fail(err)
	}
}

// schedule is __schedule on c, a preemption point: pick the next task
// (PickNext) and switch to it if it differs from the running one. A CPU of
// a core-scheduling pair picks for the whole core (coreSchedule).
func (s *Sim) schedule(c *cpu) {
	if s.slog != nil {
		if !s.slog.mute {
			s.logOp("schedule", "", "")
		}
		s.slog.mute = false
	}
	if c.sibling >= 0 {
		s.coreSchedule(c, &s.cpus[c.sibling])
		return
	}
	s.switchTo(c, s.pick(c))
}

// pick is the runqueue half of schedule: it sets the clock and returns
// PickNext's choice (−1: idle) without switching.
func (s *Sim) pick(c *cpu) int32 {
	s.setClock(c)
	se := c.rq.PickNext()
	if c.curr >= 0 && s.tasks[c.curr].se == se {
		return c.curr // picked again: no lookup
	}
	return s.taskOf(se)
}

// switchTo makes next (−1: idle) the task c runs. A context switch happens
// iff next differs from the running task; it is a preemption when the task
// switched out is still runnable.
func (s *Sim) switchTo(c *cpu, next int32) {
	prev := c.curr
	if prev == next {
		return
	}
	preempt := false
	if prev >= 0 {
		preempt = s.switchOut(c, prev)
		c.busy += s.now - c.busySince
	}
	c.curr = next
	c.switches++
	s.ctxSwitches++
	if preempt {
		c.preemptions++
		s.preemptions++
	}
	if next >= 0 {
		c.busySince = s.now
		s.switchIn(c, next)
	}
}

// switchOut stops the running task t on c: the CPU time it got since its
// switch-in is added up, its Run phase progress is recorded, and its pending
// completion or resume event is made stale. It reports whether t stays
// runnable (a preemption).
func (s *Sim) switchOut(c *cpu, ti int32) bool {
	t := &s.tasks[ti]
	t.runtime += s.clock(c) - t.tcIn
	if t.progressing {
		if t.inRun && !t.spin {
			// remaining −= the CPU time of this segment
			t.remaining -= min(s.now-t.segStart, t.remaining)
		}
		t.progressing = false
	}
	t.gen++
	if s.cfg.Trace {
		s.trace = append(s.trace, traceSlice{cpu: c.id, task: ti, start: t.traceStart, end: s.now})
	}
	if s.debug && t.runtime != t.se.SumExecRuntime() {
		s.fail(fmt.Errorf("%s: simulator runtime %d ns, eevdf sum_exec_runtime %d ns", t.name, t.runtime, t.se.SumExecRuntime()))
	}
	if t.state == stRunning {
		t.state = stRunnable
		t.runnableSince = s.now
		t.preempted++
		return true
	}
	return false
}

// switchIn starts t on c: its run delay (since it became runnable) is
// recorded, and it starts to progress after the switch cost.
func (s *Sim) switchIn(c *cpu, ti int32) {
	t := &s.tasks[ti]
	t.state = stRunning
	t.cpu = c.id
	t.ran = true
	t.tcIn = s.clock(c)
	t.traceStart = s.now
	t.switches++
	d := s.now - t.runnableSince
	t.delayCount++
	t.delaySum += d
	if d > t.delayMax || t.delayCount == 1 {
		t.delayMax = d
		t.delayMaxAt = t.runnableSince
	}
	if s.swCost == 0 {
		s.pushResume(c.id, ti, t.gen)
	} else {
		s.post(s.now+s.swCost, evResume, ti, c.id, t.gen)
	}
	if !c.tickArmed {
		// Ticks come at multiples of TICK_NSEC, per CPU, while it is busy.
		c.tickArmed = true
		s.post((s.now/s.tickNsec+1)*s.tickNsec, evTick, -1, c.id, 0)
	}
}

// tick is the periodic scheduler tick: task_tick_fair on the running task,
// then, if it asked for a reschedule, the return-from-interrupt preemption
// point. An idle CPU stops its tick until it runs a task again.
func (s *Sim) tick(c *cpu) {
	if c.curr < 0 {
		c.tickArmed = false
		return
	}
	if s.slog != nil {
		s.logOp("tick", "", "")
	}
	s.setClock(c)
	c.rq.Tick()
	s.post(s.now+s.tickNsec, evTick, -1, c.id, 0)
	if c.rq.NeedResched() {
		s.schedule(c)
	}
}

// idle reports whether c runs nothing and has nothing queued.
func (s *Sim) idle(c *cpu) bool {
	return c.curr < 0 && !c.forced && c.rq.NrQueued() == 0
}

// placeWake chooses the CPU for the wakeup of a task that is not queued
// anywhere: a pinned task goes to its CPU; otherwise its previous CPU if
// that is idle, else the lowest-numbered idle allowed CPU, else its previous
// CPU (select_idle_sibling's preferences, without load balancing).
func (s *Sim) placeWake(t *task) *cpu {
	if t.pinned >= 0 {
		return &s.cpus[t.pinned]
	}
	prev := t.cpu
	if prev >= 0 && t.affinity&(1<<uint(prev)) != 0 && s.idle(&s.cpus[prev]) {
		return &s.cpus[prev]
	}
	for i := range s.cpus {
		if t.affinity&(1<<uint(i)) != 0 && s.idle(&s.cpus[i]) {
			return &s.cpus[i]
		}
	}
	if prev >= 0 && t.affinity&(1<<uint(prev)) != 0 {
		return &s.cpus[prev]
	}
	return s.leastQueued(t)
}

// placeNew chooses the CPU of a new task: its pinned CPU, else the
// lowest-numbered idle allowed CPU, else the allowed CPU with the fewest
// queued tasks (lowest number on ties).
func (s *Sim) placeNew(t *task) *cpu {
	if t.pinned >= 0 {
		return &s.cpus[t.pinned]
	}
	for i := range s.cpus {
		if t.affinity&(1<<uint(i)) != 0 && s.idle(&s.cpus[i]) {
			return &s.cpus[i]
		}
	}
	return s.leastQueued(t)
}

func (s *Sim) leastQueued(t *task) *cpu {
	best := -1
	for i := range s.cpus {
		if t.affinity&(1<<uint(i)) == 0 {
			continue
		}
		if best < 0 || s.cpus[i].rq.NrQueued() < s.cpus[best].rq.NrQueued() {
			best = i
		}
	}
	return &s.cpus[best]
}

// startTask is wake_up_new_task: the fresh entity is enqueued as new, then
// the wakeup-preemption check runs with WF_FORK.
func (s *Sim) startTask(ti int32) {
	t := &s.tasks[ti]
	c := s.placeNew(t)
	if s.slog != nil {
		s.logOp("new", t.name, "")
	}
	s.setClock(c)
	if err := c.rq.Enqueue(t.se, eevdf.EnqueueInitial); err != nil {
		s.fail(err)
		return
	}
	c.rq.WakeupPreempt(t.se, eevdf.WFFork)
	t.state = stRunnable
	t.cpu = c.id
	t.runnableSince = s.now
	s.afterWakeup(c)
}

// wake is try_to_wake_up. A delayed task is still queued on its CPU: it is
// requeued there (ENQUEUE_DELAYED) and checked against the running task
// unless it is that task. Any other task is placed, enqueued with
// ENQUEUE_WAKEUP (plus ENQUEUE_MIGRATED and WF_MIGRATED when it last ran on
// another CPU) and checked with WF_TTWU. sync adds WF_SYNC; a task that may
// run on several CPUs went through CPU selection, which adds WF_RQ_SELECTED
// as select_task_rq does.
func (s *Sim) wake(ti int32, sync bool) {
	t := &s.tasks[ti]
	wf := eevdf.WFTTWU
	if sync {
		wf |= eevdf.WFSync
	}
	t.state = stRunnable
	t.runnableSince = s.now
	t.wakeups++
	if s.slog != nil {
		s.logOp("wakeup", t.name, "")
	}
	var c *cpu
	if t.se.Delayed() {
		t.delayedWakeups++
		s.delayedWakeups++
		c = &s.cpus[t.cpu]
		s.setClock(c)
		if err := c.rq.Enqueue(t.se, eevdf.EnqueueDelayed); err != nil {
			s.fail(err)
			return
		}
		if t.se != c.rq.Curr() {
			c.rq.WakeupPreempt(t.se, wf)
		}
	} else {
		c = s.placeWake(t)
		ef := eevdf.EnqueueWakeup
		if t.pinned < 0 {
			wf |= eevdf.WFRqSelected
		}
		if t.ran && t.cpu != c.id {
			ef |= eevdf.EnqueueMigrated
			wf |= eevdf.WFMigrated
			t.migrations++
			s.migrations++
		}
		s.setClock(c)
		if err := c.rq.Enqueue(t.se, ef); err != nil {
			s.fail(err)
			return
		}
		c.rq.WakeupPreempt(t.se, wf)
		t.cpu = c.id
	}
	s.afterWakeup(c)
}

// afterWakeup reschedules c at once (full preemption) if the wakeup asked
// for it, or after the wakeup cost if one is configured. A CPU forced idle
// by core scheduling runs the idle task, which any wakeup reschedules.
func (s *Sim) afterWakeup(c *cpu) {
	if !c.forced && !c.rq.NeedResched() {
		return
	}
	if s.wakeCost == 0 {
		s.schedule(c)
		return
	}
	if !c.reschedPending {
		c.reschedPending = true
		s.post(s.now+s.wakeCost, evResched, -1, c.id, 0)
	}
}

// block puts the running task t to sleep (st = stBlocked): dequeue_task
// with DEQUEUE_SLEEP, which may leave it queued as delayed; or ends it
// (st = stExited): a dead task's dequeue adds DEQUEUE_SPECIAL and is never
// delayed. Then schedule.
func (s *Sim) block(c *cpu, ti int32, st taskState) {
	t := &s.tasks[ti]
	t.state = st
	if s.slog != nil {
		if st == stExited {
			s.fail(errExitNotScenario)
			return
		}
		s.logOp("sleep", "", "")
		s.slog.mute = true
	}
	s.setClock(c)
	flags := eevdf.DequeueSleep
	if st == stExited {
		flags |= eevdf.DequeueSpecial
	}
	if _, err := c.rq.Dequeue(t.se, flags); err != nil {
		s.fail(err)
		return
	}
	s.schedule(c)
}

// Core scheduling.
//
// The two CPUs of a pair are SMT siblings that may only run tasks with the
// same cookie at the same time (idle goes with anything). When either
// reaches a preemption point, both pick without installing anything
// (PickTask on each, as the core's pick_next_task calls pick_task on every
// sibling); one pick wins and fixes the cookie c:
//   - CorePriority (default): the pick of higher priority, compared across the two
//     runqueues by lag (V − vruntime of each on its own queue, the larger
//     wins; ties go to the CPU at the preemption point) — the kernel
//     compares vruntimes normalised by each queue's reference point;
//     an idle pick always loses;
//   - CoreLeader: the pick of the CPU at the preemption point, unless it
//     is idle.
// A CPU whose pick has another cookie runs instead its queued task of
// cookie c with the smallest vruntime (the order of the kernel's core tree,
// sched_core_find; ties: earlier deadline, then creation order), installed
// with SetNext whether it is eligible or not — core scheduling prefers an
// ineligible task to forced idle, the behaviour behind seed 004 v3. With no
// such task it is forced idle (PutPrev: the idle task runs with tasks
// queued) until the next pick of the core. Each CPU then installs what it
// runs (SetNext or PutPrev: put_prev_set_next_task).

// CoreRule selects which sibling's pick fixes the cookie of a core.
type CoreRule uint8

const (
	// CorePriority (the default): the pick with the larger lag leads, as
	// the kernel's core-wide pick takes the sibling pick of highest
	// priority, whichever CPU reached the preemption point.
	CorePriority CoreRule = iota
	// CoreLeader: the CPU at the preemption point leads.
	CoreLeader
)

// coreSchedule is a preemption point of l in a core-scheduling pair with
// f: the kernel's core-wide pick. Each sibling picks without installing
// (pick_task_fair), one pick fixes the cookie, and each sibling then
// installs what it runs (put_prev_set_next_task) or is forced idle.
func (s *Sim) coreSchedule(l, f *cpu) {
	lp, fp := s.pickTask(l), s.pickTask(f)
	lead := lp
	switch {
	case lp < 0:
		lead = fp
	case fp >= 0 && s.cfg.CoreRule == CorePriority:
		if f.rq.Lag(s.tasks[fp].se) > l.rq.Lag(s.tasks[lp].se) {
			lead = fp
		}
	}
	if lead >= 0 {
		cookie := s.tasks[lead].cookie
		lp = s.coreMatch(l, lp, cookie)
		fp = s.coreMatch(f, fp, cookie)
	}
	s.install(l, lp)
	s.install(f, fp)
	s.switchTo(l, lp)
	s.switchTo(f, fp)
}

// pickTask is pick_task_fair on c: charge its running task and pick,
// without installing anything (−1: idle). It ends a forced idle.
func (s *Sim) pickTask(c *cpu) int32 {
	if c.forced {
		c.forcedIdle += s.now - c.forcedSince
		c.forced = false
	}
	s.setClock(c)
	return s.taskOf(c.rq.PickTask())
}

// install makes p (−1: the idle task) c's current task on its runqueue:
// SetNext (put_prev then set_next, nothing if p already runs) or PutPrev.
func (s *Sim) install(c *cpu, p int32) {
	if p >= 0 {
		if err := c.rq.SetNext(s.tasks[p].se); err != nil {
			s.fail(err)
		}
		return
	}
	c.rq.PutPrev()
}

// coreMatch returns what c runs given its pick p and the core's cookie:
// p itself if it has the cookie, else a task of the cookie, forced even if
// it is not eligible, else nothing (−1): forced idle.
func (s *Sim) coreMatch(c *cpu, p int32, cookie uint64) int32 {
	if p < 0 || s.tasks[p].cookie == cookie {
		return p
	}
	if x := s.coreCandidate(c, cookie); x >= 0 {
		s.forcedPicks++
		return x
	}
	c.forced = true
	c.forcedSince = s.now
	s.forcedIdles++
	return -1
}

// coreCandidate returns the task of the given cookie queued on c or
// running there (not delayed) with the smallest vruntime, or −1.
func (s *Sim) coreCandidate(c *cpu, cookie uint64) int32 {
	best := int32(-1)
	for i := range s.tasks {
		t := &s.tasks[i]
		if (t.state != stRunnable && t.state != stRunning) || t.cpu != c.id || t.cookie != cookie || !t.se.OnRq() || t.se.Delayed() {
			continue
		}
		if best < 0 {
			best = int32(i)
			continue
		}
		b := s.tasks[best].se
		dv := int64(t.se.Vruntime() - b.Vruntime())
		if dv < 0 || (dv == 0 && int64(t.se.Deadline()-b.Deadline()) < 0) {
			best = int32(i)
		}
	}
	return best
}
