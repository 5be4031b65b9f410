package eevdf

import "testing"

// Wherever a step of the property sequences leaves V held at
// zero_vruntime (vAtZero), the pick and avg_vruntime that read it agree
// with the ones that sum and divide again, which leave the reference
// point and the sums where they are; and the state is reached at all.
// Check verifies the held V itself after every step of every harness.
func TestHeldVAgreesWithTheSums(t *testing.T) {
	held := 0
	for _, b := range propertyInputs(80) {
		stepHarness(t, b, func(h *harness, rq *CfsRq) {
			if !rq.vAtZero {
				return
			}
			held++
			for _, protect := range []bool{true, false} {
				fast := rq.pickEevdf(protect)
				rq.vAtZero = false
				slow := rq.pickEevdf(protect)
				rq.vAtZero = true
				if fast != slow {
					h.fail("pick_eevdf(protect=%v) with V held: %v, summed: %v", protect, fast, slow)
				}
			}
			zero, sum := rq.zeroVruntime, rq.sumWVruntime
			rq.vAtZero = false
			if v := rq.avgVruntime(); v != zero || rq.zeroVruntime != zero || rq.sumWVruntime != sum {
				h.fail("V held at %d, but avg_vruntime gives %d (zero_vruntime %d → %d, sum %d → %d)",
					zero, v, zero, rq.zeroVruntime, sum, rq.sumWVruntime)
			}
			if !rq.vAtZero {
				h.fail("avg_vruntime's move over a positive load does not hold V")
			}
		})
	}
	if held == 0 {
		t.Fatal("no step left V held at zero_vruntime")
	}
	t.Logf("%d steps left V held", held)
}
