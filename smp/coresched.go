package smp

import (
	"errors"
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/rbtree"
	"github.com/schedmodel/fairclass/topology"
)

// Core scheduling (KERNEL-SPEC-CORESCHED): the SMT threads of a core run
// tasks of one cookie at a time, or idle. Cookies are made and shared as
// prctl(PR_SCHED_CORE) makes and shares them (CoreCreate, CoreShare) and
// inherited at fork; while any cookie lives, every CPU of the machine
// picks core-wide (pick_next_task's core version, coreSchedule), a
// forced-idle CPU may steal a task of its core's cookie (sched_core_balance)
// and no CPU balances newly idle. With no cookie the System is exactly the
// one without core scheduling.

// Cookie identifies a core-scheduling group: tasks of equal cookies may
// share a core. 0 is "untagged"; all untagged tasks form one group. The
// System issues cookies in creation order (CoreCreate) and frees one when
// its last holder exits or is given another.
type Cookie uint64

// Errors of the core-scheduling operations.
var (
	// ErrNoSMT: core scheduling needs a machine with SMT threads
	// (prctl's ENODEV).
	ErrNoSMT = errors.New("smp: core scheduling needs SMT")
	// ErrBadCookie: a cookie that is not live (never made, or freed).
	ErrBadCookie = errors.New("smp: no such cookie")
)

// coreTask is what a task keeps for core scheduling: core_cookie,
// core_occupation, its node in its runqueue's core tree and the
// forced-idle time charged to it (core_forceidle_sum).
type coreTask struct {
	cookie     Cookie
	occupation uint32
	fiSum      uint64
	steals     uint64 // times a forced-idle CPU stole it
	node       rbtree.Node[*Task, Cookie]
}

// coreLess orders a core tree: by cookie, then by vruntime read at the
// moment of the comparison (__sched_core_less: for two fair tasks of one
// runqueue, prio_less reduces to the vruntime order). The keys go stale
// once inserted: the tree keeps the order of arrival as judged at each
// arrival, as the kernel's does. The aggregate is the largest cookie of a
// subtree, so that sched_core_find is one descent.
type coreLess struct{}

func (coreLess) Less(a, b *Task) bool {
	if a.core.cookie != b.core.cookie {
		return a.core.cookie < b.core.cookie
	}
	return int64(a.se.Vruntime()-b.se.Vruntime()) < 0
}
func (coreLess) Leaf(t *Task) Cookie      { return t.core.cookie }
func (coreLess) Merge(a, b Cookie) Cookie { return max(a, b) }

// cookieAtLeast finds the first task of a cookie ≥ c.
type cookieAtLeast struct{ c Cookie }

func (m cookieAtLeast) MatchAgg(a Cookie) bool { return a >= m.c }
func (m cookieAtLeast) Match(t *Task) bool     { return t.core.cookie >= m.c }

// coreCPU is the per-rq core-scheduling state of a CPU, with its root
// queue's forced-idle snapshot.
type coreCPU struct {
	tree rbtree.Tree[*Task, Cookie, coreLess] // rq->core_tree

	pick     *Task // rq->core_pick (nil with pickSet: the idle task)
	pickSet  bool
	schedSeq uint32 // rq->core_sched_seq

	zvFi    uint64 // rq->cfs.zero_vruntime_fi (0 until the first snapshot)
	fiSeq   uint32 // rq->cfs.forceidle_seq
	idleOcc uint32 // the idle task's core_occupation

	forced      bool   // forced idle since forcedSince
	forcedSince uint64 // ns
	forcedNs    uint64 // forced-idle time of the periods that ended
	steals      uint64 // tasks this CPU stole
	tickCore    uint64 // reschedules task_tick_core asked for
}

// coreShared is the state a core keeps on its leader (rq->core).
type coreShared struct {
	taskSeq  uint32 // core_task_seq
	pickSeq  uint32 // core_pick_seq
	cookie   Cookie // core_cookie
	fiCount  uint32 // core_forceidle_count
	fiSeq    uint32 // core_forceidle_seq
	fiOcc    uint32 // core_forceidle_occupation
	fiStart  uint64 // core_forceidle_start
	picks    uint64 // picks past the fast path
	fastPath uint64 // picks that consumed a sibling's choice
}

