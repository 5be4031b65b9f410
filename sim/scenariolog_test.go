package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/scenario"
)

// The simulator drives eevdf through the same core-side sequences as the
// scenario replay: a one-CPU run written as a scenario (Config.ScenarioLog)
// and replayed by package scenario ends with every entity in the state the
// simulation left it in, field for field.
func TestScenarioLogReplaysExactly(t *testing.T) {
	hog := Stress(2, TaskOptions{})
	hog.Options.Slice = 3 * ms
	nicer := Custom("nicer", TaskSpec{Name: "renicer", Program: []Phase{
		Loop(5, Run(3*ms), SetNice(5), Run(2*ms), SetNice(-3), Sleep(ms), SetSlice(200*us)), Spin(),
	}})
	for _, tc := range []struct {
		name   string
		tokens string
		wake   time.Duration
		w      []Workload
		groups []Group
	}{
		{"cyclictest under hackbench", "", 0, []Workload{
			Cyclictest(1, 2777*us, TaskOptions{Slice: 300 * us}),
			&HackbenchWorkload{Groups: 1, Fds: 4, Loops: 1 << 20, Pipe: true, Capacity: 2, Options: TaskOptions{Slice: 5 * ms}},
		}, nil},
		{"seed patches off, wakeup cost", "NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED", 5 * us, []Workload{
			Cyclictest(2, 1000*us, TaskOptions{Slice: 200 * us}),
			&HackbenchWorkload{Groups: 1, Fds: 3, Loops: 1 << 20, Pipe: true, Capacity: 1},
			hog,
		}, nil},
		{"yield loop, batch and idle, renice", "YIELD_FORFEIT_ALWAYS", 0, []Workload{
			YieldLoop(20*ms, TaskOptions{}),
			Stress(1, TaskOptions{Policy: 1}),
			MassiveIntr(2, 3*ms, ms, TaskOptions{Policy: 2}),
			nicer,
		}, nil},
		{"task groups", "", 0, []Workload{
			Cyclictest(1, 2777*us, TaskOptions{Slice: 300 * us}),
			&HackbenchWorkload{Groups: 1, Fds: 3, Loops: 1 << 20, Pipe: true, Capacity: 2, Options: TaskOptions{Group: "bench"}},
			Stress(2, TaskOptions{Group: "hogs"}),
		}, []Group{{Name: "bench", Weight: 300}, {Name: "hogs", Parent: "bench", Weight: 20}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			s, err := New(Config{Duration: 60 * ms, WakeupCost: tc.wake, Features: featureSet(t, tc.tokens),
				Workloads: tc.w, Groups: tc.groups, ScenarioLog: &log, Debug: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(); err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.Parse(strings.NewReader(log.String()), tc.name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := scenario.NewReplayer(sc, scenario.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for !r.Done() {
				if _, err := r.Step(); err != nil {
					t.Fatal(err)
				}
			}
			if len(sc.Ops) < 100 {
				t.Fatalf("only %d operations", len(sc.Ops))
			}
			rq, want := r.RunQueue(), s.cpus[0].rq
			if rq.V() != want.V() || rq.NeedResched() != want.NeedResched() || (rq.Curr() == nil) != (want.Curr() == nil) {
				t.Fatalf("runqueue: replay V %d resched %v curr %v, simulation V %d resched %v curr %v",
					rq.V(), rq.NeedResched(), rq.Curr(), want.V(), want.NeedResched(), want.Curr())
			}
			for i := range s.tasks {
				got, want := rq.EntitySnapshot(r.Entity(i)), want.EntitySnapshot(s.tasks[i].se)
				if got != want {
					t.Fatalf("%s after %d operations:\nreplay     %+v\nsimulation %+v", s.tasks[i].name, len(sc.Ops), got, want)
				}
			}
		})
	}
}

func TestScenarioLogLimits(t *testing.T) {
	var log bytes.Buffer
	for _, cfg := range []Config{
		{CPUs: 2, Duration: ms, ScenarioLog: &log},
		{Duration: ms, ScenarioLog: &log, Workloads: []Workload{Custom("x", TaskSpec{Name: "bad name", Program: []Phase{Spin()}})}},
	} {
		if _, err := Simulate(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	_, err := Simulate(Config{Duration: 10 * ms, ScenarioLog: &log, Workloads: []Workload{Custom("x", TaskSpec{Name: "short", Program: []Phase{Run(ms)}})}})
	if err == nil || !strings.Contains(err.Error(), "exits") {
		t.Errorf("exit: %v", err)
	}
}
