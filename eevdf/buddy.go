package eevdf

// The next buddy: an entity the pick prefers while it is eligible.

// setNextBuddy is set_next_buddy: refused for an entity that is not
// runnable on the queue (not on_rq, or delayed — v7.1 took a delayed one)
// and for SCHED_IDLE.
func (rq *CfsRq) setNextBuddy(se *SchedEntity) {
	if !se.onRq || se.delayed && !rq.before71() || se.policy == PolicyIdle {
		return
	}
	rq.next = se
}

// clearBuddies is clear_buddies.
func (rq *CfsRq) clearBuddies(se *SchedEntity) {
	if rq.next == se {
		rq.next = nil
	}
}

// setShortBuddy is set_short_buddy: a short-slice wakee that preempted
// becomes the buddy, unless the buddy has a strictly shorter slice.
func (rq *CfsRq) setShortBuddy(pse *SchedEntity) {
	if rq.next != nil && rq.next.slice < pse.slice {
		return
	}
	rq.setNextBuddy(pse)
}

// setPreemptBuddy is set_preempt_buddy (NEXT_BUDDY): keep a buddy with an
// earlier deadline, else make the wakee the buddy.
func (rq *CfsRq) setPreemptBuddy(pse *SchedEntity) bool {
	if rq.next != nil && entityBefore(rq.next, pse) {
		return false
	}
	rq.setNextBuddy(pse)
	return true
}
