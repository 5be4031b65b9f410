package eevdf

import (
	"math"

	"github.com/schedmodel/fairclass/features"
)

// The weighted average of vruntime.
//
// EEVDF needs V = Σ w_i·v_i / Σ w_i over the queued entities. The kernel
// keeps it relative to a reference point v0 (zero_vruntime) so that the
// products stay small:
//
//	Σ w_i·v_i / Σ w_i = v0 + Σ w_i·(v_i − v0) / Σ w_i
//
// and maintains sum_w_vruntime = Σ w_i·(v_i − v0) and sum_weight = Σ w_i
// over the timeline at every insertion and removal. The running entity is
// not in the timeline; whoever needs it adds its term explicitly.

// avgWeight is avg_vruntime_weight: the weight an entity contributes to
// the sums, its full effective weight unless PARANOID_AVG raised sum_shift.
//
// v7.0 and v6.18 summed scale_load_down weights (nice 0 = 1024); task
// weights are multiples of 1024, so V and every test come out the same.
func (rq *CfsRq) avgWeight(w uint64) uint64 {
	if !rq.scaledW {
		return w
	}
	if rq.kernel.before70() {
		return scaleLoadDown(w)
	}
	return max(2, w>>rq.sumShift)
}

// w is the weight se contributes to the sums and eligibility.
func (rq *CfsRq) w(se *SchedEntity) int64 { return int64(rq.avgWeight(se.hload)) }

// entityKey is entity_key: the vruntime relative to zero_vruntime.
func (rq *CfsRq) entityKey(se *SchedEntity) int64 { return int64(se.vruntime - rq.zeroVruntime) }

// sumAdd is sum_w_vruntime_add (__sum_w_vruntime_add, or the paranoid
// variant under PARANOID_AVG).
func (rq *CfsRq) sumAdd(se *SchedEntity) {
	rq.vAtZero = false
	if !rq.feat.Has(features.ParanoidAvg) {
		w := rq.w(se)
		rq.sumWVruntime += rq.entityKey(se) * w
		rq.sumWeight += uint64(w)
		return
	}
	for {
		key, w := rq.entityKey(se), rq.w(se)
		prod, ovf := mulOverflow(key, w)
		sum, ovf2 := addOverflow(rq.sumWVruntime, prod)
		if !ovf && !ovf2 {
			rq.sumWVruntime = sum
			rq.sumWeight += uint64(w)
			return
		}
		if rq.sumShift >= 10 {
			// The kernel BUGs here; the model adds the wrapped product
			// so that the sums stay consistent with their definition.
			rq.sumWVruntime += key * w
			rq.sumWeight += uint64(w)
			return
		}
		// Halve every weight's contribution and rebuild the sums from the
		// timeline, leftmost to rightmost, then retry.
		rq.sumShift++
		rq.scaledW = true
		rq.sumWVruntime, rq.sumWeight = 0, 0
		rq.tl.ascend(func(e *SchedEntity) bool {
			rq.sumWVruntime += rq.entityKey(e) * rq.w(e)
			rq.sumWeight += uint64(rq.w(e))
			return true
		})
	}
}

// sumSub is sum_w_vruntime_sub: the same weight as at the add, because a
// timeline entity's h_load only changes while it is out of the timeline.
func (rq *CfsRq) sumSub(se *SchedEntity) {
	rq.vAtZero = false
	w := rq.w(se)
	rq.sumWVruntime -= rq.entityKey(se) * w
	rq.sumWeight -= uint64(w)
}

// updateZeroVruntime is update_zero_vruntime: move the reference point by
// delta keeping Σ w_i·(v_i − v0) true: it loses sum_weight·delta.
func (rq *CfsRq) updateZeroVruntime(delta int64) {
	rq.vAtZero = false
	rq.sumWVruntime -= int64(rq.sumWeight) * delta
	rq.zeroVruntime += uint64(delta)
}

// currOnRq returns curr if it is on_rq (and so counts in V), else nil.
func (rq *CfsRq) currOnRq() *SchedEntity {
	if c := rq.curr; c != nil && c.onRq {
		return c
	}
	return nil
}

