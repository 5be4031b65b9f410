package pelt

import "testing"

// A new nice-0 task forked onto an idle queue that sits 100 units into its
// period (divider D = 46818):
//
//	init:      load_avg = 1024 (looks fully loaded)
//	post_init: cap = (1024 − 0)/2 = 512 → util_avg = runnable_avg = 512
//	attach:    util_sum = runnable_sum = 512·46818 = 23970816
//	           load_sum = 1024·46818 = 47941632 > w = 1024 → /1024 = 46818
//	queue:     load_avg 1024, load_sum 1024·46818 = 47941632 (≥ 1024·46718)
//	           util/runnable 512 and 23970816; propagate +46818
func TestAttachNewTask(t *testing.T) {
	q := Avg{LastUpdateTime: 7 * periodNs, PeriodContrib: 100}
	se := NewTaskAvg(1024)
	PostInitUtilAvg(&q, &se, 1024)
	prop := q.Attach(&se, 1024)
	wantSe := Avg{
		LastUpdateTime: 7 * periodNs, PeriodContrib: 100,
		LoadSum: 46818, RunnableSum: 23970816, UtilSum: 23970816,
		LoadAvg: 1024, RunnableAvg: 512, UtilAvg: 512,
	}
	wantQ := Avg{
		LastUpdateTime: 7 * periodNs, PeriodContrib: 100,
		LoadSum: 47941632, RunnableSum: 23970816, UtilSum: 23970816,
		LoadAvg: 1024, RunnableAvg: 512, UtilAvg: 512,
	}
	if se != wantSe {
		t.Errorf("entity %+v\nwant   %+v", se, wantSe)
	}
	if q != wantQ {
		t.Errorf("queue %+v\nwant  %+v", q, wantQ)
	}
	if prop != 46818 {
		t.Errorf("propagate %d, want 46818", prop)
	}

	// Detaching it again takes everything back out and propagates −46818.
	if prop := q.Detach(&se, 1024); prop != -46818 {
		t.Errorf("detach propagate %d", prop)
	}
	if want := (Avg{LastUpdateTime: 7 * periodNs, PeriodContrib: 100}); q != want {
		t.Errorf("queue after detach %+v", q)
	}
}

// attach's load_sum: load_avg·D/w, or 1 when w ≥ load_avg·D (the quotient
// would be 0 and a non-zero load_avg would come with a zero load_sum).
func TestAttachLoadSum(t *testing.T) {
	tests := []struct {
		name             string
		loadAvg, w       uint64
		wantSum, qSumAdd uint64
	}{
		// A new group entity: load_avg 0, 0 ≤ 1024 → 1; the queue gains 1024·1.
		{"a new group entity gets 1", 0, 1024, 1, 1024},
		// 1·46718 < 88761 (nice −20) → 1.
		{"a tiny load at a big weight gets 1", 1, 88761, 1, 88761},
		// 2·46718 = 93436 > 88761 → 93436/88761 = 1.05 → 1, by division.
		{"just above the weight divides", 2, 88761, 1, 88761},
		// 3·46718 = 140154 / 88761 = 1.58 → 1.
		{"the division floors", 3, 88761, 1, 88761},
		// 1024·46718/1024 = 46718.
		{"a full nice-0 load", 1024, 1024, 46718, 1024 * 46718},
		// nice 19 (15): 15·46718/15.
		{"a full nice-19 load", 15, 15, 46718, 15 * 46718},
		// Only the low 32 bits of the weight divide (div_u64): 2^32 + 3 → 3.
		{"div_u64 divides by the low 32 bits of the weight", 1 << 20, 1<<32 + 3, (1 << 20) * 46718 / 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q Avg // divider 46718
			se := Avg{LoadAvg: tt.loadAvg}
			prop := q.Attach(&se, tt.w)
			if se.LoadSum != tt.wantSum || prop != int64(tt.wantSum) {
				t.Errorf("load_sum %d, propagate %d; want %d", se.LoadSum, prop, tt.wantSum)
			}
			if tt.qSumAdd != 0 && q.LoadSum != max(tt.qSumAdd, tt.loadAvg*MinDivider) {
				t.Errorf("queue load_sum %d, want %d", q.LoadSum, tt.qSumAdd)
			}
		})
	}
}

