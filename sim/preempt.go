package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// Preemption models: where a reschedule request takes effect.
//
// A request is a flag on the CPU's runqueue (eevdf: hard, or lazy under
// eevdf.PreemptLazy); it takes effect at a preemption point, and which
// points honour which flag depends on the model (KERNEL-SPEC-PREEMPT §4)
// and on whether the running task is in user or kernel mode:
//
//   - a task is in kernel mode while it runs a Sys phase, and during a
//     system call that takes no time of its own (a Send, Recv or Reply,
//     which may wake a task); in user mode otherwise (Run, Spin);
//   - an interrupt that returns to user mode (the tick, a timer expiry,
//     the reschedule IPI) and the return to user space at the end of a
//     Sys phase or of a system call honour both flags under every model;
//   - an interrupt that returns to kernel mode, and a wakeup made inside
//     a system call (a spinlock's release), honour the hard flag under
//     full and lazy, nothing under voluntary and none;
//   - under none and voluntary a Sys phase has cond_resched() points
//     every Config.CondReschEvery of its CPU time, and under voluntary
//     also might_resched() points every Config.MightReschEvery: each
//     honours the hard flag;
//   - blocking, exiting and yielding switch under every model;
//   - a lazy request for another CPU sends no IPI: that CPU notices it at
//     its next return to user space, its next block, or its next tick,
//     which makes it hard (eevdf's Tick).
//
// Under PreemptFull every request is hard and every point honours it, so
// a Sys phase schedules exactly as a Run phase does: the full model, the
// default, is the simulator's behaviour before the models existed, and
// its outputs are unchanged.

// Sys is CPU time in kernel mode (a system call's work), ended by a
// return to user space: like Run, it progresses only while the task runs,
// but what may preempt it depends on Config.Preempt (see the package's
// preemption-model documentation). Under the full model, the default, it
// schedules exactly as Run does.
func Sys(d time.Duration) Phase { return Phase{kind: phSys, d: d} }

// SysJitter is Sys for a duration drawn uniformly from [d, d+jitter).
func SysJitter(d, jitter time.Duration) Phase { return Phase{kind: phSys, d: d, j: jitter} }

// kernelMode reports whether c's running task is in kernel mode: in a Sys
// phase, or inside a system call that takes no time.
func (s *Sim) kernelMode(c *cpu) bool {
	if c.inCall {
		return true
	}
	if c.curr < 0 {
		return false
	}
	t := &s.tasks[c.curr]
	return t.inRun && t.sys
}

// preemptNow is the decision at a preemption point reached by an
// interrupt's exit or a wakeup on c: whether c's pending request is
// honoured now. In user mode (or idle) either flag is; in kernel mode the
// hard flag under full and lazy, none under none and voluntary, where the
// request waits for the task's next cond_resched or might_resched point
// (posted here), its return to user space or its block.
//
// Under the full model, the default, that is the hard flag in either
// mode, since no lazy request is ever made there (eevdf sets the lazy
// flag only under PreemptLazy): one test, which inlines into the tick and
// the due reschedules, instead of a call that finds the mode first.
func (s *Sim) preemptNow(c *cpu) bool {
	if s.model == eevdf.PreemptFull {
		return c.rq.NeedReschedHard()
	}
	return s.preemptNowModel(c)
}

// preemptNowModel is preemptNow under a model other than the full one.
func (s *Sim) preemptNowModel(c *cpu) bool {
	if !s.kernelMode(c) {
		return c.rq.NeedResched()
	}
	switch s.model {
	case eevdf.PreemptFull, eevdf.PreemptLazy:
		return c.rq.NeedReschedHard()
	}
	if c.rq.NeedReschedHard() && !c.inCall {
		s.armPoint(c)
	}
	return false
}

// lazyRemote reports whether the request on c is a lazy one (and no
// hard one) that a CPU other than c made: it sends no IPI, and c is not
// rescheduled now. A CPU smp switched by itself (the CPU stopper) has no
// request and is not one.
func (s *Sim) lazyRemote(c *cpu) bool {
	return s.model == eevdf.PreemptLazy && c.id != s.here && c.rq.NeedReschedLazy() && !c.rq.NeedReschedHard()
}

// returnToUser is the return to user space of c's running task t at the
// end of a Sys phase or a system call: a pending request, hard or lazy,
// is honoured. It reports whether t still runs. A request that
// Config.WakeupCost still delays (under the full model, the only kind
// pending there) keeps its own time: nothing is done.
func (s *Sim) returnToUser(c *cpu, ti int32) bool {
	if s.model == eevdf.PreemptFull || c.reschedPending || !c.rq.NeedResched() {
		return true
	}
	gen := s.tasks[ti].gen
	s.deferred++
	s.undue(c.id)
	s.schedule(c)
	s.flushDue()
	return s.still(c, ti, gen)
}

