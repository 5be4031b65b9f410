package eevdf_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// setFeatures applies debugfs tokens to the runqueue's set at run time and
// asserts that the write itself changed no state.
func (b *bench) setFeatures(tokens string) {
	b.t.Helper()
	fs, err := b.rq.Features().Apply(tokens)
	if err != nil {
		b.t.Fatal(err)
	}
	before := b.rq.Snapshot()
	if err := b.rq.SetFeatures(fs); err != nil {
		b.t.Fatal(err)
	}
	if b.rq.Features() != fs {
		b.t.Fatalf("Features() = %q after writing %q", b.rq.Features().Diff(features.Default()), tokens)
	}
	if diff := cmp.Diff(before, b.rq.Snapshot()); diff != "" {
		b.t.Fatalf("writing %q changed the runqueue:\n%s", tokens, diff)
	}
}

// RUN_TO_PARITY is read when a new curr's protection is armed. A and B,
// both with 3 ms slices, are created at z (deadlines z + 1.5 ms). Picked
// under RUN_TO_PARITY, A is protected to its deadline, so a tick at 100 µs
// does not reschedule. With NO_RUN_TO_PARITY written before the pick, the
// protection is cut where A turns ineligible, B's vruntime + 1 = z + 1, and
// the tick reschedules. Written after the pick, it changes nothing until
// the next pick: A keeps z + 1.5 ms.
func TestSetFeaturesRunToParityAtTheNextPick(t *testing.T) {
	for _, tc := range []struct {
		name        string
		before      string // written between the creations and the pick
		after       string // written after the pick
		vprot       int64
		reschedTick bool
	}{
		{"no write", "", "", 1500000, false},
		{"NO_RUN_TO_PARITY before the pick", "NO_RUN_TO_PARITY", "", 1, true},
		{"NO_RUN_TO_PARITY after the pick", "", "NO_RUN_TO_PARITY", 1500000, false},
	} {
		for _, bk := range backends {
			b := newBench(t, bk)
			a, bb := b.entity("A", eevdf.WithSlice(3000000)), b.entity("B", eevdf.WithSlice(3000000))
			for _, se := range []*eevdf.SchedEntity{a, bb} {
				if err := b.rq.WakeUpNew(se); err != nil {
					t.Fatal(err)
				}
			}
			b.setFeatures(tc.before)
			wantPick(t, b.schedule(), a)
			b.setFeatures(tc.after)
			want(t, a, 0, 1500000, tc.vprot)
			b.at(100000).tick()
			if b.rq.NeedResched() != tc.reschedTick {
				t.Errorf("%s/%v: resched after the tick %v, want %v", tc.name, bk, b.rq.NeedResched(), tc.reschedTick)
			}
		}
	}
}

// PLACE_LAG is read at the next placement. A and B are created at z; A
// runs to its first deadline (350 µs), B runs 100 µs and sleeps with lag
// +125000 (V = z + 225000, B at z + 100000), and A runs on. B wakes at
// 550 µs, V = z + 450000: with PLACE_LAG its lag is inflated by
// (W + w)/W = 2 and it lands at z + 200000 (deadline + 700000), keeping
// lag 125000 and preempting A (deadline z + 1050000); with NO_PLACE_LAG
// written while it sleeps it lands at V with lag 0 and does not preempt.
func TestSetFeaturesPlaceLagAtTheNextWakeup(t *testing.T) {
	for _, tc := range []struct {
		tokens       string
		vruntime     int64
		lag          int64
		needResched  bool
		wantDeadline int64
	}{
		{"", 200000, 125000, true, 900000},
		{"NO_PLACE_LAG", 450000, 0, false, 1150000},
	} {
		for _, bk := range backends {
			b := newBench(t, bk)
			a, bb := b.entity("A"), b.entity("B")
			for _, se := range []*eevdf.SchedEntity{a, bb} {
				if err := b.rq.WakeUpNew(se); err != nil {
					t.Fatal(err)
				}
			}
			wantPick(t, b.schedule(), a)
			b.at(350000).tick()
			wantPick(t, b.schedule(), bb)
			b.at(450000)
			if next, err := b.rq.Sleep(); err != nil || next != a || bb.VLag() != 125000 || bb.OnRq() {
				t.Fatalf("%q/%v: Sleep = %v, %v; B vlag %d on_rq %v", tc.tokens, bk, next, err, bb.VLag(), bb.OnRq())
			}
			b.setFeatures(tc.tokens)
			b.at(550000)
			if err := b.rq.Wakeup(bb, 0); err != nil {
				t.Fatal(err)
			}
			b.check()
			want(t, bb, tc.vruntime, tc.wantDeadline, skip)
			if lag := b.rq.Lag(bb); lag != tc.lag || b.rq.NeedResched() != tc.needResched {
				t.Errorf("%q/%v: B's lag %d, resched %v; want %d, %v", tc.tokens, bk, lag, b.rq.NeedResched(), tc.lag, tc.needResched)
			}
		}
	}
}

// A set NewCfsRq would refuse is refused at run time too, and changes
// nothing.
func TestSetFeaturesRefusesInvalidSets(t *testing.T) {
	live, _, _, _, _, _, _ := liveQueue(t)
	e := &edges{t: t, live: []*eevdf.CfsRq{live}}
	was := live.Features()
	bad := was.With(features.YieldBumpDeadline, features.YieldClampDeadline)
	e.err("two yield variants", eevdf.ErrBadOption, func() error { return live.SetFeatures(bad) })
	if live.Features() != was {
		t.Errorf("the refused write changed the features: %s", live.Features().Diff(was))
	}
	if _, err := eevdf.NewCfsRq(eevdf.WithFeatures(bad)); !errors.Is(err, eevdf.ErrBadOption) {
		t.Errorf("NewCfsRq accepted the set SetFeatures refuses: %v", err)
	}
}
