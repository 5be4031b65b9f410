package eevdf

import (
	"math"
	"math/rand/v2"
	"testing"
)

// keyLimit's bound answers as vruntime_eligible's 128-bit product for every
// positive load, at the edges of the int64 range and around every exact
// quotient, and for an empty load with the empty queue's sums (0).
func TestKeyLimitMatchesProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pick := func() int64 { return edgyInt64(rng) }
	check := func(e eligibilityTest, keys ...int64) {
		t.Helper()
		b := e.bound()
		for _, k := range keys {
			v := e.zero + uint64(k)
			if got, want := b.eligible(v), e.eligible(v); got != want {
				t.Fatalf("avg %d load %d key %d: bound %d says %v, product %v", e.avg, e.load, k, b.limit, got, want)
			}
		}
	}
	for i := 0; i < 200000; i++ {
		e := eligibilityTest{avg: pick(), load: pick(), zero: rng.Uint64()}
		if e.load <= 0 || rng.IntN(2) == 0 {
			e.load = rng.Int64N(1<<40) + 1
		}
		q := floorDiv(e.avg, e.load)
		check(e, pick(), pick(), q-1, q, q+1)
	}
	check(eligibilityTest{avg: 0, load: 0, zero: 12345}, 0, 1, -1, math.MaxInt64, math.MinInt64)
}

// avgVruntimeTest's bound is the eligibility test of the queue it leaves
// (and, the move being neutral, of the queue before it), with curr on_rq
// or not, an empty queue, both reference points (zero_vruntime moved at
// every avg_vruntime; v6.18's min_vruntime kept) and both timelines.
func TestAvgVruntimeTestBoundIsEligibility(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	weights := []uint64{1024, 3072, 15, 88761}
	for _, k := range []Kernel{KernelV73, KernelV618} {
		for _, b := range []Backend{BTree, RBTree} {
			for round := 0; round < 300; round++ {
				rq, err := NewCfsRq(WithTimeline(b), WithKernel(k))
				if err != nil {
					t.Fatal(err)
				}
				z := rq.zeroVruntime
				n := rng.IntN(5)
				var keys []int64
				for i := 0; i < n; i++ {
					se, err := NewEntity("t", WithWeight(weights[rng.IntN(len(weights))]))
					if err != nil {
						t.Fatal(err)
					}
					key := rng.Int64N(20_000_001) - 10_000_000
					keys = append(keys, key)
					se.vruntime = z + uint64(key)
					se.deadline = se.vruntime + 700000
					se.onRq, se.rq = true, rq
					if i == 0 && rng.IntN(2) == 0 {
						rq.curr = se // on_rq curr, out of the timeline
					} else {
						rq.enqueueEntity(se)
					}
				}
				before := rq.eligibility()
				v, bound := rq.avgVruntimeTest()
				after := rq.eligibility()
				probe := []int64{0, 1, -1, int64(v - z), int64(v-z) - 1, int64(v-z) + 1, math.MaxInt64, math.MinInt64}
				for _, key := range append(probe, keys...) {
					x := z + uint64(key)
					if got, want := bound.eligible(x), after.eligible(x); got != want {
						t.Fatalf("%v %v round %d key %d: bound %d says %v, the sums after the move %v", k, b, round, key, bound.limit, got, want)
					}
					if key == math.MaxInt64 || key == math.MinInt64 {
						continue // a key at the range's end wraps when v0 moves
					}
					if got, want := bound.eligible(x), before.eligible(x); got != want {
						t.Fatalf("%v %v round %d key %d: bound says %v, the sums before the move %v", k, b, round, key, got, want)
					}
				}
			}
		}
	}
}

// floorDiv, the oracle of keyLimit's quotient, returns ⌊a/b⌋ for b > 0: Go's division truncates toward zero,
// which is one too high for a negative quotient with a remainder.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
