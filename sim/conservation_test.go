package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestConservationReportsIdleTimeWhileATaskWaits: two hogs pinned to CPU 0
// of two CPUs for 100 ms. CPU 1 idles the whole run while CPU 0 has two
// runnable tasks: half the machine's time is idle, all of it stranded.
// Unpinned, balancing spreads the hogs and almost nothing is stranded.
func TestConservationReportsIdleTimeWhileATaskWaits(t *testing.T) {
	run := func(pin []int) *Report {
		t.Helper()
		hog := func(name string) TaskSpec {
			return TaskSpec{Name: name, TaskOptions: TaskOptions{CPUs: pin}, Program: []Phase{Spin()}}
		}
		r, err := Simulate(Config{Seed: 1, CPUs: 2, Duration: 100 * time.Millisecond,
			Workloads: []Workload{Custom("hogs", hog("a"), hog("b"))}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Conservation == nil {
			t.Fatal("no conservation report on two CPUs")
		}
		return r
	}
	c := run([]int{0}).Conservation
	const ms = uint64(time.Millisecond)
	want := ConservationReport{IdleNs: 100 * ms, StrandedNs: 100 * ms, OverloadedNs: 100 * ms,
		IdleFraction: 0.5, StrandedFraction: 0.5, Stretches: 1, LongestNs: 100 * ms}
	if *c != want {
		t.Errorf("pinned: %+v, want %+v", *c, want)
	}
	r := run(nil)
	if c := r.Conservation; c.StrandedFraction > 0.01 || c.StrandedNs > c.IdleNs {
		t.Errorf("free: %+v, want balancing to leave under 1%% stranded", *c)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "work conservation: CPUs idle ") {
		t.Errorf("the text report has no work conservation line:\n%s", buf.String())
	}
}

// TestConservationIsNotReportedOnOneCPU: one CPU has nothing to conserve,
// and its report (JSON included) is what it was.
func TestConservationIsNotReportedOnOneCPU(t *testing.T) {
	r, err := Simulate(Config{Seed: 1, Duration: 10 * time.Millisecond,
		Workloads: []Workload{Custom("hog", TaskSpec{Name: "a", Program: []Phase{Spin()}})}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Conservation != nil {
		t.Errorf("one CPU: conservation %+v, want none", *r.Conservation)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "conservation") {
		t.Error("one CPU's JSON report mentions conservation")
	}
}
