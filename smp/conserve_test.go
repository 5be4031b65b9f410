package smp

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// TestConservationCountsIdleTimeWhileATaskWaits: two tasks pinned to CPU
// 0 of a two-CPU machine, CPU 1 idle. For 10 ms CPU 1 idles while CPU 0
// has two runnable tasks (10 ms idle, 10 ms stranded, 10 ms with an
// overloaded CPU); then one task sleeps, and for 10 ms more CPU 1 idles
// with nothing waiting anywhere (idle only). Over the 20 ms the machine
// was idle half its time, 10 of 40 CPU-ms stranded.
func TestConservationCountsIdleTimeWhileATaskWaits(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1})
	start := h.now
	h.pinnedStart(0)
	h.pinnedStart(0)
	const ms = 1_000_000
	h.run(start + 10*ms)
	c, err := h.s.Conservation(h.now)
	if err != nil {
		t.Fatal(err)
	}
	want := Conservation{CPUs: 2, Elapsed: 10 * ms, Idle: 10 * ms, Stranded: 10 * ms, Overloaded: 10 * ms}
	if c != want {
		t.Fatalf("after 10 ms: %+v, want %+v", c, want)
	}
	h.block(0)
	h.resched(0)
	h.run(start + 20*ms)
	c, err = h.s.Conservation(h.now)
	if err != nil {
		t.Fatal(err)
	}
	want = Conservation{CPUs: 2, Elapsed: 20 * ms, Idle: 20 * ms, Stranded: 10 * ms, Overloaded: 10 * ms}
	if c != want {
		t.Fatalf("after 20 ms: %+v, want %+v", c, want)
	}
	if f := c.IdleFraction(); f != 0.5 {
		t.Errorf("idle fraction %v, want 0.5", f)
	}
	if f := c.StrandedFraction(); f != 0.25 {
		t.Errorf("stranded fraction %v, want 0.25", f)
	}
	// The current instant's state is taken to last until the time asked.
	c, _ = h.s.Conservation(h.now + 5*ms)
	if c.Elapsed != 25*ms || c.Idle != 25*ms || c.Stranded != 10*ms {
		t.Errorf("5 ms past the clock: %+v", c)
	}
	if _, err := h.s.Conservation(h.now - 1); !errors.Is(err, eevdf.ErrClockBackwards) {
		t.Errorf("Conservation before the clock: err %v, want ErrClockBackwards", err)
	}
}

// TestConservationOnOneCPUAccountsNothing: one CPU cannot idle while
// another works, and the accounting costs it nothing.
func TestConservationOnOneCPUAccountsNothing(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 1})
	start := h.now
	h.pinnedStart(0)
	h.run(start + 3_000_000)
	c, err := h.s.Conservation(h.now)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Conservation{CPUs: 1, Elapsed: 3_000_000}); c != want {
		t.Fatalf("%+v, want %+v", c, want)
	}
}

// TestCheckFindsAStaleConservationClass: Check recomputes every class that
// the accounting does not expect to change, so a runqueue change that
// bypassed rq would show.
func TestCheckFindsAStaleConservationClass(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1})
	h.pinnedStart(0)
	h.run(h.now + 2_000_000)
	h.at(h.now + 1) // a new instant: no runqueue used yet
	h.check()
	// CPU 1 is idle; pretend the accounting thought it busy, counts and all.
	h.s.work.class[1] = cpuBusyClass
	h.s.work.nIdle--
	err := h.s.Check()
	if err == nil || !strings.Contains(err.Error(), "CPU 1 has class 1, its runqueue 0") {
		t.Fatalf("Check of a stale class: %v", err)
	}
}
