package sim_test

import (
	"fmt"
	"os"
	"time"

	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/topology"
)

// A cyclictest thread with a short custom slice against two CPU hogs on
// one CPU: the thread's latency stays within a slice, and the hogs share
// the rest of the CPU evenly.
func Example() {
	ct := sim.Cyclictest(1, time.Millisecond, sim.TaskOptions{Slice: 100 * time.Microsecond})
	cfg := sim.Config{
		Seed:      1,
		Duration:  time.Second,
		Workloads: []sim.Workload{ct, sim.Stress(2, sim.TaskOptions{})},
	}
	r, err := sim.Simulate(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	l := r.Workloads[0].Latency
	fmt.Printf("%d samples, max latency under a slice: %v\n", l.Count, l.Max < 100_000)
	for _, t := range r.Tasks[1:] {
		fmt.Printf("%s ran %d ms\n", t.Name, t.RuntimeNs/1_000_000)
	}
	// Output:
	// 1000 samples, max latency under a slice: true
	// stress-0 ran 499 ms
	// stress-1 ran 499 ms
}

// Seed 004's experiment: yield_loop against stress on one CPU, with the
// merged yield and with the v6.6 one, printed as perf sched latency does.
func Example_yieldLoop() {
	for _, tokens := range []string{"", "YIELD_BUMP_DEADLINE"} {
		fs, _ := features.Parse(tokens)
		r, err := sim.Simulate(sim.Config{
			Duration: 30 * time.Second,
			Features: &fs,
			Workloads: []sim.Workload{
				sim.YieldLoop(5*time.Second, sim.TaskOptions{}),
				sim.Stress(1, sim.TaskOptions{}),
			},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, t := range r.Tasks {
			fmt.Printf("%-12q %-10s %6d ms runtime, max delay %5d ms\n", tokens, t.Name, t.RuntimeNs/1e6, t.MaxDelayNs/1e6)
		}
	}
	// Output:
	// ""           yield_loop  12507 ms runtime, max delay     1 ms
	// ""           stress-0    17492 ms runtime, max delay     1 ms
	// "YIELD_BUMP_DEADLINE" yield_loop  27500 ms runtime, max delay     1 ms
	// "YIELD_BUMP_DEADLINE" stress-0     2500 ms runtime, max delay 25001 ms
}

// Latency tables in the seed threads' layout, comparing two variants: a
// cyclictest thread with a short slice among hogs with long ones, with and
// without PREEMPT_SHORT.
func ExampleWriteLatencyTable() {
	var cols []sim.LatencyColumn
	for _, v := range []struct{ title, tokens string }{
		{"NO_PREEMPT_SHORT", "NO_PREEMPT_SHORT"},
		{"PREEMPT_SHORT", ""},
	} {
		fs, _ := features.Parse(v.tokens)
		r, err := sim.Simulate(sim.Config{
			Duration: 2 * time.Second,
			Features: &fs,
			Workloads: []sim.Workload{
				sim.Cyclictest(1, 2777*time.Microsecond, sim.TaskOptions{Slice: 300 * time.Microsecond}),
				sim.Stress(3, sim.TaskOptions{Slice: 3 * time.Millisecond}),
			},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		cols = append(cols, sim.LatencyColumn{Title: v.title, Summary: *r.Workloads[0].Latency})
	}
	sim.WriteLatencyTable(os.Stdout, cols)
	// Output:
	//                         NO_PREEMPT_SHORT    PREEMPT_SHORT
	// Total Samples          |       720              720
	// Average           (us) |        23                0(-100%)
	// Median (P50)      (us) |         0                0
	// 90th Percentile   (us) |         0                0
	// 99th Percentile   (us) |       772                0(-100%)
	// 99.9th Percentile (us) |      1244                0(-100%)
	// Maximum           (us) |      1244                0(-100%)
}

// A machine of two packages of two cores of two SMT threads, running four
// cyclictest threads, placed by the kernel's rules (package smp). Each
// thread is forked, from CPU 0, while the ones before it sleep: the fork
// slow path keeps a fork in the forking CPU's group while that group has
// as many idle CPUs as any, and inside it takes the most recently idled
// CPU, which is CPU 0 each time. Their timers never expire together, so
// every wakeup finds CPU 0 idle and stays there (rule target).
func Example_severalCPUs() {
	r, err := sim.Simulate(sim.Config{
		Seed:        1,
		Machine:     topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 2},
		Duration:    100 * time.Millisecond,
		StartJitter: time.Millisecond,
		Workloads:   []sim.Workload{sim.Cyclictest(4, time.Millisecond, sim.TaskOptions{})},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d CPUs (%s), base slice %d us\n", r.CPUs, r.Machine, r.BaseSliceNs/1000)
	for _, t := range r.Tasks {
		fmt.Printf("%s on CPU %d, %d migrations\n", t.Name, t.CPU, t.Migrations)
	}
	for _, rc := range r.Placement.Rules {
		if rc.Placed > 0 {
			fmt.Printf("%-9s placed %3d\n", rc.Rule, rc.Placed)
		}
	}
	// Output:
	// 8 CPUs (2x1x2x2 linear), base slice 2800 us
	// cyclictest-0 on CPU 0, 0 migrations
	// cyclictest-1 on CPU 0, 0 migrations
	// cyclictest-2 on CPU 0, 0 migrations
	// cyclictest-3 on CPU 0, 0 migrations
	// target    placed 396
	// slow_path placed   4
}
