package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
)

// benchConfig is tasks tasks on one CPU, hogs of them CPU hogs and the
// others alternating a CPU burst of 50..500 µs with a sleep of 0.1..2 ms,
// so that the CPU is overloaded and every kind of event occurs (creations,
// wakeups, completions, ticks, preemptions).
func benchConfig(tasks, hogs int, d time.Duration) Config {
	var specs []TaskSpec
	for i := range tasks - hogs {
		specs = append(specs, TaskSpec{Name: fmt.Sprintf("t%d", i), Program: []Phase{
			Forever(RunJitter(50*time.Microsecond, 450*time.Microsecond), SleepJitter(100*time.Microsecond, 1900*time.Microsecond)),
		}})
	}
	for i := range hogs {
		specs = append(specs, TaskSpec{Name: fmt.Sprintf("hog%d", i), Program: []Phase{Spin()}})
	}
	return Config{Seed: 1, Duration: d, Workloads: []Workload{Custom("bench", specs...)}}
}

// BenchmarkSimulator measures scheduler events per second on one CPU with
// 100 tasks, in steady state: one op is one event (Step), so ns/op is the
// cost of an event, allocs/op its allocations, and events/s the rate.
// "sleepers" are 100 run/sleep tasks (wakeups, completions, ticks),
// "hogs" 100 CPU hogs (ticks and preemptions), "mixed" 50 of each; each
// on both timeline backends.
func BenchmarkSimulator(b *testing.B) {
	for _, bk := range []eevdf.Backend{eevdf.BTree, eevdf.RBTree} {
		for _, tc := range []struct {
			name string
			hogs int
		}{{"sleepers", 0}, {"hogs", 100}, {"mixed", 50}} {
			b.Run(fmt.Sprintf("%v/%s", bk, tc.name), func(b *testing.B) {
				benchSteps(b, bk, tc.hogs)
			})
		}
	}
}

func benchSteps(b *testing.B, bk eevdf.Backend, hogs int) {
	cfg := benchConfig(100, hogs, 1<<62)
	cfg.Timeline = bk
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for s.Now() < 200*time.Millisecond { // reach the steady state
		s.Step()
	}
	b.ReportAllocs()
	e0 := s.events
	b.ResetTimer()
	for b.Loop() {
		s.Step()
	}
	b.ReportMetric(float64(s.events-e0)/b.Elapsed().Seconds(), "events/s")
}
