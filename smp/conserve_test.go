package smp

import (
	"errors"
	"math/rand/v2"
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
	// One stretch, open: CPU 1 idle since the start, CPU 0 overloaded too.
	want := Conservation{CPUs: 2, Elapsed: 10 * ms, Idle: 10 * ms, Stranded: 10 * ms, Overloaded: 10 * ms,
		Stretches: 1, LongestStretch: 10 * ms}
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
	want = Conservation{CPUs: 2, Elapsed: 20 * ms, Idle: 20 * ms, Stranded: 10 * ms, Overloaded: 10 * ms,
		Stretches: 1, LongestStretch: 10 * ms}
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

// TestConservationStretches: on three CPUs, CPU 0 overloaded from 0 to 8
// ms (two pinned tasks, then one sleeps). CPUs 1 and 2 idle from the
// start: two stretches open at 0. CPU 1 runs a task from 3 ms to 5 ms,
// ending its stretch (3 ms) and opening a third at 5 ms; the overload
// ending at 8 ms ends CPU 2's (8 ms, the longest) and CPU 1's second
// (3 ms). Stranded: 8 + 3 + 3 = 14 CPU-ms.
func TestConservationStretches(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 3, ThreadsPerCore: 1})
	const ms = 1_000_000
	start := h.now
	h.pinnedStart(0)
	h.pinnedStart(0)
	h.run(start + 3*ms)
	h.pinnedStart(1)
	h.run(start + 5*ms)
	h.block(1)
	h.resched(1)
	h.run(start + 8*ms)
	h.block(0)
	h.resched(0)
	h.run(start + 10*ms)
	c, err := h.s.Conservation(h.now)
	if err != nil {
		t.Fatal(err)
	}
	// Idle: CPU 1 0–3 and 5–10 (8 ms), CPU 2 0–10 (10 ms).
	want := Conservation{CPUs: 3, Elapsed: 10 * ms, Idle: 18 * ms, Stranded: 14 * ms, Overloaded: 8 * ms,
		Stretches: 3, LongestStretch: 8 * ms}
	if c != want {
		t.Fatalf("%+v, want %+v", c, want)
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

// TestConservationMatchesANaiveRecount drives random forks, sleeps,
// wakeups and ticks on four CPUs, and recounts everything at every
// instant from every CPU's runqueue: the idle and stranded time, the
// overloaded time, each CPU's stretches and the longest. The System's
// accounting, which looks only at the CPUs an instant used, must agree.
func TestConservationMatchesANaiveRecount(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 1})
		n := h.s.NumCPUs()
		var want Conservation
		want.CPUs = n
		start := h.now
		inStretch := make([]bool, n)
		since := make([]uint64, n)
		var sleeping []*Task
		// sample closes the instant at h.now, whose state holds until next.
		sample := func(until uint64) {
			over := 0
			for i := range n {
				if h.s.RQ(i).NrRunnable() >= 2 {
					over++
				}
			}
			for i := range n {
				idle := h.s.RQ(i).NrRunnable() == 0
				s := idle && over > 0
				switch {
				case s && !inStretch[i]:
					want.Stretches++
					since[i] = h.now
				case !s && inStretch[i]:
					want.LongestStretch = max(want.LongestStretch, h.now-since[i])
				}
				inStretch[i] = s
				if idle {
					want.Idle += until - h.now
					if s {
						want.Stranded += until - h.now
					}
				}
			}
			if over > 0 {
				want.Overloaded += until - h.now
			}
		}
		for range 300 {
			next := h.now + 100_000 + uint64(r.IntN(2_000_000))
			sample(next)
			h.at(next)
			switch op := r.IntN(10); {
			case op < 3 && len(h.s.tasks) < 12:
				cpu := r.IntN(n)
				if r.IntN(2) == 0 {
					h.pinnedStart(cpu)
				} else {
					free(h.pinnedStart(cpu))
				}
			case op < 6:
				if cpu := r.IntN(n); h.s.Curr(cpu) != nil {
					sleeping = append(sleeping, h.block(cpu))
					h.resched(cpu)
				}
			case op < 8 && len(sleeping) > 0:
				i := r.IntN(len(sleeping))
				h.wake(sleeping[i], nil, 0)
				sleeping = append(sleeping[:i], sleeping[i+1:]...)
				h.settle()
			default:
				for c := range n {
					h.s.Tick(c)
					h.resched(c)
				}
				h.settle()
			}
			h.check()
		}
		end := h.now + 1_000_000
		sample(end)
		for i := range n {
			if inStretch[i] {
				want.LongestStretch = max(want.LongestStretch, end-since[i])
			}
		}
		want.Elapsed = end - start
		got, err := h.s.Conservation(end)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("seed %d: accounting %+v, recount %+v", seed, got, want)
		}
	}
}
