package smp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// BlockNext returns what Curr returns after the sleep's __schedule: the
// next queued task while there is one, then nil (idle) once the last one
// sleeps; on an idle CPU or a CPU that does not exist it fails as Block
// does, with a nil task.
func TestBlockNextReturnsWhatRunsAfterTheSleep(t *testing.T) {
	for _, cpus := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d CPUs", cpus), func(t *testing.T) {
			top, err := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: cpus, ThreadsPerCore: 1})
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(top)
			if err != nil {
				t.Fatal(err)
			}
			now := s.Clock()
			for i := range 3 {
				se, err := eevdf.NewEntity(fmt.Sprintf("t%d", i))
				if err != nil {
					t.Fatal(err)
				}
				tk, err := s.NewTask(se, WithCPU(0), WithAllowed(0))
				if err != nil {
					t.Fatal(err)
				}
				if s.WakeUpNew(tk) < 0 {
					t.Fatalf("t%d not started", i)
				}
			}
			if s.Schedule(0) == nil {
				t.Fatal("nothing picked on CPU 0")
			}
			for i := range 3 {
				now += 1_000_000
				if err := s.SetClock(now); err != nil {
					t.Fatal(err)
				}
				next, err := s.BlockNext(0)
				if err != nil {
					t.Fatalf("sleep %d: %v", i, err)
				}
				if want := s.Curr(0); next != want {
					t.Fatalf("sleep %d: BlockNext = %v, Curr = %v", i, next, want)
				}
				if (next == nil) != (i == 2) {
					t.Fatalf("sleep %d: BlockNext = %v, want idle only after the last", i, next)
				}
			}
			if next, err := s.BlockNext(0); !errors.Is(err, ErrIdle) || next != nil {
				t.Errorf("idle CPU: BlockNext = %v, %v; want nil, ErrIdle", next, err)
			}
			if next, err := s.BlockNext(cpus); err == nil || next != nil {
				t.Errorf("CPU %d of %d: BlockNext = %v, %v; want nil and an error", cpus, cpus, next, err)
			}
		})
	}
}

// A sleep that leaves only SCHED_IDLE tasks queued where others were
// brings the CPU's next balance to the current jiffy (the end of
// __dequeue_task), and a sleep that leaves a normal task queued, or that
// leaves a runqueue of SCHED_IDLE tasks as it was, does not: BlockNext
// takes the path with these tests only while a SCHED_IDLE task is queued,
// and every case here has one but the first. The sleeping task has not
// run since it was picked, so that its lag is zero and its dequeue is not
// delayed: it leaves the runqueue at once.
func TestBlockNextBringsTheBalanceForwardOnlyForSchedIdle(t *testing.T) {
	idle := []eevdf.EntityOption{eevdf.WithPolicy(eevdf.PolicyIdle)}
	cases := []struct {
		name    string
		running []eevdf.EntityOption // the task that sleeps
		queued  [][]eevdf.EntityOption
		forward bool
	}{
		{"no SCHED_IDLE task: the balance stays", nil, [][]eevdf.EntityOption{nil}, false},
		{"only SCHED_IDLE left: the balance comes forward", nil, [][]eevdf.EntityOption{idle}, true},
		{"a normal task left beside a SCHED_IDLE one: the balance stays", nil, [][]eevdf.EntityOption{idle, nil}, false},
		{"a SCHED_IDLE task sleeps among SCHED_IDLE ones: the balance stays", idle, [][]eevdf.EntityOption{idle}, false},
	}
	for _, cpus := range []int{1, 2} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%d CPUs/%s", cpus, c.name), func(t *testing.T) {
				h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: cpus, ThreadsPerCore: 1})
				run := h.taskWith(0, c.running, WithAllowed(0))
				if h.s.WakeUpNew(run) != 0 || h.s.Schedule(0) != run {
					t.Fatalf("setup: %v does not run on CPU 0", run)
				}
				for _, o := range c.queued {
					if q := h.taskWith(0, o, WithAllowed(0)); h.s.WakeUpNew(q) != 0 {
						t.Fatalf("setup: %v not queued on CPU 0", q)
					}
				}
				far := h.s.Jiffies() + 1000
				h.s.cpus[0].nextBalance = far
				next, err := h.s.BlockNext(0)
				if err != nil || next == nil || next == run || run.se.OnRq() {
					t.Fatalf("BlockNext = %v, %v (the sleeper queued: %v); want a queued task, the sleeper dequeued", next, err, run.se.OnRq())
				}
				h.check()
				want := far
				if c.forward {
					want = h.s.Jiffies()
				}
				if got := h.s.NextBalance(0); got != want {
					t.Errorf("next balance %d, want %d (jiffies %d)", got, want, h.s.Jiffies())
				}
			})
		}
	}
}

// A pick that completes the delayed dequeue of the last task that is not
// SCHED_IDLE leaves only SCHED_IDLE tasks queued: that dequeue, too,
// brings the CPU's next balance to the current jiffy. Schedule keeps its
// tests of sched_idle_rq around the pick while a SCHED_IDLE task is
// queued (here, from the sleep on), and leaves them out otherwise. One
// CPU: no balance trigger moves the next balance in between.
func TestSchedulePickLeavingOnlySchedIdleBringsTheBalanceForward(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 1})
	n := h.task(0)
	if h.s.WakeUpNew(n) != 0 || h.s.Schedule(0) != n {
		t.Fatal("setup: the normal task does not run")
	}
	i := h.taskWith(0, []eevdf.EntityOption{eevdf.WithPolicy(eevdf.PolicyIdle)})
	if h.s.WakeUpNew(i) != 0 {
		t.Fatal("setup: the SCHED_IDLE task is not queued")
	}
	// n runs 2 ms ahead of the average (no tick preempts it), so that its
	// lag is negative and its sleep delayed.
	h.at(h.now + 2_000_000)
	if next, err := h.s.BlockNext(0); err != nil || next != i || !n.se.Delayed() {
		t.Fatalf("setup: BlockNext = %v, %v (delayed: %v); want the SCHED_IDLE task, the sleeper delayed", next, err, n.se.Delayed())
	}
	far := h.s.Jiffies() + 1_000_000
	for step := 0; n.se.OnRq(); step++ {
		if step == 1000 {
			t.Fatal("the delayed dequeue never completed")
		}
		h.s.cpus[0].nextBalance = far
		h.at(h.now + 100_000)
		if got := h.s.Schedule(0); got != i {
			t.Fatalf("Schedule = %v, want the SCHED_IDLE task", got)
		}
		h.check()
	}
	if got, want := h.s.NextBalance(0), h.s.Jiffies(); got != want {
		t.Errorf("next balance %d after the pick's dequeue, want the jiffy %d", got, want)
	}
}