// avgDelta is the offset of V from zero_vruntime: ⌊Σ key·w / Σ w⌋ over
// the timeline and an on_rq curr (floorAvg). A lone curr is its own
// average.
func (rq *CfsRq) avgDelta() int64 {
	c := rq.currOnRq()
	load := int64(rq.sumWeight)
	if load != 0 {
		runtime := rq.sumWVruntime
		if c != nil {
			w := rq.w(c)
			runtime += rq.entityKey(c) * w
			load += w
		}
		return floorAvg(runtime, load)
	}
	if c != nil {
		return rq.entityKey(c)
	}
	return 0
}

// floorAvg is avg_vruntime's division: the numerator is moved down by
// load−1 when negative so that the truncating division floors; an entity
// placed exactly at V is therefore eligible.
func floorAvg(runtime, load int64) int64 {
	if runtime < 0 {
		runtime -= load - 1
	}
	return runtime / load
}

// avgVruntime is avg_vruntime: V, moving zero_vruntime to it. The move is
// behaviour-neutral (V and every eligibility test are invariant under an
// integer shift of the reference point); it keeps the products small.
//
// It is avgVruntimeTest without the test, which costs two instructions
// there: one call, which inlines, instead of two.
func (rq *CfsRq) avgVruntime() uint64 {
	v, _ := rq.avgVruntimeTest()
	return v
}

// avgVruntimeTest is avgVruntime that also returns the eligibility test
// of the queue after the move, as a bound on the key (keyBound): what
// eligibility().bound() would compute then, without its division. The
// sums avgDelta divides are eligibility's; V = v0 + ⌊Σ key·w / W⌋, so a
// key is eligible iff it is at most that quotient, delta: the bound is
// delta from the old reference point, and 0 from the moved one (moving
// zero_vruntime by delta leaves Σ key·w in [0, W)). With no load (nothing
// queued, sums 0) every key is eligible (keyLimit). The quotient is
// floorAvg's, whose numerator stays clear of the int64 range's end for any
// sums the model reaches (Σ key·w above MinInt64 + W).
//
// It sums as eligibility and avgDelta do, written out rather than called:
// eligibility does not inline (the weight's cost), and calling it here
// cost 11 instructions a simulator step (sleepers). Returning the bound
// rather than the sums spares the sums' move (a product) and makes the
// dequeue's test a comparison instead of a 128-bit product.
//
// updateEntityLag holds a copy of it, written out.
//
// After the move over a positive load it holds V as zero_vruntime
// (vAtZero), for the pick and the wakeup check to read until something V
// is made of is written. It does not read that state itself: its callers
// follow such writes (a charge, a placement) nearly always, and the test
// cost more than the calls it spared.
func (rq *CfsRq) avgVruntimeTest() (uint64, keyBound) {
	c := rq.curr // currOnRq, written out (no inline mark: updateCurr's comment)
	if c != nil && !c.onRq {
		c = nil
	}
	avg, load := rq.sumWVruntime, int64(rq.sumWeight)
	if c != nil {
		w := rq.w(c)
		avg += rq.entityKey(c) * w
		load += w
	}
	var delta, limit int64 // avgDelta, and the bound from the moved v0
	if rq.sumWeight != 0 {
		// load > 0, always (a sum of weights, geMulLoad): the test
		// lets the compiler drop the division's checks, the zero one
		// with its call, and a function that calls nothing runs
		// without a frame.
		if load > 0 {
			delta = floorAvg(avg, load)
		}
	} else if c != nil {
		delta = rq.entityKey(c)
	} else {
		limit = eligibilityTest{avg: avg}.keyLimit() // no load
	}
	if rq.kernel.minVruntimeRef() {
		// min_vruntime stays: V and the bound are delta from it.
		return rq.zeroVruntime + uint64(delta), keyBound{zero: rq.zeroVruntime, limit: limit + delta}
	}
	// updateZeroVruntime, written out (no inline mark).
	rq.sumWVruntime -= int64(rq.sumWeight) * delta
	rq.zeroVruntime += uint64(delta)
	rq.vAtZero = load > 0
	return rq.zeroVruntime, keyBound{zero: rq.zeroVruntime, limit: limit}
}