func TestAttachAddsUtilUnclamped(t *testing.T) {
	// attach adds util and runnable with plain (wrapping) additions:
	// util_sum in 32 bits.
	q := Avg{UtilAvg: 3, UtilSum: 1<<32 - 100}
	se := Avg{UtilAvg: 1} // util_sum = 1·46718
	q.Attach(&se, 1024)
	if q.UtilAvg != 4 || q.UtilSum != 46718-100 {
		t.Errorf("util avg %d sum %d", q.UtilAvg, q.UtilSum)
	}
}

func TestDetachClamps(t *testing.T) {
	t.Run("an entity bigger than the queue leaves zeros", func(t *testing.T) {
		q := Avg{UtilAvg: 100, UtilSum: 100*46718 + 5, RunnableAvg: 7, RunnableSum: 7 * 46718}
		se := Avg{UtilAvg: 101, UtilSum: 101 * 47000, RunnableAvg: 8, RunnableSum: 8 * 46800}
		q.Detach(&se, 1024)
		if q != (Avg{}) {
			t.Errorf("got %+v", q)
		}
	})
	t.Run("the floor keeps the sum at avg·46718", func(t *testing.T) {
		// util: avg 300 − 100 = 200; sum 14015410 − 4770000 = 9245410
		// < 200·46718 = 9343600, so the floor sets it.
		q := Avg{UtilAvg: 300, UtilSum: 300*46718 + 10}
		se := Avg{UtilAvg: 100, UtilSum: 100 * 47700}
		q.Detach(&se, 1024)
		if q.UtilAvg != 200 || q.UtilSum != 9343600 {
			t.Errorf("util avg %d sum %d", q.UtilAvg, q.UtilSum)
		}
	})
	t.Run("the propagated amount is −load_sum", func(t *testing.T) {
		var q Avg
		se := Avg{LoadSum: 12345}
		if got := q.Detach(&se, 1024); got != -12345 {
			t.Errorf("got %d", got)
		}
	})
}

// post_init_entity_util_avg: cap = (1024 − q.util_avg)/2 (signed,
// truncated); util_avg = min(q.util_avg·w/(q.load_avg + 1), cap), or cap on
// an idle queue; nothing if cap ≤ 0; runnable_avg = util_avg.
func TestPostInitUtilAvg(t *testing.T) {
	tests := []struct {
		name string
		q    Avg
		w    uint64
		se   Avg
		want uint64
	}{
		{"an idle queue gives half the CPU", Avg{}, 1024, Avg{}, 512},
		// cap 256; 512·1024/1025 = 511.5 → 511 > 256 → 256.
		{"the second fork is capped at half the rest", Avg{UtilAvg: 512, LoadAvg: 1024}, 1024, Avg{}, 256},
		// cap 462; 100·1024/3001 = 34.1 → 34.
		{"utilization per load times the weight", Avg{UtilAvg: 100, LoadAvg: 3000}, 1024, Avg{}, 34},
		// nice 19: 100·15/3001 = 0.5 → 0.
		{"a light task can start at zero", Avg{UtilAvg: 100, LoadAvg: 3000}, 15, Avg{}, 0},
		{"a full queue leaves util_avg alone", Avg{UtilAvg: 1024}, 1024, Avg{UtilAvg: 7}, 7},
		// (1024 − 1023)/2 = 0.
		{"a cap that rounds to zero leaves it alone", Avg{UtilAvg: 1023}, 1024, Avg{}, 0},
		// (long)(1024 − 2000) = −976, /2 = −488.
		{"an overloaded queue leaves it alone", Avg{UtilAvg: 2000}, 1024, Avg{UtilAvg: 9}, 9},
		// cap (1024 − 1022)/2 = 1.
		{"a cap of one", Avg{UtilAvg: 1022, LoadAvg: 10}, 1024, Avg{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, se := tt.q, tt.se
			PostInitUtilAvg(&q, &se, tt.w)
			if se.UtilAvg != tt.want || se.RunnableAvg != tt.want {
				t.Errorf("util %d runnable %d, want %d", se.UtilAvg, se.RunnableAvg, tt.want)
			}
			if q != tt.q {
				t.Errorf("queue changed: %+v", q)
			}
		})
	}
	// The kernel's series of successive forks on an empty CPU, each new
	// task attached before the next fork: 512, 256, 128, …
	var q Avg
	want := []uint64{512, 256, 128, 64, 32, 16, 8, 4, 2, 1, 0}
	for i, w := range want {
		se := NewTaskAvg(1024)
		PostInitUtilAvg(&q, &se, 1024)
		if se.UtilAvg != w {
			t.Fatalf("fork %d: util_avg %d, want %d", i, se.UtilAvg, w)
		}
		q.Attach(&se, 1024)
	}
}
