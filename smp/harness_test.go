package smp

import (
	"fmt"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// harness drives a System the way a simulator does, checking every
// invariant after every step.
type harness struct {
	t   testing.TB
	s   *System
	now uint64
	n   int
}

func newHarness(t testing.TB, m topology.Machine, opts ...Option) *harness {
	t.Helper()
	top, err := topology.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(top, opts...)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, now: s.Clock()}
	if h.now == 0 {
		// A PELT last_update_time of 0 means "never attached": a task
		// forked at clock 0 would attach as never attached, which the
		// kernel, whose clocks are far from 0 when anything forks, never
		// sees. Start a millisecond in.
		h.at(1_000_000)
	}
	return h
}

func (h *harness) check() {
	h.t.Helper()
	if err := h.s.Check(); err != nil {
		h.t.Fatal(err)
	}
}

// at sets the clock.
func (h *harness) at(now uint64) *harness {
	h.t.Helper()
	if err := h.s.SetClock(now); err != nil {
		h.t.Fatal(err)
	}
	h.now = now
	return h
}

// task makes a task on cpu.
func (h *harness) task(cpu int, opts ...TaskOption) *Task {
	h.t.Helper()
	return h.taskWith(cpu, nil, opts...)
}

// taskWith makes a task on cpu with entity options.
func (h *harness) taskWith(cpu int, eopts []eevdf.EntityOption, opts ...TaskOption) *Task {
	h.t.Helper()
	h.n++
	se, err := eevdf.NewEntity(fmt.Sprintf("T%d", h.n), eopts...)
	if err != nil {
		h.t.Fatal(err)
	}
	t, err := h.s.NewTask(se, append([]TaskOption{WithCPU(cpu)}, opts...)...)
	if err != nil {
		h.t.Fatal(err)
	}
	return t
}

// pinnedStart starts a task on cpu, allowed there only, so that neither
// the fork nor balancing moves it (free lets it run anywhere).
func (h *harness) pinnedStart(cpu int, eopts ...eevdf.EntityOption) *Task {
	h.t.Helper()
	t := h.taskWith(cpu, eopts, WithAllowed(cpu))
	if got := h.s.WakeUpNew(t); got != cpu {
		h.t.Fatalf("pinned fork of %s on %d landed on %d", t, cpu, got)
	}
	h.resched(cpu)
	h.check()
	return t
}

// free lets t run on every CPU.
func free(t *Task) *Task {
	t.allowed = t.sys.top.All().Clone()
	t.nrAllowed = t.allowed.Weight()
	return t
}

// resched runs __schedule on cpu if its runqueue asks for it.
func (h *harness) resched(cpu int) {
	if h.s.RQ(cpu).NeedResched() {
		h.s.Schedule(cpu)
	}
}

// run advances time to end in ticks of TICK_NSEC, in the serial order of
// KERNEL-SPEC-SMP §7.3: every CPU that ticks ticks, in ascending order,
// rescheduling at once when asked; then the deferred work (ILB kicks,
// stopper works) and the reschedules it and the ticks' balancing asked
// for.
func (h *harness) run(end uint64) {
	h.t.Helper()
	tick := h.s.tickNsec
	for next := (h.now/tick + 1) * tick; next <= end; next += tick {
		h.at(next)
		for c := range h.s.NumCPUs() {
			h.s.Tick(c)
			h.resched(c)
		}
		h.settle()
		h.check()
	}
	if h.now < end {
		h.at(end)
	}
}

// settle runs the deferred work and the reschedules the System asks for.
func (h *harness) settle() {
	h.s.RunPending()
	for {
		pending := h.s.ReschedPending()
		cpus := h.s.Resched()
		if !pending && cpus != nil {
			h.t.Errorf("ReschedPending false, yet Resched returned %v", cpus)
		}
		if len(cpus) == 0 {
			return
		}
		for _, c := range append([]int(nil), cpus...) {
			h.s.Schedule(c)
		}
	}
}

// block puts cpu's running task to sleep.
func (h *harness) block(cpu int) *Task {
	h.t.Helper()
	t := h.s.Curr(cpu)
	if err := h.s.Block(cpu); err != nil {
		h.t.Fatal(err)
	}
	h.check()
	return t
}

// wake wakes t from waker and reschedules the CPU it lands on.
func (h *harness) wake(t, waker *Task, wf eevdf.WakeFlags) int {
	h.t.Helper()
	cpu := h.s.TryToWakeUp(t, waker, wf)
	if cpu < 0 {
		h.t.Fatalf("TryToWakeUp(%s) = %d", t, cpu)
	}
	h.check()
	return cpu
}

func (h *harness) setNrIdleScan(llc, n int) { h.s.llcs[llc].nrIdleScan = n }

// untilPicked runs in ticks until t has just been picked on cpu (so that it
// is eligible, and a sleep now is not delayed).
func (h *harness) untilPicked(cpu int, t *Task) {
	h.t.Helper()
	for i := 0; h.s.Curr(cpu) == t; i++ {
		h.run(h.now + h.s.tickNsec)
		if i > 1000 {
			h.t.Fatalf("%s never leaves CPU %d", t, cpu)
		}
	}
	for i := 0; h.s.Curr(cpu) != t; i++ {
		h.run(h.now + h.s.tickNsec)
		if i > 1000 {
			h.t.Fatalf("%s is never picked on CPU %d", t, cpu)
		}
	}
}

// overload sets the root domain's overloaded flag, as the arrival of a
// second task on a CPU does. Setups that pin tasks need it: an idle CPU's
// balance that finds only pinned tasks redoes the level without their CPU
// and, at the top domain, rewrites the flag from what it then sees — as
// the kernel does.
func (h *harness) overload() { h.s.overloaded = true }