// coreSched is the System's core-scheduling state.
type coreSched struct {
	on         bool  // the static key and every rq's core_enabled
	refs       []int // reference counts by cookie (index 0 unused)
	live       int   // cookies with a reference
	cpus       []coreCPU
	cores      []coreShared // by CPU: the leader's entry is the core's
	leader     []int
	schedstats bool // kernel.sched_schedstats: per-task forced-idle sums
	noTickCore bool // the model switch that turns task_tick_core off
}

// coreInit allocates the per-CPU state at the first cookie.
func (s *System) coreInit() {
	cs := &s.core
	if cs.cpus != nil {
		return
	}
	n := len(s.cpus)
	cs.cpus = make([]coreCPU, n)
	cs.cores = make([]coreShared, n)
	cs.leader = make([]int, n)
	for i := range cs.leader {
		cs.leader[i] = s.top.SMTMask(i).First()
	}
	cs.refs = make([]int, 1, 8)
}

// coreOf returns the shared state of cpu's core.
func (s *System) coreOf(cpu int) *coreShared { return &s.core.cores[s.core.leader[cpu]] }

// CoreScheduling reports whether core scheduling is on: some cookie lives
// (sched_core_enabled on every CPU).
func (s *System) CoreScheduling() bool { return s.core.on }

// SetSchedstats sets kernel.sched_schedstats (default off, as the
// kernel's): with it on, a core keeps core_forceidle_start and charges the
// running siblings' tasks the forced-idle time (Task.ForceIdleSum). It
// decides nothing.
func (s *System) SetSchedstats(on bool) { s.core.schedstats = on }

// SetTaskTickCore switches task_tick_core (default on). Off is a model
// variant, not a kernel setting: a lone task next to a forced-idle sibling
// is then only re-picked by other events (KERNEL-SPEC-CORESCHED §9
// example 1b).
func (s *System) SetTaskTickCore(on bool) { s.core.noTickCore = !on }

// Cookie returns the task's core_cookie (0: untagged; 0 for a nil Task).
func (t *Task) Cookie() Cookie {
	if t == nil {
		return 0
	}
	return t.core.cookie
}

// CoreOccupation returns core_occupation: the number of busy CPUs of the
// last full core-wide pick that chose the task.
func (t *Task) CoreOccupation() uint32 {
	if t == nil {
		return 0
	}
	return t.core.occupation
}

// ForceIdleSum returns core_forceidle_sum: the forced-idle time of its
// siblings charged to the task while it ran (kept only while
// SetSchedstats is on).
func (t *Task) ForceIdleSum() uint64 {
	if t == nil {
		return 0
	}
	return t.core.fiSum
}

// CoreSteals returns how many times a forced-idle CPU stole the task
// (sched_core_balance's try_steal_cookie); 0 for a nil Task.
func (t *Task) CoreSteals() uint64 {
	if t == nil {
		return 0
	}
	return t.core.steals
}

// WithCookie gives the task cookie c at creation (0: untagged), instead of
// its parent's (a child made WithParent inherits the parent's cookie, as
// sched_core_fork does). c must be live (ErrBadCookie).
func WithCookie(c Cookie) TaskOption {
	return func(tc *taskConfig) error {
		tc.cookie, tc.cookieSet = c, true
		return nil
	}
}

// cookieLive reports whether c is 0 or a cookie with holders.
func (s *System) cookieLive(c Cookie) bool {
	return c == 0 || (uint64(c) < uint64(len(s.core.refs)) && s.core.refs[c] > 0)
}

// forkCookie is sched_core_fork: the new task takes its cookie (a
// reference), its parent's unless WithCookie gave one.
func (s *System) forkCookie(t *Task, c *taskConfig) error {
	ck := Cookie(0)
	switch {
	case c.cookieSet:
		ck = c.cookie
	case c.parent != nil:
		ck = c.parent.core.cookie
		t.core.occupation = c.parent.core.occupation // copied with the task struct
	}
	if ck == 0 {
		return nil
	}
	if !s.cookieLive(ck) {
		return fmt.Errorf("%w: %d", ErrBadCookie, ck)
	}
	s.core.refs[ck]++
	t.core.cookie = ck
	return nil
}

