package eevdf

import "github.com/schedmodel/fairclass/features"

// Slice protection: once picked, the running entity keeps the CPU until
// its vruntime reaches vprot, even if another entity's deadline is
// earlier (RUN_TO_PARITY); a shorter queued request cuts the protection.

// protectSlice is protect_slice: se is protected while vruntime < vprot.
func protectSlice(se *SchedEntity) bool { return vBefore(se.vruntime, se.vprot) }

// cancelProtectSlice is cancel_protect_slice: end the protection now.
func cancelProtectSlice(se *SchedEntity) {
	if protectSlice(se) {
		se.vprot = se.vruntime
		se.shareVprot()
	}
}

// setProtectSlice is set_protect_slice, armed when se becomes curr through
// a real switch: protected up to its deadline, unless a shorter request is
// queued (RUN_TO_PARITY), or, without RUN_TO_PARITY, its slice is longer
// than the normalized base slice. Then PREEMPT_SHORT ends the protection
// where se would turn ineligible; otherwise (and always in v7.1) it lasts
// the shorter slice.
func (rq *CfsRq) setProtectSlice(se *SchedEntity) {
	slice := rq.normBaseSlice
	vprot := se.deadline
	if rq.feat.Has(features.RunToParity) {
		// cfs_rq_min_slice, written here and in updateProtectSlice
		// rather than called (a call fewer a switch): the smallest
		// slice of an on_rq curr (se here) and the timeline.
		slice = se.slice
		a, ok := rq.tl.b.agg, rq.tl.b.count != 0 // timeline.root, inline for the B-tree
		if rq.tl.rb != nil {
			a, ok = rq.tl.rb.root()
		}
		if ok {
			slice = min(slice, a.minSlice)
		}
	}
	slice = min(slice, se.slice)
	if slice != se.slice {
		if rq.feat.Has(features.PreemptShort) && !rq.before71() {
			vprot = minVruntime(vprot, rq.ineligibleVruntime())
		} else {
			vprot = minVruntime(vprot, se.vruntime+rq.calcDeltaFair(slice, se))
		}
	}
	se.vprot = vprot
	se.shareVprot()
}

// updateProtectSlice is update_protect_slice, after a wakeup that did not
// preempt: the protection may only shrink, to the shortest queued slice
// from min(vruntime, V) (v7.1: from the vruntime).
func (rq *CfsRq) updateProtectSlice(se *SchedEntity) {
	// cfs_rq_min_slice, written out as in setProtectSlice: the smallest
	// slice of an on_rq curr and the timeline (U64_MAX if empty).
	slice := ^uint64(0)
	if c := rq.currOnRq(); c != nil {
		slice = c.slice
	}
	a, ok := rq.tl.b.agg, rq.tl.b.count != 0 // timeline.root, inline for the B-tree
	if rq.tl.rb != nil {
		a, ok = rq.tl.rb.root()
	}
	if ok {
		slice = min(slice, a.minSlice)
	}
	base := se.vruntime // v7.1
	if !rq.before71() {
		base = minVruntime(se.vruntime, rq.avgVruntime())
	}
	se.vprot = minVruntime(se.vprot, base+rq.calcDeltaFair(slice, se))
	se.shareVprot()
}
