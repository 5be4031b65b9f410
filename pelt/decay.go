package pelt

import "math/bits"

// Constants of sched-pelt.h, pelt.h and fair.c.
const (
	// LoadAvgPeriod is LOAD_AVG_PERIOD: the half-life in periods, y^32 = 1/2.
	LoadAvgPeriod = 32
	// LoadAvgMax is LOAD_AVG_MAX: the value at which the series of an
	// always-1 signal settles when each period is folded in with the
	// truncating fixed-point decay (1024 + decay(previous) repeated until it
	// no longer changes). The exact sum 1024/(1−y) would be 47788.
	LoadAvgMax = 47742
	// MinDivider is PELT_MIN_DIVIDER: LoadAvgMax·y at a period boundary,
	// which the kernel takes as LoadAvgMax − 1024. A sum is at most
	// MinDivider + period_contrib.
	MinDivider = LoadAvgMax - 1024
	// UtilAvgUnchanged is UTIL_AVG_UNCHANGED, the top bit of util_est: set
	// when util_est was last sampled, cleared when util_avg is recomputed.
	UtilAvgUnchanged = 1 << 31
	// UtilEstMargin is UTIL_EST_MARGIN, SCHED_CAPACITY_SCALE/100.
	UtilEstMargin = 1024 / 100
	// UtilEstWeightShift is UTIL_EST_WEIGHT_SHIFT: a new util_est sample
	// weighs 1/4.
	UtilEstWeightShift = 2
	// CapacityShift is SCHED_CAPACITY_SHIFT; runnable and util sums carry
	// the factor 1 << CapacityShift.
	CapacityShift = 10
	// CapacityScale is SCHED_CAPACITY_SCALE, the capacity of a full CPU.
	CapacityScale = 1 << CapacityShift

	// maxDecayPeriods is the horizon past which decay_load returns 0:
	// 63 half-lives shift any u64 to nothing.
	maxDecayPeriods = LoadAvgPeriod * 63
)

// yInv is runnable_avg_yN_inv: entry k is ⌊(2^32 − 1)·y^k⌋ with
// y = 2^(−1/32), the fixed-point factor of a decay by k periods. The
// generator multiplies by 2^32 − 1 rather than 2^32, so entry 0 is not 1.0
// but 1 − 2^−32 (see DecayLoad).
var yInv = [LoadAvgPeriod]uint32{
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
	0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
	0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
	0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
	0x85aac367, 0x82cd8698,
}

// DecayLoad is decay_load: val·y^n, truncated, in O(1).
//
// Since y^32 = 1/2, y^n = 2^−⌊n/32⌋ · y^(n mod 32): the whole half-lives
// are a right shift, the rest one multiplication by yInv[n mod 32] taken
// 96 bits wide (mul_u64_u32_shr) and shifted down 32 bits. Both steps
// floor. Past 2016 periods (63 half-lives) the result is 0.
//
// Because yInv[0] is 2^32 − 1, a decay by an exact multiple of 32 periods
// also takes off ⌈v/2^32⌉ from the shifted value v: DecayLoad(47742, 32) is
// 23870, not 23871, and DecayLoad(v, 0) is v − 1 for 0 < v < 2^32.
func DecayLoad(val, n uint64) uint64 {
	if n > maxDecayPeriods {
		return 0
	}
	if n >= LoadAvgPeriod {
		val >>= n / LoadAvgPeriod
		n %= LoadAvgPeriod
	}
	hi, lo := bits.Mul64(val, uint64(yInv[n]))
	// (hi:lo) >> 32; the product is below 2^96, so this fits in 64 bits.
	return hi<<32 | lo>>32
}
