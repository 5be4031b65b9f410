package replay

import (
	"errors"
	"fmt"
	"slices"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
	"github.com/schedmodel/fairclass/trace"
)

// ErrOptions: an Options field is out of range. Every error Pinned
// returns for bad options wraps it.
var ErrOptions = errors.New("replay: bad options")

// MaxCPUs bounds the CPU ids a replay accepts, so that a corrupt trace
// cannot make it allocate without limit.
const MaxCPUs = 1 << 14

// Options configure a replay. The zero value replays with the modelled
// kernel's defaults, the trace's CPU count, the trace's ticks (or a 1000
// HZ tick) and no burn-in.
type Options struct {
	// Kernel is the fair.c to follow (default eevdf.KernelV73), with its
	// own feature defaults and base slice.
	Kernel eevdf.Kernel
	// Features, if set, replaces the kernel's defaults.
	Features *features.Set
	// BaseSlice is the normalised base slice in ns (0: the kernel's),
	// scaled by the CPU count as the kernel scales it.
	BaseSlice uint64
	// CPUs is the number of online CPUs, for that scaling (0: the highest
	// CPU id in the trace, plus one).
	CPUs int
	// HZ sets TICK_NSEC (0: estimated from the trace's ticks, else 1000);
	// without tick events in the trace, ticks are made every TICK_NSEC
	// from time 0 of the trace clock.
	HZ int
	// BurnIn: picks earlier than the first event plus BurnIn ns are
	// replayed but not scored.
	BurnIn int64
	// Examples is how many disagreements the report keeps in full
	// (default 10; negative: none).
	Examples int
	// Compare, in mode B (Free), runs the model a second time under this
	// feature set and reports it beside the first, as "toggled".
	Compare *features.Set
}

// task is one pid of the trace.
type task struct {
	pid   int32
	comm  string
	prio  int32
	fair  bool
	se    *eevdf.SchedEntity // fair tasks only
	cpu   int32              // the runqueue it is on or last left, −1 none
	state taskState
	moved bool  // it moved while asleep: the next wakeup has WF_MIGRATED
	move  int32 // a sched_migrate_task seen while it ran: where it goes at its switch-out, −1 none

	// The trace's view, for latencies.
	wokeAt, runnableAt int64 // −1: not waiting
	lat                taskLat
}

type taskState uint8

const (
	tsNone     taskState = iota // never entered the model
	tsSleeping                  // dequeued (or never seen running)
	tsQueued                    // on its CPU's runqueue, not running (delayed ones included)
	tsRunning                   // its CPU's running task
	tsExited
	tsDetached // detached by a balancing pass, attached at its destination's switch (cpuState.held)
)

// cpuState is one CPU of the replay.
type cpuState struct {
	rq   *eevdf.CfsRq
	curr *task // what the trace runs there: nil for idle or unknown
	// known: curr is what the trace says runs (false before the CPU's
	// first switch and after a loss).
	known bool
	// A reschedule the model asked for at an instant the CPU has not
	// switched yet, and what asked for it.
	resched      bool
	reschedAt    int64
	reschedCause Cause
	// What happened on the CPU since its last switch: a wakeup or an
	// arrival (wakeup preemption), a tick (slice end); whether the model
	// asked for a reschedule since then; and the task it would have
	// switched to at a request the trace shows no switch for (0: none).
	kick   Cause
	asked  bool
	missed int32
	// Attaches held back until the CPU's switch at the same instant
	// (a newly idle pull: it happens after the previous task blocked).
	held []*task
	acct cpuAcct
}

// engine is one pinned replay.
type engine struct {
	opt      Options
	evs      []trace.Event
	i        int // the event being replayed
	cpus     []cpuState
	tasks    map[int32]*task
	order    []*task // in order of first appearance
	byEntity map[*eevdf.SchedEntity]*task
	feat     features.Set
	tickNsec uint64
	ownTicks bool  // the trace has tick events
	nextTick int64 // the next made tick instant (ownTicks false)
	start    int64
	pending  int // CPUs with a reschedule pending (cpuState.resched)
	// wakeCPU, for a trace with sched_waking and no sched_wakeup: per
	// event, the CPU where a waking's task is next switched in (−1: never).
	wakeCPU []int32
	rep     *Report
}

