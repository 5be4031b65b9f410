package eevdf

// v6.18's own mechanisms (KERNEL-SPEC-LTS Part II: A4, L1, the vlag/vprot
// union). The branches of the other functions sit where v6.18 differs.

// updateMinVruntime is v6.18's update_min_vruntime: the reference of the
// sums (rq.zeroVruntime, which v6.18 called min_vruntime) moves forward
// only, to the smaller of an on_rq curr's vruntime and the timeline's
// minimum (either alone if the other is missing), keeping Σ key·w true as
// update_zero_vruntime does. avg_vruntime never moves it in v6.18, so V is
// min_vruntime + ⌊Σ key·w / Σ w⌋, and min_vruntime itself on an empty
// queue.
func (rq *CfsRq) updateMinVruntime() {
	v := rq.zeroVruntime
	c := rq.currOnRq()
	if c != nil {
		v = c.vruntime
	}
	if a, ok := rq.tl.root(); ok {
		if c == nil {
			v = a.minV
		} else {
			v = minVruntime(v, a.minV)
		}
	}
	if d := int64(v - rq.zeroVruntime); d > 0 {
		rq.updateZeroVruntime(d)
	}
}

// lagLimit618 is v6.18's lag clamp: the entity's own two requests, at
// least a tick, in its virtual time (there was no max_slice).
func (rq *CfsRq) lagLimit618(se *SchedEntity) int64 {
	return int64(rq.calcDeltaFair(max(2*se.slice, rq.tickNsec), se))
}

// shareVprot mirrors a new protection end into vlag: in v6.18 the two
// were one field (vprot while the entity runs, vlag otherwise), so the
// saved lag a running entity shows, and keeps until its next lag update,
// is its protection end.
func (se *SchedEntity) shareVprot() {
	if se.rq != nil {
		se.rq.shareVprot(se)
	}
}

// shareVprot is se.shareVprot for an entity of rq, read from rq rather
// than through se.rq (a load and a test fewer where the caller has it).
func (rq *CfsRq) shareVprot(se *SchedEntity) {
	if rq.kernel == KernelV618 {
		se.vlag = int64(se.vprot)
	}
}