// CoreCreate is prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE): a new cookie,
// given to each of tasks (one for the thread scope, the thread group or
// the process group for the others). The first live cookie switches core
// scheduling on for every CPU. It fails, changing nothing, on a machine
// without SMT (ErrNoSMT), without a task, or for a nil, foreign or exited
// task.
func (s *System) CoreCreate(tasks ...*Task) (Cookie, error) {
	if err := s.coreTargets(tasks); err != nil {
		return 0, err
	}
	if len(tasks) == 0 {
		return 0, fmt.Errorf("%w: CoreCreate of no task", ErrNilTask)
	}
	s.coreInit()
	c := Cookie(len(s.core.refs))
	s.core.refs = append(s.core.refs, 1) // the operation's own reference
	s.coreGet()
	for _, t := range tasks {
		s.setCookie(t, c)
	}
	s.cookiePut(c)
	return c, nil
}

// CoreShare gives cookie c to each of tasks: PR_SCHED_CORE_SHARE_TO with
// the caller's cookie c (0 untags them), PR_SCHED_CORE_SHARE_FROM with the
// target's cookie and the caller as the task. A cookie that loses its
// last holder is freed; the last freed switches core scheduling off. It
// fails, changing nothing, without SMT (ErrNoSMT), for a cookie that is
// not live (ErrBadCookie), or for a nil, foreign or exited task.
func (s *System) CoreShare(c Cookie, tasks ...*Task) error {
	if err := s.coreTargets(tasks); err != nil {
		return err
	}
	if !s.cookieLive(c) {
		return fmt.Errorf("%w: %d", ErrBadCookie, c)
	}
	if c != 0 {
		s.core.refs[c]++ // held for the operation
	}
	for _, t := range tasks {
		s.setCookie(t, c)
	}
	if c != 0 {
		s.cookiePut(c)
	}
	return nil
}

// coreTargets checks the machine and the tasks of a prctl.
func (s *System) coreTargets(tasks []*Task) error {
	if !s.top.SMTActive() {
		return ErrNoSMT
	}
	for _, t := range tasks {
		if err := s.own(t); err != nil {
			return err
		}
		if t.state == taskDead {
			return stateErr(t)
		}
	}
	return nil
}

// setCookie is sched_core_update_cookie: out of the core tree, the cookie
// swapped (references moved), into the tree again if queued with a
// cookie, and a running task's CPU re-picks.
func (s *System) setCookie(t *Task, c Cookie) {
	if t.core.cookie == c {
		return
	}
	queued := t.se.OnRq()
	if t.core.node.Linked() {
		s.coreDequeue(t.cpu, t, true)
	}
	old := t.core.cookie
	if c != 0 {
		s.core.refs[c]++
	}
	t.core.cookie = c
	if old != 0 {
		s.cookiePut(old)
	}
	if c != 0 && queued {
		s.coreEnqueue(t.cpu, t)
	}
	if rq := s.cpus[t.cpu].rq; rq.Curr() == t.se && t.state == taskRunnable {
		s.rq(t.cpu).ReschedCurr()
		s.addResched(t.cpu)
	}
}

// coreGet is sched_core_get at a cookie's creation: the first live cookie
// switches core scheduling on (__sched_core_enable; every core's
// core_forceidle_start cleared).
func (s *System) coreGet() {
	s.core.live++
	if s.core.live == 1 {
		s.core.on = true
		s.setTickHooks()
		for i := range s.core.cores {
			s.core.cores[i].fiStart = 0
		}
	}
}

