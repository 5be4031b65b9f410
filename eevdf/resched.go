package eevdf

import "fmt"

// Need-resched requests: the hard and the lazy flag.
//
// The kernel keeps two requests on the running task (KERNEL-SPEC-PREEMPT
// §3): a hard one, which every preemption point honours, and a lazy one,
// which only the return to user space honours and which the next tick
// turns into a hard one. resched_curr always asks hard; resched_curr_lazy
// asks lazy only under the lazy preemption model and never for the idle
// task, and is resched_curr otherwise. Of the fair class's requests only
// two sites are lazy: update_curr (slice end or end of protection, so the
// tick's preemption) and wakeup_preempt_fair's preemption. Every other
// request — a wakeup while idle runs, a raised nice of the running task,
// a group move of the running task, a request from outside the class — is
// hard.
//
// Under the full, voluntary and none models there is one flag in effect:
// every request is hard, which is what the one-flag model of KERNEL-SPEC
// §9.5 describes. The models differ there only in where a request is
// honoured, which is the caller's business (package sim).

// PreemptModel is the kernel's preemption model (CONFIG_PREEMPT_*, or the
// preempt= boot switch of a PREEMPT_DYNAMIC kernel). A runqueue only
// needs to know whether it is PreemptLazy; the other models matter to the
// simulator that decides when a request takes effect.
type PreemptModel uint8

const (
	// PreemptFull (CONFIG_PREEMPT): any point where preemption is
	// enabled honours a hard request. The default, and every request is
	// hard.
	PreemptFull PreemptModel = iota
	// PreemptLazy (CONFIG_PREEMPT_LAZY, v6.13+): the fair class's
	// requests are lazy, honoured at the return to user space or made
	// hard by the next tick; other requests behave as under full.
	PreemptLazy
	// PreemptVoluntary (CONFIG_PREEMPT_VOLUNTARY): kernel code is
	// preempted only at cond_resched() and might_resched() points.
	PreemptVoluntary
	// PreemptNone (CONFIG_PREEMPT_NONE): kernel code is preempted only at
	// cond_resched() points.
	PreemptNone
)

func (m PreemptModel) String() string {
	switch m {
	case PreemptFull:
		return "full"
	case PreemptLazy:
		return "lazy"
	case PreemptVoluntary:
		return "voluntary"
	case PreemptNone:
		return "none"
	}
	return fmt.Sprintf("PreemptModel(%d)", uint8(m))
}

// ParsePreemptModel parses "full", "lazy", "voluntary" or "none" (the
// names of the preempt= boot switch).
func ParsePreemptModel(s string) (PreemptModel, error) {
	for m := PreemptFull; m <= PreemptNone; m++ {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w: preemption model %q (want full, lazy, voluntary or none)", ErrBadOption, s)
}

// WithPreempt selects the preemption model (default PreemptFull). Only
// PreemptLazy changes what the runqueue does: the fair class's requests
// then set the lazy flag. NewCfsRq rejects PreemptLazy for a kernel
// without the lazy model (Kernel.HasLazy).
func WithPreempt(m PreemptModel) Option {
	return func(rq *CfsRq) error {
		if m > PreemptNone {
			return fmt.Errorf("%w: %v", ErrBadOption, m)
		}
		rq.preempt = m
		return nil
	}
}

// HasLazy reports whether the kernel has the lazy preemption model, which
// came with v6.13: true for v6.18 and later, false for v6.12 and v6.6.
func (k Kernel) HasLazy() bool {
	switch k {
	case KernelV73, KernelV71, KernelV70, KernelV618:
		return true
	}
	return false
}

// Preempt returns the runqueue's preemption model.
func (rq *CfsRq) Preempt() PreemptModel {
	if rq == nil {
		return PreemptFull
	}
	return rq.preempt
}

// NeedReschedHard reports the hard request (TIF_NEED_RESCHED), the one
// need_resched() and every preemption point in kernel mode read.
func (rq *CfsRq) NeedReschedHard() bool { return rq != nil && rq.needResched }

// NeedReschedLazy reports the lazy request (TIF_NEED_RESCHED_LAZY). It is
// only ever set under PreemptLazy; it may be set together with the hard
// one (a hard request does not clear it).
func (rq *CfsRq) NeedReschedLazy() bool { return rq != nil && rq.lazyResched }

// reschedLazy is resched_curr_lazy: a lazy request under the lazy model
// while a task runs, a hard one otherwise (__resched_curr upgrades a lazy
// request for the idle task). A pending hard request absorbs it; a second
// lazy one changes nothing.
func (rq *CfsRq) reschedLazy() {
	if rq.preempt != PreemptLazy || rq.curr == nil {
		rq.resched()
		return
	}
	if !rq.needResched {
		rq.lazyResched = true
	}
}

// clearResched is clear_tsk_need_resched: __schedule clears both flags.
func (rq *CfsRq) clearResched() { rq.needResched, rq.lazyResched = false, false }