// Pinned replays evs (in any order: they are taken in time order, stable)
// in mode A and reports. It fails only for options out of range; a trace
// the model cannot follow is repaired and counted, never an error.
func Pinned(evs []trace.Event, opt Options) (*Report, error) {
	e, err := newEngine(evs, opt)
	if err != nil {
		return nil, err
	}
	for e.i = 0; e.i < len(e.evs); e.i++ {
		e.step(&e.evs[e.i])
	}
	e.finish()
	return e.rep, nil
}

func newEngine(evs []trace.Event, opt Options) (*engine, error) {
	sorted := slices.Clone(evs)
	slices.SortStableFunc(sorted, func(a, b trace.Event) int {
		switch {
		case a.Time < b.Time:
			return -1
		case a.Time > b.Time:
			return 1
		}
		return 0
	})
	ncpu := 0
	ticks := map[int32][]int64{}
	for i := range sorted {
		ev := &sorted[i]
		for _, c := range [...]int32{ev.CPU, ev.TargetCPU, ev.OrigCPU} {
			if c >= MaxCPUs {
				return nil, fmt.Errorf("%w: CPU %d in the trace (at most %d)", ErrOptions, c, MaxCPUs)
			}
			ncpu = max(ncpu, int(c)+1)
		}
		if ev.Kind == trace.KindTick && ev.CPU >= 0 && len(ticks[ev.CPU]) < 64 {
			ticks[ev.CPU] = append(ticks[ev.CPU], ev.Time)
		}
	}
	switch {
	case opt.CPUs < 0 || opt.CPUs > MaxCPUs:
		return nil, fmt.Errorf("%w: %d CPUs (want 0..%d)", ErrOptions, opt.CPUs, MaxCPUs)
	case opt.HZ < 0 || opt.HZ > 100000:
		return nil, fmt.Errorf("%w: HZ %d (want 0..100000)", ErrOptions, opt.HZ)
	case opt.BurnIn < 0:
		return nil, fmt.Errorf("%w: negative burn-in %d", ErrOptions, opt.BurnIn)
	}
	if opt.CPUs > ncpu {
		ncpu = opt.CPUs
	}
	online := opt.CPUs
	if online == 0 {
		online = max(ncpu, 1)
	}
	if opt.Examples == 0 {
		opt.Examples = 10
	}
	hz := uint64(opt.HZ)
	if hz == 0 {
		hz = estimateHZ(ticks)
	}
	feat, err := featuresFor(opt)
	if err != nil {
		return nil, err
	}
	base := opt.BaseSlice
	if base == 0 {
		base = topology.NormalizedBaseSlice
		if opt.Kernel != eevdf.KernelV73 {
			base = opt.Kernel.BaseSlice()
		}
	}
	e := &engine{
		opt: opt, evs: sorted, tasks: map[int32]*task{}, byEntity: map[*eevdf.SchedEntity]*task{},
		feat: feat, tickNsec: eevdf.TickNsecForHZ(hz), ownTicks: len(ticks) > 0,
		cpus: make([]cpuState, ncpu),
	}
	for c := range e.cpus {
		// PELT signals as package smp keeps them on several CPUs: the
		// cfs_tasks list orders a load balancer's detaches (migrateBatch).
		rq, err := eevdf.NewCfsRq(eevdf.WithFeatures(feat), eevdf.WithScaledBaseSlice(base, online),
			eevdf.WithTickNsec(e.tickNsec), eevdf.WithKernel(opt.Kernel), eevdf.WithPELT(online > 1))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrOptions, err)
		}
		e.cpus[c].rq = rq
	}
	e.rep = newReport(e, online, hz)
	if !e.rep.hasWakeup {
		e.wakeCPU = nextRunCPU(sorted)
	}
	if len(sorted) > 0 {
		e.start = sorted[0].Time
		e.rep.Start, e.rep.End = sorted[0].Time, sorted[len(sorted)-1].Time
		e.nextTick = (sorted[0].Time/int64(e.tickNsec) + 1) * int64(e.tickNsec)
	}
	return e, nil
}

