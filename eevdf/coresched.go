package eevdf

// What core scheduling (KERNEL-SPEC-CORESCHED) needs of one runqueue: a
// way for another CPU's core-wide pick to reschedule it, and the
// comparison of two fair tasks of different CPUs of a core.
//
// The comparison reads zero_vruntime, the reference point of the weighted
// sums (ZeroVruntime). Without core scheduling, moving that point changes
// no decision; with it, a snapshot of the root queue's zero_vruntime taken
// at a core-wide pick (zero_vruntime_fi) normalises the vruntimes of the
// runqueue's tasks, so the moment of each move becomes observable. This
// package therefore moves zero_vruntime (calls avg_vruntime) at exactly the
// kernel's call sites and nowhere else: placement (place_entity), the lag
// update of a dequeue (update_entity_lag), a deadline renewal
// (update_deadline), the on_rq reweight (reweight_eevdf), the protection
// update (update_protect_slice) and AvgVruntime. zero_vruntime is V as of
// the last of those calls, not V now.

// ReschedCurr is resched_curr: a hard request from outside the fair class,
// as a core-wide pick makes to a sibling whose next task it chose, a steal
// to the CPU it fed, a wakeup of a higher class or another CPU's scheduler
// IPI. PickNext, SetNext and PutPrev clear it.
func (rq *CfsRq) ReschedCurr() {
	if rq != nil {
		rq.resched()
	}
}

// CfsPrioLess is cfs_prio_less at the modelled commit: whether fair task a,
// whose root queue's snapshot of zero_vruntime is zfiA, has lower priority
// than fair task b, whose root queue's snapshot is zfiB. Each vruntime is
// normalised by its own queue's snapshot, n(t) = vruntime − zfi, and a
// loses iff n(a) > n(b), computed as two wrapping differences added in
// signed 64-bit arithmetic:
//
//	delta = s64(a.vruntime − b.vruntime) + s64(zfiB − zfiA)
//	a has lower priority  ⇔  delta > 0
//
// A tie is not "lower". Only the task entities are compared, whatever
// groups they are in; for two tasks of one queue (equal snapshots) it is
// the plain vruntime order. It changes nothing. A nil entity is never
// lower, and never beaten.
func CfsPrioLess(a *SchedEntity, zfiA uint64, b *SchedEntity, zfiB uint64) bool {
	if a == nil || b == nil {
		return false
	}
	delta := int64(a.vruntime-b.vruntime) + int64(zfiB-zfiA)
	return delta > 0
}