// cookiePut drops a reference to c; the last one frees it (sched_core_put:
// the last live cookie switches core scheduling off, at once in the model,
// and pending sibling picks are forgotten). A CPU forced idle at that
// moment ends its forced-idle period and, with tasks queued, is asked to
// reschedule: in the kernel the switch-off is deferred to a work item, and
// the schedule that follows the last cookied task's exit is still a
// core-wide pick, which gives the idled sibling its queued task.
func (s *System) cookiePut(c Cookie) {
	s.core.refs[c]--
	if s.core.refs[c] > 0 {
		return
	}
	s.core.live--
	if s.core.live == 0 {
		s.core.on = false
		s.setTickHooks()
		// A sibling's pick not yet consumed is dropped: the plain pick
		// never reads it, and a later enable must not find it.
		for i := range s.core.cpus {
			cc := &s.core.cpus[i]
			cc.pick, cc.pickSet = nil, false
			if cc.forced {
				cc.forcedNs += s.now - cc.forcedSince
				cc.forced = false
				if s.cpus[i].rq.NrRunning() > 0 {
					s.rq(i).ReschedCurr()
					s.addResched(i)
				}
			}
		}
	}
}

// coreFree is sched_core_free: an exited task drops its cookie.
func (s *System) coreFree(t *Task) {
	if c := t.core.cookie; c != 0 {
		t.core.cookie = 0
		s.cookiePut(c)
	}
}

// coreEnqueue is sched_core_enqueue, after the class enqueue: every
// non-delayed enqueue bumps core_task_seq; a tagged task enters the core
// tree. Without core scheduling it is one test, which inlines into every
// enqueue; the work is out of line (coreEnqueueOn).
func (s *System) coreEnqueue(cpu int, t *Task) {
	if s.core.on {
		s.coreEnqueueOn(cpu, t)
	}
}

// coreEnqueueOn is coreEnqueue under core scheduling.
func (s *System) coreEnqueueOn(cpu int, t *Task) {
	if t.se.Delayed() {
		return
	}
	s.coreOf(cpu).taskSeq++
	if t.core.cookie == 0 {
		return
	}
	t.core.node.Item = t
	s.core.cpus[cpu].tree.Insert(&t.core.node)
}

// coreDequeue is sched_core_dequeue, before the class dequeue: every
// non-delayed dequeue bumps core_task_seq and takes the task out of the
// core tree; unless save, a forced-idle CPU losing its last task re-picks.
// Without core scheduling it is one test, which inlines (coreEnqueue).
func (s *System) coreDequeue(cpu int, t *Task, save bool) {
	if s.core.on {
		s.coreDequeueOn(cpu, t, save)
	}
}

// coreDequeueOn is coreDequeue under core scheduling.
func (s *System) coreDequeueOn(cpu int, t *Task, save bool) {
	if t.se.Delayed() {
		return
	}
	k := s.coreOf(cpu)
	k.taskSeq++
	if t.core.node.Linked() {
		s.core.cpus[cpu].tree.Erase(&t.core.node)
	}
	rq := s.cpus[cpu].rq
	if !save && rq.NrRunning() == 1 && k.fiCount > 0 && rq.Curr() == nil {
		rq.ReschedCurr()
		s.addResched(cpu)
	}
}

// coreFind is sched_core_find: the first task of cookie c in cpu's core
// tree, eligible or not, running or not; nil if none.
func (s *System) coreFind(cpu int, c Cookie) *Task {
	tr := &s.core.cpus[cpu].tree
	n := rbtree.FindWith(tr, cookieAtLeast{c})
	if n == nil || n.Item.core.cookie != c {
		return nil
	}
	return n.Item
}

// coreNext is sched_core_next: the task after t in its core tree if it has
// the same cookie, else nil.
func coreNext(t *Task) *Task {
	n := t.core.node.Next()
	if n == nil || n.Item.core.cookie != t.core.cookie {
		return nil
	}
	return n.Item
}

// prioLess is prio_less(a, b) for the picks a of CPU ca and b of CPU cb
// (nil: that CPU's idle task, __task_prio 140; a fair task is 119):
// whether a has lower priority than b. Two idle tasks are equal.
func (s *System) prioLess(a *Task, ca int, b *Task, cb int) bool {
	switch {
	case a == nil:
		return b != nil
	case b == nil:
		return false
	}
	return eevdf.CfsPrioLess(a.se, s.core.cpus[a.cpu].zvFi, b.se, s.core.cpus[b.cpu].zvFi)
}

