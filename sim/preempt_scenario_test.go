package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/scenario"
)

// A run under the none, voluntary and lazy models, with kernel time and
// timer slack, writes a scenario log that the one-flag replay follows
// exactly (KERNEL-SPEC-PREEMPT §10.4): only the moments of the schedule
// operations change; under lazy with PREEMPT_SHORT (the default) the
// fair class never reads the pending request. With PREEMPT_SHORT off the
// lazy model runs wakeup checks the replay would skip: no scenario log.
func TestScenarioLogUnderPreemptModels(t *testing.T) {
	for _, m := range []eevdf.PreemptModel{eevdf.PreemptLazy, eevdf.PreemptVoluntary, eevdf.PreemptNone} {
		t.Run(m.String(), func(t *testing.T) {
			var log bytes.Buffer
			s, err := New(Config{Duration: 60 * ms, Preempt: m, TimerSlack: 50 * us, CondReschEvery: 7 * us, MightReschEvery: 3 * us,
				Workloads: []Workload{
					&CyclictestWorkload{Threads: 1, Interval: 2777 * us, SysWork: us, Options: TaskOptions{Slice: 300 * us}},
					&HackbenchWorkload{Groups: 1, Fds: 4, Loops: 1 << 20, Pipe: true, Capacity: 2, WriteCost: 20 * us, UserCost: us, Options: TaskOptions{Slice: 5 * ms}},
					Custom("kernel hog", TaskSpec{Name: "khog", Program: []Phase{Forever(Sys(300*us), Run(10*us))}}),
				},
				ScenarioLog: &log, Debug: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(); err != nil {
				t.Fatal(err)
			}
			if s.deferred == 0 {
				t.Error("no request was deferred by the model")
			}
			sc, err := scenario.Parse(strings.NewReader(log.String()), m.String())
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
			rq, want := r.RunQueue(), s.cpus[0].rq
			// resched compared as "hard or lazy" (§10.4).
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
	_, err := New(Config{Duration: ms, Preempt: eevdf.PreemptLazy, Features: featureSet(t, "NO_PREEMPT_SHORT"),
		Workloads: []Workload{Stress(1, TaskOptions{})}, ScenarioLog: &bytes.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "PREEMPT_SHORT") {
		t.Errorf("lazy without PREEMPT_SHORT with a scenario log: %v", err)
	}
}

// The preemption models and the timer slack allocate nothing per event in
// steady state: the slack queue reuses its array, preemption points are
// ordinary events.
func TestZeroAllocationsPerEventUnderPreemptModels(t *testing.T) {
	for _, m := range []eevdf.PreemptModel{eevdf.PreemptLazy, eevdf.PreemptVoluntary, eevdf.PreemptNone} {
		cfg := benchConfig(100, 20, time.Hour)
		cfg.Preempt, cfg.TimerSlack, cfg.CondReschEvery, cfg.MightReschEvery = m, 50*us, 10*us, 3*us
		cfg.Workloads = append(cfg.Workloads, Cyclictest(2, 500*us, TaskOptions{Slice: 200 * us}),
			&HackbenchWorkload{Groups: 1, Fds: 4, Loops: 1 << 30, Pipe: true, Capacity: 4, WriteCost: 30 * us},
			Custom("k", TaskSpec{Name: "k", Program: []Phase{Forever(Sys(300*us), Sleep(100*us))}}))
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for s.Now() < 500*ms {
			s.Step()
		}
		if a := testing.AllocsPerRun(20000, func() { s.Step() }); a != 0 {
			t.Errorf("%v: %v allocations per event in steady state", m, a)
		}
	}
}
