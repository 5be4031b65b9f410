package smp

import (
	"fmt"
	"strconv"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// The core.c entry points a simulator calls (KERNEL-SPEC-SMP §3.1, §4.1,
// §5.1): wake_up_new_task, try_to_wake_up, a block or exit followed by
// __schedule, __schedule itself, sched_exec and the tick.

// Stats counts what the System decided.
type Stats struct {
	Forks   uint64 // WakeUpNew calls that started a task
	Wakeups uint64 // TryToWakeUp calls that woke a sleeping task
	Execs   uint64 // Exec calls

	// Placed and Migrated are indexed by Rule and print with the rules'
	// names.
	Placed   RuleCounts // wakeups and forks, by the rule that chose the CPU
	Migrated RuleCounts // wakeups that changed the task's CPU, by rule

	ForkBalance uint64 // forks placed on another CPU than the parent's
	ExecBalance uint64 // execs that moved the task

	WakeWide   uint64 // wakeups that wake_wide made non-affine
	AffineThis uint64 // wake_affine verdicts for the waking CPU
	AffinePrev uint64 // wake_affine verdicts for the previous CPU

	Migrations uint64 // every change of a task's CPU, whatever the path
	// MigratedAffine counts the wakeups among Migrated that moved after
	// wake_affine chose the waking CPU over the previous one: the affine
	// pulls (each is also counted under the rule that picked the CPU
	// near the waker).
	MigratedAffine uint64

	// Balancing. Levels are indexed by topology.Kind (SMT, MC, PKG).
	BalanceCalls  [3]uint64 // sched_balance_rq calls: by a busy, an idle, a newly idle CPU
	BalanceMoves  uint64    // tasks moved by sched_balance_rq
	NewidlePulls  [3]uint64 // newly idle balances that pulled, by level
	NewidleSkips  uint64    // domains NI_RANDOM skipped
	PeriodicPulls [3]uint64 // periodic balances that moved tasks, by level
	ActiveKicks   uint64    // active balances requested
	ActiveMoves   uint64    // tasks the CPU stopper pushed
	ILBKicks      uint64    // idle load balancer IPIs (mode B)
}

// NumRules is the number of placement rules (Rule values).
const NumRules = int(numRules)

// RuleCounts counts events by the placement Rule that decided them:
// c[RuleTarget] is the count of RuleTarget.
type RuleCounts [NumRules]uint64

// String lists the non-zero counts in Rule order with the rules' names,
// as "[target:1 slow_path:4]"; "[]" when every count is zero.
func (c RuleCounts) String() string {
	b := []byte{'['}
	for r, n := range c {
		if n == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ' ')
		}
		b = append(b, Rule(r).String()...)
		b = append(b, ':')
		b = strconv.AppendUint(b, n, 10)
	}
	return string(append(b, ']'))
}

// Total returns the sum of the counts.
func (c RuleCounts) Total() uint64 {
	var sum uint64
	for _, n := range c {
		sum += n
	}
	return sum
}

// levelNames and idleNames name the entries of Stats' per-level arrays
// (by topology.Kind) and per-CPU-state ones (by cpuIdleType).
var (
	levelNames = [3]string{topology.SMT.String(), topology.MC.String(), topology.PKG.String()}
	idleNames  = [3]string{cpuNotIdle: "busy", cpuIdle: "idle", cpuNewlyIdle: "newly_idle"}
)

// appendNamed appends counts as "[name:n …]", the non-zero ones only.
func appendNamed(b []byte, names *[3]string, counts *[3]uint64) []byte {
	b = append(b, '[')
	first := true
	for i, n := range counts {
		if n == 0 {
			continue
		}
		if !first {
			b = append(b, ' ')
		}
		first = false
		b = append(b, names[i]...)
		b = append(b, ':')
		b = strconv.AppendUint(b, n, 10)
	}
	return append(b, ']')
}

