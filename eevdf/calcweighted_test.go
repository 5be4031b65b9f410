package eevdf

import (
	"math/rand/v2"
	"testing"
)

// calcDeltaWeighted, written without calls, is calcDelta with
// NICE_0_LOAD over the entity's weight in both arithmetics: for every nice
// weight with its table inverse, for effective weights that differ from
// the load (the inverse then computed), and for a zero weight, over random
// deltas and the 64-bit edges.
func TestCalcDeltaWeightedIsCalcDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	deltas := []uint64{0, 1, 999, 1 << 32, 1<<44 + 7, ^uint64(0) >> 20, ^uint64(0)}
	for i := 0; i < 64; i++ {
		deltas = append(deltas, rng.Uint64()>>rng.IntN(64))
	}
	for _, mode := range []Arithmetic{Division, FixedPoint} {
		rq := &CfsRq{arith: mode}
		check := func(se *SchedEntity) {
			t.Helper()
			lw := loadWeight{weight: se.hload}
			if se.hload == se.load.weight {
				lw.inv = se.load.inv
			}
			for _, d := range deltas {
				if got, want := rq.calcDeltaWeighted(d, se), calcDelta(mode, d, Nice0Load, lw); got != want {
					t.Fatalf("mode %d, weight %d (load %d, inv %d), delta %d: %d, calcDelta %d",
						mode, se.hload, se.load.weight, se.load.inv, d, got, want)
				}
			}
		}
		for nice := MinNice; nice <= MaxNice; nice++ {
			lw := setLoadWeight(PolicyNormal, nice)
			check(&SchedEntity{load: lw, hload: lw.weight})
			check(&SchedEntity{load: lw, hload: lw.weight/3 + 2}) // an effective weight of its own
		}
		idle := setLoadWeight(PolicyIdle, 0)
		check(&SchedEntity{load: idle, hload: idle.weight})
		check(&SchedEntity{load: loadWeight{weight: 1024}, hload: 0})
		for i := 0; i < 200; i++ {
			w := rng.Uint64() >> rng.IntN(64)
			check(&SchedEntity{load: loadWeight{weight: w + 1}, hload: w})
		}
	}
}