// taskVruntimeUpdate is task_vruntime_update / se_fi_update for the
// root queue of p's CPU: its zero_vruntime is copied into
// zero_vruntime_fi — in a forced-idle pick only if the queue is not yet
// marked with the core's current forceidle_seq (then it is marked). The
// idle task (nil) updates nothing.
func (s *System) taskVruntimeUpdate(p *Task, inFi bool) {
	if p == nil {
		return
	}
	c := &s.core.cpus[p.cpu]
	if inFi {
		seq := s.coreOf(p.cpu).fiSeq
		if c.fiSeq == seq {
			return
		}
		c.fiSeq = seq
	}
	c.zvFi = s.rq(p.cpu).ZeroVruntime()
}

// coreSchedule is pick_next_task under core scheduling on cpu, then the
// switch (put_prev_set_next_task) and, for a CPU forced idle,
// queue_core_balance run at once. prevIdle says the idle task ran. It
// returns the task that runs now (nil: idle). Newly idle balancing never
// runs here.
func (s *System) coreSchedule(cpu int, prevIdle bool) *Task {
	cs := &s.core
	me := &cs.cpus[cpu]
	k := s.coreOf(cpu)
	s.rq(cpu)

	// A pick a sibling made for this CPU, still valid: take it.
	if k.pickSeq == k.taskSeq && k.pickSeq != me.schedSeq && me.pickSet {
		me.schedSeq = k.pickSeq
		next := me.pick
		me.pick, me.pickSet = nil, false
		k.fastPath++
		return s.coreInstall(cpu, next, prevIdle)
	}
	k.picks++

	needSync := k.cookie != 0
	k.cookie = 0
	fiBefore := false
	if k.fiCount > 0 {
		if cs.schedstats {
			s.coreAccountForceidle(cpu)
		}
		k.fiStart, k.fiCount, k.fiOcc = 0, 0, 0
		needSync, fiBefore = true, true
	}
	k.taskSeq++

	if !needSync {
		next := s.ownTask(s.pickTask(cpu))
		if next == nil || next.core.cookie == 0 {
			me.pick, me.pickSet = nil, false
			s.taskVruntimeUpdate(next, false)
			return s.coreInstall(cpu, next, prevIdle)
		}
	}

	// max: the highest-priority pick of the core, the picking CPU first
	// (it wins ties).
	smt := s.top.SMTMask(cpu)
	var top *Task
	topCPU := -1
	for i := smt.FirstWrap(cpu); i >= 0; i = smt.NextWrap(i, cpu) {
		p := s.ownTask(s.pickTask(i))
		c := &cs.cpus[i]
		c.pick, c.pickSet = p, true
		if topCPU < 0 || s.prioLess(top, topCPU, p, i) {
			top, topCPU = p, i
		}
	}

	// Every CPU runs a task of max's cookie or idles.
	cookie := top.Cookie()
	k.cookie = cookie
	var occ uint32
	for i := smt.First(); i >= 0; i = smt.Next(i) {
		c := &cs.cpus[i]
		p := c.pick
		if p != nil && p.core.cookie != cookie {
			p = nil
			if cookie != 0 {
				p = s.coreFind(i, cookie)
			}
		}
		c.pick = p
		if p != nil {
			occ++
			continue
		}
		if s.cpus[i].rq.NrRunning() > 0 {
			k.fiCount++
			if !fiBefore {
				k.fiSeq++
			}
		}
	}
	if cs.schedstats && k.fiCount > 0 {
		k.fiStart, k.fiOcc = s.now, occ
	}

	k.pickSeq = k.taskSeq
	next := me.pick
	me.schedSeq = k.pickSeq
	for i := smt.First(); i >= 0; i = smt.Next(i) {
		c := &cs.cpus[i]
		if !c.pickSet {
			continue
		}
		if !fiBefore || k.fiCount == 0 {
			s.taskVruntimeUpdate(c.pick, k.fiCount > 0)
		}
		if c.pick == nil {
			c.idleOcc = occ
		} else {
			c.pick.core.occupation = occ
		}
		switch {
		case i == cpu, s.cpus[i].rq.Curr() == c.pick.Entity():
			c.pick, c.pickSet = nil, false
		default:
			s.rq(i).ReschedCurr()
			s.addResched(i)
		}
	}
	return s.coreInstall(cpu, next, prevIdle)
}

