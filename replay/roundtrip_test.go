package replay

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/trace"
)

// simulate runs cfg and returns its run as ftrace text, read back by
// package trace.
func simulate(t testing.TB, cfg sim.Config) []trace.Event {
	t.Helper()
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.WriteFtrace(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(); err != nil {
		t.Fatal(err)
	}
	evs, _, err := trace.ReadAll(&buf, trace.Options{Name: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// roundTripConfig is 2 simulated seconds on 4 CPUs: three CPU hogs and a
// pipe hackbench of 8 threads, which wake each other all the time, so
// that every kind of decision occurs: blocks, wakeup preemptions, slice
// ends at ticks, wakeups that migrate, newly idle and periodic balancing.
func roundTripConfig() sim.Config {
	return sim.Config{
		Seed: 1, CPUs: 4, Duration: 2 * time.Second, StartJitter: time.Millisecond,
		Workloads: []sim.Workload{sim.Stress(3, sim.TaskOptions{}), sim.Hackbench(1, 4, 100_000_000, true, true, sim.TaskOptions{})},
	}
}

var (
	roundTripOnce sync.Once
	roundTripEvs  []trace.Event
)

func roundTripEvents(t *testing.T) []trace.Event {
	roundTripOnce.Do(func() { roundTripEvs = simulate(t, roundTripConfig()) })
	if roundTripEvs == nil {
		t.Fatal("the simulation failed")
	}
	return roundTripEvs
}

// A run of the simulator, written as ftrace text and replayed pinned with
// the simulator's own kernel and features, agrees on every pick: the
// model, driven by nothing but the events a kernel traces, makes the same
// decisions the simulator made. The only switches left out are each
// CPU's first, whose previous task no event announced. (Measured: 330 348
// of 330 352 switches scored, 161 658 wakeup preemptions, 1 268 slice
// ends, 167 399 blocks, 80 migrations replayed.)
func TestRoundTripAgreesOnEveryPick(t *testing.T) {
	evs := roundTripEvents(t)
	r, err := Pinned(evs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Coverage
	if r.Overall.Agreed != r.Overall.Scored || r.Overall.Percent() != 100 {
		t.Errorf("agreement %d of %d; want every pick", r.Overall.Agreed, r.Overall.Scored)
	}
	if c.Scored != c.Picks-4 || c.Inconsistent != 4 || c.Repairs != 0 || c.Dropped != 0 || c.Used != c.Events {
		t.Errorf("coverage %+v: want every switch but each CPU's first scored, no repair, every event used", c)
	}
	if c.Scored < 300_000 || c.TickSource != "trace" || r.HZ != 1000 || r.BaseSlice != 2_100_000 {
		t.Errorf("%d picks scored, ticks from %s, HZ %d, base slice %d: want a busy run, the trace's ticks, 1000, 2.1 ms",
			c.Scored, c.TickSource, r.HZ, r.BaseSlice)
	}
	for _, ca := range r.ByCause {
		if ca.Agreed != ca.Scored || (ca.Cause != CauseIdle && ca.Scored < 1000) {
			t.Errorf("%s: %d of %d; want every one of a thousand or more", ca.Cause, ca.Agreed, ca.Scored)
		}
	}
	for _, v := range r.Resched.KernelPreempted {
		if v.Agreed != v.Scored || v.Scored == 0 {
			t.Errorf("kernel preemptions by %s: the model asked for %d of %d", v.Cause, v.Agreed, v.Scored)
		}
	}
	if r.Resched.Preempted != 0 || len(r.Disagreements) != 0 {
		t.Errorf("%d preemptions the kernel did not make, %d disagreements; want none", r.Resched.Preempted, len(r.Disagreements))
	}
	if len(r.PerCPU) != 4 {
		t.Fatalf("%d CPUs in the report", len(r.PerCPU))
	}
	for _, p := range r.PerCPU {
		if p.Agreed != p.Scored || p.Scored != p.Picks-1 {
			t.Errorf("CPU %d: %d of %d of %d switches", p.CPU, p.Agreed, p.Scored, p.Picks)
		}
	}
}

// The same trace replayed with RUN_TO_PARITY off: the model no longer
// protects a running task's slice, so at some switches it picks another
// task than the simulator (which ran with it on) did; each disagreement
// shows a runnable set in which the model's pick is the running task or
// an eligible one. (Measured: 962 of 330 348 picks disagree.)
func TestRoundTripToggleDisagrees(t *testing.T) {
	evs := roundTripEvents(t)
	f, err := features.Parse("NO_RUN_TO_PARITY")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Pinned(evs, Options{Features: &f, Examples: 5})
	if err != nil {
		t.Fatal(err)
	}
	off := r.Overall.Scored - r.Overall.Agreed
	if off == 0 || off > r.Overall.Scored/100 {
		t.Errorf("%d of %d picks disagree; want some, under 1%%", off, r.Overall.Scored)
	}
	if r.Features != "NO_RUN_TO_PARITY" || len(r.Disagreements) != 5 {
		t.Fatalf("features %q, %d disagreements kept; want NO_RUN_TO_PARITY and 5", r.Features, len(r.Disagreements))
	}
	for _, d := range r.Disagreements {
		if d.Model == d.Kernel || len(d.Runnable) < 2 {
			t.Errorf("%+v: not a disagreement among several tasks", d)
			continue
		}
		found := false
		for _, k := range d.Runnable {
			if k.Pid == d.Model {
				found = true
				if !k.Eligible && !k.Running {
					t.Errorf("at %d the model picked %d, neither eligible nor running: %+v", d.Time, d.Model, d.Runnable)
				}
			}
		}
		if !found && d.Model != 0 {
			t.Errorf("at %d the model's pick %d is not in its runnable set %+v", d.Time, d.Model, d.Runnable)
		}
	}
	var b bytes.Buffer
	if err := r.WriteText(&b, 3); err != nil || !bytes.Contains(b.Bytes(), []byte("first 5 disagreements")) {
		t.Errorf("text report (err %v):\n%s", err, b.String())
	}
}

// With wakeup preemption off the picks still agree (each switch is
// forced where the trace has it), but the model no longer asks for the
// preemptions the kernel made after wakeups: the verdicts disagree.
func TestRoundTripVerdicts(t *testing.T) {
	evs := roundTripEvents(t)
	f, err := features.Parse("NO_WAKEUP_PREEMPTION")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Pinned(evs, Options{Features: &f})
	if err != nil {
		t.Fatal(err)
	}
	if r.Overall.Agreed != r.Overall.Scored {
		t.Errorf("picks %d of %d; want all", r.Overall.Agreed, r.Overall.Scored)
	}
	for _, v := range r.Resched.KernelPreempted {
		switch v.Cause {
		case CauseWakeup:
			if v.Agreed*2 > v.Scored {
				t.Errorf("wakeup preemptions the model asked for: %d of %d; want few", v.Agreed, v.Scored)
			}
		case CauseSliceEnd:
			if v.Agreed != v.Scored {
				t.Errorf("slice ends the model asked for: %d of %d; want all", v.Agreed, v.Scored)
			}
		}
	}
}
