package eevdf

import "math/bits"

// Arithmetic selects how __calc_delta divides.
type Arithmetic uint8

const (
	// Division is the modelled kernel's 64-bit path: delta·weight/lw.weight
	// in u64 integer arithmetic (db4551e2ba34).
	Division Arithmetic = iota
	// FixedPoint is the 2^32/weight multiply-and-shift of v7.0 and of 32-bit
	// kernels; it can differ from Division by ±1 ns.
	FixedPoint
)

// calcDelta is __calc_delta(delta, weight, lw): delta·weight/lw.weight.
//
// Division: the u64 product wraps for delta·weight ≥ 2^64 (deltas above
// about 4.9 h at NICE_0_LOAD), exactly as the kernel's does.
//
// FixedPoint: delta·weight·inv/2^32, where inv ≈ 2^32/lw.weight comes from the
// nice table (lw.inv) or is computed as __update_inv_weight does; the factor
// weight·inv is shifted right until it fits in 32 bits, and the final product
// is taken 128 bits wide so that it never overflows (mul_u64_u32_shr).
func calcDelta(mode Arithmetic, delta, weight uint64, lw loadWeight) uint64 {
	if mode == Division {
		if lw.weight == 0 {
			return delta // unreachable for tasks; never divide by zero
		}
		return delta * weight / lw.weight
	}
	fact, shift := fitFactor(scaleLoadDown(weight), 32)
	fact, shift = fitFactor(uint64(uint32(fact))*fixedInv(lw), shift)
	return mulShr(delta, fact, shift)
}

// fixedInv is __calc_delta's inverse weight: lw.inv, or ≈ 2^32/lw.weight
// as __update_inv_weight computes it.
func fixedInv(lw loadWeight) uint64 {
	inv := uint64(lw.inv)
	if inv == 0 {
		w := scaleLoadDown(lw.weight)
		switch {
		case w >= 0xFFFFFFFF:
			inv = 1
		case w == 0:
			inv = 0xFFFFFFFF
		default:
			inv = 0xFFFFFFFF / w
		}
	}
	return inv
}

// fitFactor shifts fact right until it fits in 32 bits, taking the shift
// off shift.
func fitFactor(fact uint64, shift uint) (uint64, uint) {
	if hi := fact >> 32; hi != 0 {
		fs := uint(bits.Len64(hi))
		shift -= fs
		fact >>= fs
	}
	return fact, shift
}

// mulShr is mul_u64_u32_shr: (delta·fact) >> shift, the product 128 bits
// wide.
func mulShr(delta, fact uint64, shift uint) uint64 {
	h, l := bits.Mul64(delta, fact)
	// (h:l) >> shift, shift in 0..32.
	if shift == 0 {
		return l
	}
	return l>>shift | h<<(64-shift)
}

// calcDeltaFair is calc_delta_fair: real nanoseconds to virtual nanoseconds
// at the entity's effective weight, delta·NICE_0_LOAD/w. A nice-0 entity's
// virtual time runs at wall-clock speed.
//
// The nice-0 identity is tested here, small enough to inline into the
// callers; other weights go through calcDeltaWeighted.
func (rq *CfsRq) calcDeltaFair(delta uint64, se *SchedEntity) uint64 {
	if se.hload == Nice0Load {
		return delta
	}
	return rq.calcDeltaWeighted(delta, se)
}

// calcDeltaWeighted is calcDeltaFair for a weight other than NICE_0_LOAD:
// calcDelta(rq.arith, delta, NICE_0_LOAD, se's weight), written with the
// same inlined parts (fixedInv, fitFactor, mulShr) so that it calls
// nothing: a function without calls runs without a stack frame or a
// stack check, seven instructions fewer on the modelled kernel's
// division, its common path.
func (rq *CfsRq) calcDeltaWeighted(delta uint64, se *SchedEntity) uint64 {
	w := se.hload
	if rq.arith == Division {
		if w == 0 {
			return delta // calcDelta leaves a zero weight undivided
		}
		return delta * Nice0Load / w // __calc_delta's 64-bit path
	}
	lw := loadWeight{weight: w}
	if w == se.load.weight {
		lw.inv = se.load.inv // the table's wmult, as v7.0 read it from se->load
	}
	fact, shift := fitFactor(scaleLoadDown(Nice0Load), 32)
	fact, shift = fitFactor(uint64(uint32(fact))*fixedInv(lw), shift)
	return mulShr(delta, fact, shift)
}

// Vruntime-like quantities are u64 that wrap; they are compared through the
// signed difference (vruntime_cmp / vruntime_op). The kernel starts its
// zero point at 2^64 − 2^20 so that the wrap happens within the first
// millisecond of virtual time.

// vBefore reports a < b in the modular order.
func vBefore(a, b uint64) bool { return int64(a-b) < 0 }

// minVruntime is min_vruntime: b iff b is before a.
func minVruntime(a, b uint64) uint64 {
	if int64(b-a) < 0 {
		return b
	}
	return a
}

// maxVruntime is max_vruntime: b iff b is after a.
func maxVruntime(a, b uint64) uint64 {
	if int64(b-a) > 0 {
		return b
	}
	return a
}

// entityBefore is entity_before: an earlier deadline (no tie-break).
func entityBefore(a, b *SchedEntity) bool { return vBefore(a.deadline, b.deadline) }

// geMul128 reports avg ≥ key·load with the product taken 128 bits wide,
// as the kernel's vruntime_eligible does with __int128.
func geMul128(avg, key, load int64) bool {
	hi, lo := mul128(key, load)
	ahi := int64(avg >> 63) // sign extension of avg
	if ahi != int64(hi) {
		return ahi > int64(hi)
	}
	return uint64(avg) >= lo
}

// geMulLoad is geMul128 for a load that is not negative, which every
// eligibility test's is: a sum of effective weights, each at most 2^30
// (MaxWeight scaled up), which fewer than 2^33 entities cannot take to
// 2^63. The unsigned product then needs the
// high word's correction for a negative key only, one test and one
// subtraction fewer than mul128 (about three instructions a test, two or
// three tests a pick).
func geMulLoad(avg, key, load int64) bool {
	hi, lo := bits.Mul64(uint64(key), uint64(load))
	if key < 0 {
		hi -= uint64(load)
	}
	ahi := int64(avg >> 63) // sign extension of avg
	if ahi != int64(hi) {
		return ahi > int64(hi)
	}
	return uint64(avg) >= lo
}

// mul128 returns the 128-bit two's-complement product a·b: the unsigned
// product, corrected by subtracting the other operand from the high word
// for each negative operand.
func mul128(a, b int64) (hi, lo uint64) {
	hi, lo = bits.Mul64(uint64(a), uint64(b))
	if a < 0 {
		hi -= uint64(b)
	}
	if b < 0 {
		hi -= uint64(a)
	}
	return hi, lo
}