// String formats the counters for people, one group to a line, every
// array with the names of its entries (rules, balancing CPU states,
// topology levels) and only its non-zero entries:
//
//	forks 4 wakeups 6 execs 0 migrations 4
//	placed [target:3 prev:3 slow_path:4] migrated [target:1]
//	fork_balance 3 exec_balance 0 wake_wide 0 affine_this 1 affine_prev 2 migrated_affine 1
//	balance_calls [idle:40 newly_idle:2] balance_moves 1
//	newidle_pulls [MC:1] newidle_skips 0 periodic_pulls []
//	active_kicks 0 active_moves 0 ilb_kicks 0
//
// The format is for reading; programs read the fields.
func (st Stats) String() string {
	u := func(b []byte, name string, n uint64) []byte {
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, ' ')
		}
		b = append(b, name...)
		b = append(b, ' ')
		return strconv.AppendUint(b, n, 10)
	}
	named := func(b []byte, name string, names *[3]string, counts *[3]uint64) []byte {
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, ' ')
		}
		b = append(b, name...)
		b = append(b, ' ')
		return appendNamed(b, names, counts)
	}
	var b []byte
	b = u(b, "forks", st.Forks)
	b = u(b, "wakeups", st.Wakeups)
	b = u(b, "execs", st.Execs)
	b = u(b, "migrations", st.Migrations)
	b = append(b, "\nplaced "...)
	b = append(b, st.Placed.String()...)
	b = append(b, " migrated "...)
	b = append(b, st.Migrated.String()...)
	b = append(b, '\n')
	b = u(b, "fork_balance", st.ForkBalance)
	b = u(b, "exec_balance", st.ExecBalance)
	b = u(b, "wake_wide", st.WakeWide)
	b = u(b, "affine_this", st.AffineThis)
	b = u(b, "affine_prev", st.AffinePrev)
	b = u(b, "migrated_affine", st.MigratedAffine)
	b = append(b, '\n')
	b = named(b, "balance_calls", &idleNames, &st.BalanceCalls)
	b = u(b, "balance_moves", st.BalanceMoves)
	b = append(b, '\n')
	b = named(b, "newidle_pulls", &levelNames, &st.NewidlePulls)
	b = u(b, "newidle_skips", st.NewidleSkips)
	b = named(b, "periodic_pulls", &levelNames, &st.PeriodicPulls)
	b = append(b, '\n')
	b = u(b, "active_kicks", st.ActiveKicks)
	b = u(b, "active_moves", st.ActiveMoves)
	b = u(b, "ilb_kicks", st.ILBKicks)
	return string(b)
}

// Stats returns the System's counters.
func (s *System) Stats() Stats { return s.stats }

// own checks that t is a task of s. The check inlines; the error is made
// out of line (ownErr).
func (s *System) own(t *Task) error {
	if t == nil || t.sys != s {
		return s.ownErr(t)
	}
	return nil
}

// ownErr is own's error for t, which is not a task of s.
func (s *System) ownErr(t *Task) error {
	if t == nil {
		return ErrNilTask
	}
	return fmt.Errorf("%w: %s", ErrForeignTask, t)
}

// stateErr is the error for an operation on t that needs t started and
// alive.
func stateErr(t *Task) error {
	switch t.state {
	case taskNew:
		return fmt.Errorf("%w: %s (WakeUpNew starts it)", ErrNotStarted, t)
	case taskDead:
		return fmt.Errorf("%w: %s", ErrExited, t)
	}
	return fmt.Errorf("%w: %s is %v", ErrTaskState, t, t.state)
}

// badCPU is the error for an id that is not a CPU of s.
func (s *System) badCPU(cpu int) error {
	return fmt.Errorf("%w: %d (the machine has CPUs 0-%d)", ErrBadCPU, cpu, len(s.cpus)-1)
}

// current returns the waking context of cpu: the CPU and what runs there.
func (s *System) current(cpu int) waking {
	return waking{cpu: cpu, curr: s.ownTask(s.cpus[cpu].rq.Curr())}
}

// WakeUpNew is wake_up_new_task for a task made with NewTask: on the CPU
// it was made on (its parent's), recent_used_cpu is set to that CPU, the
// CPU is selected with WF_FORK (the slow path: the idlest group and CPU of
// the highest domain with SD_BALANCE_FORK), the task is set there without
// the migration hook, enqueued as new (which gives it its first PELT
// signals and attaches them) and checked against the running task. It
// returns the CPU, or −1, changing nothing, for a task that is not new (nil,
// of another System, started already or exited); Checked().WakeUpNew says
// which.
func (s *System) WakeUpNew(t *Task) int {
	cpu, err := s.wakeUpNew(t)
	if err != nil {
		return -1
	}
	return cpu
}

