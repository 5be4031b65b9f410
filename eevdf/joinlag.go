package eevdf

// The join-lag average of seed 003 ("make task join/leave scheduling more
// stable", v3, never merged), behind PLACE_JOIN_LAG.
//
// Lag inflation keeps each joiner's lag but lets joins with positive lag
// and leaves with negative lag move V, so the order in which tasks join
// changes the schedule. The patch keeps J = sum_jlag/W, where sum_jlag
// accumulates vlag·w at every join and gives back (vlag + J)·w at every
// leave, and places a joiner at V − (vlag − J). Then V + J is unchanged by
// joins and leaves and only moves while someone runs.
//
// Port choices (the patch predates the single-runqueue code):
//   - every weight is w(se), the full effective weight the weighted sums
//     use, in sum_jlag and in avg_vjlag's load alike; mixing units would
//     break V + J;
//   - a join is counted once per real enqueue, after placement, with the
//     vlag placement used (already rescaled by a weight change); never for
//     the requeue of a delayed entity, which never left;
//   - a leave is counted on the real-removal path of a dequeue (after the
//     delay decision) while the entity still counts in the load, i.e.
//     before on_rq is cleared — the patch's textual position would drop a
//     departing curr's weight from avg_vjlag;
//   - the requeue of a delayed entity uses the new placement formula and
//     leaves sum_jlag alone; so does an in-place reweight.

// avgVjlag is avg_vjlag: sum_jlag over the queued weight (timeline plus an
// on_rq curr), truncated toward zero; 0 on an empty queue.
func (rq *CfsRq) avgVjlag() int64 {
	load := int64(rq.sumWeight)
	if c := rq.currOnRq(); c != nil {
		load += rq.w(c)
	}
	if load == 0 {
		return 0
	}
	return rq.sumJlag / load
}

// sumJlagAdd is sum_jlag_add: a join.
func (rq *CfsRq) sumJlagAdd(se *SchedEntity) { rq.sumJlag += se.vlag * rq.w(se) }

// sumJlagSub is sum_jlag_sub: a leave gives back its lag plus its share of J.
func (rq *CfsRq) sumJlagSub(se *SchedEntity) {
	rq.sumJlag -= (se.vlag + rq.avgVjlag()) * rq.w(se)
}

// SumJlag returns sum_jlag (0 unless PLACE_JOIN_LAG is on).
func (rq *CfsRq) SumJlag() int64 {
	if rq == nil {
		return 0
	}
	return rq.sumJlag
}

// AvgVjlag returns J = sum_jlag / W (0 unless PLACE_JOIN_LAG is on).
func (rq *CfsRq) AvgVjlag() int64 {
	if rq == nil {
		return 0
	}
	return rq.avgVjlag()
}
