package pelt

import (
	"math"
	"math/rand/v2"
	"testing"
)

const (
	unitNs   = 1024        // one PELT unit
	periodNs = 1024 * 1024 // one period: 1048576 ns
	msNs     = 1000000
)

// The worked example of KERNEL-SPEC-GROUPS §4.6: a queue holding one nice-0
// task (load 1024, one runnable, running) from t = 0, updated at
// t = 2000000 ns.
//
//	δ = 2000000 >> 10 = 1953 units, 2000000 − 1953·1024 = 128 ns pending
//	d = 1953 + 0 → p = 1, d3 = 929
//	contrib = decay(1024, 1) + (47742 − decay(47742, 1) − 1024) + 929
//	        = 1002 + (47742 − 46718 − 1024) + 929 = 1931
//	load_sum = 1024·1931 = 1977344; runnable_sum = util_sum = 1931 << 10 = 1977344
//	divider = 46718 + 929 = 47647; every average ⌊1977344/47647⌋ = 41
func TestWorkedExampleQueue(t *testing.T) {
	var q Avg
	if !q.UpdateQueue(2000000, 1024, 1, true) {
		t.Fatal("no period boundary reported")
	}
	want := Avg{
		LastUpdateTime: 1953 * 1024, // 1999872: the 128 ns stay pending
		LoadSum:        1977344,
		RunnableSum:    1977344,
		UtilSum:        1977344,
		PeriodContrib:  929,
		LoadAvg:        41,
		RunnableAvg:    41,
		UtilAvg:        41,
	}
	if q != want {
		t.Errorf("got  %+v\nwant %+v", q, want)
	}
	if d := q.Divider(); d != 47647 {
		t.Errorf("divider %d, want 47647", d)
	}
}

// A nice-0 task (w = 1024) running for 100 ms from zero, updated once at
// t = 100 ms:
//
//	δ = 100000000 >> 10 = 97656 units (256 ns pending); p = 95, d3 = 376
//	c1 = decay(1024, 95) = (1024 >> 2)·inv[31] >> 32 = 256·0x82cd8698 >> 32 = 130
//	c2 = 47742 − decay(47742, 95) − 1024 = 47742 − (11935·inv[31] >> 32) − 1024
//	   = 47742 − 6098 − 1024 = 40620
//	contrib = 130 + 40620 + 376 = 41126 = load_sum; util_sum = 41126·1024 = 42113024
//	divider = 46718 + 376 = 47094; load_avg = 1024·41126/47094 = 894.2 → 894
//
// 894/1024 ≈ 1 − 2^(−100/32) = 0.885 (the series counts the unfinished
// period at full weight).
func TestRunning100msFromZero(t *testing.T) {
	var se Avg
	if !se.UpdateEntity(100*msNs, 1, 1, true, 1024) {
		t.Fatal("no period boundary reported")
	}
	want := Avg{
		LastUpdateTime: 97656 * 1024,
		LoadSum:        41126,
		RunnableSum:    42113024,
		UtilSum:        42113024,
		PeriodContrib:  376,
		LoadAvg:        894,
		RunnableAvg:    894,
		UtilAvg:        894,
	}
	if se != want {
		t.Errorf("got  %+v\nwant %+v", se, want)
	}

	// The same 100 ms seen by a 1 ms tick: the sums differ from the single
	// update by the truncations of the 95 intermediate decays (two units
	// of load_sum), the averages do not. The first tick (1000000 ns = 976
	// units) crosses no boundary; 95 of the 100 ticks do.
	// (Values from an independent arbitrary-precision implementation.)
	var tk Avg
	crossed := 0
	for k := uint64(1); k <= 100; k++ {
		if tk.UpdateEntity(k*msNs, 1, 1, true, 1024) {
			crossed++
		}
		if k == 1 && tk.UtilAvg != 0 {
			t.Errorf("util_avg %d after 1 ms, want 0 (no boundary yet)", tk.UtilAvg)
		}
	}
	wantTick := Avg{
		LastUpdateTime: 97656 * 1024,
		LoadSum:        41128,
		RunnableSum:    42135012,
		UtilSum:        42135012,
		PeriodContrib:  376,
		LoadAvg:        894,
		RunnableAvg:    894,
		UtilAvg:        894,
	}
	if tk != wantTick || crossed != 95 {
		t.Errorf("ticked: got %+v (%d boundaries)\nwant %+v (95)", tk, crossed, wantTick)
	}
}

