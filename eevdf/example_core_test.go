package eevdf_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// interactive runs a CPU hog beside a task that computes for 200 µs and
// then sleeps for 1 ms, for 100 ms in steps of 10 µs with a tick every
// millisecond, and reports each task's runtime and the interactive task's
// worst wakeup latency (from its wakeup to its next pick).
func interactive(opts ...eevdf.Option) (hogMs, ioMs, worstUs uint64) {
	rq, _ := eevdf.NewCfsRq(opts...)
	hog, _ := eevdf.NewEntity("hog")
	io, _ := eevdf.NewEntity("io", eevdf.WithSlice(200_000))
	rq.WakeUpNew(hog)
	rq.WakeUpNew(io)
	rq.PickNext()
	var wakeAt, wokeAt uint64
	for now := uint64(10_000); now <= 100_000_000; now += 10_000 {
		rq.SetClock(now)
		if now%1_000_000 == 0 {
			rq.Tick()
		}
		if wakeAt != 0 && now >= wakeAt {
			rq.Wakeup(io, 0)
			wakeAt, wokeAt = 0, now
		}
		if rq.Curr() == io {
			rq.UpdateCurr()
			if io.SumExecRuntime()-io.PrevSumExecRuntime() >= 200_000 {
				rq.Sleep() // blocks and picks the next task
				wakeAt = now + 1_000_000
			}
		}
		if rq.NeedResched() {
			rq.PickNext()
		}
		if rq.Curr() == io && wokeAt != 0 {
			worstUs = max(worstUs, (now-wokeAt)/1000)
			wokeAt = 0
		}
	}
	return hog.SumExecRuntime() / 1e6, io.SumExecRuntime() / 1e6, worstUs
}

// A wakeup/sleep loop: Wakeup, Sleep and Tick drive the core's sequences
// in one call each; the caller schedules when NeedResched says so.
func ExampleCfsRq_Wakeup() {
	hog, io, worst := interactive()
	fmt.Printf("hog ran %d ms, io ran %d ms, io's worst wakeup latency %d µs\n", hog, io, worst)
	// Output:
	// hog ran 83 ms, io ran 16 ms, io's worst wakeup latency 0 µs
}

// The same workload with one toggle on and off: without PREEMPT_SHORT the
// short-slice task no longer preempts the hog when it wakes (the hog is
// inside its protected slice); it waits for the next tick to reschedule,
// at worst 400 µs here, and runs a little less.
func Example_featureToggle() {
	for _, tokens := range []string{"PREEMPT_SHORT", "NO_PREEMPT_SHORT"} {
		fs, _ := features.Parse(tokens)
		hog, io, worst := interactive(eevdf.WithFeatures(fs))
		fmt.Printf("%-16s hog %d ms, io %d ms, worst latency %d µs\n", tokens, hog, io, worst)
	}
	// Output:
	// PREEMPT_SHORT    hog 83 ms, io 16 ms, worst latency 0 µs
	// NO_PREEMPT_SHORT hog 84 ms, io 15 ms, worst latency 400 µs
}

// A feature write at run time takes effect at the feature's next use:
// here PLACE_LAG, read when B is placed at its wakeup. B left with lag
// +125000; with PLACE_LAG it comes back with it, without it at V.
func ExampleCfsRq_SetFeatures() {
	for _, write := range []bool{false, true} {
		rq, _ := eevdf.NewCfsRq()
		a, _ := eevdf.NewEntity("A")
		b, _ := eevdf.NewEntity("B")
		rq.WakeUpNew(a)
		rq.WakeUpNew(b)
		rq.PickNext() // A
		rq.SetClock(350_000)
		rq.Tick()     // A's first request is done
		rq.PickNext() // B
		rq.SetClock(450_000)
		rq.Sleep() // B sleeps owed 125 µs; A runs
		if write {
			fs := rq.Features().Without(features.PlaceLag)
			if err := rq.SetFeatures(fs); err != nil {
				fmt.Println(err)
				return
			}
		}
		rq.SetClock(550_000)
		rq.Wakeup(b, 0)
		fmt.Printf("PLACE_LAG %-5v B's saved lag %d, its lag after the wakeup %d, preempts A: %v\n",
			rq.Features().Has(features.PlaceLag), b.VLag(), rq.Lag(b), rq.NeedResched())
	}
	// Output:
	// PLACE_LAG true  B's saved lag 125000, its lag after the wakeup 125000, preempts A: true
	// PLACE_LAG false B's saved lag 125000, its lag after the wakeup 0, preempts A: false
}

// LagLimit is the bound a lag saved now is clamped to: the queue's
// largest slice plus a tick, in the entity's virtual time. A, having run
// 10 ms beside L, owes 5 ms; its sleep saves −4 ms, the limit (and, not
// eligible, it stays queued as delayed).
func ExampleCfsRq_LagLimit() {
	rq, _ := eevdf.NewCfsRq()
	a, _ := eevdf.NewEntity("A")
	long, _ := eevdf.NewEntity("L", eevdf.WithSlice(3_000_000))
	rq.WakeUpNew(a)
	fmt.Println("A alone:", rq.LagLimit(a))
	rq.WakeUpNew(long)
	fmt.Println("with L's 3 ms slice:", rq.LagLimit(a))
	rq.PickNext() // A
	rq.SetClock(10_000_000)
	rq.UpdateCurr()
	fmt.Println("A's live lag after 10 ms:", rq.Lag(a))
	rq.Sleep()
	fmt.Println("saved at its sleep:", a.VLag(), "delayed:", a.Delayed())
	// Output:
	// A alone: 1700000
	// with L's 3 ms slice: 4000000
	// A's live lag after 10 ms: -5000000
	// saved at its sleep: -4000000 delayed: true
}
