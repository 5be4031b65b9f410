package eevdf

import (
	"math"
	"math/rand/v2"
	"testing"
)

// geMulLoad must answer as geMul128 for every load that is not negative:
// the edges of each operand's range, then random operands of every
// magnitude.
func TestGeMulLoadAgreesWithGeMul128(t *testing.T) {
	edges := []int64{math.MinInt64, math.MinInt64 + 1, -1 << 62, -1 << 32, -5, -1, 0, 1, 5, 1 << 32, 1 << 62, math.MaxInt64 - 1, math.MaxInt64}
	loads := []int64{0, 1, 2, 5, 1024, 1 << 20, 1 << 30, 1 << 32, 1 << 62, math.MaxInt64}
	check := func(avg, key, load int64) {
		t.Helper()
		if got, want := geMulLoad(avg, key, load), geMul128(avg, key, load); got != want {
			t.Fatalf("geMulLoad(%d, %d, %d) = %v, geMul128 %v", avg, key, load, got, want)
		}
	}
	for _, avg := range edges {
		for _, key := range edges {
			for _, load := range loads {
				check(avg, key, load)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		// A random magnitude for each operand, so that small and large
		// products, and their overflow of 64 bits, all occur.
		avg := int64(r.Uint64()) >> r.IntN(64)
		key := int64(r.Uint64()) >> r.IntN(64)
		load := int64(r.Uint64()>>1) >> r.IntN(63)
		check(avg, key, load)
		// Near the boundary: avg equal to the product, and one either side.
		if hi, lo := mul128(key, load); int64(hi) == int64(lo)>>63 {
			p := int64(lo)
			check(p, key, load)
			check(p-1, key, load)
			check(p+1, key, load)
		}
	}
}
