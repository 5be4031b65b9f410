package eevdf_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedmodel/fairclass/eevdf"
)

// sched_setattr with a SCHED_IDLE task's own policy changes nothing
// (KERNEL-SPEC §11.8): fair_policy() is NORMAL or BATCH only, so the call
// returns, successfully, before the save/restore cycle. No custom slice,
// no weight reset, no lag re-saved, resched untouched — whether the idle
// task runs or waits.
func TestSliceOnIdlePolicyTaskChangesNothing(t *testing.T) {
	for _, bk := range backends {
		for _, running := range []bool{true, false} {
			b := newBench(t, bk)
			a := b.entity("A")
			i := b.entity("I", eevdf.WithPolicy(eevdf.PolicyIdle))
			b.new(i)
			b.new(a)
			first := b.schedule()
			b.at(300000).tick()
			if running != (first == i) {
				// Make the wanted task curr: force it, as core scheduling would.
				want := a
				if running {
					want = i
				}
				if err := b.rq.SetNext(want); err != nil {
					t.Fatal(err)
				}
				b.at(400000).tick()
			}
			b.at(450000)
			before, resched := b.rq.Snapshot(), b.rq.NeedResched()
			for _, ns := range []uint64{0, 100000, 5000000} {
				if err := b.rq.SetSlice(i, ns); err != nil {
					t.Fatalf("SetSlice(idle, %d): %v; the kernel reports success", ns, err)
				}
				b.check()
			}
			if d := cmp.Diff(before, b.rq.Snapshot()); d != "" {
				t.Errorf("%v running=%v: a slice change on a SCHED_IDLE task changed (-before +after):\n%s", bk, running, d)
			}
			if b.rq.NeedResched() != resched {
				t.Errorf("%v running=%v: resched %v, was %v", bk, running, b.rq.NeedResched(), resched)
			}
			// The next tick sees exactly what it would have seen.
			b.at(1000000).tick()
		}
	}
}

// DELAY_LAG_FLOOR_POSTED, the thread's v1: the requeue's
// clamp(cur, recorded, 0) is the kernel's clamp macro, which tests
// cur ≥ 0 first and cur ≤ recorded second. A slice change of a delayed
// task re-saves its lag without the floor, so the recorded lag can be
// positive; a negative current lag then gives back the recorded one and
// the task is re-placed with positive lag.
//
// A and B (nice 0) start at z; A runs 500 µs and sleeps (delayed, lag
// −250000, vruntime z+500000). B runs to z+900000 (clock 1.4 ms): V =
// z+700000 and A's lag is +200000, which A's slice change saves (±limit
// only in v1) and re-places at the same vruntime (V without A = z+900000,
// lag inflated ×2). D joins with lag +600000: placed at z+700000 − 1.5·600000
// = z−200000, V falls to z+400000 and A's lag to −100000. A wakes:
// clamp(−100000, 200000, 0) = 200000 ≠ −100000, so A is re-placed with
// lag +200000: V without A = z+350000, inflated 200000·3/2 = 300000, A at
// z+50000, and then V = z+250000, A's lag exactly +200000. With
// min(max(cur, recorded), 0) it would have been re-placed at lag 0, and
// v7.0 (NO_DELAY_LAG_FLOOR) keeps A where it is, lag −100000.
func TestPostedFloorRequeueKeepsPositiveRecordedLag(t *testing.T) {
	for _, tc := range []struct {
		tokens string
		vlag   int64
		lag    int64
		vr     int64
	}{
		{"DELAY_LAG_FLOOR_POSTED", 200000, 200000, 50000},
		{"NO_DELAY_LAG_FLOOR", -100000, -100000, 500000},
	} {
		for _, bk := range backends {
			b := newBench(t, bk, withFeatures(t, tc.tokens))
			a, bb, d := b.entity("A"), b.entity("B"), b.entity("D")
			b.new(a)
			b.new(bb)
			wantPick(t, b.schedule(), a)
			b.at(500000)
			wantPick(t, b.sleep(), bb)
			if !a.Delayed() {
				t.Fatal("A should be delayed")
			}
			b.at(1400000)
			if err := b.rq.SetSlice(a, 700001); err != nil {
				t.Fatal(err)
			}
			b.check()
			if a.VLag() != 200000 || int64(a.Vruntime()-z) != 500000 {
				t.Fatalf("%s: after the save A vlag %d vruntime z%+d; want +200000 z+500000",
					tc.tokens, a.VLag(), int64(a.Vruntime()-z))
			}
			eevdf.SetVLag(d, 600000)
			b.wakeup(d)
			if lag := b.rq.Lag(a); lag != -100000 {
				t.Fatalf("%s: A's lag before its wakeup %d, want −100000", tc.tokens, lag)
			}
			b.wakeup(a)
			if a.VLag() != tc.vlag || b.rq.Lag(a) != tc.lag || int64(a.Vruntime()-z) != tc.vr {
				t.Errorf("%s %v: A vlag %d lag %d vruntime z%+d; want %d %d z%+d", tc.tokens, bk,
					a.VLag(), b.rq.Lag(a), int64(a.Vruntime()-z), tc.vlag, tc.lag, tc.vr)
			}
		}
	}
}