// 50 % duty cycle, aligned to periods: running for one period, blocked
// (still queued but not runnable here: load 0) for the next. Per step:
//
//	on:  sum' = decay(sum, 1) + 1002   (c1 = decay(1024, 1) = 1002, c2 = 0, c3 = 0)
//	off: sum' = decay(sum, 1)
//
// and period_contrib stays 0, so the divider is 46718 and load_avg =
// 1024·sum/46718. First steps: 1002 → avg 21; 980 → 21; 980·y = 959,
// + 1002 = 1961 → 42; 1918 → 42. The limit of the on-phase sum is about
// 1002/(1 − y²) = 23634 (avg 518) and of the off-phase sum y times that
// (avg 506): the averages oscillate around 512.
func TestDutyCycle50PercentPeriodAligned(t *testing.T) {
	type snap struct{ loadSum, loadAvg, utilAvg uint64 }
	want := map[uint64]snap{
		1:   {1002, 21, 21},
		2:   {980, 21, 21},
		3:   {1961, 42, 42},
		4:   {1918, 42, 42},
		199: {23300, 510, 511},
		200: {22800, 499, 500},
		// Converged (independent arbitrary-precision implementation):
		1999: {23607, 517, 518},
		2000: {23101, 506, 506},
	}
	var se Avg
	for k := uint64(1); k <= 2000; k++ {
		on := k%2 == 1 // the period (k−1, k] runs when k is odd
		var in uint64
		if on {
			in = 1
		}
		if !se.UpdateEntity(k*periodNs, in, in, on, 1024) {
			t.Fatalf("step %d crossed no boundary", k)
		}
		if se.PeriodContrib != 0 {
			t.Fatalf("step %d: period_contrib %d, want 0", k, se.PeriodContrib)
		}
		if w, ok := want[k]; ok {
			if got := (snap{se.LoadSum, se.LoadAvg, se.UtilAvg}); got != w {
				t.Errorf("step %d: got %+v, want %+v", k, got, w)
			}
		}
	}
}

// 50 % duty cycle of 1 ms on / 1 ms off, updated at each switch (as a
// task's dequeue and enqueue would): the switches do not line up with the
// periods, so the averages depend on where each update falls in its
// period. Values after 1000 switches from an independent
// arbitrary-precision implementation; the averages straddle 512.
func TestDutyCycle1msOn1msOff(t *testing.T) {
	var se Avg
	for k := uint64(1); k <= 1000; k++ {
		on := k%2 == 1
		var in uint64
		if on {
			in = 1
		}
		se.UpdateEntity(k*msNs, in, in, on, 1024)
		switch k {
		case 999: // end of an on-phase
			if se.LoadSum != 23966 || se.UtilSum != 24557687 || se.PeriodContrib != 737 || se.UtilAvg != 517 {
				t.Errorf("after switch 999: %+v", se)
			}
		case 1000: // end of an off-phase
			if se.LoadSum != 23452 || se.UtilSum != 24031466 || se.PeriodContrib != 690 || se.UtilAvg != 506 {
				t.Errorf("after switch 1000: %+v", se)
			}
		}
	}
}

// A blocked entity decayed across exactly 32 periods from a period
// boundary: every sum halves, and the inv[0] quirk takes one more off.
//
//	load_sum 47742 → 47742 >> 1 = 23871 → ·(2^32−1)/2^32 → 23870
//	util_sum 47742·1024 = 48887808 → 24443904 → 24443903
//	divider 46718: load_avg = 1024·23870/46718 = 523.2 → 523,
//	util_avg = 24443903/46718 = 523.2 → 523
func TestDecayAcross32Periods(t *testing.T) {
	se := Avg{LoadSum: 47742, RunnableSum: 47742 * 1024, UtilSum: 47742 * 1024}
	if !se.UpdateBlocked(32*periodNs, 1024) {
		t.Fatal("no boundary reported")
	}
	want := Avg{
		LastUpdateTime: 32 * periodNs,
		LoadSum:        23870,
		RunnableSum:    24443903,
		UtilSum:        24443903,
		LoadAvg:        523,
		RunnableAvg:    523,
		UtilAvg:        523,
	}
	if se != want {
		t.Errorf("got  %+v\nwant %+v", se, want)
	}
}

