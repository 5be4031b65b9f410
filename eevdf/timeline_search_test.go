package eevdf

import (
	"math/rand/v2"
	"testing"
)

// TestUpperSepCountsLikeCountNotAfter checks the bisection of an interior
// node's separators against the count, which needs no order: for every
// number of separators an interior node can hold, separators in order
// (ties included, and runs that cross the wrap of u64 at 2^64) and
// deadlines before, between, on and after each of them.
func TestUpperSepCountsLikeCountNotAfter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < innerMax; n++ {
		for round := 0; round < 200; round++ {
			var ds [innerMax]uint64
			base := -uint64(rng.IntN(40)) // within 40 of the wrap
			if round%2 == 1 {
				base = rng.Uint64()
			}
			d := base
			for i := range ds {
				ds[i] = d
				d += uint64(rng.IntN(3)) // ties and gaps of one
			}
			for off := int64(-2); off <= int64(d-base)+2; off++ {
				dl := base + uint64(off)
				if got, want := upperSep(&ds, n, dl), countNotAfter(&ds, n, dl); got != want {
					t.Fatalf("n %d, separators %v, deadline %d: upperSep %d, countNotAfter %d", n, ds[:n], dl, got, want)
				}
			}
		}
	}
}