// coreInstall is put_prev_set_next_task on cpu, the idle class's hooks of
// a switch, the forced-idle bookkeeping and, for a CPU forced idle,
// queue_core_balance and sched_core_balance at once.
func (s *System) coreInstall(cpu int, next *Task, prevIdle bool) *Task {
	rq := s.rq(cpu)
	prev := rq.Curr()
	if next != nil {
		if err := rq.SetNext(next.se); err != nil {
			next = nil // not a task of this runqueue: Check reports it
			rq.PutPrev()
		} else if next.se != prev {
			s.updateMisfitStatus(next, cpu) // set_next_task_fair, first
		}
	} else {
		rq.PutPrev()
	}
	switch {
	case prevIdle && next != nil:
		s.updateRqAvgIdle(cpu) // put_prev_task_idle
	case !prevIdle && next == nil:
		s.updateIdleCore(cpu) // set_next_task_idle
	}
	c := &s.core.cpus[cpu]
	if c.forced {
		c.forcedNs += s.now - c.forcedSince
		c.forced = false
	}
	if next == nil && rq.NrRunning() > 0 {
		c.forced, c.forcedSince = true, s.now
		if s.coreOf(cpu).fiCount > 0 && s.coreOf(cpu).cookie != 0 && s.coreBalance(cpu) {
			// The stolen task is queued here and the CPU asked to
			// reschedule: its idle loop re-picks at once, before any
			// other CPU can act (a forced-idle CPU elsewhere could
			// otherwise steal the task back before it ever ran).
			return s.coreSchedule(cpu, true)
		}
	}
	if next == nil {
		s.idleEntry(cpu)
	}
	return next
}

// coreBalance is sched_core_balance on a CPU just forced idle: each
// domain bottom-up, until a steal succeeds or the CPU is asked to
// reschedule. It reports a steal.
func (s *System) coreBalance(cpu int) bool {
	rq := s.cpus[cpu].rq
	for _, sd := range s.top.Domains(cpu) {
		if rq.NeedResched() {
			return false
		}
		span := sd.Span()
		start := cpu + 1
		for i := span.FirstWrap(start); i >= 0; i = span.NextWrap(i, start) {
			if i == cpu {
				continue
			}
			if rq.NeedResched() {
				return false
			}
			if s.tryStealCookie(cpu, i) {
				return true
			}
		}
	}
	return false
}

// tryStealCookie is try_steal_cookie: the first task of dst's core cookie
// in src's core tree that is neither src's pending pick nor its running
// task, may run on dst and last ran with an occupation no greater than
// dst's idle task's moves to dst, which re-picks.
func (s *System) tryStealCookie(dst, src int) bool {
	cookie := s.coreOf(dst).cookie
	if cookie == 0 || s.cpus[dst].rq.Curr() != nil {
		return false
	}
	sc := &s.core.cpus[src]
	for p := s.coreFind(src, cookie); p != nil; p = coreNext(p) {
		if (sc.pickSet && sc.pick == p) || s.cpus[src].rq.Curr() == p.se {
			continue
		}
		if !p.allowedOn(dst) || p.core.occupation > s.core.cpus[dst].idleOcc {
			continue
		}
		s.detachTask(p, dst)
		s.attachTask(p)
		s.rq(dst).ReschedCurr()
		s.addResched(dst)
		s.core.cpus[dst].steals++
		p.core.steals++
		return true
	}
	return false
}

// taskTickCore is task_tick_core, at the end of task_tick_fair on cpu: a
// task running alone next to a forced-idle sibling that has used more
// than half its slice since it was last set running is rescheduled, so
// that a core-wide pick may give the core to the waiting cookie.
func (s *System) taskTickCore(cpu int) {
	if s.core.noTickCore || s.coreOf(cpu).fiCount == 0 {
		return
	}
	rq := s.cpus[cpu].rq
	curr := rq.Curr()
	if curr == nil || rq.NrQueued() != 1 {
		return
	}
	if (curr.SumExecRuntime()-curr.PrevSumExecRuntime())*2 > curr.Slice() {
		rq.ReschedCurr()
		s.core.cpus[cpu].tickCore++
	}
}