// wakeUpNew is WakeUpNew with its error.
func (s *System) wakeUpNew(t *Task) (int, error) {
	if err := s.own(t); err != nil {
		return -1, err
	}
	if t.state != taskNew {
		if t.state == taskDead {
			return -1, stateErr(t)
		}
		return -1, fmt.Errorf("%w: %s was started already (it is %v)", ErrTaskState, t, t.state)
	}
	parent := t.cpu
	t.recent = parent
	wf := eevdf.WFFork
	cpu, rule := s.selectTaskRq(t, parent, &wf, s.current(parent))
	t.cpu, t.wakeCPU = cpu, cpu
	rq := s.rq(cpu)
	before := rq.NrRunning()
	if err := rq.Enqueue(t.se, eevdf.EnqueueInitial); err != nil {
		return -1, err // a fresh entity enqueues
	}
	s.coreEnqueue(cpu, t)
	s.addNrRunning(cpu, before)
	t.state = taskRunnable
	rq.WakeupPreempt(t.se, wf)
	s.markResched(cpu)
	s.stats.Forks++
	s.stats.Placed[rule]++
	t.placed = rule
	if cpu != parent {
		s.stats.ForkBalance++
	}
	return cpu, nil
}

// TryToWakeUp is try_to_wake_up of a sleeping task by waker (nil: a timer
// or interrupt on the CPU where t last ran, whose current task — often the
// idle task — is then the waker). wf may carry eevdf.WFSync and
// eevdf.WFCurrentCPU; WF_TTWU is added.
//
// A task still queued as delayed is woken in place (ttwu_runnable): it is
// requeued on its CPU and, unless it runs, checked against the running
// task; no CPU is selected. Otherwise the CPU is selected on the waking CPU
// (select_task_rq_fair), the task migrates if it changes CPU (its load left
// behind as removed load, its lag kept for the placement there), is
// enqueued with ENQUEUE_WAKEUP (and ENQUEUE_MIGRATED) and checked with the
// wakeup's flags. It returns the task's CPU. Waking a runnable task does
// nothing and returns its CPU. For a task that cannot be woken — nil, of
// another System (or woken by a waker of another System), never started,
// exited — it changes nothing and returns −1; Checked().TryToWakeUp says
// which.
func (s *System) TryToWakeUp(t, waker *Task, wf eevdf.WakeFlags) int {
	if waker == nil && t != nil && t.sys == s && t.state == taskSleeping {
		// A timer's wakeup of a sleeping task, the common case: every
		// test of tryToWakeUp passes, and the call to it is spared. A
		// task still queued as delayed is requeued in place, which
		// needs no waking context: the CPU's current task is not looked
		// up for it.
		if t.se.OnRq() {
			return s.wakeDelayed(t, wf)
		}
		if t.nrAllowed == 1 {
			// A task allowed on one CPU is placed there without
			// the waking context (selectTaskRq): the CPU's current
			// task is not looked up for it either.
			return s.wakeSleeping(t, waking{cpu: t.cpu}, wf)
		}
		return s.wakeSleeping(t, s.current(t.cpu), wf)
	}
	cpu, err := s.tryToWakeUp(t, waker, wf)
	if err != nil {
		return -1
	}
	return cpu
}

// tryToWakeUp is TryToWakeUp with its error: it checks t and the waker,
// then wakes t in the waker's context (the waker's CPU and task, or the
// sleeper's CPU and whatever runs there for a timer).
func (s *System) tryToWakeUp(t, waker *Task, wf eevdf.WakeFlags) (int, error) {
	if err := s.own(t); err != nil {
		return -1, err
	}
	if waker != nil && waker.sys != s {
		return -1, fmt.Errorf("%w: waker %s", ErrForeignTask, waker)
	}
	switch t.state {
	case taskRunnable:
		return t.cpu, nil
	case taskNew, taskDead:
		return -1, stateErr(t)
	}
	if waker != nil {
		return s.wakeSleeping(t, waking{cpu: waker.cpu, curr: waker}, wf), nil
	}
	return s.wakeSleeping(t, s.current(t.cpu), wf), nil
}

