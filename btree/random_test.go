package btree

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRandomOperations drives trees of several sizes through random
// inserts, deletes, updates and queries around a target size, checking
// every answer against the oracle and verifying the tree after every step.
func TestRandomOperations(t *testing.T) {
	for _, size := range []int{1, 8, maxItems + 1, 100, 1000, 3000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			steps := 4*size + 3000
			if testing.Short() {
				steps = 2*size + 300
			}
			r := rand.New(rand.NewPCG(uint64(size), 1))
			h := newHarness(t)
			// Deadlines and vruntimes spread over a window around
			// wrapBase, so that they wrap around 2^64.
			span := int64(4*size + 16)
			rnd := func() int64 { return r.Int64N(2*span) - span }
			for range steps {
				switch op := r.IntN(20); {
				case op < 8:
					// Insert more often below the target size.
					if h.tr.Len() < size || op < 4 {
						h.insert(rnd(), rnd(), uint64(r.IntN(100)))
					} else {
						h.deleteNth(r.IntN(size + 1))
					}
				case op < 14:
					h.deleteNth(r.IntN(size + 1))
				case op < 15:
					h.deleteAbsent(r.IntN(size + 1))
				case op < 17:
					h.update(r.IntN(size+1), rnd(), uint64(r.IntN(100)))
				case op < 19:
					h.find(rnd())
				default:
					h.checkAll()
				}
			}
			// Drain the tree completely.
			for h.tr.Len() > 0 {
				h.deleteNth(r.IntN(h.tr.Len()))
			}
			h.checkAll()
		})
	}
}

// TestGrowThenShrink fills a tree in random order and empties it in
// another, verifying after every step: every split and merge path is
// taken on the way.
func TestGrowThenShrink(t *testing.T) {
	const n = 5000
	r := rand.New(rand.NewPCG(7, 7))
	tr := newSpanTree()
	for _, x := range r.Perm(n) {
		tr.Insert(x)
		mustVerify(t, tr)
	}
	for _, x := range r.Perm(n) {
		if !tr.Delete(x) {
			t.Fatalf("Delete(%d) = false", x)
		}
		mustVerify(t, tr)
		if tr.Len() > 0 {
			if a, _ := tr.Agg(); a.n != tr.Len() {
				t.Fatalf("Agg().n = %d, Len() = %d", a.n, tr.Len())
			}
		}
	}
}
