package eevdf_test

import (
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// LagLimit is calc_delta_fair(max slice + TICK_NSEC, se): the queue's
// largest slice (timeline and an on_rq curr) plus 1 ms, at se's weight.
// For nice 5 (335 << 10 = 343040) the virtual time runs 1048576/343040
// faster: 1000000·1048576/343040 = 3056716, 1700000·… = 5196417,
// 4000000·… = 12226865 (all truncated).
func TestLagLimitValues(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk)
		a, n5, l := b.entity("A"), b.entity("N5", eevdf.WithNice(5)), b.entity("L", eevdf.WithSlice(3000000))
		wantLimits := func(what string, wa, wn5 int64) {
			t.Helper()
			if ga, gn := b.rq.LagLimit(a), b.rq.LagLimit(n5); ga != wa || gn != wn5 {
				t.Errorf("%v %s: LagLimit A %d, N5 %d; want %d, %d", bk, what, ga, gn, wa, wn5)
			}
		}
		wantLimits("empty queue: the tick alone", 1000000, 3056716)
		if err := b.rq.WakeUpNew(a); err != nil {
			t.Fatal(err)
		}
		wantLimits("A queued", 1700000, 5196417)
		if err := b.rq.WakeUpNew(l); err != nil {
			t.Fatal(err)
		}
		wantLimits("L's 3 ms slice queued", 4000000, 12226865)
		wantPick(t, b.schedule(), a)
		wantLimits("A running, L queued", 4000000, 12226865)

		// A runs 10 ms while L waits: V = z + 5 ms, A's lag −5 ms. Its
		// sleep (ineligible: delayed) saves exactly −LagLimit.
		b.at(10000000)
		b.rq.UpdateCurr()
		if lag := b.rq.Lag(a); lag != -5000000 {
			t.Fatalf("%v: A's lag %d, want −5000000", bk, lag)
		}
		limit := b.rq.LagLimit(a)
		if next, err := b.rq.Sleep(); err != nil || next != l {
			t.Fatalf("%v: Sleep = %v, %v; want L", bk, next, err)
		}
		if !a.Delayed() || a.VLag() != -limit || limit != 4000000 {
			t.Errorf("%v: A delayed %v with vlag %d; want delayed with −%d", bk, a.Delayed(), a.VLag(), limit)
		}
		b.check()
	}
}

// LagLimit bounds a lag at the moment it is saved, not afterwards. Under
// DELAY_LAG_FLOOR without DELAY_ZERO a delayed entity's saved lag is a
// floor: E sleeps delayed with lag −200000 (it ran 300000 ns; V of three
// nice-0 tasks is z + 100000), A runs 30 ms without a pick, which makes
// E's lag positive; E's nice change re-saves it (within the 11 ms limit
// of L's 10 ms slice: 9800000 at nice 0, rescaled ·1048576/839680 to
// 12238048 at nice 1); L's slice change shrinks E's limit to
// 1700000·1048576/839680 = 2122926; and the pick completes E's delayed
// dequeue with max(clamped, 12238048): above the limit. Under DELAY_ZERO
// the nice change saves 0, and E, placed at V, waits (still delayed).
func TestLagLimitMergedFloorCanExceed(t *testing.T) {
	for _, tc := range []struct {
		tokens string
		vlag   int64
	}{
		{"NO_DELAY_ZERO", 12238048},
		{"", 0},
	} {
		b := newBench(t, eevdf.BTree, withFeatures(t, tc.tokens))
		e, a, l := b.entity("E"), b.entity("A"), b.entity("L", eevdf.WithSlice(10000000))
		for _, se := range []*eevdf.SchedEntity{e, a, l} {
			if err := b.rq.WakeUpNew(se); err != nil {
				t.Fatal(err)
			}
		}
		wantPick(t, b.schedule(), e)
		b.at(300000)
		if next, err := b.rq.Sleep(); err != nil || next != a || !e.Delayed() || e.VLag() != -200000 {
			t.Fatalf("%q: Sleep = %v, %v; E delayed %v, vlag %d", tc.tokens, next, err, e.Delayed(), e.VLag())
		}
		b.at(30300000)
		if err := b.rq.SetNice(e, 1); err != nil {
			t.Fatal(err)
		}
		if e.VLag() != tc.vlag || !e.Delayed() {
			t.Fatalf("%q: E's lag re-saved at the nice change: %d (delayed %v), want %d", tc.tokens, e.VLag(), e.Delayed(), tc.vlag)
		}
		if err := b.rq.SetSlice(l, 0); err != nil {
			t.Fatal(err)
		}
		limit := b.rq.LagLimit(e)
		if limit != 2122926 {
			t.Fatalf("%q: E's limit after L's slice change %d, want 2122926", tc.tokens, limit)
		}
		b.schedule()
		if e.OnRq() && tc.vlag != 0 || e.VLag() != tc.vlag {
			t.Errorf("%q: E on_rq %v, vlag %d; want %d (limit %d)", tc.tokens, e.OnRq(), e.VLag(), tc.vlag, limit)
		}
	}
}
