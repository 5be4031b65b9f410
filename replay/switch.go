package replay

import (
	"slices"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/trace"
)

// sync notes a delayed dequeue that a pick completed: the task is asleep.
func (k *task) sync() {
	if k != nil && k.fair && k.state == tsQueued && !k.se.OnRq() {
		k.state = tsSleeping
	}
}

// switchTo replays a sched_switch on ev.CPU: prev leaves (blocks, exits
// or stays queued), the model picks, the kernel's next is forced.
func (e *engine) switchTo(ev *trace.Event) {
	e.used()
	c, t := ev.CPU, ev.Time
	cs := &e.cpus[c]
	rq := e.rq(c, t)
	prev, next := e.taskOf(ev.Task), e.taskOf(ev.Next)
	if prev != nil && prev == next {
		e.rep.Coverage.Used--
		e.drop() // a switch from a task to itself is no switch
		return
	}
	e.unhold(prev, t)
	if next != nil && !slices.Contains(cs.held, next) {
		e.unhold(next, t)
	}
	prev.sync()
	next.sync()
	consistent := cs.known && (prev == nil && cs.curr == nil || prev != nil && cs.curr == prev)
	if ev.Task.Pid < 0 {
		consistent = false
	}
	asked := cs.asked || cs.resched || rq.NeedResched() // the model's verdict since the last switch

	// The model's running task must be the trace's prev.
	if mc := rq.Curr(); mc != nil && (prev == nil || mc != prev.se) {
		consistent = false
		rq.PutPrev()
		if k := e.byEntity[mc]; k != nil && k.state == tsRunning {
			k.state = tsQueued
			k.sync()
		}
	}
	if prev != nil && prev.fair && (prev.state != tsRunning || prev.cpu != c || rq.Curr() != prev.se) {
		consistent = false
		if prev.state != tsNone {
			e.repair() // a task seen for the first time is no contradiction
		}
		e.place(prev, c, t)
		if err := rq.SetNext(prev.se); err == nil {
			prev.state = tsRunning
		}
	}

	// prev leaves.
	if prev != nil {
		e.switchOut(prev, ev, t)
	}
	if prev != nil && prev.fair && prev.move >= 0 {
		// The CPU stopper moves it now that it is off the CPU.
		d := prev.move
		prev.move = -1
		if prev.state == tsQueued && d != c && int(d) < len(e.cpus) {
			rq.PutPrev()
			e.moveQueued(prev, d, t, false)
		}
	}

	// Pulls of a CPU going idle, then the pick.
	var pick *eevdf.SchedEntity
	picked := false
	if len(cs.held) > 0 {
		_ = rq.PickTask()
		for _, k := range cs.held {
			if k.state == tsDetached {
				e.attach(k, c, t)
			}
		}
		cs.held = cs.held[:0]
		// The first pick found nothing in the kernel (else it would not
		// have pulled); in the model it completed the delayed dequeues
		// it met, as the kernel's did. The pick after the pull counts.
		pick = rq.PickTask()
		picked = true
	}
	if next != nil && next.fair {
		if next.state != tsQueued || next.cpu != c || next.se.Delayed() {
			consistent = false
			if next.state != tsNone {
				e.repair()
			}
			e.place(next, c, t)
			picked = false
		}
	}
	if !picked {
		pick = rq.PickTask()
	}
	modelPid := int32(0)
	if pick != nil {
		if k := e.byEntity[pick]; k != nil {
			modelPid = k.pid
		}
	}
	kernelPid := max(ev.Next.Pid, 0)
	agree := modelPid == kernelPid
	var snap []Runnable
	if !agree && consistent && (next == nil || next.fair) {
		// Kept for a disagreement's detail, before the forcing.
		snap = e.snapshot(rq)
	}

	// The kernel's next is forced.
	if next != nil && next.fair {
		if err := rq.SetNext(next.se); err != nil {
			e.repair()
			rq.PutPrev()
		} else {
			next.state, next.cpu = tsRunning, c
		}
	} else {
		rq.PutPrev()
	}
	if next != nil {
		e.switchIn(next, c, t)
	}
	cs.curr, cs.known = next, true

	// The decision.
	cause := e.causeOf(prev, next, ev, cs)
	if cs.missed != 0 && ev.PrevState.Runnable() && ev.Next.Pid == cs.missed {
		e.rep.Resched.Late++ // the kernel made the preemption, later
	}
	e.clearPending(cs)
	cs.kick, cs.asked, cs.missed = CauseNone, false, 0
	if consistent && t >= e.start+e.opt.BurnIn && (cause == CauseWakeup || cause == CauseSliceEnd) {
		// The kernel preempted a fair task: did the model ask to?
		e.rep.verdict[cause].add(asked)
	}
	e.score(c, t, ev, cause, consistent, agree, modelPid, snap)
}

