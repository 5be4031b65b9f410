package trace

import (
	"fmt"
	"slices"
)

// The rebuild turns the event stream into what a replay compares against:
// per task, its runs on CPUs and how each ended, and its wakeups; per CPU,
// each pick the kernel made and the runnable set it chose from. It follows
// each task through four places — running on a CPU, queued on a CPU,
// blocked, or unknown (before its first event, after a loss) — using only
// what the events say:
//
//	sched_switch            prev leaves its CPU: queued there again if its
//	                        state is R or R+, else blocked (or exited);
//	                        next starts a run on the CPU
//	sched_wakeup(_new)      the wakee is queued on target_cpu, unless it is
//	                        still running (woken before it switched out)
//	sched_waking            the same, but only in traces without
//	                        sched_wakeup (Perfetto's compact sched), where
//	                        target_cpu is the previous CPU, not the chosen one
//	sched_migrate_task      a queued task moves from orig_cpu to dest_cpu
//	lost_events             the CPU's running and queued tasks become unknown
//
// A task that a switch finds somewhere no event put it (a load-balance
// move the trace did not record, a loss) is moved there and counted in
// ImpliedMoves; the pick is marked as not consistent, so a replay can leave
// it out of its score.

// Class is the scheduling class a task's priority implies.
type Class uint8

// The classes. The idle task (pid 0) is ClassIdle whatever its priority.
const (
	ClassUnknown  Class = iota
	ClassFair           // prio 100..139
	ClassRT             // prio 0..99
	ClassDeadline       // prio -1 on a task that has one
	ClassIdle           // pid 0, the per-CPU idle task
)

// String names the class.
func (c Class) String() string {
	switch c {
	case ClassFair:
		return "fair"
	case ClassRT:
		return "rt"
	case ClassDeadline:
		return "deadline"
	case ClassIdle:
		return "idle"
	}
	return "unknown"
}

// ClassOf returns the class of a task from its pid and kernel priority.
// Priorities above 139 are not the kernel's and give ClassUnknown.
func ClassOf(pid, prio int32) Class {
	switch {
	case pid == 0:
		return ClassIdle
	case prio == -1:
		return ClassDeadline
	case prio >= 0 && prio < 100:
		return ClassRT
	case prio >= 100 && prio < 140:
		return ClassFair
	}
	return ClassUnknown
}

// RunEnd says how a run ended.
type RunEnd uint8

// The ends of a run.
const (
	EndRunning   RunEnd = iota // still running when the trace ended
	EndBlocked                 // switched out asleep (S, D, I, …)
	EndPreempted               // switched out R+ (stays queued)
	EndYielded                 // switched out R without "+": a yield, a wakeup race, or a preemption the sched plugin printed without its "+"
	EndExited                  // switched out X, Z or x
	EndLost                    // events were lost on its CPU while it ran
)

// String names the end.
func (e RunEnd) String() string {
	switch e {
	case EndRunning:
		return "running"
	case EndBlocked:
		return "blocked"
	case EndPreempted:
		return "preempted"
	case EndYielded:
		return "yielded"
	case EndExited:
		return "exited"
	case EndLost:
		return "lost"
	}
	return fmt.Sprintf("RunEnd(%d)", uint8(e))
}

// Run is one stretch of a task on a CPU, from its switch-in to its
// switch-out. Start is -1 when the task was already running as the trace
// began.
type Run struct {
	CPU        int32
	Start, End int64
	How        RunEnd
	State      State // prev_state at the switch-out
}

// Wake is one wakeup of a task: Kind is KindWakeup, KindWakeupNew or
// KindWaking; CPU the event's target_cpu; By the pid running where it was
// logged (the waker, or 0 / an unrelated task for interrupt wakeups; -1
// unknown).
type Wake struct {
	Time int64
	Kind Kind
	CPU  int32
	By   int32
}

// TaskHistory is what the trace shows of one task.
type TaskHistory struct {
	Pid  int32
	Comm string // the last name it was seen under
	Prio int32  // the last priority it was seen with (-1 unknown)
	// Forked and Exited are the times of its fork (sched_process_fork or
	// task_newtask) and sched_process_exit, -1 when not in the trace.
	Forked, Exited int64
	Runs           []Run
	Wakes          []Wake
}

