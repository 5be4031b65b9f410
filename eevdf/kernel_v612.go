package eevdf

import "github.com/schedmodel/fairclass/features"

// v6.12's own mechanisms (KERNEL-SPEC-LTS Part I: D12, D20, D23, D32–D38).
// v6.12 had no slice protection: RUN_TO_PARITY kept a mark in vlag, the
// deadline the entity had when set_next_entity installed it. While the
// mark holds (the deadline has not moved and no shorter wakee cancelled
// it) and curr is eligible, every pick returns curr.

// parityMark reports whether curr's RUN_TO_PARITY mark protects it in a
// pick: the feature is on and vlag still equals the deadline. (The pick
// has already dropped an ineligible curr.)
func (rq *CfsRq) parityMark(c *SchedEntity) bool {
	return rq.feat.Has(features.RunToParity) && c.vlag == int64(c.deadline)
}

// didPreemptShort is v6.12's did_preempt_short, the tick's second rule:
// under PREEMPT_SHORT, a curr whose mark is gone and which is no longer
// eligible is rescheduled.
func (rq *CfsRq) didPreemptShort(c *SchedEntity) bool {
	return rq.feat.Has(features.PreemptShort) && c.vlag != int64(c.deadline) && !rq.entityEligible(c)
}

// buddyFeature is the feature that lets the next buddy win a real pick:
// PICK_BUDDY, which v6.12 did not have; there NEXT_BUDDY alone did.
func (k Kernel) buddyFeature() features.Feature {
	if k >= KernelV612 {
		return features.NextBuddy
	}
	return features.PickBuddy
}

// wakeupPreempt612 is v6.12's check_preempt_wakeup_fair: with NEXT_BUDDY
// any non-fork wakee becomes the buddy first; a pending resched, no
// WAKEUP_PREEMPTION, a wakee of another idle-ness or a BATCH wakee end
// the check without a charge (an idle-policy curr is preempted by any
// other wakee); then curr is charged, a shorter-slice wakee that is
// eligible and ahead of curr (earlier deadline, or curr ineligible)
// cancels curr's mark, and the wakee preempts iff the pick returns it.
// There is no fork or delayed exit and no protection update.
func (rq *CfsRq) wakeupPreempt612(pse *SchedEntity, wf WakeFlags) {
	se := rq.curr
	if se == pse {
		return
	}
	if rq.feat.Has(features.NextBuddy) && wf&WFFork == 0 {
		rq.setNextBuddy(pse)
	}
	v66 := rq.kernel == KernelV66
	if rq.needResched || !v66 && !rq.feat.Has(features.WakeupPreemption) {
		return
	}
	cseIdle, pseIdle := se.policy == PolicyIdle, pse.policy == PolicyIdle
	if cseIdle && !pseIdle {
		rq.resched()
		return
	}
	if v66 && !rq.feat.Has(features.WakeupPreemption) {
		return // v6.6 tested it after the idle-curr preemption
	}
	if cseIdle != pseIdle || pse.policy != PolicyNormal {
		return
	}
	rq.updateCurr()
	if rq.feat.Has(features.PreemptShort) && pse.slice < se.slice && rq.entityEligible(pse) &&
		(entityBefore(pse, se) || !rq.entityEligible(se)) && se.vlag == int64(se.deadline) {
		se.vlag = int64(se.deadline) + 1
	}
	if rq.hNrQueued != 0 && rq.pickEevdf(true) == pse {
		rq.resched()
	}
}
