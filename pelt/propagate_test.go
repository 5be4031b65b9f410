package pelt

import "testing"

func TestPropagateUtil(t *testing.T) {
	t.Run("the group entity takes its queue's util and the parent follows", func(t *testing.T) {
		// Parent divider 46818. se: 200 → 300, util_sum 300·46818 = 14045400;
		// parent: avg 600 + 100 = 700, sum 600·46818 + 100·46818 = 32772600
		// (≥ 700·46718 = 32702600).
		q := Avg{PeriodContrib: 100, UtilAvg: 600, UtilSum: 600 * 46818}
		se := Avg{UtilAvg: 200, UtilSum: 200 * 46818}
		g := Avg{UtilAvg: 300}
		PropagateUtil(&q, &se, &g)
		if se.UtilAvg != 300 || se.UtilSum != 14045400 {
			t.Errorf("entity %+v", se)
		}
		if q.UtilAvg != 700 || q.UtilSum != 32772600 {
			t.Errorf("parent %+v", q)
		}
	})
	t.Run("equal averages change nothing, not even a stale sum", func(t *testing.T) {
		q := Avg{UtilAvg: 600, UtilSum: 1}
		se := Avg{UtilAvg: 300, UtilSum: 5}
		g := Avg{UtilAvg: 300, UtilSum: 999}
		PropagateUtil(&q, &se, &g)
		if se != (Avg{UtilAvg: 300, UtilSum: 5}) || q != (Avg{UtilAvg: 600, UtilSum: 1}) {
			t.Errorf("entity %+v parent %+v", se, q)
		}
	})
}

func TestPropagateRunnableTruncatesTheEntitySum(t *testing.T) {
	// A group queue with 100 runnable tasks: runnable_avg 102400.
	// 102400·46718 = 4783923200 does not fit the kernel's u32 new_sum:
	// the entity gets 4783923200 − 2^32 = 488955904. The parent adds that
	// but its floor, 102400·46718 in 64 bits, restores the full value.
	var q Avg
	se := Avg{}
	g := Avg{RunnableAvg: 102400}
	PropagateRunnable(&q, &se, &g)
	if se.RunnableAvg != 102400 || se.RunnableSum != 488955904 {
		t.Errorf("entity %+v", se)
	}
	if q.RunnableAvg != 102400 || q.RunnableSum != 4783923200 {
		t.Errorf("parent %+v", q)
	}
}

// update_tg_cfs_load, divider 46718, group entity weight 1024.
func TestPropagateLoad(t *testing.T) {
	tests := []struct {
		name        string
		se          Avg
		g           Avg
		gWeight     uint64
		runnableSum int64
		wantSum     uint64
		wantAvg     uint64
	}{
		// r = 1000 + 20000 = 21000 ≤ 46718; 1024·21000/46718 = 460.3 → 460.
		{"a gain adds to the entity's fraction", Avg{LoadSum: 1000, LoadAvg: 21}, Avg{}, 0, 20000, 21000, 460},
		// 40000 + 20000 = 60000 → capped at 46718: load_avg 1024.
		{"a gain is capped at always", Avg{LoadSum: 40000, LoadAvg: 876}, Avg{}, 0, 20000, 46718, 1024},
		// g: 61440000/3072 = 20000 < 30000; running 25000 > 20000 → 25000;
		// 1024·25000/46718 = 547.96 → 547.
		{"a loss estimates the queue's fraction, at least the running one",
			Avg{LoadSum: 30000, LoadAvg: 657, UtilSum: 25000 << 10}, Avg{LoadSum: 61440000}, 3072, -5000, 25000, 547},
		// 61440000/3072 = 20000 < 30000 and nothing runs: 20000 → 438.
		{"a loss without running time", Avg{LoadSum: 30000, LoadAvg: 657}, Avg{LoadSum: 61440000}, 3072, -5000, 20000, 438},
		// A zero group weight gives the estimate 0.
		{"a loss on an empty group queue", Avg{LoadSum: 30000, LoadAvg: 657}, Avg{LoadSum: 61440000}, 0, -1, 0, 0},
		// 1000 + 1 = 1001: 1024·1001/46718 = 21.9 → 21 = load_avg: nothing
		// is written, not even load_sum.
		{"an unchanged load_avg writes nothing", Avg{LoadSum: 1000, LoadAvg: 21}, Avg{}, 0, 1, 1000, 21},
		{"a zero runnable sum does nothing", Avg{LoadSum: 1000, LoadAvg: 5}, Avg{}, 0, 0, 1000, 5},
		// gWeight's low 32 bits divide: 2^32 + 2 → 2; 61440000/2 > 30000 → 30000.
		{"the group weight divides as a u32", Avg{LoadSum: 30000, LoadAvg: 1}, Avg{LoadSum: 61440000}, 1<<32 + 2, -1, 30000, 657},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Avg{LoadAvg: 5000, LoadSum: 5000 * 47000}
			se, g := tt.se, tt.g
			q0, se0 := q, se
			PropagateLoad(&q, &se, 1024, &g, tt.gWeight, tt.runnableSum)
			if se.LoadSum != tt.wantSum || se.LoadAvg != tt.wantAvg {
				t.Errorf("entity load_sum %d load_avg %d; want %d %d", se.LoadSum, se.LoadAvg, tt.wantSum, tt.wantAvg)
			}
			// The parent moves by the entity's differences.
			want := q0
			want.AddLoad(int64(se.LoadAvg-se0.LoadAvg), int64(1024*se.LoadSum-1024*se0.LoadSum))
			if q != want {
				t.Errorf("parent %+v, want %+v", q, want)
			}
			if g != tt.g {
				t.Errorf("group queue changed: %+v", g)
			}
		})
	}
}

