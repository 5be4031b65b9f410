package eevdf

import "github.com/schedmodel/fairclass/features"

// Lag.
//
// An entity's lag is the service it is owed, in virtual time: lag_i =
// V − v_i (positive: owed service; negative: received too much). When an
// entity leaves the queue its lag is saved in vlag; placement restores it
// when it comes back. The saved lag is clamped to what one request plus a
// tick can explain, so that a long sleep or a burst cannot bank service.

// lagLimit is the clamp of entity_lag: the queue's largest request plus a
// tick, converted to the entity's virtual time (6e3c0a4e1ad1). The largest
// request is cfs_rq_max_slice, computed here rather than in a function of
// its own (its only caller; a call less per lag update): the largest slice
// over the timeline and an on_rq curr, delayed entities included (0 on an
// empty queue).
func (rq *CfsRq) lagLimit(se *SchedEntity) int64 {
	if rq.kernel.minVruntimeRef() {
		return rq.lagLimit618(se)
	}
	var maxSlice uint64
	if c := rq.currOnRq(); c != nil {
		maxSlice = c.slice
	}
	a, ok := rq.tl.b.agg, rq.tl.b.count != 0 // timeline.root, inline for the B-tree
	if rq.tl.rb != nil {
		a, ok = rq.tl.rb.root()
	}
	if ok {
		maxSlice = max(maxSlice, a.maxSlice)
	}
	return int64(rq.calcDeltaFair(maxSlice+rq.tickNsec, se))
}

// LagLimit returns the bound entity_lag would clamp se's lag to if it were
// saved now: (the largest slice over the timeline and an on_rq curr,
// delayed entities included, + TICK_NSEC) converted to se's virtual time
// at its effective weight, calc_delta_fair(max_slice + TICK_NSEC, se). It is
// the computation the lag updates use (lagLimit), not a copy.
//
// What is bounded is the value saved in se's vlag at the moment of a lag
// update — a dequeue (before the delay decision when a lag-floor toggle is
// on, at the real removal otherwise), a delayed entity's requeue or
// completion, the save of a nice or slice change — and only with the
// queue as it is at that moment: its largest slice shrinks as entities
// leave and grows as they join. A weight change then rescales the saved
// lag with w·vlag kept (truncated), so that |vlag|·w stays within the old
// limit times the old weight. The live lag V − v of a queued entity (Lag)
// is not bounded: a running entity's falls without limit, a waiting
// entity's grows while others run.
//
// The seed-000 toggles qualify the bound for the updates of a delayed
// entity (its requeue, its completion, the save of a change):
//   - NO_DELAY_LAG_FLOOR (v7.0): −limit ≤ vlag ≤ limit after every update
//     (DELAY_ZERO then zeroes a positive lag as the delayed state ends); a
//     sleep that is delayed records nothing (vlag keeps its old value).
//   - DELAY_LAG_FLOOR (merged): vlag = max(clamped, vlag saved before),
//     then, under DELAY_ZERO, min(…, 0). So vlag ≥ −limit always, and
//     vlag ≤ limit under DELAY_ZERO; without DELAY_ZERO vlag ≤
//     max(limit, the saved value), which exceeds limit when a saved
//     positive lag (a nice or slice change of the delayed entity re-saves
//     it) outgrows a limit that shrank since.
//   - DELAY_LAG_FLOOR_POSTED: the saved lag is clamped to ±limit at every
//     dequeue; only the requeue of a delayed entity under DELAY_ZERO
//     applies the floor, kernel_clamp(lag, saved, 0), which can return a
//     saved positive lag above the current limit.
//
// The limit is a property of the queue and of se's weight only: se need
// not be queued. It is 0 for a nil se, a SchedEntity NewEntity did not
// make (no weight) and a nil runqueue.
func (rq *CfsRq) LagLimit(se *SchedEntity) int64 {
	if rq == nil || se == nil || se.hload == 0 {
		return 0
	}
	return rq.lagLimit(se)
}

// entityLag is entity_lag: clamp(V − v, −limit, +limit).
func (rq *CfsRq) entityLag(se *SchedEntity, v uint64) int64 {
	limit := rq.lagLimit(se)
	return min(max(int64(v-se.vruntime), -limit), limit)
}

// floorMode says how the delayed-dequeue lag floor (seed 000) is applied.
type floorMode uint8

const (
	floorOff    floorMode = iota // v7.0: nothing recorded at sleep; positive lag zeroed
	floorPosted                  // the posted v1: the floor in the DELAY_ZERO requeue only
	floorFinal                   // merged: the floor and zero cap at every exit
)