// nextRunCPU is, for each sched_waking of evs, the CPU its task is next
// switched in on (−1 if it never is, or for other events). sched_waking's
// target_cpu is the task's previous CPU, not the one the kernel chose; a
// trace without sched_wakeup (Perfetto's compact encoding) says where the
// task went only when it runs there, so the wakeup is placed there.
func nextRunCPU(evs []trace.Event) []int32 {
	out := make([]int32, len(evs))
	next := map[int32]int32{}
	for i := len(evs) - 1; i >= 0; i-- {
		ev := &evs[i]
		out[i] = -1
		switch ev.Kind {
		case trace.KindSwitch:
			if ev.Next.Pid > 0 {
				next[ev.Next.Pid] = ev.CPU
			}
		case trace.KindWaking:
			if c, ok := next[ev.Task.Pid]; ok {
				out[i] = c
			}
		case trace.KindMigrateTask:
			delete(next, ev.Task.Pid) // it moved in between: the CPU it ran on next is not where it woke
		}
	}
	return out
}

// featuresFor is the feature set of a replay: Options.Features, else the
// kernel's own defaults.
func featuresFor(opt Options) (features.Set, error) {
	if opt.Features != nil {
		return *opt.Features, nil
	}
	if opt.Kernel == eevdf.KernelV73 {
		return features.Default(), nil
	}
	s, err := features.Preset(opt.Kernel.String())
	if err != nil {
		return s, fmt.Errorf("%w: %v", ErrOptions, err)
	}
	return s, nil
}