// Class returns the class of the task's last priority.
func (t *TaskHistory) Class() Class { return ClassOf(t.Pid, t.Prio) }

// Pick is one sched_switch seen as a decision: on CPU at Time the kernel
// switched from Prev to Next (pid 0 is idle; Prev -1 when the trace did
// not say) choosing among Runnable, the pids queued on the CPU at that
// moment — Next included, Prev included when it stayed runnable, idle
// left out — in increasing order.
type Pick struct {
	Time       int64
	CPU        int32
	Prev, Next int32
	PrevState  State
	Runnable   []int32
	// PrevKnown: the rebuild had Prev running on CPU. NextQueued: it had
	// Next queued on CPU (always true for idle).
	PrevKnown, NextQueued bool
}

// Consistent reports whether the rebuild's view of the CPU agreed with the
// switch: Prev was running there and Next was queued there.
func (p *Pick) Consistent() bool { return p.PrevKnown && p.NextQueued }

// Rebuild is the per-task and per-CPU view of a trace.
type Rebuild struct {
	Tasks map[int32]*TaskHistory // by pid; idle (0) is not a task here
	Picks map[int32][]Pick       // by CPU, in time order
	// Start and End are the times of the first and last event.
	Start, End int64
	// Lost counts loss marks; ImpliedMoves the tasks a switch found
	// where no event had put them.
	Lost, ImpliedMoves int
}

// Consistent returns how many picks are consistent, out of how many.
func (rb *Rebuild) Consistent() (consistent, total int) {
	for _, ps := range rb.Picks {
		for i := range ps {
			total++
			if ps[i].Consistent() {
				consistent++
			}
		}
	}
	return consistent, total
}

// where a task is.
type placeKind uint8

const (
	placeUnknown placeKind = iota
	placeRunning
	placeQueued
	placeBlocked
	placeExited
)

type place struct {
	kind placeKind
	cpu  int32
}

type rebuilder struct {
	rb        *Rebuild
	at        map[int32]place          // where each task is
	queue     map[int32]map[int32]bool // per CPU: queued pids
	cur       map[int32]int32          // per CPU: running pid, -1 unknown
	open      map[int32]int            // per task: index of its open run
	placeWake bool                     // sched_waking places tasks (no sched_wakeup in the trace)
	scratch   []int32
}

// RebuildEvents rebuilds the per-task and per-CPU view of events. The
// events are taken in time order (a stable sort of a copy: Perfetto
// bundles of different CPUs overlap in time); evs is not modified.
func RebuildEvents(evs []Event) *Rebuild {
	sorted := slices.Clone(evs)
	slices.SortStableFunc(sorted, func(a, b Event) int {
		switch {
		case a.Time < b.Time:
			return -1
		case a.Time > b.Time:
			return 1
		}
		return 0
	})
	b := &rebuilder{
		rb:    &Rebuild{Tasks: map[int32]*TaskHistory{}, Picks: map[int32][]Pick{}},
		at:    map[int32]place{},
		queue: map[int32]map[int32]bool{},
		cur:   map[int32]int32{},
		open:  map[int32]int{},
	}
	b.placeWake = !slices.ContainsFunc(sorted, func(e Event) bool { return e.Kind == KindWakeup })
	if len(sorted) > 0 {
		b.rb.Start, b.rb.End = sorted[0].Time, sorted[len(sorted)-1].Time
	}
	for i := range sorted {
		b.add(&sorted[i])
	}
	for pid, i := range b.open {
		t := b.rb.Tasks[pid]
		t.Runs[i].End, t.Runs[i].How = b.rb.End, EndRunning
	}
	return b.rb
}