// wakeSleeping is try_to_wake_up of a sleeping task t run in the waking
// context w: a delayed task is requeued in place, any other is placed by
// select_task_rq_fair, migrated if its CPU changes, enqueued and checked.
func (s *System) wakeSleeping(t *Task, w waking, wf eevdf.WakeFlags) int {
	if t.se.OnRq() {
		return s.wakeDelayed(t, wf)
	}
	wf = wf&(eevdf.WFSync|eevdf.WFCurrentCPU) | eevdf.WFTTWU
	t.state = taskRunnable
	s.stats.Wakeups++
	s.affinePull = false
	cpu, rule := s.selectTaskRq(t, t.wakeCPU, &wf, w)
	s.stats.Placed[rule]++
	t.placed = rule
	if cpu != t.cpu {
		wf |= eevdf.WFMigrated
		s.stats.Migrated[rule]++
		if s.affinePull {
			s.stats.MigratedAffine++
		}
		s.setTaskCPU(t, cpu)
	}
	ef := eevdf.EnqueueWakeup
	if wf&eevdf.WFMigrated != 0 {
		ef |= eevdf.EnqueueMigrated
	}
	rq := s.clock1 // rq(cpu) on one CPU (clock1)
	if rq == nil {
		rq = s.rq(cpu)
	}
	before := rq.NrRunning()
	_ = rq.Enqueue(t.se, ef) // a sleeping task enqueues
	s.coreEnqueue(cpu, t)
	s.addNrRunning(cpu, before)
	s.checkUpdateOverutilizedStatus(cpu) // ENQUEUE_WAKEUP (overutil.go)
	rq.WakeupPreempt(t.se, wf)
	s.markReschedRq(cpu, rq)
	return cpu
}

// wakeDelayed is wakeSleeping of a sleeping task t still queued as
// delayed (ttwu_runnable): requeued in place on its CPU and checked
// against the running task.
func (s *System) wakeDelayed(t *Task, wf eevdf.WakeFlags) int {
	wf = wf&(eevdf.WFSync|eevdf.WFCurrentCPU) | eevdf.WFTTWU
	t.state = taskRunnable
	s.stats.Wakeups++
	rq := s.clock1 // rq(t.cpu) on one CPU (clock1)
	if rq == nil {
		rq = s.rq(t.cpu)
	}
	_ = rq.Enqueue(t.se, eevdf.EnqueueDelayed) // it is delayed: the requeue cannot fail
	s.coreEnqueue(t.cpu, t)
	if rq.Curr() != t.se {
		rq.WakeupPreempt(t.se, wf)
		s.markReschedRq(t.cpu, rq)
	}
	s.stats.Placed[RuleInPlace]++
	t.placed = RuleInPlace
	return t.cpu
}

// Block puts cpu's running task to sleep (dequeue with DEQUEUE_SLEEP, which
// may leave it queued as delayed) and runs __schedule on cpu. It fails,
// changing nothing, on an idle CPU (ErrIdle) or an id that is not a CPU
// (ErrBadCPU).
//
// It is called for every sleep: running's work is written out here, so
// that the runqueue is found once, with no call to find the task.
func (s *System) Block(cpu int) error {
	_, err := s.BlockNext(cpu)
	return err
}

// BlockNext is Block, and returns the task cpu runs once its __schedule
// is done: Curr(cpu) then, nil while the idle task runs (and on an
// error, which changes nothing). A caller that follows every sleep with
// the switch it makes (as the simulator does) has the pick's result at
// once, where calling Curr would find the runqueue and the task again.
func (s *System) BlockNext(cpu int) (*Task, error) {
	if uint(cpu) >= uint(len(s.cpus)) {
		return nil, s.cpuErr(cpu)
	}
	rq := s.clock1 // rq(cpu) on one CPU (clock1)
	if rq == nil {
		rq = s.rq(cpu)
	}
	t := s.ownTask(rq.Curr())
	if t == nil {
		return nil, s.cpuErr(cpu)
	}
	if s.core.on || rq.NrIdle() != 0 {
		// Under core scheduling, or with SCHED_IDLE tasks queued (or
		// tasks below an idle group): the sleep, then __schedule's
		// own body, each with its test of sched_idle_rq.
		was := s.schedIdleRq(cpu)
		s.coreDequeue(cpu, t, false)
		if _, err := rq.Dequeue(t.se, eevdf.DequeueSleep); err != nil {
			return nil, err
		}
		s.dequeued(cpu, was)
		t.state = taskSleeping
		return s.schedule(cpu, false), nil
	}
	// Otherwise the sleep and its __schedule in one body: schedule's
	// path (with prevIdle false) written out after the dequeue, one call
	// less at every sleep. Nothing queued is SCHED_IDLE, and neither the
	// dequeue nor the delayed dequeues the pick completes can add one, so
	// the runqueue is never sched_idle_rq here: dequeued, after the
	// sleep's dequeue and after the pick, would find nothing to do, and
	// its tests (two reads of h_nr_idle and of nr_running around each
	// dequeue) are left out.
	if _, err := rq.Dequeue(t.se, eevdf.DequeueSleep); err != nil {
		return nil, err
	}
	t.state = taskSleeping
	prev := t.se // still the runqueue's current entity: a dequeue leaves curr to the switch
	next := rq.PickTask()
	if next == nil {
		return s.scheduleIdle(cpu, false, prev), nil
	}
	_ = rq.SetNext(next) // a pick is never delayed
	// asym first: on a symmetric machine one load and test, without
	// reloading next and prev (kept on the stack across SetNext).
	if s.asym && next != prev {
		s.updateMisfitStatus(s.ownTask(next), cpu) // set_next_task_fair, first
	}
	return s.ownTask(next), nil
}

