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

// TestInsertSortedIntoEmptyLeaf checks that a leaf with no entity takes
// one at position 0 whatever its offset and the stale keys its slots
// hold: insertSorted compares the deadline with a slot's key even then.
func TestInsertSortedIntoEmptyLeaf(t *testing.T) {
	for off := range uint32(leafMax) {
		for _, stale := range []uint64{0, 1 << 63, ^uint64(0)} {
			l := &tlLeaf{tlNode: tlNode{leaf: true}, off: off}
			for k := range l.dl {
				l.dl[k] = stale
			}
			se := &SchedEntity{name: "e", deadline: 1 << 62, vruntime: 5, slice: 7}
			if i := l.insertSorted(se); i != 0 || l.n != 1 || l.firstEntity() != se || se.tlLeaf != l || l.firstDeadline() != se.deadline {
				t.Fatalf("offset %d, stale keys %d: position %d, %d entities, first %v", off, stale, i, l.n, l.firstEntity())
			}
		}
	}
}
