package pelt_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/pelt"
)

// A contribution loses about 2.1 % per period and half of itself every 32
// periods; the table's first entry, 2^32 − 1 rather than 2^32, takes one
// more unit off an exact multiple of 32.
func ExampleDecayLoad() {
	fmt.Println(pelt.DecayLoad(1024, 1))
	fmt.Println(pelt.DecayLoad(pelt.LoadAvgMax, 1))
	fmt.Println(pelt.DecayLoad(pelt.LoadAvgMax, 32))
	fmt.Println(pelt.DecayLoad(pelt.LoadAvgMax, 2017))
	// Output:
	// 1002
	// 46718
	// 23870
	// 0
}

// A nice-0 task starts running at t = 0 and is updated on every 1 ms tick.
// Its util_avg is recomputed only when an update crosses a period
// boundary (1048576 ns): not at the first tick.
func ExampleAvg_UpdateEntity() {
	var se pelt.Avg
	for t := uint64(1); t <= 10; t++ {
		crossed := se.UpdateEntity(t*1000000, 1, 1, true, 1024)
		fmt.Printf("%2d ms: util_avg %3d (boundary %v)\n", t, se.UtilAvg, crossed)
	}
	// Output:
	//  1 ms: util_avg   0 (boundary false)
	//  2 ms: util_avg  41 (boundary true)
	//  3 ms: util_avg  61 (boundary true)
	//  4 ms: util_avg  81 (boundary true)
	//  5 ms: util_avg 100 (boundary true)
	//  6 ms: util_avg 119 (boundary true)
	//  7 ms: util_avg 137 (boundary true)
	//  8 ms: util_avg 156 (boundary true)
	//  9 ms: util_avg 173 (boundary true)
	// 10 ms: util_avg 191 (boundary true)
}

// wake_up_new_task on an idle CPU: the new task looks fully loaded, gets
// half the CPU as its first utilization, and its first enqueue attaches it
// to the queue, which takes the task's averages as they are.
func ExampleAvg_Attach() {
	q := pelt.Avg{LastUpdateTime: 5 << 20}
	se := pelt.NewTaskAvg(1024)
	pelt.PostInitUtilAvg(&q, &se, 1024)
	prop := q.Attach(&se, 1024)
	fmt.Printf("task:  load %d util %d runnable %d load_sum %d\n", se.LoadAvg, se.UtilAvg, se.RunnableAvg, se.LoadSum)
	fmt.Printf("queue: load %d util %d runnable %d, propagate %d\n", q.LoadAvg, q.UtilAvg, q.RunnableAvg, prop)
	// Output:
	// task:  load 1024 util 512 runnable 512 load_sum 46718
	// queue: load 1024 util 512 runnable 512, propagate 46718
}

// A task that slept elsewhere leaves its load behind on its old queue;
// the queue takes it off at its next update.
func ExampleAvg_ApplyRemoved() {
	q := pelt.Avg{LoadAvg: 2048, LoadSum: 2048 * 46718, UtilAvg: 800, UtilSum: 800 * 46718}
	task := pelt.Avg{LoadAvg: 1024, UtilAvg: 300}
	var removed pelt.Removed
	removed.Add(&task) // remove_entity_load_avg, after a Sync
	prop, applied := q.ApplyRemoved(&removed)
	fmt.Println(q.LoadAvg, q.UtilAvg, prop, applied)
	// Output:
	// 1024 500 0 true
}

// util_est follows a task's peaks: it jumps up to util_avg at a sleep and
// comes down a quarter of the way per sleep.
func ExampleAvg_UtilEstUpdate() {
	se := pelt.Avg{UtilAvg: 600}
	se.UtilEstUpdate()
	fmt.Println(se.UtilEstValue())
	for _, u := range []uint64{200, 200, 200} {
		se.UtilEst &^= pelt.UtilAvgUnchanged // util_avg was recomputed since
		se.UtilAvg, se.RunnableAvg = u, u
		se.UtilEstUpdate()
		fmt.Println(se.UtilEstValue())
	}
	// Output:
	// 600
	// 500
	// 425
	// 368
}
