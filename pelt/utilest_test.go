package pelt

import "testing"

// util_est_update, case by case in the kernel's order.
func TestUtilEstUpdate(t *testing.T) {
	const f = UtilAvgUnchanged
	tests := []struct {
		name string
		se   Avg
		want uint32
	}{
		{"a flagged estimate is not resampled", Avg{UtilEst: f | 100, UtilAvg: 900}, f | 100},
		{"a rise is taken at once", Avg{UtilEst: 100, UtilAvg: 300}, f | 300},
		{"an equal sample re-arms the flag", Avg{UtilEst: 300, UtilAvg: 300}, f | 300},
		{"within the margin the estimate stays", Avg{UtilEst: 309, UtilAvg: 300}, f | 309},
		// diff 10 is not within the margin: (4·310 − 10)/4 = 307.5 → 307.
		{"at the margin it decays", Avg{UtilEst: 310, UtilAvg: 300, RunnableAvg: 300}, f | 307},
		// 300 + 10 < 311: the task waited to run; keep.
		{"a starved task keeps its estimate", Avg{UtilEst: 600, UtilAvg: 300, RunnableAvg: 311}, f | 600},
		// 300 + 10 = 310 is not below 310: (2400 − 300)/4 = 525.
		{"a quarter of the way down", Avg{UtilEst: 600, UtilAvg: 300, RunnableAvg: 310}, f | 525},
		// (2404 − 301)/4 = 525.75 → 525.
		{"the decay floors", Avg{UtilEst: 601, UtilAvg: 300}, f | 525},
		// util_avg 2^32 + 5 is sampled as 5: (400 − 95)/4 = 76.25 → 76.
		{"the sample is util_avg's low 32 bits", Avg{UtilEst: 100, UtilAvg: 1<<32 + 5}, f | 76},
		// e = 2^30 + 100: 4e mod 2^32 = 400; 400 − e mod 2^32 = 3221225772;
		// >> 2 = 805306443 (a u32 estimate, as the kernel's).
		{"the weighting wraps in 32 bits", Avg{UtilEst: 1<<30 + 100}, f | 805306443},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			se := tt.se
			se.UtilEstUpdate()
			if se.UtilEst != tt.want {
				t.Errorf("util_est %#x, want %#x", se.UtilEst, tt.want)
			}
			rest := se
			rest.UtilEst = tt.se.UtilEst
			if rest != tt.se {
				t.Errorf("other fields changed: %+v", se)
			}
		})
	}
}

func TestUtilEstQueue(t *testing.T) {
	var q Avg
	a := Avg{UtilEst: UtilAvgUnchanged | 300}
	b := Avg{UtilEst: 200}
	UtilEstEnqueue(&q, &a)
	UtilEstEnqueue(&q, &b)
	if q.UtilEst != 500 {
		t.Fatalf("sum %d, want 500 (flags stripped)", q.UtilEst)
	}
	UtilEstDequeue(&q, &a)
	if q.UtilEst != 200 {
		t.Fatalf("sum %d after dequeue, want 200", q.UtilEst)
	}
	big := Avg{UtilEst: 900}
	UtilEstDequeue(&q, &big)
	if q.UtilEst != 0 {
		t.Fatalf("sum %d, want a clamp at 0", q.UtilEst)
	}
	if got := TaskUtilEst(&Avg{UtilAvg: 100, UtilEst: UtilAvgUnchanged | 300}); got != 300 {
		t.Errorf("task_util_est %d, want 300", got)
	}
	if got := TaskUtilEst(&Avg{UtilAvg: 400, UtilEst: 300}); got != 400 {
		t.Errorf("task_util_est %d, want 400", got)
	}
}

// A task that runs 10 ms then sleeps, over and over: its util_avg swings,
// its util_est follows the peaks up at once and holds them.
func TestUtilEstAcrossSleeps(t *testing.T) {
	var se Avg
	now := uint64(0)
	for cycle := 0; cycle < 20; cycle++ {
		now += 10 * msNs
		se.UpdateEntity(now, 1, 1, true, 1024)
		se.UtilEstUpdate() // the sleep
		if se.UtilEstValue() < se.UtilAvg {
			t.Fatalf("cycle %d: util_est %d below util_avg %d at the sleep", cycle, se.UtilEstValue(), se.UtilAvg)
		}
		peak := se.UtilEst
		now += 30 * msNs
		se.UpdateEntity(now, 0, 0, false, 1024) // blocked: the flag is cleared
		if se.UtilEst != peak&^UtilAvgUnchanged {
			t.Fatalf("cycle %d: util_est %#x after sleeping, want %#x", cycle, se.UtilEst, peak&^UtilAvgUnchanged)
		}
	}
}
