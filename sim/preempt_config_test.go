package sim_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/sim"
)

// The configuration keys of the preemption models and the timer slack.
func TestPreemptConfigKeys(t *testing.T) {
	cfg, err := sim.ParseConfig([]byte(`{
	  "duration": "1s", "preempt": "voluntary", "timer_slack": "50us",
	  "cond_resched_every": "20us", "might_resched_every": "5us",
	  "workloads": [
	    {"kind": "cyclictest", "sys_work": "1us", "timer_slack": "1ns"},
	    {"kind": "hackbench", "groups": 1, "fds": 2, "user_cost": "200ns"},
	    {"kind": "tasks", "tasks": [{"name": "t", "program": [{"sys": "5us", "jitter": "1us"}, {"sleep": "1ms"}]}]}
	  ]}`), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Preempt != eevdf.PreemptVoluntary || cfg.TimerSlack != 50*time.Microsecond ||
		cfg.CondReschEvery != 20*time.Microsecond || cfg.MightReschEvery != 5*time.Microsecond {
		t.Errorf("got preempt %v slack %v cond %v might %v", cfg.Preempt, cfg.TimerSlack, cfg.CondReschEvery, cfg.MightReschEvery)
	}
	ct := cfg.Workloads[0].(*sim.CyclictestWorkload)
	if ct.SysWork != time.Microsecond || ct.Options.TimerSlack != 1 {
		t.Errorf("cyclictest sys_work %v timer_slack %v", ct.SysWork, ct.Options.TimerSlack)
	}
	if hb := cfg.Workloads[1].(*sim.HackbenchWorkload); hb.UserCost != 200*time.Nanosecond {
		t.Errorf("hackbench user_cost %v", hb.UserCost)
	}
	if _, err := sim.Simulate(cfg); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"duration": "1s", "preempt": "rt", "workloads": [{"kind": "stress"}]}`, `preempt "rt": want full, lazy, voluntary or none`},
		{`{"duration": "1s", "timer_slack": "-1us", "workloads": [{"kind": "stress"}]}`, `timer_slack -1µs: negative`},
		{`{"duration": "1s", "cond_resched_every": "-1us", "workloads": [{"kind": "stress"}]}`, `cond_resched_every -1µs: negative`},
	} {
		if _, err := sim.ParseConfig([]byte(tc.json), "testdata"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.json, err, tc.want)
		}
	}
	if _, err := sim.Simulate(sim.Config{Duration: time.Second, Preempt: 7, Workloads: []sim.Workload{sim.Stress(1, sim.TaskOptions{})}}); err == nil {
		t.Error("an unknown preemption model should be refused")
	}
	if _, err := sim.Simulate(sim.Config{Duration: time.Second, Workloads: []sim.Workload{sim.Custom("t", sim.TaskSpec{Name: "t", Program: []sim.Phase{sim.Sys(-1)}})}}); err == nil || !strings.Contains(err.Error(), "sys: negative duration") {
		t.Errorf("a negative Sys: %v", err)
	}
	if _, err := sim.Simulate(sim.Config{Duration: time.Second, Workloads: []sim.Workload{sim.Stress(1, sim.TaskOptions{TimerSlack: -1})}}); err == nil {
		t.Error("a negative task timer slack should be refused")
	}
}

// Under the full model, the default, a Sys phase schedules exactly as a
// Run phase: the same pipe ping-pong against a hog, with kernel time or
// user time, gives byte-identical reports, with and without a wakeup
// cost (whose delayed reschedule the return to user space must leave
// alone).
func TestSysSchedulesAsRunUnderFull(t *testing.T) {
	build := func(phase func(time.Duration) sim.Phase, cpus int, wakeCost time.Duration) string {
		ping, pong := sim.NewChannel("ping", 1, true), sim.NewChannel("pong", 1, true)
		pipe := sim.NewChannel("pipe", 8, true)
		cfg := sim.Config{
			CPUs: cpus, Duration: 200 * time.Millisecond, WakeupCost: wakeCost, SwitchCost: time.Microsecond, Seed: 3,
			Workloads: []sim.Workload{
				sim.Custom("pp",
					sim.TaskSpec{Name: "a", Program: []sim.Phase{sim.Forever(phase(7*time.Microsecond), sim.Send(ping, 1), sim.Recv(pong, 1), sim.Latency())}},
					sim.TaskSpec{Name: "b", Program: []sim.Phase{sim.Forever(sim.Recv(ping, 1), phase(5*time.Microsecond), sim.Send(pong, 1))}}),
				// A writer that goes on in the kernel after its wakeups,
				// while their delayed reschedules are pending.
				sim.Custom("writer",
					sim.TaskSpec{Name: "w", Program: []sim.Phase{sim.Forever(phase(4*time.Microsecond), sim.Send(pipe, 1), phase(4*time.Microsecond), sim.Send(pipe, 1))}},
					sim.TaskSpec{Name: "r", TaskOptions: sim.TaskOptions{Slice: 100 * time.Microsecond}, Program: []sim.Phase{sim.Forever(sim.Recv(pipe, 1), phase(3*time.Microsecond))}}),
				sim.Cyclictest(1, 1777*time.Microsecond, sim.TaskOptions{Slice: 300 * time.Microsecond}),
				sim.Stress(2, sim.TaskOptions{}),
			},
		}
		r, err := sim.Simulate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, cpus := range []int{1, 2} {
		for _, wc := range []time.Duration{0, 3 * time.Microsecond} {
			if run, sys := build(sim.Run, cpus, wc), build(sim.Sys, cpus, wc); run != sys {
				t.Errorf("%d CPUs, wakeup cost %v: the reports differ:\n%s\n---\n%s", cpus, wc, run, sys)
			}
		}
	}
}

// The report names the model and the slack only when they are not the
// defaults, so that default runs print what they always printed.
func TestReportNamesPreemptModel(t *testing.T) {
	run := func(m eevdf.PreemptModel, slack time.Duration) (string, string, *sim.Report) {
		r, err := sim.Simulate(sim.Config{
			Preempt: m, TimerSlack: slack, Duration: 50 * time.Millisecond,
			Workloads: []sim.Workload{
				sim.Cyclictest(1, 1777*time.Microsecond, sim.TaskOptions{Slice: 300 * time.Microsecond}),
				sim.Custom("k", sim.TaskSpec{Name: "k", Program: []sim.Phase{sim.Forever(sim.Sys(100*time.Microsecond), sim.Run(time.Microsecond))}}),
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		var text, csv bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteCSV(&csv); err != nil {
			t.Fatal(err)
		}
		return text.String(), csv.String(), r
	}
	text, csv, r := run(eevdf.PreemptFull, 0)
	if strings.Contains(text, "timer slack") || strings.Contains(csv, "run,,preempt,") || r.Preempt != "" || r.DeferredResched != 0 {
		t.Errorf("a default run names the model:\n%s", text)
	}
	text, csv, r = run(eevdf.PreemptNone, 50*time.Microsecond)
	want := "preemption none, timer slack 0.050 ms, deferred reschedules "
	if !strings.Contains(text, want) || !strings.Contains(csv, "run,,preempt,none\n") || r.DeferredResched == 0 {
		t.Errorf("want %q in the text, the model in the CSV and some deferred reschedules (%d):\n%s", want, r.DeferredResched, text)
	}
}