// coreTick is sched_core_tick: with schedstats, the forced-idle time is
// accounted at every tick of every CPU of a core with forced-idle CPUs.
func (s *System) coreTick(cpu int) {
	if s.core.schedstats && s.coreOf(cpu).fiCount > 0 {
		s.coreAccountForceidle(cpu)
	}
}

// coreAccountForceidle is __sched_core_account_forceidle: the time since
// core_forceidle_start, scaled by forced-idle CPUs per busy CPU, is
// charged to the task each CPU of the core runs or is about to run.
func (s *System) coreAccountForceidle(cpu int) {
	k := s.coreOf(cpu)
	if k.fiStart == 0 {
		return
	}
	d := int64(s.now - k.fiStart)
	if d <= 0 {
		return
	}
	k.fiStart = s.now
	if (k.fiCount > 1 || k.fiOcc > 1) && k.fiOcc > 0 {
		d = d * int64(k.fiCount) / int64(k.fiOcc)
	}
	smt := s.top.SMTMask(cpu)
	for i := smt.First(); i >= 0; i = smt.Next(i) {
		c := &s.core.cpus[i]
		t := s.ownTask(s.cpus[i].rq.Curr())
		if c.pickSet {
			t = c.pick
		}
		if t != nil {
			t.core.fiSum += uint64(d)
		}
	}
}

// CoreInfo is the core-scheduling state of a CPU and of its core, for
// reports and tests. The core fields are the leader's (rq->core).
type CoreInfo struct {
	Cookie              Cookie // core_cookie: of the last full pick's max
	TaskSeq             uint32 // core_task_seq
	PickSeq             uint32 // core_pick_seq
	ForceIdleCount      uint32 // core_forceidle_count
	ForceIdleSeq        uint32 // core_forceidle_seq
	ForceIdleOccupation uint32 // core_forceidle_occupation (schedstats)
	ForceIdleStart      uint64 // core_forceidle_start (schedstats)
	Picks               uint64 // the core's picks past the fast path
	FastPicks           uint64 // picks that took a sibling's choice

	SchedSeq       uint32 // the CPU's core_sched_seq
	ZeroVruntimeFi uint64 // its root queue's zero_vruntime_fi
	ForceidleSeq   uint32 // its root queue's forceidle_seq
	IdleOccupation uint32 // its idle task's core_occupation
	ForcedIdle     bool   // it runs its idle task with tasks queued, by a core-wide pick
	ForcedIdleNs   uint64 // the time it spent forced idle, up to the clock
	Steals         uint64 // tasks it stole (sched_core_balance)
	TickCore       uint64 // reschedules task_tick_core asked of it
	Queued         int    // tasks in its core tree
}

// Core returns cpu's core-scheduling state (the zero CoreInfo for a bad id
// or before the first cookie).
func (s *System) Core(cpu int) CoreInfo {
	if uint(cpu) >= uint(len(s.core.cpus)) {
		return CoreInfo{}
	}
	k := s.coreOf(cpu)
	c := &s.core.cpus[cpu]
	fi := c.forcedNs
	if c.forced {
		fi += s.now - c.forcedSince
	}
	return CoreInfo{
		Cookie: k.cookie, TaskSeq: k.taskSeq, PickSeq: k.pickSeq,
		ForceIdleCount: k.fiCount, ForceIdleSeq: k.fiSeq, ForceIdleOccupation: k.fiOcc,
		ForceIdleStart: k.fiStart, Picks: k.picks, FastPicks: k.fastPath,
		SchedSeq: c.schedSeq, ZeroVruntimeFi: c.zvFi, ForceidleSeq: c.fiSeq,
		IdleOccupation: c.idleOcc, ForcedIdle: c.forced, ForcedIdleNs: fi,
		Steals: c.steals, TickCore: c.tickCore, Queued: c.tree.Len(),
	}
}

