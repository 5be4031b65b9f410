package eevdf

// Runtime accounting of the running entity.

// updateCurr is update_curr: charge the running entity for the task-clock
// time since its exec_start. Its vruntime advances by the time scaled by
// NICE_0_LOAD/w; a reached deadline is renewed; and, when it has a
// competitor, a reschedule is requested if the deadline was renewed or its
// slice protection is over — the only "tick preemption" rule of EEVDF.
// A non-positive delta charges nothing and requests nothing.
//
// Most calls find nothing to charge (the clock has not moved since the
// last charge at this scheduler entry), so this test is kept small enough
// to inline and the charge itself is chargeCurr.
//
// The hottest callers write this test out, as they write out a few other
// one-line helpers (clear_buddies, the v6.18 vprot mirror, the move of
// zero_vruntime): where the compiler finds no instruction of an inlined
// body to carry its inline mark (kept for tracebacks), it emits a NOP
// there, one more instruction at every execution. "No inline mark" at a
// call site refers to this.
func (rq *CfsRq) updateCurr() {
	if c := rq.curr; c != nil && int64(rq.clock-c.execStart) > 0 {
		rq.chargeCurr(c)
	}
}

// chargeCurr is update_curr's work once the delta is known to be positive.
// c is curr, as its callers have read it (never nil).
func (rq *CfsRq) chargeCurr(c *SchedEntity) {
	delta := int64(rq.clock - c.execStart)
	c.execStart = rq.clock
	c.sumExec += uint64(delta)
	c.vruntime += rq.calcDeltaFair(uint64(delta), c)
	rq.vAtZero = false
	// update_deadline (updateDeadline) written out: its renewal was a
	// call of its own, one call fewer at every renewal.
	resched := !vBefore(c.vruntime, c.deadline)
	if resched {
		if !c.customSlice {
			c.slice = rq.baseSlice
		}
		c.deadline = c.vruntime + rq.calcDeltaFair(c.slice, c)
		rq.avgVruntimeTest() // avg_vruntime, called without its wrapper (no inline mark)
	}
	// The kernel's test once: protection over (v6.12: the mark gone and
	// curr ineligible, under PREEMPT_SHORT). The kernels after v6.18
	// keep no min_vruntime: one test of the kernel selects their path.
	if !rq.kernel.minVruntimeRef() {
		if rq.hNrQueued == 1 {
			return
		}
		resched = resched || !protectSlice(c)
	} else {
		rq.updateMinVruntime()
		if rq.hNrQueued == 1 {
			return
		}
		if rq.kernel < KernelV612 {
			resched = resched || !protectSlice(c)
		} else {
			resched = resched || rq.didPreemptShort(c)
		}
	}
	if resched {
		// resched_curr_lazy (reschedLazy, for a curr that runs) and
		// clear_buddies, written out (no inline mark).
		if rq.preempt != PreemptLazy {
			rq.needResched = true
		} else if !rq.needResched {
			rq.lazyResched = true
		}
		if rq.next == c {
			rq.next = nil
		}
	}
}

// UpdateCurr charges the running entity up to the current clock
// (update_curr_fair).
func (rq *CfsRq) UpdateCurr() {
	if rq != nil {
		rq.updateCurr()
	}
}

// updateDeadline is update_deadline: once the vruntime reached the
// deadline, a new request starts from the current vruntime (the overshoot
// is not carried over) with the slice refreshed from the base slice unless
// it is custom. It reports whether the deadline was renewed.
//
// update_curr's call of it is written out in chargeCurr (the renewal was a
// call of its own there, and the test inlined: one call fewer at each
// renewal); the yield calls it.
func (rq *CfsRq) updateDeadline(se *SchedEntity) bool {
	if vBefore(se.vruntime, se.deadline) {
		return false
	}
	if !se.customSlice {
		se.slice = rq.baseSlice
	}
	se.deadline = se.vruntime + rq.calcDeltaFair(se.slice, se)
	rq.avgVruntime()
	return true
}