// dequeued is the end of __dequeue_task on cpu: a dequeue that leaves only
// SCHED_IDLE tasks where there were others makes the CPU balance at its
// next tick, to pull higher-priority work early.
func (s *System) dequeued(cpu int, wasSchedIdle bool) {
	if !wasSchedIdle && s.schedIdleRq(cpu) {
		s.cpus[cpu].nextBalance = s.jiffies
	}
}

// Exit ends cpu's running task: a dequeue that is never delayed
// (DEQUEUE_SPECIAL), __schedule, then task_dead_fair's removal of its load
// from the runqueue (remove_entity_load_avg). It fails, changing nothing,
// on an idle CPU (ErrIdle) or an id that is not a CPU (ErrBadCPU).
func (s *System) Exit(cpu int) error {
	t, err := s.running(cpu)
	if err != nil {
		return err
	}
	rq := s.rq(cpu)
	was := s.schedIdleRq(cpu)
	s.coreDequeue(cpu, t, false)
	if _, err := rq.Dequeue(t.se, eevdf.DequeueSleep|eevdf.DequeueSpecial); err != nil {
		return err
	}
	s.dequeued(cpu, was)
	t.state = taskDead
	s.schedule(cpu, false)
	s.coreFree(t) // the task is freed after its last switch
	return rq.RemoveLoadAvg(t.se)
}

// running returns cpu's running task.
func (s *System) running(cpu int) (*Task, error) {
	if uint(cpu) < uint(len(s.cpus)) {
		if t := s.ownTask(s.rq(cpu).Curr()); t != nil {
			return t, nil
		}
	}
	return nil, s.cpuErr(cpu)
}

// cpuErr is running's error for cpu: not a CPU, or idle (or running an
// entity that is no task of the System).
func (s *System) cpuErr(cpu int) error {
	if uint(cpu) >= uint(len(s.cpus)) {
		return s.badCPU(cpu)
	}
	return fmt.Errorf("%w: CPU %d", ErrIdle, cpu)
}

// Schedule is __schedule on cpu: pick (pick_task_fair, with the running
// task still current); with nothing to run, a newly idle balance, and a
// pick again if it pulled; then put_prev/set_next if the pick changed. A
// switch to the idle task records it for has_idle_cores and, in mode B,
// stops the CPU's tick; a switch from it samples avg_idle. Under core
// scheduling it is the core-wide pick instead (pick_next_task's core
// version, without newly idle balancing), which may reschedule the CPU's
// SMT siblings (Resched lists them). It returns the task that runs now
// (nil: idle). For an id that is not a CPU it does nothing and returns
// nil; Checked().Schedule reports it.
func (s *System) Schedule(cpu int) *Task {
	if uint(cpu) >= uint(len(s.cpus)) {
		return nil
	}
	return s.scheduleCPU(cpu, &s.cpus[cpu])
}

// scheduleCPU is Schedule on a valid CPU id, whose state c the caller has
// found after its test of the id (so that the index needs no second
// bounds check).
func (s *System) scheduleCPU(cpu int, c *cpuState) *Task {
	if c.stopped {
		c.stopped = false
		return s.scheduleAfterStop(cpu)
	}
	return s.schedule(cpu, c.rq.Curr() == nil)
}