// armPoint posts the next cond_resched or might_resched point of the Sys
// phase c's task runs, if the model has one before the phase ends and
// none is posted for this stint yet. Points lie at whole multiples of
// the interval of CPU time into the phase.
func (s *Sim) armPoint(c *cpu) {
	every := s.condEvery
	if s.model == eevdf.PreemptVoluntary && s.mightEvery > 0 && (every == 0 || s.mightEvery < every) {
		every = s.mightEvery
	}
	if every == 0 {
		return
	}
	t := &s.tasks[c.curr]
	if !t.progressing || t.pointAt >= s.now && t.pointGen == t.gen && t.pointAt != 0 {
		return
	}
	// Kernel work done in the phase (asym.go: CPU time at capacity 1024).
	done := t.sysLen - t.remaining + min(workIn(c, s.now-t.segStart), t.remaining)
	if s.model == eevdf.PreemptVoluntary && s.mightEvery > 0 && s.condEvery > 0 {
		// The next point of either series.
		every = min(nextPoint(done, s.condEvery), nextPoint(done, s.mightEvery)) - done
	} else {
		every = nextPoint(done, every) - done
	}
	if done+every >= t.sysLen {
		return // the return to user space comes first
	}
	// The first instant the segment's work reaches the point: now+every
	// at capacity 1024.
	t.pointAt = max(s.now, t.segStart+wallFor(c, done+every-(t.sysLen-t.remaining)))
	t.pointGen = t.gen
	s.post(t.pointAt, evPoint, c.curr, c.id, t.gen)
}

// nextPoint returns the first point at or after x of kernel time, points
// lying at p, 2p, ...: a point at x itself is reached at this instant,
// after the event that asked.
func nextPoint(x, p uint64) uint64 { return max((x+p-1)/p, 1) * p }

// point is a cond_resched (or might_resched) point of task ti on c: a
// pending hard request is honoured; otherwise the next point is posted
// if one is still needed.
func (s *Sim) point(c *cpu, ti int32, gen uint32) {
	t := &s.tasks[ti]
	if !s.still(c, ti, gen) || !t.inRun || !t.sys || !t.progressing {
		return
	}
	s.events++
	t.pointAt = 0
	s.here = c.id
	if !c.rq.NeedReschedHard() || c.reschedPending {
		return // nothing asked, or the request still on its way (Config.WakeupCost)
	}
	s.deferred++
	s.undue(c.id)
	s.schedule(c)
	s.flushDue()
}

// configurePreempt checks and takes the preemption model, its preemption
// points and the default timer slack from the configuration.
func (s *Sim) configurePreempt() error {
	cfg := &s.cfg
	if cfg.Preempt > eevdf.PreemptNone {
		return fmt.Errorf("unknown preemption model %d", cfg.Preempt)
	}
	if cfg.CondReschEvery < 0 || cfg.MightReschEvery < 0 || cfg.TimerSlack < 0 {
		return fmt.Errorf("negative cond_resched or might_resched interval or timer slack")
	}
	s.model = cfg.Preempt
	if cfg.ScenarioLog != nil && s.model == eevdf.PreemptLazy && !s.feat.Has(features.PreemptShort) {
		// The wakeup check then stops on a pending hard request only; the
		// one-flag replay would stop on the lazy ones too.
		return errors.New("scenario log: the lazy model without PREEMPT_SHORT runs wakeup checks a replay would skip")
	}
	s.condEvery, s.mightEvery = uint64(cfg.CondReschEvery), uint64(cfg.MightReschEvery)
	s.here = -1
	return nil
}

// slackOf is the timer slack of a task: its own, or the configuration's.
func (s *Sim) slackOf(sp *TaskSpec) uint64 {
	if sp.TimerSlack > 0 {
		return uint64(sp.TimerSlack)
	}
	return uint64(s.cfg.TimerSlack)
}

// callGoesOn reports whether the system call of a Sys phase that just
// ended goes on with the next instruction: a Send, Recv or Reply right
// after it is the end of the same call (a write's copy, then its
// wakeup), and the return to user space comes after that.
func callGoesOn(t *task) bool {
	switch t.code[t.pc].op {
	case opSend, opRecv, opReply:
		return true
	}
	return false
}

// parsePreemptKeys reads the configuration's "preempt", "timer_slack",
// "cond_resched_every" and "might_resched_every".
func parsePreemptKeys(cfg *Config, offs offsets, model string, slack, cond, might JSONDuration) error {
	if model != "" {
		m, err := eevdf.ParsePreemptModel(model)
		if err != nil {
			return errAt(offs["preempt"], "preempt %q: want full, lazy, voluntary or none", model)
		}
		cfg.Preempt = m
	}
	for _, kv := range []struct {
		key string
		d   JSONDuration
	}{{"timer_slack", slack}, {"cond_resched_every", cond}, {"might_resched_every", might}} {
		if kv.d < 0 {
			return errAt(offs[kv.key], "%s %v: negative", kv.key, time.Duration(kv.d))
		}
	}
	cfg.TimerSlack, cfg.CondReschEvery, cfg.MightReschEvery = time.Duration(slack), time.Duration(cond), time.Duration(might)
	return nil
}

// preemptName is the model's name in reports: "" for the default, full.
func preemptName(m eevdf.PreemptModel) string {
	if m == eevdf.PreemptFull {
		return ""
	}
	return m.String()
}