func TestPropagateEntity(t *testing.T) {
	t.Run("nothing pending", func(t *testing.T) {
		var q, se, g Avg
		qp, gp := Propagation{}, Propagation{RunnableSum: 5}
		if PropagateEntity(&q, &qp, &se, 1024, &g, &gp, 1024) {
			t.Error("reported a propagation")
		}
		if qp != (Propagation{}) || gp != (Propagation{RunnableSum: 5}) {
			t.Errorf("qp %+v gp %+v", qp, gp)
		}
	})
	t.Run("a task attached to a group queue reaches the parent", func(t *testing.T) {
		// A new group entity attached to the root: load_sum 1.
		var root, gse, gq Avg
		var rootP, gqP Propagation
		rootP.Add(root.Attach(&gse, 1024))
		// A new task attached to the group queue.
		task := NewTaskAvg(1024)
		PostInitUtilAvg(&gq, &task, 1024)
		gqP.Add(gq.Attach(&task, 1024))
		if !gqP.Pending || gqP.RunnableSum != 46718 {
			t.Fatalf("group queue propagation %+v", gqP)
		}
		// The group entity's next update propagates: util and runnable
		// 512; load: r = 46718 + 1 capped at 46718 → load_avg 1024.
		if !PropagateEntity(&root, &rootP, &gse, 1024, &gq, &gqP, 1024) {
			t.Fatal("no propagation")
		}
		if gqP != (Propagation{}) {
			t.Errorf("group queue propagation not consumed: %+v", gqP)
		}
		if !rootP.Pending || rootP.RunnableSum != 1+46718 {
			t.Errorf("root propagation %+v", rootP)
		}
		wantSe := Avg{LoadSum: 46718, LoadAvg: 1024, UtilAvg: 512, UtilSum: 512 * 46718,
			RunnableAvg: 512, RunnableSum: 512 * 46718}
		if gse != wantSe {
			t.Errorf("group entity %+v\nwant         %+v", gse, wantSe)
		}
		// Root: load 0 + 1024, sum 1024·1 + 1024·(46718 − 1) = 1024·46718.
		wantRoot := Avg{LoadAvg: 1024, LoadSum: 1024 * 46718, UtilAvg: 512, UtilSum: 512 * 46718,
			RunnableAvg: 512, RunnableSum: 512 * 46718}
		if root != wantRoot {
			t.Errorf("root %+v\nwant %+v", root, wantRoot)
		}
	})
}
