package eevdf

import (
	"math"
	"math/rand/v2"
	"testing"
)

// KERNEL-SPEC §2.8 and §2.9: tree A (key +1000), B (key −3001), curr C on_rq
// (key +500), all nice 0.
func TestAvgVruntimeWorkedExample(t *testing.T) {
	for _, b := range []Backend{BTree, RBTree} {
		rq, err := NewCfsRq(WithTimeline(b))
		if err != nil {
			t.Fatal(err)
		}
		z := rq.zeroVruntime
		mk := func(name string, key int64) *SchedEntity {
			se, _ := NewEntity(name)
			se.vruntime = z + uint64(key)
			se.deadline = se.vruntime + 700000
			se.onRq, se.rq = true, rq
			return se
		}
		a, bb, c := mk("A", 1000), mk("B", -3001), mk("C", 500)
		rq.enqueueEntity(a)
		rq.enqueueEntity(bb)
		rq.curr = c
		rq.nrQueued, rq.hNrQueued, rq.hNrRunnable, rq.nrRunning = 3, 3, 3, 3
		rq.loadWeight = 3 * Nice0Load

		const w1 = int64(Nice0Load)
		if rq.sumWVruntime != -2001*w1 {
			t.Fatalf("sum_w_vruntime %d, want −2001·W1", rq.sumWVruntime)
		}
		// ineligible_vruntime before the move: ⌊−2001/2⌋ = −1001, plus one.
		if got := rq.ineligibleVruntime(); got != z-1000 {
			t.Errorf("ineligible_vruntime = Z%+d, want Z−1000", int64(got-z))
		}
		if v := rq.V(); v != z-501 {
			t.Errorf("V() = Z%+d, want Z−501", int64(v-z))
		}
		if v := rq.avgVruntime(); v != z-501 || rq.zeroVruntime != z-501 {
			t.Errorf("avg_vruntime = Z%+d, zero_vruntime Z%+d; want Z−501", int64(v-z), int64(rq.zeroVruntime-z))
		}
		if rq.sumWVruntime != -999*w1 {
			t.Errorf("after the move sum_w_vruntime %d, want −999·W1", rq.sumWVruntime)
		}
		if rq.entityEligible(a) || !rq.entityEligible(bb) || rq.entityEligible(c) {
			t.Errorf("eligibility A %v B %v C %v, want false true false",
				rq.entityEligible(a), rq.entityEligible(bb), rq.entityEligible(c))
		}
		// The move is neutral: ineligible_vruntime is the same point.
		if got := rq.ineligibleVruntime(); got != z-1000 {
			t.Errorf("ineligible_vruntime after the move = Z%+d", int64(got-z))
		}
		if err := rq.Check(); err != nil {
			t.Error(err)
		}
	}
}

// int64Edges are the values where a product or a quotient of int64s
// overflows, rounds or changes sign.
var int64Edges = []int64{0, 1, -1, 2, -2, 1 << 20, -(1 << 20), math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}

// edgyInt64 draws an edge a quarter of the time, a small value of either
// sign a quarter, and any int64 otherwise: the mix the eligibility
// bounds are tested on.
func edgyInt64(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0:
		return int64Edges[rng.IntN(len(int64Edges))]
	case 1:
		return rng.Int64N(2001) - 1000
	default:
		return int64(rng.Uint64())
	}
}

// The descent's bound, key ≤ ⌊avg/load⌋, answers exactly as
// vruntime_eligible's 128-bit product does, at the edges of the range
// and around every exact quotient.
func TestEligibleBoundMatchesProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func() int64 { return edgyInt64(rng) }
	for i := 0; i < 200000; i++ {
		e := eligibilityTest{avg: pick(), load: pick(), zero: rng.Uint64()}
		if rng.IntN(2) == 0 {
			e.load = rng.Int64N(1<<40) + 1
		}
		var m eligibleMatcher
		m.set(e)
		keys := []int64{pick(), pick()}
		if e.load > 0 {
			q := floorDiv(e.avg, e.load)
			keys = append(keys, q-1, q, q+1)
		}
		for _, k := range keys {
			v := e.zero + uint64(k)
			if got, want := m.eligible(v), e.eligible(v); got != want {
				t.Fatalf("avg %d load %d key %d: bound says %v, product %v", e.avg, e.load, k, got, want)
			}
		}
	}
}
