package eevdf_test

import (
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// The four seed threads, each as a toggle: every test below runs the same
// sequence with the toggle on and off and asserts the exact difference.

func withFeatures(t *testing.T, tokens string) eevdf.Option {
	t.Helper()
	fs, err := features.Parse(tokens)
	if err != nil {
		t.Fatal(err)
	}
	return eevdf.WithFeatures(fs)
}

func (b *bench) wakeup(se *eevdf.SchedEntity) {
	b.t.Helper()
	flags := eevdf.EnqueueWakeup
	if se.Delayed() {
		flags = eevdf.EnqueueDelayed
	}
	if err := b.rq.Enqueue(se, flags); err != nil {
		b.t.Fatal(err)
	}
	b.rq.WakeupPreempt(se, eevdf.WFTTWU)
	b.check()
}

// Seed 000, "Prevent negative lag increase during delayed dequeue". A
// sleeps 250 µs ahead of the average and stays queued, delayed, with lag
// −250000. C then joins with lag +600000: placed at V − 900000 (inflated by
// (W+w)/W = 3/2), it pulls V back by 300000, so A's lag becomes −550000.
// When A wakes, the merged patch floors its lag at the sleep-time −250000
// and re-places it there; v7.0 keeps the deeper −550000.
func TestSeed000DelayedLagFloor(t *testing.T) {
	for _, tc := range []struct {
		tokens        string
		vlag, lag, vr int64
	}{
		// Re-placed: V without A is ⌊(−650000 + 0)/2⌋ = −325000 and the lag
		// is inflated to −375000, so A.v = +50000; after the insertion
		// V = ⌊(−650000 + 0 + 50000)/3⌋ = −200000 and A's lag is −250000.
		{"", -250000, -250000, 50000},
		// v7.0: nothing clamps a negative lag; A keeps its vruntime.
		{"NO_DELAY_LAG_FLOOR", -550000, -550000, 500000},
		// The posted v1 floors the lag in this path (a wakeup under
		// DELAY_ZERO) exactly as the merged form does.
		{"DELAY_LAG_FLOOR_POSTED", -250000, -250000, 50000},
	} {
		for _, bk := range backends {
			b := newBench(t, bk, withFeatures(t, tc.tokens))
			a, bb, c := b.entity("A"), b.entity("B"), b.entity("C")
			b.new(a)
			b.new(bb)
			wantPick(t, b.schedule(), a)
			b.at(500000)
			wantPick(t, b.sleep(), bb)
			if !a.Delayed() {
				t.Fatal("A should be delayed: 500000 past V = 250000")
			}
			if tc.tokens != "NO_DELAY_LAG_FLOOR" && a.VLag() != -250000 {
				t.Fatalf("sleep-time lag %d, want −250000", a.VLag())
			}
			eevdf.SetVLag(c, 600000)
			b.wakeup(c)
			want(t, c, -650000, -650000+700000, skip)
			if v := b.rq.V(); int64(v-z) != -50000 {
				t.Fatalf("V after C joined z%+d, want z−50000", int64(v-z))
			}
			if lag := b.rq.Lag(a); lag != -550000 {
				t.Fatalf("A's lag while delayed %d, want −550000", lag)
			}
			b.wakeup(a)
			if a.VLag() != tc.vlag || b.rq.Lag(a) != tc.lag || int64(a.Vruntime()-z) != tc.vr {
				t.Errorf("%q %v: A vlag %d lag %d vruntime z%+d; want %d %d z%+d", tc.tokens, bk,
					a.VLag(), b.rq.Lag(a), int64(a.Vruntime()-z), tc.vlag, tc.lag, tc.vr)
			}
		}
	}
}

// Seed 000, the other exit: a delayed task saved for a nice change keeps
// its floor (merged) or is saved at its current, deeper lag (v7.0, and the
// posted v1, which floored only the wakeup).
func TestSeed000FloorAtSave(t *testing.T) {
	for _, tc := range []struct {
		tokens string
		vlag   int64
	}{
		{"", -250000},
		{"NO_DELAY_LAG_FLOOR", -550000},
		{"DELAY_LAG_FLOOR_POSTED", -550000}, // v1 left the other exits alone
	} {
		b := newBench(t, eevdf.RBTree, withFeatures(t, tc.tokens))
		a, bb, c := b.entity("A"), b.entity("B"), b.entity("C")
		b.new(a)
		b.new(bb)
		b.schedule()
		b.at(500000)
		b.sleep()
		eevdf.SetVLag(c, 600000)
		b.wakeup(c)
		// renice to 0 is a no-op; go through a slice change with the same
		// weight instead: the save/restore cycle without a rescale.
		if err := b.rq.SetSlice(a, 700001); err != nil {
			t.Fatal(err)
		}
		b.check()
		if !a.Delayed() || a.VLag() != tc.vlag {
			t.Errorf("%q: after the save A delayed %v vlag %d; want true %d", tc.tokens, a.Delayed(), a.VLag(), tc.vlag)
		}
	}
}

// Seed 002, "dequeue delayed entities when checking preemption". R runs
// with a 3 ms slice; D sleeps delayed and has since become eligible; W (a
// 0.7 ms slice, so the SHORT rule applies) wakes with lag −20000 and is
// placed at 380000, past V = 360000 — but D's own vruntime 300000 holds V
// down. With the patch the check's pick meets D first and completes its
// dequeue: V rises to 390000, W is eligible and preempts (and becomes the
// buddy). Without, W is judged with D still queued and does not preempt;
// R's protection is only shortened, to V + 0.7 ms.
func TestSeed002FlushDelayedInWakeupCheck(t *testing.T) {
	for _, tc := range []struct {
		tokens    string
		preempt   bool
		rVprot    int64
		dDelayed  bool
		nrRunning int
	}{
		{"", true, 400000, false, 2},
		{"NO_PREEMPT_FLUSH_DELAYED", false, 1060000, true, 3},
	} {
		for _, bk := range backends {
			b := newBench(t, bk, withFeatures(t, tc.tokens))
			r := b.entity("R", eevdf.WithSlice(3000000))
			d := b.entity("D", eevdf.WithSlice(3000000))
			w := b.entity("W")
			b.new(r)
			b.new(d)
			b.new(w)
			wantPick(t, b.schedule(), w) // half a 0.7 ms request: the earliest deadline
			b.at(30000)
			if _, err := b.rq.Dequeue(w, eevdf.DequeueSleep|eevdf.DequeueSpecial); err != nil {
				t.Fatal(err)
			}
			wantPick(t, b.schedule(), r)
			if w.VLag() != -20000 { // V = ⌊30000/3⌋
				t.Fatalf("W's saved lag %d, want −20000", w.VLag())
			}
			b.at(230000)
			wantPick(t, b.schedule(), d) // R (200000) ran past V = 100000
			b.at(530000)
			wantPick(t, b.sleep(), r)
			if !d.Delayed() || d.VLag() != -50000 {
				t.Fatalf("D delayed %v vlag %d; want true −50000", d.Delayed(), d.VLag())
			}
			b.at(730000)
			b.wakeup(w)
			want(t, w, 380000, 1080000, skip)
			if got := b.rq.NeedResched(); got != tc.preempt {
				t.Errorf("%q %v: resched %v, want %v", tc.tokens, bk, got, tc.preempt)
			}
			if got := b.rq.NextBuddy() == w; got != tc.preempt {
				t.Errorf("%q %v: W buddy %v, want %v", tc.tokens, bk, got, tc.preempt)
			}
			want(t, r, 400000, 1500000, tc.rVprot)
			if d.Delayed() != tc.dDelayed || d.OnRq() != tc.dDelayed || b.rq.NrRunning() != tc.nrRunning {
				t.Errorf("%q %v: D delayed %v on_rq %v, nr_running %d; want %v %v %d", tc.tokens, bk,
					d.Delayed(), d.OnRq(), b.rq.NrRunning(), tc.dDelayed, tc.dDelayed, tc.nrRunning)
			}
			if !tc.dDelayed && d.VLag() != 0 { // lag 60000 at the flush, cut by DELAY_ZERO
				t.Errorf("D's lag after the flush %d, want 0", d.VLag())
			}
		}
	}
}

// Seed 003, "make task join/leave scheduling more stable" v3: the thread's
// worked example, row by row. The thread's units are weight 1 and integer
// virtual time; here every task is nice 0 (weight 1048576) and one unit is
// one virtual ns, which at nice 0 is also one real ns. Equal weights cancel
// out of every formula (V, J, the inflation), and no lag comes near the
// clamp (1.7 ms), so every number is the thread's. NO_DELAY_DEQUEUE: the
// example's leaves are immediate.
func TestSeed003JoinLagWorkedExample(t *testing.T) {
	type row struct {
		w             int   // queued entities
		sumJ, j, v, V int64 // sum_jlag in weight units, J, mover's vruntime, V (relative to V0)
		lag           int64 // mover's lag V − v
	}
	for _, bk := range backends {
		b := newBench(t, bk, withFeatures(t, "NO_DELAY_DEQUEUE PLACE_JOIN_LAG"))
		t1, t2, t3 := b.entity("T1"), b.entity("T2"), b.entity("T3")
		const w1 = 1 << 20
		v0 := b.rq.V()
		check := func(what string, mover *eevdf.SchedEntity, r row) {
			t.Helper()
			b.check()
			if b.rq.NrQueued() != r.w || b.rq.SumJlag() != r.sumJ*w1 || b.rq.AvgVjlag() != r.j {
				t.Errorf("%s: W %d sumJ %d J %d; want %d %d %d", what, b.rq.NrQueued(),
					b.rq.SumJlag()/w1, b.rq.AvgVjlag(), r.w, r.sumJ, r.j)
			}
			if v := int64(b.rq.V() - v0); v != r.V {
				t.Errorf("%s: V = V0%+d, want V0%+d", what, v, r.V)
			}
			if mover != nil && mover.OnRq() {
				if v := int64(mover.Vruntime() - v0); v != r.v || b.rq.Lag(mover) != r.lag {
					t.Errorf("%s: v = V0%+d lag %d; want V0%+d %d", what, v, b.rq.Lag(mover), r.v, r.lag)
				}
			}
		}
		join := func(se *eevdf.SchedEntity, vlag int64) {
			eevdf.SetVLag(se, vlag)
			if err := b.rq.Enqueue(se, eevdf.EnqueueWakeup); err != nil {
				t.Fatal(err)
			}
		}
		leave := func(se *eevdf.SchedEntity) {
			if _, err := b.rq.Dequeue(se, eevdf.DequeueSleep); err != nil {
				t.Fatal(err)
			}
		}
		join(t1, 0)
		check("T1 joins", t1, row{1, 0, 0, 0, 0, 0})
		join(t2, 36)
		check("T2 joins", t2, row{2, 36, 18, -36, -18, 18})
		join(t3, -12)
		check("T3 joins", t3, row{3, 24, 8, 12, -8, -20})
		wantPick(t, b.rq.PickNext(), t2)
		check("pick T2", t2, row{3, 24, 8, -36, -8, 28})
		b.at(24)
		leave(t2) // vlag 12, gives back 12 + 8
		if t2.VLag() != 12 {
			t.Errorf("T2 leaves with vlag %d, want 12", t2.VLag())
		}
		check("T2 leaves", nil, row{2, 4, 2, 0, 6, 0})
		wantPick(t, b.rq.PickNext(), t1)
		check("pick T1", t1, row{2, 4, 2, 0, 6, 6})
		b.at(40)
		leave(t1) // vlag −2, gives back −2 + 2
		if t1.VLag() != -2 {
			t.Errorf("T1 leaves with vlag %d, want −2", t1.VLag())
		}
		check("T1 leaves", nil, row{1, 4, 4, 0, 12, 0})
		join(t2, 12) // lag 12 − 4 = 8
		check("T2 rejoins", t2, row{2, 16, 8, 4, 8, 4})
		wantPick(t, b.rq.PickNext(), t2)
		b.at(52)
		leave(t2) // vlag −2, gives back −2 + 8
		if t2.VLag() != -2 {
			t.Errorf("T2 leaves with vlag %d, want −2", t2.VLag())
		}
		check("T2 leaves again", nil, row{1, 10, 10, 0, 12, 0})
		wantPick(t, b.rq.PickNext(), t3)
		check("pick T3", t3, row{1, 10, 10, 12, 12, 0})
		b.at(60)
		leave(t3) // vlag 0, gives back 0 + 10
		b.rq.PickNext()
		check("T3 leaves", nil, row{0, 0, 0, 0, 20, 0})
	}
}

// Seed 003, the joining order. With the patch V + J stays V0 and the
// order by vruntime depends on the lags alone (T2 36 > T1 0 > T3 −12 gives
// T2, T1, T3 in either joining order); the kernel's inflation gives T2,
// T3, T1 for the order T1, T2, T3.
func TestSeed003JoinOrder(t *testing.T) {
	lags := map[string]int64{"T1": 0, "T2": 36, "T3": -12}
	for _, tc := range []struct {
		tokens string
		order  []string
		want   map[string]int64 // vruntime relative to V0
		wantV  int64
	}{
		{"NO_DELAY_DEQUEUE PLACE_JOIN_LAG", []string{"T1", "T2", "T3"}, map[string]int64{"T1": 0, "T2": -36, "T3": 12}, -8},
		{"NO_DELAY_DEQUEUE PLACE_JOIN_LAG", []string{"T3", "T2", "T1"}, map[string]int64{"T1": 0, "T2": -36, "T3": 12}, -8},
		// Baseline: inflation (W+w)/W: T2 at −72 (V −36), T3 at −36+18 = −18 (V −30).
		{"NO_DELAY_DEQUEUE", []string{"T1", "T2", "T3"}, map[string]int64{"T1": 0, "T2": -72, "T3": -18}, -30},
		// Baseline reversed: T3 alone is placed at V (no other queued task),
		// T2 at −72 (V −36), T1 at −36 (V ⌊−108/3⌋ = −36).
		{"NO_DELAY_DEQUEUE", []string{"T3", "T2", "T1"}, map[string]int64{"T1": -36, "T2": -72, "T3": 0}, -36},
	} {
		b := newBench(t, eevdf.BTree, withFeatures(t, tc.tokens))
		v0 := b.rq.V()
		ents := map[string]*eevdf.SchedEntity{}
		for _, n := range tc.order {
			se := b.entity(n)
			ents[n] = se
			eevdf.SetVLag(se, lags[n])
			if err := b.rq.Enqueue(se, eevdf.EnqueueWakeup); err != nil {
				t.Fatal(err)
			}
			b.check()
		}
		for n, v := range tc.want {
			if got := int64(ents[n].Vruntime() - v0); got != v {
				t.Errorf("%q %v: %s at V0%+d, want V0%+d", tc.tokens, tc.order, n, got, v)
			}
		}
		if got := int64(b.rq.V() - v0); got != tc.wantV {
			t.Errorf("%q %v: V = V0%+d, want V0%+d", tc.tokens, tc.order, got, tc.wantV)
		}
	}
}

// Seed 004, yield. Y and a hog H, nice 0. H runs first, 2 ms, and is far
// past V; Y, alone eligible, then yields in a loop.
func yieldBench(t *testing.T, tokens string) (*bench, *eevdf.SchedEntity, *eevdf.SchedEntity) {
	b := newBench(t, eevdf.RBTree, withFeatures(t, tokens))
	h, y := b.entity("H"), b.entity("Y")
	b.new(h)
	b.new(y)
	wantPick(t, b.schedule(), h)
	b.at(2000000).tick()
	wantPick(t, b.schedule(), y) // H at 2000000, V = 1000000: only Y is eligible
	return b, h, y
}

func (b *bench) yield() *eevdf.SchedEntity {
	b.t.Helper()
	b.rq.Yield()
	return b.schedule()
}

// v6.6–v6.18 (YIELD_BUMP_DEADLINE): each yield pushes the deadline one
// slice further while the vruntime stays; Y, the only eligible task, is
// picked again every time, so its deadline runs away. The merged form
// forfeits the request instead: the vruntime jumps to the deadline and the
// deadline is one slice past it, never more.
func TestSeed004YieldLoop(t *testing.T) {
	b, _, y := yieldBench(t, "YIELD_BUMP_DEADLINE")
	for i := 1; i <= 10; i++ {
		b.at(2000000 + uint64(i)*1000)
		wantPick(t, b.yield(), y)
		// Each yield charges 1000 ns; the deadline is 350000 + i·700000.
		if ahead := int64(y.Deadline() - y.Vruntime()); ahead != 350000+int64(i)*700000-int64(i)*1000 {
			t.Fatalf("yield %d: deadline − vruntime = %d", i, ahead)
		}
	}

	// Posted v1 (YIELD_CLAMP_DEADLINE): one slice past the vruntime, every
	// time: Y stays, but its deadline never runs ahead.
	b, _, y = yieldBench(t, "YIELD_CLAMP_DEADLINE")
	for i := 1; i <= 10; i++ {
		b.at(2000000 + uint64(i)*1000)
		wantPick(t, b.yield(), y)
		if ahead := int64(y.Deadline() - y.Vruntime()); ahead != 700000 {
			t.Fatalf("clamp: yield %d: deadline − vruntime = %d, want 700000", i, ahead)
		}
	}

	b, h, y := yieldBench(t, "")
	for i := 1; i <= 10; i++ {
		b.at(2000000 + uint64(i)*1000)
		b.yield()
		if ahead := int64(y.Deadline() - y.Vruntime()); ahead > 700000 {
			t.Fatalf("merged: yield %d left Y %d ahead, more than one slice", i, ahead)
		}
	}
	// Y forfeits 350000 at the first yield (to its deadline), then a whole
	// 700000 request each time; at 1.05 ms of virtual time it passes V
	// (⌊(2000000 + 1050000)/2⌋) no more, and at the 3rd yield H runs.
	if b.rq.Curr() != h {
		t.Errorf("merged: %v runs after the yields, want H", b.rq.Curr())
	}
}

// Core scheduling runs the ineligible yielder anyway (a forced pick). The
// posted v2 forfeits unconditionally, so every forced pick plus yield adds a
// slice to its vruntime; the merged form leaves an ineligible yielder alone.
func TestSeed004ForcedPickRunaway(t *testing.T) {
	for _, tc := range []struct {
		tokens string
		vr     int64 // H's vruntime after 6 forced picks and yields
	}{
		// Each round: vruntime := deadline, deadline += 700000 (after the
		// first round's forfeit to 2700000).
		{"YIELD_FORFEIT_ALWAYS", 2700000 + 5*700000},
		{"", 2000000},
	} {
		b, h, y := yieldBench(t, tc.tokens)
		for i := 0; i < 6; i++ {
			if err := b.rq.SetNext(h); err != nil {
				t.Fatal(err)
			}
			b.check()
			if b.rq.Eligible(h) {
				t.Fatal("H should be ineligible")
			}
			wantPick(t, b.yield(), y)
		}
		if got := int64(h.Vruntime() - z); got != tc.vr {
			t.Errorf("%q: H vruntime z%+d, want z%+d", tc.tokens, got, tc.vr)
		}
	}
}
