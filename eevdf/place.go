package eevdf

import "github.com/schedmodel/fairclass/features"

// placeEntity is place_entity: give an entity that is about to be counted
// in V (or re-counted) its vruntime and deadline.
//
// With PLACE_LAG the entity keeps its saved lag ℓ. Adding an entity of
// weight w at lag ℓ moves V: with W the weight already queued,
//
//	V' = (W·V + w·(V − ℓ')) / (W + w) = V − w·ℓ'/(W + w)
//
// so its lag after the insertion is V' − (V − ℓ') = ℓ'·W/(W + w). Placing
// it at ℓ' = ℓ·(W + w)/W (truncated toward zero) makes that ℓ again. The
// deadline is one request (vslice = slice in virtual time) past the
// vruntime; a new task's first request is half as long
// (PLACE_DEADLINE_INITIAL); a relative deadline saved by a non-sleep
// dequeue is restored instead (PLACE_REL_DEADLINE).
//
// With PLACE_JOIN_LAG (seed 003) the inflation is replaced by the join-lag
// average: ℓ' = ℓ − J with J = sum_jlag/W (see joinlag.go).
func (rq *CfsRq) placeEntity(se *SchedEntity, flags EnqueueFlags) {
	v, _ := rq.avgVruntimeTest() // avg_vruntime, without its wrapper (no inline mark)
	nr := rq.hNrQueued
	if !se.customSlice {
		se.slice = rq.baseSlice
	}
	vslice := rq.calcDeltaFair(se.slice, se)
	if flags&enqueueQueued != 0 {
		nr-- // the caller already counted se
	}

	var lag int64
	updateZero := false
	switch {
	case rq.feat.Has(features.PlaceJoinLag):
		if rq.feat.Has(features.PlaceLag) {
			lag = se.vlag - rq.avgVjlag()
		}
	case rq.feat.Has(features.PlaceLag) && nr != 0 && se.vlag != 0:
		load := int64(rq.sumWeight)
		if c := rq.currOnRq(); c != nil {
			load += rq.w(c)
		}
		weight := rq.w(se)
		lag = se.vlag * (load + weight) // wraps like the kernel's s64, no guard
		if load == 0 {
			load = 1 // the kernel WARNs here
		}
		lag /= load // truncates toward zero, not floor
		// A heavy newcomer on a light queue: recentre on it to keep the
		// products small (neutral).
		updateZero = weight > load && !rq.kernel.minVruntimeRef() // v6.18 and earlier: no such step
	}
	se.vruntime = v - uint64(lag)
	rq.vAtZero = false // se may be curr, which counts in V
	if updateZero {
		rq.updateZeroVruntime(-lag)
	}

	if rq.feat.Has(features.PlaceRelDeadline) && se.relDeadline {
		se.deadline += se.vruntime
		se.relDeadline = false
		return
	}
	// v6.6's half request applied only at fork, to a placement that the
	// wakeup of the new task then replaced.
	if rq.feat.Has(features.PlaceDeadlineInitial) && flags&EnqueueInitial != 0 && rq.kernel != KernelV66 {
		vslice /= 2
	}
	se.deadline = se.vruntime + vslice
}