func TestUpdateLoadSumEdges(t *testing.T) {
	t.Run("time going backwards resets the clock and nothing else", func(t *testing.T) {
		a := Avg{LastUpdateTime: 5000, LoadSum: 7, PeriodContrib: 3, LoadAvg: 9}
		if a.UpdateLoadSum(4000, 1, 1, true) {
			t.Error("reported a boundary")
		}
		want := Avg{LastUpdateTime: 4000, LoadSum: 7, PeriodContrib: 3, LoadAvg: 9}
		if a != want {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("less than a unit changes nothing", func(t *testing.T) {
		a := Avg{LastUpdateTime: 2048}
		a.UpdateLoadSum(2048+1023, 1, 1, true)
		if a != (Avg{LastUpdateTime: 2048}) {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("within a period the sums grow by the units and the averages stay", func(t *testing.T) {
		// 10 units + 5 ns: contrib = 10, period_contrib 100 → 110.
		a := Avg{PeriodContrib: 100, LoadAvg: 3}
		if a.UpdateEntity(10*unitNs+5, 1, 1, true, 1024) {
			t.Error("reported a boundary")
		}
		want := Avg{LastUpdateTime: 10 * unitNs, LoadSum: 10, RunnableSum: 10 << 10,
			UtilSum: 10 << 10, PeriodContrib: 110, LoadAvg: 3}
		if a != want {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("zero load forces runnable and running to zero", func(t *testing.T) {
		a := Avg{PeriodContrib: 0}
		a.UpdateLoadSum(100*unitNs, 0, 5, true)
		if a.RunnableSum != 0 || a.UtilSum != 0 || a.LoadSum != 0 || a.PeriodContrib != 100 {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("a crossing of exactly 2^32 periods reports no boundary", func(t *testing.T) {
		// accumulate_sum returns the period count as a u32.
		a := Avg{LoadSum: 1 << 40, UtilSum: 1 << 30, LoadAvg: 77, UtilAvg: 66}
		now := uint64(1) << 52 // 2^42 units = 2^32 periods
		if a.UpdateEntity(now, 1, 1, true, 1024) {
			t.Error("reported a boundary")
		}
		// The sums decayed to nothing and gained one full period's worth of
		// nothing (c1 = decay(1024, 2^32) = 0, c2 = 47742 − 0 − 1024 = 46718,
		// c3 = 0): load_sum = 46718, but the averages were not recomputed.
		if a.LoadSum != 46718 || a.LoadAvg != 77 || a.UtilAvg != 66 {
			t.Errorf("got %+v", a)
		}
	})
	t.Run("one period more does report it", func(t *testing.T) {
		var a Avg
		if !a.UpdateEntity(1<<52+periodNs, 1, 1, true, 1024) {
			t.Error("no boundary")
		}
	})
}

func TestUtilEstFlagClearedOnlyWhenAveragesMove(t *testing.T) {
	a := Avg{UtilEst: UtilAvgUnchanged | 300}
	a.UpdateEntity(500*unitNs, 1, 1, true, 1024) // no boundary
	if a.UtilEst != UtilAvgUnchanged|300 {
		t.Errorf("flag cleared without a boundary: %#x", a.UtilEst)
	}
	a.UpdateEntity(periodNs, 1, 1, true, 1024)
	if a.UtilEst != 300 {
		t.Errorf("flag not cleared at a boundary: %#x", a.UtilEst)
	}
	b := Avg{UtilEst: UtilAvgUnchanged | 300}
	b.UpdateEntityUtilEst(periodNs, 1, 1, true, 1024, false)
	if b.UtilEst != UtilAvgUnchanged|300 {
		t.Errorf("UTIL_EST off cleared the flag: %#x", b.UtilEst)
	}
	c := Avg{UtilEst: UtilAvgUnchanged | 300}
	c.UpdateQueue(periodNs, 1, 1, true)
	c.UpdateBlocked(2*periodNs, 1024)
	if c.UtilEst != UtilAvgUnchanged|300 {
		t.Errorf("a queue or blocked update touched util_est: %#x", c.UtilEst)
	}
}

func TestSyncIsABlockedUpdate(t *testing.T) {
	a := Avg{LastUpdateTime: 0, LoadSum: 40000, UtilSum: 40000 << 10, RunnableSum: 40000 << 10}
	b := a
	a.Sync(3*periodNs+777, 2048)
	b.UpdateBlocked(3*periodNs+777, 2048)
	if a != b {
		t.Errorf("Sync %+v, UpdateBlocked %+v", a, b)
	}
	if a.LoadAvg == 0 || a.LoadAvg != 2*a.UtilAvg && a.LoadAvg != 2*a.UtilAvg+1 {
		t.Errorf("load_avg %d should be about twice util_avg %d at weight 2048", a.LoadAvg, a.UtilAvg)
	}
}

// The averages follow the geometric series they stand for. A float model
// steps through every 1024-ns unit: a running unit adds 1024, and at each
// period boundary everything weighs y more. At every update its util
// and the package's util_avg agree within the 0.1 % by which the kernel's
// LOAD_AVG_MAX (47742) approximates 1024/(1 − y) (47788), plus 2 for the
// truncations.
func TestUtilMatchesGeometricSeries(t *testing.T) {
	y := math.Pow(2, -1.0/32)
	r := rand.New(rand.NewPCG(7, 11))
	for run := 0; run < 20; run++ {
		var a Avg
		var s float64 // the series, in util_sum's scale
		var unit uint64
		now := uint64(0)
		running := false
		for step := 0; step < 400; step++ {
			now += r.Uint64N(4 * periodNs)
			end := now >> 10
			for ; unit < end; unit++ {
				if running {
					s += 1024
				}
				if (unit+1)%1024 == 0 { // the unit closes a period
					s *= y
				}
			}
			var in uint64
			if running {
				in = 1
			}
			if a.UpdateEntity(now, in, in, running, 1024) {
				want := s / float64(MinDivider+a.PeriodContrib)
				if d := math.Abs(float64(a.UtilAvg) - want); d > 2+0.001*want {
					t.Fatalf("run %d step %d: util_avg %d, series %.2f", run, step, a.UtilAvg, want)
				}
			}
			running = r.IntN(3) != 0
		}
	}
}

// UpdateLoadSum and the averages agree with the arbitrary-precision
// reference on random states and inputs, including absurd ones.
func TestUpdateAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		a := randomAvg(r)
		now := a.LastUpdateTime + r.Uint64N(64*periodNs)
		switch r.IntN(8) {
		case 0:
			now = r.Uint64()
		case 1:
			now = a.LastUpdateTime - r.Uint64N(5000)
		}
		load, runnable := randomInput(r), randomInput(r)
		running := r.IntN(2) == 0
		w := randomInput(r)
		utilEst := r.IntN(4) != 0
		got := a
		gotOK := got.UpdateEntityUtilEst(now, load, runnable, running, w, utilEst)
		want, wantOK := refUpdateEntity(a, now, load, runnable, running, w, utilEst)
		if got != want || gotOK != wantOK {
			t.Fatalf("from %+v\nUpdateEntity(%d, %d, %d, %v, %d, %v)\ngot  %+v %v\nwant %+v %v",
				a, now, load, runnable, running, w, utilEst, got, gotOK, want, wantOK)
		}
	}
}

// randomAvg draws a state: mostly plausible, sometimes extreme.
func randomAvg(r *rand.Rand) Avg {
	if r.IntN(4) == 0 {
		return Avg{
			LastUpdateTime: r.Uint64(), LoadSum: r.Uint64(), RunnableSum: r.Uint64(),
			UtilSum: r.Uint32(), PeriodContrib: r.Uint32(), LoadAvg: r.Uint64(),
			RunnableAvg: r.Uint64(), UtilAvg: r.Uint64(), UtilEst: r.Uint32(),
		}
	}
	return Avg{
		LastUpdateTime: r.Uint64N(1 << 40),
		LoadSum:        r.Uint64N(LoadAvgMax * 4),
		RunnableSum:    r.Uint64N(LoadAvgMax << 12),
		UtilSum:        uint32(r.Uint64N(LoadAvgMax << 10)),
		PeriodContrib:  uint32(r.IntN(1024)),
		LoadAvg:        r.Uint64N(1 << 17),
		RunnableAvg:    r.Uint64N(1 << 13),
		UtilAvg:        r.Uint64N(1025),
		UtilEst:        uint32(r.Uint64N(1025)) | uint32(r.IntN(2))<<31,
	}
}

func randomInput(r *rand.Rand) uint64 {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return r.Uint64()
	case 2:
		return 1
	default:
		return r.Uint64N(1 << 18)
	}
}

// A task that has always run reads exactly its weight and 1024: the sums
// fill the divider (MinDivider + period_contrib) wherever the update falls
// in the period. Checked after 3 s on a 1 ms tick and after one 10 s update.
func TestAlwaysRunningReadsFull(t *testing.T) {
	var ticked, once Avg
	for k := uint64(1); k <= 3000; k++ {
		ticked.UpdateEntity(k*msNs, 1, 1, true, 1024)
	}
	once.UpdateEntity(10_000_000_000, 1, 1, true, 335)
	if ticked.LoadAvg != 1024 || ticked.UtilAvg != 1024 || ticked.RunnableAvg != 1024 {
		t.Errorf("ticked: %+v", ticked)
	}
	if once.LoadAvg != 335 || once.UtilAvg != 1024 || once.RunnableAvg != 1024 {
		t.Errorf("once: %+v", once)
	}
}
