package pelt

import "testing"

// Two tasks leave a queue whose divider is 46918 (period_contrib 200):
// removed load 1024 + 512 = 1536, util 300 + 200 = 500, runnable
// 300 + 250 = 550.
//
//	load:     avg 3000 − 1536 = 1464; sum 3000·46918 − 1536·46918 = 1464·46918
//	          (≥ 1464·46718, so the floor does not act)
//	util:     avg 800 − 500 = 300; sum 300·46918 = 14075400
//	runnable: avg 900 − 550 = 350; sum 350·46918 = 16421300
//	propagate −(550·46918) >> 10 = −25804900 >> 10 = ⌊−25200.1⌋ = −25201
func TestRemovedTwoTasks(t *testing.T) {
	q := Avg{
		PeriodContrib: 200,
		LoadAvg:       3000, LoadSum: 3000 * 46918,
		UtilAvg: 800, UtilSum: 800 * 46918,
		RunnableAvg: 900, RunnableSum: 900 * 46918,
	}
	var r Removed
	r.Add(&Avg{LoadAvg: 1024, UtilAvg: 300, RunnableAvg: 300, LoadSum: 99, UtilSum: 99})
	r.Add(&Avg{LoadAvg: 512, UtilAvg: 200, RunnableAvg: 250})
	if r != (Removed{NR: 2, LoadAvg: 1536, UtilAvg: 500, RunnableAvg: 550}) {
		t.Fatalf("accumulated %+v", r)
	}
	prop, applied := q.ApplyRemoved(&r)
	want := Avg{
		PeriodContrib: 200,
		LoadAvg:       1464, LoadSum: 1464 * 46918,
		UtilAvg: 300, UtilSum: 300 * 46918,
		RunnableAvg: 350, RunnableSum: 350 * 46918,
	}
	if q != want {
		t.Errorf("queue %+v\nwant  %+v", q, want)
	}
	if prop != -25201 || !applied {
		t.Errorf("prop %d applied %v; want −25201 true", prop, applied)
	}
	if r != (Removed{}) {
		t.Errorf("removed not zeroed: %+v", r)
	}
}

func TestRemovedEdges(t *testing.T) {
	t.Run("nothing removed changes nothing", func(t *testing.T) {
		q := Avg{LoadAvg: 5}
		r := Removed{}
		if prop, applied := q.ApplyRemoved(&r); prop != 0 || applied || q != (Avg{LoadAvg: 5}) {
			t.Errorf("prop %d applied %v queue %+v", prop, applied, q)
		}
	})
	t.Run("removed zero load still counts as applied", func(t *testing.T) {
		// A fully decayed task leaves: nr = 1, all averages 0. The kernel
		// still sets decayed and propagates 0.
		q := Avg{LoadAvg: 5, LoadSum: 5 * 46718}
		r := Removed{NR: 1}
		if prop, applied := q.ApplyRemoved(&r); prop != 0 || !applied {
			t.Errorf("prop %d applied %v", prop, applied)
		}
		if q.LoadAvg != 5 || q.LoadSum != 5*46718 {
			t.Errorf("queue %+v", q)
		}
	})
	t.Run("removing more than the queue holds clamps to zero", func(t *testing.T) {
		q := Avg{LoadAvg: 100, LoadSum: 100 * 46718, UtilAvg: 10, UtilSum: 10 * 46718}
		r := Removed{NR: 1, LoadAvg: 200, UtilAvg: 20}
		q.ApplyRemoved(&r)
		if q.LoadAvg != 0 || q.LoadSum != 0 || q.UtilAvg != 0 || q.UtilSum != 0 {
			t.Errorf("queue %+v", q)
		}
	})
	t.Run("a removed util sum beyond an int wraps to a positive delta", func(t *testing.T) {
		// −50000·46718 modulo 2^32 = 1959067296, a positive int: util_sum
		// grows by it instead of shrinking (the kernel's int conversion),
		// while util_avg goes 60000 → 10000 (floor 10000·46718 = 467180000).
		q := Avg{UtilAvg: 60000, UtilSum: 100}
		r := Removed{NR: 1, UtilAvg: 50000}
		q.ApplyRemoved(&r)
		if q.UtilAvg != 10000 || q.UtilSum != 100+1959067296 {
			t.Errorf("util avg %d sum %d", q.UtilAvg, q.UtilSum)
		}
	})
	t.Run("the propagated estimate rounds toward minus infinity", func(t *testing.T) {
		// 1·46718 = 46718; −46718 >> 10 = ⌊−45.6⌋ = −46.
		q := Avg{RunnableAvg: 1, RunnableSum: 46718}
		r := Removed{NR: 1, RunnableAvg: 1}
		if prop, _ := q.ApplyRemoved(&r); prop != -46 {
			t.Errorf("prop %d", prop)
		}
	})
}

// remove_entity_load_avg as a caller composes it: Sync to the queue's
// last update, then Add.
func TestRemoveAfterSync(t *testing.T) {
	// A task that blocked at a period boundary with load_sum 46718·k…
	se := Avg{LastUpdateTime: 10 * periodNs, LoadSum: 23359, UtilSum: 23359 << 10,
		RunnableSum: 23359 << 10, LoadAvg: 512, UtilAvg: 512, RunnableAvg: 512}
	// …and its queue, last updated 32 periods later.
	se.Sync(42*periodNs, 1024)
	var r Removed
	r.Add(&se)
	// 23359 → 11679 (>> 1) → 11678 (inv[0]); 1024·11678/46718 = 255.96 → 255;
	// util: 23359·1024 = 23919616 → 11959808 → 11959807 /46718 = 255.99 → 255.
	if r != (Removed{NR: 1, LoadAvg: 255, UtilAvg: 255, RunnableAvg: 255}) {
		t.Errorf("removed %+v (entity %+v)", r, se)
	}
}
