package eevdf

import "testing"

// Wherever a step of the property sequences leaves more than one entity
// queued, pick_eevdf's second result is V's offset from zero_vruntime
// (avgDelta, or 0 while V is held), for both values of protect; and the
// wakeup check's move by it leaves zero_vruntime, the sums and the held
// V exactly where avg_vruntime leaves them.
func TestPickReturnsAvgVruntimeMove(t *testing.T) {
	checked := 0
	for _, b := range propertyInputs(80) {
		stepHarness(t, b, func(h *harness, rq *CfsRq) {
			if rq.hNrQueued < 2 || rq.kernel.minVruntimeRef() {
				return
			}
			checked++
			want := int64(0)
			if !rq.vAtZero {
				want = rq.avgDelta()
			}
			var delta int64
			for _, protect := range []bool{true, false} {
				stats := rq.stats
				_, d := rq.pickDeadline(protect)
				rq.stats = stats
				if d != want {
					h.fail("pick_eevdf(protect=%v) returns V at %d from zero_vruntime, avg_vruntime's offset is %d", protect, d, want)
				}
				delta = d
			}
			if rq.vAtZero {
				return // the wakeup check moves nothing then
			}
			zero, sum := rq.zeroVruntime, rq.sumWVruntime
			rq.updateZeroVruntime(delta) // the wakeup check's move
			rq.vAtZero = true
			movedZero, movedSum := rq.zeroVruntime, rq.sumWVruntime
			rq.zeroVruntime, rq.sumWVruntime, rq.vAtZero = zero, sum, false
			v := rq.avgVruntime()
			if v != movedZero || rq.zeroVruntime != movedZero || rq.sumWVruntime != movedSum || !rq.vAtZero {
				h.fail("moved by the pick's V: zero_vruntime %d, sum %d, held; avg_vruntime: V %d, zero_vruntime %d, sum %d, held %v",
					movedZero, movedSum, v, rq.zeroVruntime, rq.sumWVruntime, rq.vAtZero)
			}
		})
	}
	if checked == 0 {
		t.Fatal("no step left more than one entity queued")
	}
	t.Logf("%d steps checked", checked)
}