// RebuildReader reads every event of r and rebuilds them.
func RebuildReader(r *Reader) (*Rebuild, error) {
	var evs []Event
	for ev, err := range r.All() {
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return RebuildEvents(evs), nil
}

// task returns the history of pid, creating it; it keeps the newest name
// and, when hasPrio, priority.
func (b *rebuilder) task(t Task, hasPrio bool) *TaskHistory {
	h := b.rb.Tasks[t.Pid]
	if h == nil {
		h = &TaskHistory{Pid: t.Pid, Prio: -1, Forked: -1, Exited: -1}
		b.rb.Tasks[t.Pid] = h
	}
	if t.Comm != "" {
		h.Comm = t.Comm
	}
	if hasPrio {
		h.Prio = t.Prio
	}
	return h
}

func (b *rebuilder) q(cpu int32) map[int32]bool {
	m := b.queue[cpu]
	if m == nil {
		m = map[int32]bool{}
		b.queue[cpu] = m
	}
	return m
}

// unplace takes pid out of wherever the rebuild has it queued.
func (b *rebuilder) unplace(pid int32) {
	if p := b.at[pid]; p.kind == placeQueued {
		delete(b.q(p.cpu), pid)
	}
}

func (b *rebuilder) enqueue(pid, cpu int32) {
	b.unplace(pid)
	b.q(cpu)[pid] = true
	b.at[pid] = place{placeQueued, cpu}
}

// closeRun ends pid's open run, if any.
func (b *rebuilder) closeRun(h *TaskHistory, end int64, how RunEnd, st State) bool {
	i, ok := b.open[h.Pid]
	if !ok {
		return false
	}
	h.Runs[i].End, h.Runs[i].How, h.Runs[i].State = end, how, st
	delete(b.open, h.Pid)
	return true
}

func (b *rebuilder) add(ev *Event) {
	switch ev.Kind {
	case KindSwitch:
		b.switchTo(ev)
	case KindWakeup, KindWakeupNew, KindWaking:
		if ev.Task.Pid <= 0 {
			return
		}
		h := b.task(ev.Task, true)
		h.Wakes = append(h.Wakes, Wake{Time: ev.Time, Kind: ev.Kind, CPU: ev.TargetCPU, By: ev.Ctx})
		if ev.Kind == KindWaking && !b.placeWake || ev.TargetCPU < 0 {
			return
		}
		if p := b.at[ev.Task.Pid]; p.kind != placeRunning {
			b.enqueue(ev.Task.Pid, ev.TargetCPU)
		}
	case KindMigrateTask:
		if ev.Task.Pid <= 0 {
			return
		}
		b.task(ev.Task, true)
		if p := b.at[ev.Task.Pid]; p.kind == placeQueued && ev.TargetCPU >= 0 {
			b.enqueue(ev.Task.Pid, ev.TargetCPU)
		}
	case KindProcessFork, KindNewTask:
		child := ev.Task
		if ev.Kind == KindProcessFork {
			child = ev.Next
		}
		if child.Pid <= 0 {
			return
		}
		if h := b.task(child, false); h.Forked < 0 {
			h.Forked = ev.Time
		}
	case KindProcessExit:
		if ev.Task.Pid > 0 {
			b.task(ev.Task, true).Exited = ev.Time
		}
	case KindPiSetprio:
		if ev.Task.Pid > 0 {
			b.task(ev.Task, true)
		}
	case KindLost:
		b.rb.Lost++
		b.lose(ev)
	}
}

// lose forgets what ran and was queued on the CPU of a loss mark (every
// CPU when it names none).
func (b *rebuilder) lose(ev *Event) {
	for cpu := range b.cur {
		if ev.CPU >= 0 && cpu != ev.CPU {
			continue
		}
		if pid := b.cur[cpu]; pid > 0 {
			if h := b.rb.Tasks[pid]; h != nil {
				b.closeRun(h, ev.Time, EndLost, 0)
			}
			b.at[pid] = place{}
		}
		b.cur[cpu] = -1
	}
	for cpu, m := range b.queue {
		if ev.CPU >= 0 && cpu != ev.CPU {
			continue
		}
		for pid := range m {
			b.at[pid] = place{}
			delete(m, pid)
		}
	}
}

func (b *rebuilder) switchTo(ev *Event) {
	cpu, prev, next := ev.CPU, ev.Task.Pid, ev.Next.Pid
	pk := Pick{Time: ev.Time, CPU: cpu, Prev: prev, Next: next, PrevState: ev.PrevState}
	cur, known := b.cur[cpu]
	pk.PrevKnown = known && cur == prev && prev >= 0
	if prev > 0 {
		h := b.task(ev.Task, true)
		how := EndBlocked
		switch {
		case ev.PrevState.Exited():
			how = EndExited
		case ev.PrevState.Preempted():
			how = EndPreempted
		case ev.PrevState.Runnable():
			how = EndYielded
		}
		if !b.closeRun(h, ev.Time, how, ev.PrevState) {
			// Running since before the trace (or a loss).
			h.Runs = append(h.Runs, Run{CPU: cpu, Start: -1, End: ev.Time, How: how, State: ev.PrevState})
		}
		switch how {
		case EndPreempted, EndYielded:
			b.enqueue(prev, cpu)
		case EndExited:
			b.unplace(prev)
			b.at[prev] = place{kind: placeExited}
		default:
			b.unplace(prev)
			b.at[prev] = place{kind: placeBlocked}
		}
	}
	pk.NextQueued = true
	if next > 0 {
		h := b.task(ev.Next, true)
		p := b.at[next]
		pk.NextQueued = p.kind == placeQueued && p.cpu == cpu
		if !pk.NextQueued {
			if p.kind == placeQueued || p.kind == placeRunning {
				b.rb.ImpliedMoves++
			}
			if p.kind == placeRunning {
				// Running elsewhere as far as the rebuild knows: events
				// about it were lost there.
				b.closeRun(h, ev.Time, EndLost, 0)
				if b.cur[p.cpu] == next {
					b.cur[p.cpu] = -1
				}
			}
			b.enqueue(next, cpu)
		}
	}
	// The runnable set the kernel chose from.
	b.scratch = b.scratch[:0]
	for pid := range b.q(cpu) {
		b.scratch = append(b.scratch, pid)
	}
	slices.Sort(b.scratch)
	pk.Runnable = slices.Clone(b.scratch)
	if next > 0 {
		h := b.rb.Tasks[next]
		b.unplace(next)
		b.at[next] = place{placeRunning, cpu}
		b.open[next] = len(h.Runs)
		h.Runs = append(h.Runs, Run{CPU: cpu, Start: ev.Time, End: -1})
	}
	b.cur[cpu] = next
	b.rb.Picks[cpu] = append(b.rb.Picks[cpu], pk)
}

// Verify checks the rebuild's invariants: every run ends no earlier than
// it starts and after the previous run of its task; every CPU's picks are
// in time order and each pick's runnable set holds its Next (unless idle)
// and no duplicate. It returns the first violation.
func (rb *Rebuild) Verify() error {
	for pid, t := range rb.Tasks {
		last := int64(-1 << 63)
		for i, r := range t.Runs {
			if r.Start >= 0 && r.End < r.Start {
				return fmt.Errorf("task %d run %d ends at %d before its start %d", pid, i, r.End, r.Start)
			}
			if r.Start >= 0 && r.Start < last {
				return fmt.Errorf("task %d run %d starts at %d before the previous run's end %d", pid, i, r.Start, last)
			}
			last = r.End
		}
	}
	for cpu, ps := range rb.Picks {
		for i := range ps {
			p := &ps[i]
			if i > 0 && p.Time < ps[i-1].Time {
				return fmt.Errorf("CPU %d pick %d at %d before the previous at %d", cpu, i, p.Time, ps[i-1].Time)
			}
			if p.Next > 0 && !slices.Contains(p.Runnable, p.Next) {
				return fmt.Errorf("CPU %d pick %d at %d: next %d not in the runnable set %v", cpu, i, p.Time, p.Next, p.Runnable)
			}
			for j := 1; j < len(p.Runnable); j++ {
				if p.Runnable[j] <= p.Runnable[j-1] {
					return fmt.Errorf("CPU %d pick %d at %d: runnable set %v not strictly increasing", cpu, i, p.Time, p.Runnable)
				}
			}
		}
	}
	return nil
}