// floorMode is the lag-floor mode the feature set selects: readFloorMode
// of it, kept in a field by setFeat so that each dequeue reads one field
// rather than testing two features.
func (rq *CfsRq) floorMode() floorMode { return rq.floor }

// readFloorMode reads DELAY_LAG_FLOOR and DELAY_LAG_FLOOR_POSTED; the
// posted form, when selected, wins.
func readFloorMode(s features.Set) floorMode {
	switch {
	case s.Has(features.DelayLagFloorPosted):
		return floorPosted
	case s.Has(features.DelayLagFloor):
		return floorFinal
	}
	return floorOff
}

// updateEntityLag is update_entity_lag: save se's clamped lag in vlag.
//
// For a delayed entity (merged form of seed 000) the value saved when it
// went to sleep is a floor, so that others joining with positive lag
// (which moves V back) cannot deepen its debt, and DELAY_ZERO caps it at
// 0, so that no positive lag is earned while asleep. It reports whether a
// clamp changed the lag, i.e. whether V − vlag differs from the vruntime,
// and the eligibility test of the queue as avg_vruntime left it (which a
// dequeue asks next).
//
// avg_vruntime is avgVruntimeTest written out, statement for statement (a
// call fewer a lag update, of which a sleep and a delayed wakeup make one
// each), with its test of the kernel shared with the lag limit's and its
// on_rq curr read once for both.
func (rq *CfsRq) updateEntityLag(se *SchedEntity) (bool, keyBound) {
	c := rq.curr // currOnRq, written out (no inline mark)
	if c != nil && !c.onRq {
		c = nil
	}
	avg, load := rq.sumWVruntime, int64(rq.sumWeight)
	if c != nil {
		w := rq.w(c)
		avg += rq.entityKey(c) * w
		load += w
	}
	var delta, bound int64 // avgDelta, and the bound from the moved v0
	if rq.sumWeight != 0 {
		if load > 0 { // always, as there: the division's checks dropped
			delta = floorAvg(avg, load)
		}
	} else if c != nil {
		delta = rq.entityKey(c)
	} else {
		bound = eligibilityTest{avg: avg}.keyLimit() // no load
	}
	var v uint64
	var elig keyBound
	var limit int64
	if rq.kernel.minVruntimeRef() {
		v, elig = rq.zeroVruntime+uint64(delta), keyBound{zero: rq.zeroVruntime, limit: bound + delta}
		limit = rq.lagLimit618(se)
	} else {
		// updateZeroVruntime written out (no inline mark).
		rq.sumWVruntime -= int64(rq.sumWeight) * delta
		rq.zeroVruntime += uint64(delta)
		rq.vAtZero = load > 0
		v, elig = rq.zeroVruntime, keyBound{zero: rq.zeroVruntime, limit: bound}
		// lagLimit written out, a call fewer a lag update (the same
		// reads: curr's slice if on_rq, the timeline's max_slice).
		var maxSlice uint64
		if c != nil {
			maxSlice = c.slice
		}
		if t := rq.tl.rb; t == nil { // timeline.root, inline for the B-tree, as in setNextTaskFair
			if rq.tl.b.count != 0 {
				maxSlice = max(maxSlice, rq.tl.b.agg.maxSlice)
			}
		} else if a, ok := t.root(); ok {
			maxSlice = max(maxSlice, a.maxSlice)
		}
		limit = int64(rq.calcDeltaFair(maxSlice+rq.tickNsec, se))
	}
	vlag := min(max(int64(v-se.vruntime), -limit), limit) // entity_lag
	if se.delayed && rq.floorMode() == floorFinal {
		vlag = max(vlag, se.vlag)
		if rq.feat.Has(features.DelayZero) {
			vlag = min(vlag, 0)
		}
	}
	se.vlag = vlag
	return v-uint64(vlag) != se.vruntime, elig
}

// kernelClamp is the kernel's clamp(val, lo, hi) as its macro evaluates
// it: val ≥ hi gives hi, else val ≤ lo gives lo, else val. It equals
// min(max(val, lo), hi) only while lo ≤ hi; with lo > hi a val below hi
// yields lo. The posted floor of seed 000 reaches lo > hi when a nice or
// slice change of a delayed task re-saved a positive lag: a negative
// current lag then gives back the positive recorded one.
func kernelClamp(val, lo, hi int64) int64 {
	switch {
	case val >= hi:
		return hi
	case val <= lo:
		return lo
	}
	return val
}
