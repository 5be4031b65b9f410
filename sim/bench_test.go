package sim

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/scenario"
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

// oneCPUCases are BenchmarkSimulator's one-CPU cases: 100 tasks, hogs of
// them CPU hogs.
var oneCPUCases = []struct {
	name string
	hogs int
}{{"sleepers", 0}, {"hogs", 100}, {"mixed", 50}}

// BenchmarkSimulator measures scheduler events per second in steady state.
// One op is one Step: on one CPU one event, so ns/op is the cost of an
// event; on several CPUs a tick instant is one Step for every CPU's tick,
// so compare ns/event (and events/s, the rate); allocs/op is per Step.
//
// One CPU with 100 tasks: "sleepers" are 100 run/sleep tasks (wakeups,
// completions, ticks), "hogs" 100 CPU hogs (ticks and preemptions),
// "mixed" 50 of each; each on both timeline backends.
//
// Several CPUs ("cpus=N/…", one LLC of N single-thread cores, nohz off,
// the B-tree): "sleepers" are 4 run/sleep tasks per CPU (the machine
// about 80 % busy: every wakeup goes through select_idle_sibling and
// its scans, many migrate), "mixed" 2 of them and a hog per CPU, and
// "stress" 2 hogs per CPU (ticks and preemptions; N up to 1024, to show
// that an event's cost does not grow with the CPU count).
func BenchmarkSimulator(b *testing.B) {
	for _, bk := range []eevdf.Backend{eevdf.BTree, eevdf.RBTree} {
		for _, tc := range oneCPUCases {
			b.Run(fmt.Sprintf("%v/%s", bk, tc.name), func(b *testing.B) {
				cfg := benchConfig(100, tc.hogs, 1<<62)
				cfg.Timeline = bk
				benchSteps(b, cfg, 200*time.Millisecond)
			})
		}
	}
	for _, tc := range []struct {
		name           string
		cpus           []int
		sleepers, hogs int // per CPU
		warm           time.Duration
	}{
		{name: "sleepers", cpus: []int{8, 64}, sleepers: 4, warm: 200 * time.Millisecond},
		{name: "mixed", cpus: []int{8, 64}, sleepers: 2, hogs: 1, warm: 200 * time.Millisecond},
		{name: "stress", cpus: []int{8, 64, 1024}, hogs: 2, warm: 50 * time.Millisecond},
	} {
		for _, n := range tc.cpus {
			b.Run(fmt.Sprintf("cpus=%d/%s", n, tc.name), func(b *testing.B) {
				cfg := benchConfig(n*(tc.sleepers+tc.hogs), n*tc.hogs, 1<<62)
				cfg.CPUs = n
				benchSteps(b, cfg, tc.warm)
			})
		}
	}
}

// benchSteps steps a simulation of cfg past warm (the steady state), then
// measures Steps.
func benchSteps(b *testing.B, cfg Config, warm time.Duration) {
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for s.Now() < warm {
		s.Step()
	}
	b.ReportAllocs()
	e0 := s.events
	b.ResetTimer()
	for b.Loop() {
		s.Step()
	}
	events := float64(s.events - e0)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	if events > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
	}
}

// BenchmarkSimulatorReplay is the model's own share of BenchmarkSimulator's
// one-CPU cases: five simulated seconds of each case are logged in the
// scenario language (Config.ScenarioLog) and replayed with package
// scenario, which drives eevdf through the same kernel sequences and
// leaves every entity as the simulation did, with nothing around it: no
// event queue, task programs, CPU switches, metrics or smp layer. The
// first 200 ms (creations, the warm-up BenchmarkSimulator skips) are
// replayed untimed; ns/event is the rest's replay time over the
// simulation's events in the same span, comparable with
// BenchmarkSimulator's ns/event: what an event costs with the
// simulator's share taken away. One op is one replay of the span. Each
// op's replayer is new, with an empty run queue: where the timed span
// needs a B-tree leaf more than the untimed one did (mixed: once a
// replay), that leaf is allocated in the timed span, which is why
// allocs/op may read 1 although the steady state allocates nothing.
func BenchmarkSimulatorReplay(b *testing.B) {
	const warm = 200 * time.Millisecond
	for _, tc := range oneCPUCases {
		b.Run(tc.name, func(b *testing.B) {
			var log bytes.Buffer
			cfg := benchConfig(100, tc.hogs, 5*time.Second)
			cfg.ScenarioLog = &log
			s, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			for s.Now() < warm {
				s.Step()
			}
			e0, w := s.events, uint64(s.now)
			if _, err := s.Run(); err != nil {
				b.Fatal(err)
			}
			events := float64(s.events - e0)
			sc, err := scenario.Parse(&log, tc.name)
			if err != nil {
				b.Fatal(err)
			}
			untimed := 0
			for untimed < len(sc.Ops) && sc.Ops[untimed].At <= w {
				untimed++
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				r, err := scenario.NewReplayer(sc, scenario.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for range untimed {
					if err := r.Advance(); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				for !r.Done() {
					if err := r.Advance(); err != nil {
						b.Fatal(err)
					}
				}
			}
			n := events * float64(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
			b.ReportMetric(n/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(len(sc.Ops)-untimed)/events, "ops/event")
		})
	}
}