// switchOut is prev's side of a switch: it blocks, exits or stays queued;
// the trace's latencies start.
func (e *engine) switchOut(prev *task, ev *trace.Event, t int64) {
	st := ev.PrevState
	runnable := st.Runnable()
	if runnable {
		prev.runnableAt = t
	} else {
		prev.runnableAt, prev.wokeAt = -1, -1
	}
	if !prev.fair {
		return
	}
	rq := e.cpus[ev.CPU].rq
	switch {
	case st.Exited():
		_, _ = rq.Dequeue(prev.se, eevdf.DequeueSleep|eevdf.DequeueSpecial)
		prev.state = tsExited
	case runnable:
		prev.state = tsQueued
	default:
		_, _ = rq.Dequeue(prev.se, eevdf.DequeueSleep)
		prev.state = tsSleeping
		if prev.se.OnRq() {
			prev.state = tsQueued // delayed
		}
	}
}

// switchIn records the trace's latencies of next at its switch-in.
func (e *engine) switchIn(next *task, c int32, t int64) {
	if next.wokeAt >= 0 {
		next.lat.wake = append(next.lat.wake, t-next.wokeAt)
		next.wokeAt = -1
	}
	if next.runnableAt >= 0 {
		next.lat.delay = append(next.lat.delay, t-next.runnableAt)
		next.runnableAt = -1
	}
	if !next.fair {
		next.cpu, next.state = c, tsRunning
	}
}

// causeOf classifies a switch by what ended the previous run.
func (e *engine) causeOf(prev, next *task, ev *trace.Event, cs *cpuState) Cause {
	switch {
	case prev == nil && ev.Task.Pid == 0:
		if next != nil && !next.fair {
			return CauseOtherClass
		}
		return CauseIdle
	case prev != nil && !prev.fair, next != nil && !next.fair:
		return CauseOtherClass
	case !ev.PrevState.Runnable():
		return CauseBlock
	case cs.kick == CauseWakeup:
		return CauseWakeup
	}
	return CauseSliceEnd
}

// snapshot is the model's runnable set on rq: every queued entity and the
// running one, relative to V.
func (e *engine) snapshot(rq *eevdf.CfsRq) []Runnable {
	if e.opt.Examples < 0 || len(e.rep.Disagreements) >= e.opt.Examples {
		return nil
	}
	v := rq.V()
	var out []Runnable
	for _, se := range rq.Entities() {
		k := e.byEntity[se]
		if k == nil {
			continue
		}
		out = append(out, Runnable{
			Pid: k.pid, Comm: k.comm,
			Vruntime: int64(se.Vruntime() - v), Deadline: int64(se.Deadline() - v),
			Lag: rq.Lag(se), Eligible: rq.Eligible(se), Delayed: se.Delayed(),
			Running: se == rq.Curr(), Weight: se.Weight(),
		})
	}
	return out
}

// score adds one pick to the report.
func (e *engine) score(c int32, t int64, ev *trace.Event, cause Cause, consistent, agree bool, model int32, snap []Runnable) {
	r := e.rep
	r.Coverage.Picks++
	a := &e.cpus[c].acct
	a.picks++
	switch {
	case cause == CauseOtherClass:
		r.Coverage.OtherClass++
		return
	case !consistent:
		r.Coverage.Inconsistent++
		return
	case t < e.start+e.opt.BurnIn:
		r.Coverage.BurnedIn++
		return
	}
	r.Coverage.Scored++
	a.all.add(agree)
	a.cause[cause].add(agree)
	r.byCause[cause].add(agree)
	r.Overall.add(agree)
	r.Picks = append(r.Picks, ScoredPick{Time: t, CPU: c, Agree: agree})
	if !agree && snap != nil && len(r.Disagreements) < e.opt.Examples {
		r.Disagreements = append(r.Disagreements, Disagreement{
			Time: t, CPU: c, Cause: cause, Prev: ev.Task.Pid, PrevState: ev.PrevState.String(),
			Kernel: max(ev.Next.Pid, 0), Model: model, Runnable: snap,
		})
	}
}

// finish resolves what is pending and fills the report's tables.
func (e *engine) finish() {
	for c := range e.cpus {
		if e.cpus[c].resched {
			e.resolve(int32(c))
		}
	}
	e.rep.fill(e)
}
