package eevdf

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
