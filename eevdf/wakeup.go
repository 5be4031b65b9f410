package eevdf

import "github.com/schedmodel/fairclass/features"

// preemptAction is the wakeup check's verdict in progress.
type preemptAction uint8

const (
	actNone    preemptAction = iota // no preemption, no protection update
	actShort                        // a shorter-slice wakee: preempt iff eligible
	actPick                         // preempt iff the pick returns the wakee
	actResched                      // preempt outright
)

// WakeupPreempt is the core's wakeup_preempt with the fair hook,
// wakeup_preempt_fair: after p became runnable, should it preempt the
// running entity? It may request a reschedule; it never switches by
// itself (the caller's next PickNext does). While the idle task runs any
// wakeup requests a reschedule. A p that is not queued on this runqueue is
// ignored, and so is a nil p.
func (rq *CfsRq) WakeupPreempt(p *SchedEntity, wf WakeFlags) {
	if p == nil || !p.onRq || p.rq != rq { // (a nil rq has no on_rq entity)
		return
	}
	rq.wakeupPreempt(p, wf)
}

// wakeupPreempt is wakeup_preempt: the idle class reschedules for any
// fair wakee; a fair current entity goes through wakeup_preempt_fair,
// written in the same function below that test (a call fewer a wakeup,
// and WakeupPreempt then inlines into its callers). wakeup_preempt_fair's
// exits, in the kernel's order:
//
//   - an idle-policy curr is preempted by any non-idle wakee (no charge);
//   - curr is charged; a wakee of another idle-ness, a non-normal policy or
//     a delayed wakee never preempts (the "update" exit shortens curr's
//     protection);
//   - PREEMPT_SHORT: a wakee with a strictly shorter slice preempts iff it
//     is eligible once the pick has flushed the delayed entities it met;
//   - a forked wakee never preempts (update exit);
//   - NEXT_BUDDY's buddy and sync rules;
//   - otherwise the wakee preempts iff the pick (with protection) returns it.
//
// A preemption always cancels curr's protection; a SHORT one makes the
// wakee the buddy.
//
// KernelV71 branches where v7.1 differed (KERNEL-SPEC §5.2): a pending
// resched always stopped the check; an idle curr's preemption counted as
// SHORT; the idle and policy exits came before the charge and, like the
// delayed and fork exits (after the SHORT test), left protection alone; a
// SHORT wakee preempted only if it was the pick; and only a SHORT
// preemption cancelled protection, clearing the buddy rather than setting
// one.
func (rq *CfsRq) wakeupPreempt(pse *SchedEntity, wf WakeFlags) {
	if rq.curr == nil {
		rq.resched()
		return
	}
	// wakeup_preempt_fair.
	if rq.kernel >= KernelV612 {
		rq.wakeupPreempt612(pse, wf)
		return
	}
	se := rq.curr
	v71 := rq.kernel >= KernelV71 // before71 (no inline mark)
	if se == pse {
		return
	}
	v618 := rq.kernel == KernelV618
	if v618 && wf&WFFork == 0 && !pse.delayed && rq.feat.Has(features.NextBuddy) {
		rq.setNextBuddy(pse) // v6.18: every such wakee, before any test
	}
	if rq.needResched && (v71 || !rq.feat.Has(features.PreemptShort)) { // the hard request only
		return
	}
	if !rq.feat.Has(features.WakeupPreemption) {
		return
	}
	// The idle and policy exits concern only a curr or a wakee whose
	// policy is not normal: one test of the two (PolicyNormal is 0) lets
	// the common wakeup skip them, and their third form below, a test
	// fewer than cseIdle != pseIdle || pse.policy != PolicyNormal: past
	// the first exit, a normal wakee differs in idle-ness only from an
	// idle curr.
	action := actPick
	var vDelta int64 // V's offset from zero_vruntime as the pick found it, if vOK
	vOK := false
	odd := se.policy|pse.policy != PolicyNormal
	if odd {
		cseIdle, pseIdle := se.policy == PolicyIdle, pse.policy == PolicyIdle
		if cseIdle && !pseIdle {
			if v71 {
				action = actShort
			}
			goto preempt
		}
		if v71 && (cseIdle != pseIdle || pse.policy != PolicyNormal) {
			return // before the charge, protection untouched
		}
	}
	if int64(rq.clock-se.execStart) > 0 { // updateCurr's test on se, curr (no inline mark)
		rq.chargeCurr(se)
	}
	if odd && (pse.policy != PolicyNormal || se.policy == PolicyIdle) || pse.delayed && !v71 {
		goto update
	}
	if rq.feat.Has(features.PreemptShort) && pse.slice < se.slice {
		action = actShort
		goto pick
	}
	if (wf&WFFork != 0 || pse.delayed) && !v618 { // v6.18 had neither exit
		if v71 {
			return
		}
		goto update
	}
	if !v618 && rq.feat.Has(features.NextBuddy) && rq.setPreemptBuddy(pse) && wf&WFSync != 0 {
		action = rq.preemptSync(wf, pse, se)
	}
	switch action {
	case actNone:
		return
	case actResched:
		goto preempt
	}

pick:
	// The pick of the wakeup check, written here rather than called (a
	// call fewer a wakeup). With PREEMPT_FLUSH_DELAYED (seed 002, merged)
	// it picks through pick_next_entity, completing the dequeue of every
	// delayed entity it meets and picking again while the queue is not
	// empty; without, it compares with the raw pick_eevdf, so a delayed
	// entity counts as "someone else". The pick's V (vDelta, with vOK)
	// is kept for the protection update below, unless a flush changed
	// the queue after it.
	if rq.feat.Has(features.PreemptFlushDelayed) {
		// pickNextEntity's first round written here, as in PickNext
		// (one call less deep): the loop goes on there after a flush.
		var se *SchedEntity
		if rq.hNrQueued != 0 && !rq.kernel.minVruntimeRef() {
			// The pick computes its bound unless it finds one
			// entity queued, and the load is positive: pse is
			// queued, not curr, so its level is in the timeline.
			vOK = rq.hNrQueued > 1
			se, vDelta = rq.pickDeadline(action != actShort) // pickEevdf, not v6.6
			if se != nil && se.delayed {
				rq.stats.Flushed++
				rq.dequeueTask(se, DequeueSleep|DequeueDelayed)
				se, vOK = rq.pickNextEntity(action != actShort, false), false
			}
		} else {
			se = rq.pickNextEntity(action != actShort, false)
		}
		if se == pse {
			goto preempt
		}
	} else if rq.hNrQueued != 0 && rq.pickEevdf(action != actShort) == pse {
		goto preempt
	}
	if action == actShort && !v71 && rq.entityEligible(pse) {
		goto preempt
	}

update:
	if v618 && action != actShort {
		return // v6.18 updated the protection after a failed SHORT pick only
	}
	if rq.feat.Has(features.RunToParity) {
		// update_protect_slice, written here (its only caller; a call
		// fewer a wakeup): the protection may only shrink, to the
		// shortest queued slice from min(vruntime, V) (v7.1: from the
		// vruntime). The shortest slice is cfs_rq_min_slice, written out
		// as in setNextTaskFair: an on_rq curr's and the timeline's
		// (U64_MAX if empty).
		slice := ^uint64(0)
		if se.onRq { // currOnRq on se, curr (no inline mark)
			slice = se.slice
		}
		if t := rq.tl.rb; t == nil { // timeline.root, inline for the B-tree, as in setNextTaskFair
			if rq.tl.b.count != 0 {
				slice = min(slice, rq.tl.b.agg.minSlice)
			}
		} else if a, ok := t.root(); ok {
			slice = min(slice, a.minSlice)
		}
		base := se.vruntime // v7.1
		if !v71 {
			// V, read without a call when the lag update of this
			// wakeup (or the pick) left it at zero_vruntime; else
			// avg_vruntime's move, by the pick's V when it has one
			// (the same quotient of the same sums: zero_vruntime, the
			// sums and the held V end as avg_vruntime leaves them).
			v := rq.zeroVruntime
			if !rq.vAtZero {
				if vOK {
					// updateZeroVruntime written out (no
					// inline mark); V is then held.
					rq.sumWVruntime -= int64(rq.sumWeight) * vDelta
					rq.zeroVruntime += uint64(vDelta)
					rq.vAtZero = true
					v = rq.zeroVruntime
				} else {
					v = rq.avgVruntime()
				}
			}
			base = minVruntime(se.vruntime, v)
		}
		se.vprot = minVruntime(se.vprot, base+rq.calcDeltaFair(slice, se))
		if rq.kernel == KernelV618 { // shareVprot (no inline mark)
			se.vlag = int64(se.vprot)
		}
	}
	return

preempt:
	if !v71 || action == actShort {
		cancelProtectSlice(se)
	}
	if action == actShort {
		if v71 {
			if rq.kernel == KernelV71 { // v7.0 left the buddies alone
				rq.clearBuddies(se)
			}
		} else {
			rq.setShortBuddy(pse)
		}
	}
	rq.reschedLazy()
}

// preemptSync is preempt_sync (NEXT_BUDDY with WF_SYNC): preempt a waker
// that has run for at least the migration cost (a quarter of it when the
// runqueue was selected for the wakee) if the wakee's deadline is earlier.
func (rq *CfsRq) preemptSync(wf WakeFlags, pse, se *SchedEntity) preemptAction {
	threshold := migrationCost
	delta := int64(rq.clock - se.execStart)
	if delta < 0 {
		delta = 0
	}
	if wf&WFRqSelected != 0 {
		threshold >>= 2
	}
	if entityBefore(pse, se) && uint64(delta) >= threshold {
		return actResched
	}
	return actNone
}
