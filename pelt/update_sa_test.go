package pelt

import "testing"

// __update_sa: add_positive on the average and the sum, then the floor
// sum ≥ avg·46718.
func TestUpdateSA(t *testing.T) {
	tests := []struct {
		name       string
		signal     string // "load", "runnable" or "util"
		avg, sum   uint64
		dAvg, dSum int64
		wantAvg    uint64
		wantSum    uint64
	}{
		// 150·47000 = 7050000 ≥ 150·46718 = 7007700: the floor does not act.
		{"a positive delta adds", "load", 100, 100 * 47000, 50, 50 * 47000, 150, 7050000},
		{"a negative delta subtracts", "load", 100, 100 * 47000, -40, -40 * 47000, 60, 60 * 47000},
		{"a negative delta past zero clamps to zero", "load", 10, 1000, -20, -2000, 0, 0},
		// 101·46718 = 4718518 > 1000.
		{"the floor raises the sum to avg·MinDivider", "load", 100, 1000, 1, 0, 101, 4718518},
		// add_positive clamps only a negative delta: a positive one wraps.
		{"a positive delta wraps past 2^64 unclamped", "load", ^uint64(0) - 9, 0, 20, 0, 10, 10 * MinDivider},
		{"runnable behaves as load", "runnable", 5, 5 * 46718, -5, -5 * 46718, 0, 0},
		// util_sum is a u32; the delta is converted to an int: 2^32 + 3 → 3.
		{"a util sum delta is taken modulo 2^32", "util", 0, 5, 0, 1<<32 + 3, 0, 8},
		{"a negative util delta past zero clamps", "util", 0, 100, 0, -200, 0, 0},
		// 91934·46718 = 4294972612 = 2^32 + 5316: the floor is truncated to
		// util_sum's 32 bits, as max_t(u32, …) does.
		{"the util floor is computed in 32 bits", "util", 91933, 10, 1, 0, 91934, 5316},
		// 2^31 + 5 as an int is negative: the sum is clamped, not grown.
		{"a util delta above 2^31 reads as negative", "util", 0, 100, 0, 1<<31 + 5, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Avg
			var gotAvg, gotSum uint64
			switch tt.signal {
			case "load":
				a.LoadAvg, a.LoadSum = tt.avg, tt.sum
				a.AddLoad(tt.dAvg, tt.dSum)
				gotAvg, gotSum = a.LoadAvg, a.LoadSum
			case "runnable":
				a.RunnableAvg, a.RunnableSum = tt.avg, tt.sum
				a.AddRunnable(tt.dAvg, tt.dSum)
				gotAvg, gotSum = a.RunnableAvg, a.RunnableSum
			case "util":
				a.UtilAvg, a.UtilSum = tt.avg, uint32(tt.sum)
				a.AddUtil(tt.dAvg, tt.dSum)
				gotAvg, gotSum = a.UtilAvg, uint64(a.UtilSum)
			}
			if gotAvg != tt.wantAvg || gotSum != tt.wantSum {
				t.Errorf("avg, sum = %d, %d; want %d, %d", gotAvg, gotSum, tt.wantAvg, tt.wantSum)
			}
			// Only the named signal moves.
			rest := a
			rest.LoadAvg, rest.LoadSum, rest.RunnableAvg, rest.RunnableSum, rest.UtilAvg, rest.UtilSum = 0, 0, 0, 0, 0, 0
			if rest != (Avg{}) {
				t.Errorf("other fields changed: %+v", a)
			}
		})
	}
}

func TestEnqueueDequeueLoad(t *testing.T) {
	t.Run("enqueue adds load_avg and the weighted load_sum, then the floor", func(t *testing.T) {
		// sum 14100000 + 1024·23000 = 37652000 < 812·46718 = 37935016.
		q := Avg{LoadAvg: 300, LoadSum: 300 * 47000}
		se := Avg{LoadAvg: 512, LoadSum: 23000}
		q.EnqueueLoad(&se, 1024)
		if q.LoadAvg != 812 || q.LoadSum != 37935016 {
			t.Errorf("got avg %d sum %d", q.LoadAvg, q.LoadSum)
		}
	})
	t.Run("dequeue undoes enqueue", func(t *testing.T) {
		q := Avg{LoadAvg: 300, LoadSum: 300 * 47000}
		se := Avg{LoadAvg: 512, LoadSum: 24000} // 812·46718 < 14100000 + 24576000
		q.EnqueueLoad(&se, 1024)
		q.DequeueLoad(&se, 1024)
		if q.LoadAvg != 300 || q.LoadSum != 300*47000 {
			t.Errorf("got avg %d sum %d", q.LoadAvg, q.LoadSum)
		}
	})
	t.Run("dequeue of more than the queue holds clamps both to zero", func(t *testing.T) {
		q := Avg{LoadAvg: 100, LoadSum: 5000000}
		se := Avg{LoadAvg: 150, LoadSum: 10000} // 1024·10000 > 5000000
		q.DequeueLoad(&se, 1024)
		if q.LoadAvg != 0 || q.LoadSum != 0 {
			t.Errorf("got avg %d sum %d", q.LoadAvg, q.LoadSum)
		}
	})
	t.Run("dequeue clamps the sum, and the floor restores the remaining average", func(t *testing.T) {
		// avg 500 − 100 = 400; sum 20000000 − 1024·20000 < 0 → 0 → 400·46718.
		q := Avg{LoadAvg: 500, LoadSum: 20000000}
		se := Avg{LoadAvg: 100, LoadSum: 20000}
		q.DequeueLoad(&se, 1024)
		if q.LoadAvg != 400 || q.LoadSum != 400*MinDivider {
			t.Errorf("got avg %d sum %d", q.LoadAvg, q.LoadSum)
		}
	})
}

// reweight_entity: load_avg = w·load_sum/(46718 + period_contrib).
func TestReweight(t *testing.T) {
	tests := []struct {
		name    string
		se      Avg
		w, want uint64
	}{
		// 23359 = 46718/2: half the time at nice 0 is 512.
		{"half-loaded at nice 0", Avg{LoadSum: 23359}, 1024, 512},
		// nice 5 (335): 335·23359/46718 = 167.5 → 167.
		{"the same history at nice 5", Avg{LoadSum: 23359}, 335, 167},
		// The entity's own period_contrib: 1024·23359/47718 = 501.3 → 501.
		{"the divider is the entity's own", Avg{LoadSum: 23359, PeriodContrib: 1000}, 1024, 501},
		{"a zero weight gives zero", Avg{LoadSum: 23359, LoadAvg: 9}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			se := tt.se
			se.Reweight(tt.w)
			if se.LoadAvg != tt.want {
				t.Errorf("load_avg %d, want %d", se.LoadAvg, tt.want)
			}
		})
	}
}