// checkCore verifies the core-scheduling invariants (§4.9): every CPU's
// core tree holds exactly its queued, non-delayed, tagged tasks; the
// running tasks of a core have one cookie; a CPU idle with tasks queued
// comes with a forced-idle count; no pick is pending; core_pick_seq never
// runs ahead of core_task_seq.
func (s *System) checkCore() error {
	cs := &s.core
	if !cs.on {
		for i := range cs.cpus {
			if n := cs.cpus[i].tree.Len(); n != 0 {
				return fmt.Errorf("CPU %d: core scheduling off but %d tasks in the core tree", i, n)
			}
		}
		return nil
	}
	for _, t := range s.tasks {
		want := t.state == taskRunnable && t.se.OnRq() && !t.se.Delayed() && t.core.cookie != 0
		if t.core.node.Linked() != want {
			return fmt.Errorf("task %s (cookie %d): in the core tree %v, should be %v", t, t.core.cookie, t.core.node.Linked(), want)
		}
	}
	for i := range cs.cpus {
		c := &cs.cpus[i]
		var bad error
		c.tree.Ascend(func(n *rbtree.Node[*Task, Cookie]) bool {
			if n.Item.cpu != i {
				bad = fmt.Errorf("CPU %d: task %s of CPU %d in its core tree", i, n.Item, n.Item.cpu)
			}
			return bad == nil
		})
		if bad != nil {
			return bad
		}
		if cs.leader[i] != i {
			continue
		}
		k := &cs.cores[i]
		if int32(k.taskSeq-k.pickSeq) < 0 {
			return fmt.Errorf("core of CPU %d: core_pick_seq %d ahead of core_task_seq %d", i, k.pickSeq, k.taskSeq)
		}
		// A sibling asked to reschedule still runs what it ran (the
		// window before its IPI); the core is settled once none is.
		smt := s.top.SMTMask(i)
		settled := true
		for j := smt.First(); j >= 0; j = smt.Next(j) {
			if s.cpus[j].rq.NeedResched() || s.cpus[j].stopped {
				settled = false
			}
		}
		if !settled {
			continue
		}
		var cookie Cookie
		any := false
		for j := smt.First(); j >= 0; j = smt.Next(j) {
			if cs.cpus[j].pickSet {
				return fmt.Errorf("CPU %d: a core pick is pending", j)
			}
			rq := s.cpus[j].rq
			if t := s.ownTask(rq.Curr()); t != nil {
				if any && t.core.cookie != cookie {
					return fmt.Errorf("core of CPU %d: CPU %d runs cookie %d next to cookie %d", i, j, t.core.cookie, cookie)
				}
				cookie, any = t.core.cookie, true
			} else if rq.NrRunnable() > 0 && (!cs.cpus[j].forced || k.fiCount == 0) {
				return fmt.Errorf("core of CPU %d: CPU %d idle with tasks queued, forced %v, forced-idle count %d",
					i, j, cs.cpus[j].forced, k.fiCount)
			}
		}
	}
	return nil
}

// The three cookie tests of placement and balancing (sched.h). Each is
// true while core scheduling is off.

// cpuCookieMatch is sched_cpu_cookie_match: cpu's core runs p's cookie
// (strict: an idle core matches only untagged tasks, its core_cookie
// being 0).
func (s *System) cpuCookieMatch(cpu int, p *Task) bool {
	return !s.core.on || s.coreOf(cpu).cookie == p.core.cookie
}

// coreCookieMatch is sched_core_cookie_match: cpu's core runs p's cookie,
// or every thread of the core is available-idle.
func (s *System) coreCookieMatch(cpu int, p *Task) bool {
	if !s.core.on || s.coreOf(cpu).cookie == p.core.cookie {
		return true
	}
	smt := s.top.SMTMask(cpu)
	for c := smt.First(); c >= 0; c = smt.Next(c) {
		if !s.availableIdleCPU(c) {
			return false
		}
	}
	return true
}

// groupCookieMatch is sched_group_cookie_match: some CPU of g that p may
// use passes coreCookieMatch.
func (s *System) groupCookieMatch(g *topology.Group, p *Task) bool {
	if !s.core.on {
		return true
	}
	span := g.Span()
	for c := span.FirstAnd(p.allowed); c >= 0; c = span.NextAnd(c, p.allowed) {
		if s.coreCookieMatch(c, p) {
			return true
		}
	}
	return false
}
