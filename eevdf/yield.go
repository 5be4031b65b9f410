package eevdf

import "github.com/schedmodel/fairclass/features"

// Yield is yield_task_fair, called by sched_yield before the core
// schedules (the caller then calls PickNext). Alone on the CPU (a delayed
// entity counts) nothing happens at all. Otherwise the yielder drops its
// buddy status and is charged; then, in the merged form, an eligible
// yielder forfeits the rest of its request (vruntime jumps to its deadline,
// without runtime being charged) and gets a new one. The seed 004 toggles
// select the earlier variants.
func (rq *CfsRq) Yield() {
	if rq == nil {
		return
	}
	se := rq.curr
	if se == nil || rq.nrRunning == 1 {
		return
	}
	rq.clearBuddies(se)
	rq.updateCurr()
	switch {
	case rq.feat.Has(features.YieldBumpDeadline) || rq.kernel.minVruntimeRef():
		// v6.6–v6.18: push the deadline one request further.
		se.deadline += rq.calcDeltaFair(se.slice, se)
	case rq.feat.Has(features.YieldClampDeadline):
		// Posted v1: one request past the current vruntime.
		se.deadline = se.vruntime + rq.calcDeltaFair(se.slice, se)
	case rq.feat.Has(features.YieldForfeitAlways):
		// Posted v2: forfeit even when not eligible.
		se.vruntime = se.deadline
		rq.vAtZero = false
		se.deadline += rq.calcDeltaFair(se.slice, se)
	default:
		if rq.entityEligible(se) {
			se.vruntime = se.deadline
			rq.vAtZero = false
			rq.updateDeadline(se) // vruntime − deadline = 0: always renews
		}
	}
}

// YieldTo is yield_to_task_fair: make p the next buddy and yield. It
// returns false, doing nothing, if p is nil, not queued here or delayed
// (v7.1 accepted a delayed p).
func (rq *CfsRq) YieldTo(p *SchedEntity) bool {
	if p == nil || !p.onRq || p.rq != rq || p.delayed && !rq.before71() {
		return false
	}
	rq.setNextBuddy(p)
	rq.Yield()
	return true
}

// Tick is task_tick_fair on the running entity (queued = 0): charge it,
// which renews a reached deadline and requests a reschedule when it has a
// competitor and its deadline was renewed or its protection is over. With
// groups, every level of its path then updates its PELT signals and group
// weight, and the task takes its refreshed effective weight (it was
// charged at the old one). While idle runs it does nothing.
//
// Under PreemptLazy it first makes a pending lazy request hard, as
// sched_tick does before task_tick; a lazy request raised by this tick's
// charge stays lazy until the next tick.
func (rq *CfsRq) Tick() {
	if rq == nil {
		return
	}
	// sched_tick's step before task_tick: a pending lazy request becomes
	// hard (one raised by the charge below waits for the next tick).
	// It, update_curr's test on c (curr) and before71 are written out
	// here (no inline marks: updateCurr's comment).
	if rq.lazyResched {
		rq.needResched = true
	}
	c := rq.curr
	v71 := rq.kernel >= KernelV71
	if c == nil || !c.onRq && !v71 { // v7.1 charged a curr that was no longer queued
		return
	}
	if int64(rq.clock-c.execStart) > 0 {
		rq.chargeCurr(c)
	}
	if c.onRq && !v71 {
		if rq.pelt {
			rq.tickLevels(c)
		}
		w := calcPropWeight(c) // a no-op reweight on a flat queue
		if rq.h != nil {
			w = rq.propWeight(c)
		}
		if c.hload != w { // reweightEevdf's own test, without the call
			rq.reweightEevdf(c, w, true)
		}
	}
}
