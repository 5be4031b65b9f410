package sim_test

import (
	"fmt"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/sim"
)

// A cyclictest thread against a task that spends 100 µs at a time in the
// kernel: under full preemption the timer interrupt preempts it at once;
// under the other models the thread waits for the end of the kernel
// section (lazy: or the next tick), about half a section on average.
func ExampleSys() {
	for _, m := range []eevdf.PreemptModel{eevdf.PreemptFull, eevdf.PreemptLazy, eevdf.PreemptNone} {
		r, err := sim.Simulate(sim.Config{
			Preempt:   m,
			BaseSlice: 2800 * time.Microsecond,
			Duration:  2778 * time.Millisecond,
			Workloads: []sim.Workload{
				sim.Cyclictest(1, 2777*time.Microsecond, sim.TaskOptions{Slice: 700 * time.Microsecond}),
				sim.Custom("syscalls", sim.TaskSpec{Name: "k", Program: []sim.Phase{
					sim.Forever(sim.Sys(100*time.Microsecond), sim.Run(time.Microsecond)),
				}}),
			},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		l := r.Workloads[0].Latency
		fmt.Printf("%-5v %d samples, mean %4.1f µs, max %2d µs\n", m, l.Count, l.Avg/1000, l.Max/1000)
	}
	// Output:
	// full  1000 samples, mean  0.0 µs, max  0 µs
	// lazy  1000 samples, mean 47.2 µs, max 99 µs
	// none  1000 samples, mean 48.9 µs, max 99 µs
}

// The kernel's default timer slack of 50 µs for a fair task: a
// cyclictest thread alone on a CPU ticking at 250 Hz wakes 50 µs after
// each expiry, unless a tick lands inside that window and fires its timer
// early (1.25 % of the expiries, 50 of 4000).
func ExampleConfig_timerSlack() {
	r, err := sim.Simulate(sim.Config{
		HZ:         250,
		TimerSlack: 50 * time.Microsecond,
		Duration:   4000*2777*time.Microsecond + time.Millisecond,
		Workloads:  []sim.Workload{sim.Cyclictest(1, 2777*time.Microsecond, sim.TaskOptions{})},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	early := 0
	for _, v := range r.Workloads[0].Samples {
		if v < 50_000 {
			early++
		}
	}
	l := r.Workloads[0].Latency
	fmt.Printf("%d samples, %d early, median %d µs\n", l.Count, early, l.P50/1000)
	// Output:
	// 4000 samples, 50 early, median 50 µs
}