// schedule is Schedule with the previous task's kind given: prevIdle says
// the idle task ran (after the CPU stopper ran, neither did).
//
// The first pick is pickTask written out, and a pick that finds a task
// ends here: the call of pickTask cost more than its body, at every
// __schedule. A pick that finds nothing goes on in scheduleIdle. With no
// SCHED_IDLE task queued, the delayed dequeues the pick completes cannot
// leave the runqueue sched_idle_rq, so the pick is the runqueue's alone,
// without pickTask's tests around it (as in BlockNext).
func (s *System) schedule(cpu int, prevIdle bool) *Task {
	if s.core.on {
		return s.coreSchedule(cpu, prevIdle)
	}
	rq := s.clock1 // rq(cpu) on one CPU (clock1)
	if rq == nil {
		rq = s.rq(cpu)
	}
	prev := rq.Curr()
	var next *eevdf.SchedEntity
	if rq.NrIdle() == 0 {
		next = rq.PickTask()
	} else {
		next = s.pickTask(cpu)
	}
	if next == nil {
		return s.scheduleIdle(cpu, prevIdle, prev)
	}
	// setNext, written out: it does not inline.
	_ = rq.SetNext(next) // a pick is never delayed
	// asym first: on a symmetric machine one load and test, without
	// reloading next and prev (kept on the stack across SetNext).
	if s.asym && next != prev {
		s.updateMisfitStatus(s.ownTask(next), cpu) // set_next_task_fair, first
	}
	if prevIdle {
		s.updateRqAvgIdle(cpu) // put_prev_task_idle
	}
	return s.ownTask(next)
}

// setNext ends a __schedule on cpu whose pick found next:
// set_next_task_fair (put_prev of prev with it), then, when the idle task
// ran before (prevIdle), put_prev_task_idle's sample of avg_idle.
func (s *System) setNext(cpu int, prevIdle bool, prev, next *eevdf.SchedEntity) *Task {
	_ = s.cpus[cpu].rq.SetNext(next) // a pick is never delayed
	// asym first: on a symmetric machine one load and test, without
	// reloading next and prev (kept on the stack across SetNext).
	if s.asym && next != prev {
		s.updateMisfitStatus(s.ownTask(next), cpu) // set_next_task_fair, first
	}
	if prevIdle {
		s.updateRqAvgIdle(cpu) // put_prev_task_idle
	}
	return s.ownTask(next)
}

// scheduleIdle is schedule once its first pick found nothing: newly idle
// balances, each followed by a pick again, while they pull; then the
// switch to what was found, or to the idle task (set_next_task_idle's
// record for has_idle_cores, and the idle loop's entry).
func (s *System) scheduleIdle(cpu int, prevIdle bool, prev *eevdf.SchedEntity) *Task {
	var next *eevdf.SchedEntity
	for next == nil && s.newidleBalance(cpu) > 0 {
		next = s.pickTask(cpu)
	}
	if next != nil {
		return s.setNext(cpu, prevIdle, prev, next)
	}
	s.cpus[cpu].rq.PutPrev()
	if !prevIdle {
		s.updateIdleCore(cpu) // set_next_task_idle
	}
	s.idleEntry(cpu)
	return nil
}

// pickTask is pick_task_fair on cpu. The delayed dequeues the pick
// completes are dequeues: one that leaves only SCHED_IDLE tasks where
// there were others brings the CPU's next balance forward (dequeued).
// The runqueue is found once (schedIdleRq's test is written out on it),
// not again after the pick's call, which the compiler cannot see through.
func (s *System) pickTask(cpu int) *eevdf.SchedEntity {
	rq := s.cpus[cpu].rq
	n := rq.NrRunning()
	was := n > 0 && n == rq.NrIdle() // schedIdleRq
	next := rq.PickTask()
	if rq.NrRunning() != n {
		s.dequeued(cpu, was)
	}
	return next
}