// estimateHZ takes the tick rate from the smallest gap between two ticks
// of one CPU, rounded to the nearest of the usual rates; 1000 without
// ticks.
func estimateHZ(ticks map[int32][]int64) uint64 {
	gap := int64(0)
	for _, ts := range ticks {
		for i := 1; i < len(ts); i++ {
			if d := ts[i] - ts[i-1]; d > 0 && (gap == 0 || d < gap) {
				gap = d
			}
		}
	}
	if gap == 0 {
		return 1000
	}
	best := uint64(1000)
	for _, hz := range []uint64{100, 250, 300, 1000} {
		if absDiff(int64(1e9/hz), gap) < absDiff(int64(1e9/best), gap) {
			best = hz
		}
	}
	return best
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// taskOf returns the task of t, creating it; a fair task gets its entity.
func (e *engine) taskOf(t trace.Task) *task {
	if t.Pid <= 0 {
		return nil
	}
	k := e.tasks[t.Pid]
	if k == nil {
		k = &task{pid: t.Pid, comm: t.Comm, prio: t.Prio, cpu: -1, move: -1, wokeAt: -1, runnableAt: -1}
		e.tasks[t.Pid] = k
		e.order = append(e.order, k)
		e.rep.Coverage.Tasks++
	}
	if t.Comm != "" {
		k.comm = t.Comm
	}
	if t.Prio >= 0 || t.Prio == -1 && k.prio < 0 {
		k.prio = t.Prio
	}
	if k.se == nil && trace.ClassOf(k.pid, k.prio) == trace.ClassFair {
		se, err := eevdf.NewEntity(fmt.Sprintf("%s-%d", k.comm, k.pid), eevdf.WithNice(int(k.prio)-120),
			eevdf.WithDefaultSlice(e.cpus[0].rq.BaseSlice()))
		if err == nil {
			k.se, k.fair = se, true
			e.byEntity[se] = k
			e.rep.Coverage.FairTasks++
		}
	}
	return k
}

// rq returns CPU c's runqueue with its clock at t.
func (e *engine) rq(c int32, t int64) *eevdf.CfsRq {
	rq := e.cpus[c].rq
	if t > 0 && uint64(t) > rq.Clock() {
		_ = rq.SetClock(uint64(t))
	}
	return rq
}

// step replays one event.
func (e *engine) step(ev *trace.Event) {
	e.advance(ev.Time)
	cpuOK := ev.CPU >= 0 && int(ev.CPU) < len(e.cpus)
	switch ev.Kind {
	case trace.KindSwitch:
		if !cpuOK {
			e.drop()
			return
		}
		e.switchTo(ev)
	case trace.KindWakeup, trace.KindWakeupNew:
		e.wakeup(ev, ev.TargetCPU)
	case trace.KindWaking:
		if e.rep.hasWakeup {
			e.used() // its sched_wakeup places the task; this dates the wakeup
			if k := e.taskOf(ev.Task); k != nil && k.wokeAt < 0 && k.state != tsRunning {
				k.wokeAt = ev.Time
			}
			return
		}
		c := ev.TargetCPU
		if e.wakeCPU != nil && e.wakeCPU[e.i] >= 0 {
			c = e.wakeCPU[e.i]
		}
		e.wakeup(ev, c)
	case trace.KindMigrateTask:
		if n := e.batch(); n > 1 {
			e.migrateBatch(n)
			return
		}
		e.migrate(ev)
	case trace.KindTick:
		if !cpuOK {
			e.drop()
			return
		}
		e.used()
		e.tick(ev.CPU, ev.Time)
	case trace.KindProcessExit:
		e.used()
	case trace.KindLost:
		e.used()
		e.lose(ev)
	default:
		e.other()
	}
}

func (e *engine) used()  { e.rep.Coverage.Used++ }
func (e *engine) drop()  { e.rep.Coverage.Dropped++ }
func (e *engine) other() { e.rep.Coverage.NotUsed++ }

// advance runs what happens between the previous event and one at t: the
// reschedules of earlier instants that no switch took, and the made
// ticks.
func (e *engine) advance(t int64) {
	for c := 0; e.pending > 0 && c < len(e.cpus); c++ {
		if cs := &e.cpus[c]; cs.resched && cs.reschedAt < t {
			e.resolve(int32(c))
		}
	}
	if e.ownTicks || len(e.evs) == 0 {
		return
	}
	tick := int64(e.tickNsec)
	if e.nextTick > 0 && e.nextTick <= t && (t-e.nextTick)/tick > maxMadeTicks {
		// A long gap: its ticks would only repeat themselves (and a
		// corrupt time would never end); the last one runs.
		e.nextTick += ((t - e.nextTick) / tick) * tick
	}
	for e.nextTick <= t && e.nextTick > 0 {
		at := e.nextTick
		// Ticks come before the other events of their instant; the
		// reschedules they ask for wait for a switch at that instant.
		for c := range e.cpus {
			e.tick(int32(c), at)
		}
		e.nextTick += tick
		if at < t {
			for c := range e.cpus {
				if e.cpus[c].resched {
					e.resolve(int32(c))
				}
			}
		}
	}
}

// maxMadeTicks bounds the ticks made between two events of a trace
// without its own ticks.
const maxMadeTicks = 1000

// tick is task_tick_fair on CPU c's running task.
func (e *engine) tick(c int32, t int64) {
	cs := &e.cpus[c]
	rq := e.rq(c, t)
	if rq.Curr() == nil {
		return
	}
	e.rep.Coverage.Ticks++
	rq.Tick()
	cs.kick = CauseSliceEnd
	e.noteResched(c, t, CauseSliceEnd)
}

// noteResched records a reschedule the model asked of c at t, unless one
// is pending already.
func (e *engine) noteResched(c int32, t int64, why Cause) {
	cs := &e.cpus[c]
	if cs.rq.NeedResched() && !cs.resched {
		cs.resched, cs.reschedAt, cs.reschedCause = true, t, why
		e.pending++
		cs.asked = true
	}
}

// clearPending drops cs's pending reschedule, if any.
func (e *engine) clearPending(cs *cpuState) {
	if cs.resched {
		cs.resched = false
		e.pending--
	}
}

// resolve is the preemption point of a reschedule the trace shows no
// switch for: the model picks; its own running task again agrees with the
// kernel, anything else is a preemption the kernel did not make, and the
// running task is forced back.
func (e *engine) resolve(c int32) {
	cs := &e.cpus[c]
	e.clearPending(cs)
	rq := cs.rq
	if !rq.NeedResched() {
		return
	}
	curr := rq.Curr()
	pick := rq.PickTask()
	r := &e.rep.Resched
	if pick == curr {
		rq.PickNext() // picks curr again: clears the request
		r.Kept++
		return
	}
	r.Preempted++
	r.byCause[cs.reschedCause]++
	if k := e.byEntity[pick]; k != nil {
		cs.missed = k.pid
	}
	if curr != nil && curr.OnRq() && !curr.Delayed() {
		_ = rq.SetNext(curr)
	} else {
		rq.PutPrev()
	}
}

// lose forgets what the CPU of a loss mark ran: its next switch is
// unscored.
func (e *engine) lose(ev *trace.Event) {
	for c := range e.cpus {
		if ev.CPU < 0 || int32(c) == ev.CPU {
			e.cpus[c].known = false
		}
	}
}

// enter puts a task the model has never had on c's runqueue, as a new
// task (wake_up_new_task) when the trace saw its fork, else as a wakeup
// with no lag (a task that existed before the trace).
func (e *engine) enter(k *task, c int32, t int64, isNew bool) {
	rq := e.rq(c, t)
	if isNew {
		_ = rq.WakeUpNew(k.se)
	} else {
		_ = rq.Enqueue(k.se, eevdf.EnqueueWakeup)
		rq.WakeupPreempt(k.se, eevdf.WFTTWU)
	}
	k.cpu, k.state = c, tsQueued
	e.cpus[c].kick = CauseWakeup
	e.noteResched(c, t, CauseWakeup)
}

// wakeup is sched_wakeup(_new) of the event's task on CPU c.
func (e *engine) wakeup(ev *trace.Event, c int32) {
	k := e.taskOf(ev.Task)
	if k == nil || c < 0 || int(c) >= len(e.cpus) {
		e.drop()
		return
	}
	e.used()
	e.unhold(k, ev.Time)
	k.sync()
	if k.state != tsRunning {
		if k.wokeAt < 0 {
			k.wokeAt = ev.Time
		}
		if k.runnableAt < 0 {
			k.runnableAt = ev.Time
		}
	}
	if !k.fair {
		k.cpu = c
		return
	}
	switch k.state {
	case tsNone, tsExited:
		e.enter(k, c, ev.Time, ev.Kind == trace.KindWakeupNew && k.state == tsNone)
		return
	case tsRunning:
		return // woken before it switched out: nothing to do
	case tsQueued:
		if !k.se.Delayed() {
			if k.cpu != c {
				e.repair()
				e.moveQueued(k, c, ev.Time, false)
			}
			return
		}
		if k.cpu != c {
			// The kernel had it fully asleep: complete the delay where it
			// is, then it moves as a sleeper.
			e.repair()
			_, _ = e.rq(k.cpu, ev.Time).Dequeue(k.se, eevdf.DequeueSleep|eevdf.DequeueDelayed)
			k.state = tsSleeping
			break
		}
		rq := e.rq(c, ev.Time)
		_ = rq.Wakeup(k.se, 0) // requeue in place
		e.cpus[c].kick = CauseWakeup
		e.noteResched(c, ev.Time, CauseWakeup)
		return
	}
	// Asleep: woken where the trace says, migrating if that is elsewhere.
	wf := eevdf.WakeFlags(0)
	if k.cpu >= 0 && k.cpu != c {
		_ = e.rq(k.cpu, ev.Time).MigrateOut(k.se)
		k.moved = true
	}
	if k.moved {
		wf = eevdf.WFMigrated
	}
	rq := e.rq(c, ev.Time)
	if err := rq.Wakeup(k.se, wf); err != nil {
		e.repair()
		return
	}
	k.cpu, k.state, k.moved = c, tsQueued, false
	e.cpus[c].kick = CauseWakeup
	e.noteResched(c, ev.Time, CauseWakeup)
}

func (e *engine) repair() { e.rep.Coverage.Repairs++ }

// migrate is sched_migrate_task.
func (e *engine) migrate(ev *trace.Event) {
	k := e.taskOf(ev.Task)
	d := ev.TargetCPU
	if k == nil || d < 0 || int(d) >= len(e.cpus) {
		e.drop()
		return
	}
	e.used()
	e.unhold(k, ev.Time)
	k.sync()
	if !k.fair {
		k.cpu = d
		return
	}
	switch k.state {
	case tsSleeping:
		if k.cpu >= 0 && k.cpu != d {
			_ = e.rq(k.cpu, ev.Time).MigrateOut(k.se)
			k.moved = true
		}
		k.cpu = d
	case tsQueued:
		if k.cpu != d {
			e.moveQueued(k, d, ev.Time, e.heldFor(d, ev.Time))
		}
	case tsRunning:
		k.move = d // the CPU stopper moves it once it is put back
	default:
		k.cpu = d
	}
}

// batch returns how many sched_migrate_task events from the current one
// form one load-balancing move: the same instant, source and destination.
func (e *engine) batch() int {
	ev := &e.evs[e.i]
	n := 1
	for j := e.i + 1; j < len(e.evs); j++ {
		x := &e.evs[j]
		if x.Kind != trace.KindMigrateTask || x.Time != ev.Time || x.OrigCPU != ev.OrigCPU || x.TargetCPU != ev.TargetCPU {
			break
		}
		n++
	}
	return n
}

// migrateBatch replays n migrations that one balancing pass made:
// detach_tasks takes the queued tasks from the tail of the source's
// cfs_tasks list (the least recently run first), attach_tasks puts them
// on the destination the last detached first. Tasks not queued in the
// model move one by one, as migrate does.
func (e *engine) migrateBatch(n int) {
	evs := e.evs[e.i : e.i+n]
	e.i += n - 1
	ev := &evs[0]
	o, d := ev.OrigCPU, ev.TargetCPU
	if o < 0 || int(o) >= len(e.cpus) || d < 0 || int(d) >= len(e.cpus) || o == d {
		for i := range evs {
			e.migrate(&evs[i])
		}
		return
	}
	var queued []*task
	for i := range evs {
		k := e.taskOf(evs[i].Task)
		e.unhold(k, ev.Time)
		k.sync()
		if k != nil && k.fair && k.state == tsQueued && k.cpu == o {
			e.used()
			queued = append(queued, k)
			continue
		}
		e.migrate(&evs[i])
	}
	// Tail first: the position of each from the head of the list.
	pos := map[*eevdf.SchedEntity]int{}
	i := 0
	for se := range e.rq(o, ev.Time).Tasks() {
		pos[se] = i
		i++
	}
	slices.SortStableFunc(queued, func(a, b *task) int { return pos[b.se] - pos[a.se] })
	held := e.heldFor(d, ev.Time)
	var moved []*task
	for _, k := range queued {
		if err := e.rq(o, ev.Time).DetachTask(k.se); err != nil {
			e.repair()
			continue
		}
		k.cpu = d
		moved = append(moved, k)
	}
	for j := len(moved) - 1; j >= 0; j-- {
		if held {
			moved[j].state = tsDetached
			e.cpus[d].held = append(e.cpus[d].held, moved[j])
		} else {
			e.attach(moved[j], d, ev.Time)
		}
	}
}

// heldFor reports whether an arrival on d at t waits for d's switch at t:
// the next event of the instant about d is a switch whose previous task
// blocks (the pull of a CPU going idle, made after its task left).
func (e *engine) heldFor(d int32, t int64) bool {
	for j := e.i + 1; j < len(e.evs) && e.evs[j].Time == t; j++ {
		ev := &e.evs[j]
		switch {
		case ev.Kind == trace.KindSwitch && ev.CPU == d:
			return !ev.PrevState.Runnable() && ev.Task.Pid > 0
		case ev.CPU == d, ev.TargetCPU == d:
			return false
		}
	}
	return false
}

// moveQueued detaches the queued task k and attaches it on d (now, or at
// d's switch when held).
func (e *engine) moveQueued(k *task, d int32, t int64, held bool) {
	if k.cpu >= 0 {
		if err := e.rq(k.cpu, t).DetachTask(k.se); err != nil {
			e.repair()
			return
		}
	}
	k.cpu = d
	if held {
		k.state = tsDetached
		e.cpus[d].held = append(e.cpus[d].held, k)
		return
	}
	e.attach(k, d, t)
}

// unhold attaches a task held for its destination's switch now, because
// an event about it comes first.
func (e *engine) unhold(k *task, t int64) {
	if k == nil || k.state != tsDetached {
		return
	}
	cs := &e.cpus[k.cpu]
	if i := slices.Index(cs.held, k); i >= 0 {
		cs.held = slices.Delete(cs.held, i, i+1)
	}
	e.attach(k, k.cpu, t)
}

// attach is attach_task on d: an enqueue with ENQUEUE_MIGRATED, then the
// wakeup-preemption check with no wake flags.
func (e *engine) attach(k *task, d int32, t int64) {
	rq := e.rq(d, t)
	if err := rq.Enqueue(k.se, eevdf.EnqueueMigrated); err != nil {
		e.repair()
		k.state, k.moved = tsSleeping, true
		return
	}
	k.state = tsQueued
	rq.WakeupPreempt(k.se, 0)
	e.cpus[d].kick = CauseWakeup
	e.noteResched(d, t, CauseWakeup)
}

// place makes the model agree with the trace that k is queued on c
// (runnable there, not delayed, not running). Each step changes the
// task's recorded state only when the model accepted it; what fails is a
// repair that the next switch's SetNext finds.
func (e *engine) place(k *task, c int32, t int64) {
	e.unhold(k, t)
	k.sync()
	switch k.state {
	case tsQueued:
		switch {
		case k.cpu == c && !k.se.Delayed():
		case k.cpu == c: // delayed: the kernel had it awake
			if e.rq(c, t).Wakeup(k.se, 0) != nil {
				e.repair()
			}
		case k.se.Delayed():
			if _, err := e.rq(k.cpu, t).Dequeue(k.se, eevdf.DequeueSleep|eevdf.DequeueDelayed); err != nil {
				e.repair()
				return
			}
			k.state = tsSleeping
			e.wakeAway(k, c, t)
		default:
			e.moveQueued(k, c, t, false)
		}
	case tsRunning:
		rq := e.rq(k.cpu, t)
		if rq.Curr() == k.se {
			rq.PutPrev()
		}
		e.cpus[k.cpu].curr, e.cpus[k.cpu].known = nil, false
		k.state = tsQueued
		if k.cpu != c {
			e.moveQueued(k, c, t, false)
		}
	case tsSleeping:
		e.wakeAway(k, c, t)
	default: // never seen or exited: it existed before the trace
		if e.rq(c, t).Enqueue(k.se, eevdf.EnqueueWakeup) == nil {
			k.cpu, k.state = c, tsQueued
		} else {
			e.repair()
		}
	}
}

// wakeAway wakes the sleeping k on c, migrating it if it slept elsewhere.
func (e *engine) wakeAway(k *task, c int32, t int64) {
	wf := eevdf.WakeFlags(0)
	if k.cpu >= 0 && k.cpu != c {
		_ = e.rq(k.cpu, t).MigrateOut(k.se)
		wf = eevdf.WFMigrated
	}
	if e.rq(c, t).Wakeup(k.se, wf) != nil {
		e.repair()
		return
	}
	k.cpu, k.state, k.moved = c, tsQueued, false
}