// ineligibleVruntime is ineligible_vruntime: the smallest vruntime at
// which curr stops being eligible, given the timeline as it is. curr is
// eligible iff key_c·W ≤ Σ_tree key·w (its own term cancels out), i.e.
// iff key_c ≤ ⌊Σ_tree key·w / W_tree⌋; one more is the bound.
func (rq *CfsRq) ineligibleVruntime() uint64 {
	var delta int64
	if load := int64(rq.sumWeight); load != 0 {
		delta = floorAvg(rq.sumWVruntime, load)
	}
	return rq.zeroVruntime + uint64(delta) + 1
}

// vruntimeEligible is vruntime_eligible: is v at or before V? Instead of
// dividing, the kernel cross-multiplies, Σ key_i·w_i ≥ (v − v0)·Σ w_i,
// which with 128-bit products is exactly "v ≤ V" for V rounded toward −∞.
// An empty load makes everything eligible.
func (rq *CfsRq) vruntimeEligible(v uint64) bool {
	return rq.eligibility().eligible(v)
}

// eligibilityTest holds the two sides of vruntime_eligible that do not
// depend on the vruntime tested, so that a pick computes them once.
type eligibilityTest struct {
	avg, load int64  // Σ key·w and Σ w, curr included if on_rq
	zero      uint64 // zero_vruntime
}

// eligibility computes vruntime_eligible's sums for the queue as it is.
func (rq *CfsRq) eligibility() eligibilityTest {
	e := eligibilityTest{avg: rq.sumWVruntime, load: int64(rq.sumWeight), zero: rq.zeroVruntime}
	if c := rq.currOnRq(); c != nil {
		w := rq.w(c)
		e.avg += rq.entityKey(c) * w
		e.load += w
	}
	return e
}

// eligible is vruntime_eligible for v with the precomputed sums.
//
// e.load is a sum of weights, never negative: geMulLoad.
func (e eligibilityTest) eligible(v uint64) bool { return geMulLoad(e.avg, int64(v-e.zero), e.load) }

// keyLimit returns the largest key (v − zero_vruntime, as a signed
// difference) that e finds eligible, so that a caller making several tests
// against the same sums divides once instead of multiplying in 128 bits a
// test: for load > 0, avg ≥ key·load holds exactly iff key ≤ ⌊avg/load⌋,
// key being an integer. The quotient is floored as (avg+1)/load − 1 for a
// negative avg, which cannot overflow. With no load, e.eligible is avg ≥ 0
// for every key; the sums of an empty queue are 0 (Check), so every key
// is eligible, and the limit is then the largest key (a negative avg,
// which intact sums never hold, would leave only math.MinInt64 eligible,
// where eligible finds none).
func (e eligibilityTest) keyLimit() int64 {
	if e.load <= 0 {
		if e.avg < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	if e.avg < 0 {
		return (e.avg+1)/e.load - 1
	}
	return e.avg / e.load
}

// keyBound is an eligibility test as a bound on the key: v is eligible
// iff its key, int64(v − zero), is at most limit (eligibilityTest.keyLimit).
type keyBound struct {
	zero  uint64
	limit int64
}

// bound is e as a bound on the key: one division.
func (e eligibilityTest) bound() keyBound { return keyBound{zero: e.zero, limit: e.keyLimit()} }

// eligible is vruntime_eligible for v against the bound.
func (b keyBound) eligible(v uint64) bool { return int64(v-b.zero) <= b.limit }

// entityEligible is entity_eligible.
func (rq *CfsRq) entityEligible(se *SchedEntity) bool { return rq.vruntimeEligible(se.vruntime) }

// mulOverflow returns a·b and whether it overflowed int64.
func mulOverflow(a, b int64) (int64, bool) {
	hi, lo := mul128(a, b)
	p := int64(lo)
	return p, int64(hi) != p>>63
}

// addOverflow returns a+b and whether it overflowed int64.
func addOverflow(a, b int64) (int64, bool) {
	s := a + b
	return s, (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0)
}