// Exec is sched_exec for cpu's running task: its CPU selected with WF_EXEC
// (the class hook alone: the slow path from the highest domain with
// SD_BALANCE_EXEC, on the task's synced signals); if that is another CPU,
// the CPU stopper preempts the task and moves it there (move_queued_task:
// lag and relative deadline kept, PELT detached and attached), and cpu
// schedules. It returns the task's CPU, or −1, changing nothing, on an idle
// CPU or an id that is not a CPU; Checked().Exec says which.
func (s *System) Exec(cpu int) int {
	dest, _ := s.exec(cpu)
	return dest
}

// exec is Exec with its error.
func (s *System) exec(cpu int) (int, error) {
	t, err := s.running(cpu)
	if err != nil {
		return -1, err
	}
	s.stats.Execs++
	dest, _ := s.selectTaskRqFair(t, cpu, eevdf.WFExec, s.current(cpu))
	if dest == cpu {
		return cpu, nil
	}
	s.rq(cpu).PutPrev() // the stopper preempts the task: it is queued, not running
	s.moveQueuedTask(t, dest)
	s.stats.ExecBalance++
	s.schedule(cpu, false)
	return dest, nil
}

// Tick is sched_tick on cpu: task_tick_fair on the running task (charge,
// PELT, the resched decision; under core scheduling task_tick_core, then
// the forced-idle accounting of sched_core_tick), then the balance trigger: the periodic
// balance softirq when the CPU's next balance is due, and in mode B the
// decision to kick an idle load balancer (which RunPending then runs). The
// caller reschedules the CPU if its runqueue asks for it
// (RQ(cpu).NeedResched()). In mode B an idle CPU whose tick is stopped
// (TickStopped) does not tick: Tick does nothing there. For an id that is
// not a CPU it does nothing; Checked().Tick reports it.
func (s *System) Tick(cpu int) {
	if uint(cpu) < uint(len(s.cpus)) {
		s.tick(cpu, &s.cpus[cpu])
	}
}

// tick is Tick on a valid CPU id, whose state c the caller has found
// (Tick's index of the CPUs follows its test of the id, so that the
// index needs no second bounds check).
//
// The CPU's state is found once, for TickStopped's test, rq's clock and
// the balance trigger (each indexed the CPUs itself), and the hooks of
// features that are mostly off (asymmetric capacities, EAS, core
// scheduling) sit behind one flag, tickHooks, which is cheaper than
// their three separate tests on every tick.
func (s *System) tick(cpu int, c *cpuState) {
	if c.tickStopped && s.idleCPU(cpu) { // TickStopped, on a valid id
		return
	}
	if c.clockEpoch != s.epoch { // rq(cpu)
		s.syncCPU(c, cpu)
	}
	rq := c.rq
	// busy is read once for the class's tick and the idle test below (the
	// class's tick never changes the running task; the hooks may be
	// thought to, and it is read again after them).
	busy := rq.Curr() != nil
	if busy {
		rq.Tick()
	}
	if s.tickHooks {
		s.tickHookWork(cpu, rq, busy)
		busy = rq.Curr() != nil
	}
	if c.noDomains {
		c.idleBalance = !busy && rq.NrRunning() == 0 // idleCPU: tickBalance's first step, and all it does here
	} else {
		s.tickBalance(cpu)
	}
	if s.nohz == NohzIdle && s.idleCPU(cpu) && rq.NrRunning() == 0 {
		// An idle CPU still ticking (idle since boot) stops its tick in
		// its idle loop.
		s.idleEntry(cpu)
	}
}

// tickHookWork is the tick's work for the features that tickHooks says
// may be on, in the tick's order: on a busy CPU the rest of
// task_tick_fair after the class's tick (the misfit status on an
// asymmetric machine, the overutilized status under EAS) and
// task_tick_core under core scheduling; then sched_core_tick.
func (s *System) tickHookWork(cpu int, rq *eevdf.CfsRq, busy bool) {
	if busy {
		if s.asym {
			s.updateMisfitStatus(s.ownTask(rq.Curr()), cpu) // task_tick_fair
		}
		s.checkUpdateOverutilizedStatus(cpu)
		if s.core.on {
			s.taskTickCore(cpu)
		}
	}
	if s.core.on {
		s.coreTick(cpu)
	}
}

// setTickHooks sets tickHooks from the features it stands for; it runs
// at New and wherever core scheduling is switched on or off (asym and
// easOn are fixed at New).
func (s *System) setTickHooks() { s.tickHooks = s.asym || s.easOn || s.core.on }
