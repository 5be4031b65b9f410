package smp

import (
	"errors"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

func twoCores() topology.Machine {
	return topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1}
}

func entity(t *testing.T, name string) *eevdf.SchedEntity {
	t.Helper()
	se, err := eevdf.NewEntity(name)
	if err != nil {
		t.Fatal(err)
	}
	return se
}

// A wakeup from an idle CPU is recorded by that CPU's idle task, and a
// fork there copies the idle task's waker statistics into the child.
func TestIdleTaskWakesAndForks(t *testing.T) {
	h := newHarness(t, twoCores())
	s := h.s
	a, err := s.Fork(entity(t, "A"), 0)
	if err != nil {
		t.Fatal(err)
	}
	s.WakeUpNew(a)
	s.Schedule(a.CPU())
	cpuA := a.CPU()
	idle := 1 - cpuA
	if err := s.Block(cpuA); err != nil {
		t.Fatal(err)
	}
	h.at(2_000_000)
	if _, err := s.TryToWakeUpFrom(a, idle, 0); err != nil {
		t.Fatal(err)
	}
	h.check()
	// record_wakee on the idle task of the waking CPU: a new wakee, one flip.
	if got := s.cpus[idle].idle; got.last != a || got.flips != 1 {
		t.Fatalf("idle task of CPU %d: last_wakee %v, flips %d; want A, 1", idle, got.last, got.flips)
	}
	if a.WakeeFlips() != 0 {
		t.Errorf("the wakee's own flips changed: %d", a.WakeeFlips())
	}
	if s.Curr(idle) != nil {
		t.Fatalf("CPU %d runs %v, want idle for the fork below", idle, s.Curr(idle))
	}
	b, err := s.Fork(entity(t, "B"), idle)
	if err != nil {
		t.Fatal(err)
	}
	if b.WakeeFlips() != 1 || b.wakee.last != a || b.CPU() != idle {
		t.Errorf("child of the idle task: flips %d, last_wakee %v, cpu %d; want 1, A, %d", b.WakeeFlips(), b.wakee.last, b.CPU(), idle)
	}
	if _, err := s.TryToWakeUpFrom(a, idle, eevdf.WFSync); err == nil {
		t.Error("a runnable task was woken")
	}
}

func TestTryToWakeUpFromRefusesMisuse(t *testing.T) {
	h := newHarness(t, twoCores())
	s := h.s
	a, _ := s.Fork(entity(t, "A"), 0)
	if _, err := s.TryToWakeUpFrom(a, 0, 0); !errors.Is(err, ErrTaskState) {
		t.Errorf("wakeup of a task never forked: %v, want ErrTaskState", err)
	}
	s.WakeUpNew(a)
	s.Schedule(a.CPU())
	_ = s.Block(a.CPU())
	if _, err := s.TryToWakeUpFrom(a, 5, 0); !errors.Is(err, ErrBadCPU) {
		t.Errorf("waking CPU 5 of 2: %v, want ErrBadCPU", err)
	}
	if _, err := s.TryToWakeUpFrom(a, 0, eevdf.WFSync); !errors.Is(err, ErrIdle) {
		t.Errorf("a sync wakeup from an idle CPU: %v, want ErrIdle", err)
	}
	if _, err := s.Fork(entity(t, "B"), -1); !errors.Is(err, ErrBadCPU) {
		t.Errorf("fork on CPU -1: %v, want ErrBadCPU", err)
	}
	if _, err := s.Yield(1); !errors.Is(err, ErrIdle) {
		t.Errorf("yield on an idle CPU: %v, want ErrIdle", err)
	}
	if err := s.Balance(2); !errors.Is(err, ErrBadCPU) {
		t.Errorf("balance of CPU 2 of 2: %v, want ErrBadCPU", err)
	}
}

// Jiffies start at j0 and every boot stamp with them; the domains report
// their boot state.
func TestJiffies0AndDomainState(t *testing.T) {
	const j0 = 4294667296
	top, err := topology.Build(twoCores())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(top, WithJiffies0(j0), WithTickNsec(4_000_000))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetClock(10_000_000); err != nil {
		t.Fatal(err)
	}
	if s.Jiffies() != j0+2 {
		t.Errorf("jiffies at 10 ms with HZ=250: %d, want j0 + 2", s.Jiffies())
	}
	if s.NextBalance(1) != j0 {
		t.Errorf("next_balance %d, want j0", s.NextBalance(1))
	}
	d := s.Domain(top.Domains(1)[0])
	want := DomainInfo{BalanceInterval: 2, LastBalance: j0, NewidleCall: 512, NewidleSuccess: 256, NewidleRatio: 512}
	if d != want {
		t.Errorf("MC domain of CPU 1: %+v, want %+v", d, want)
	}
	if s.Domain(nil) != (DomainInfo{}) {
		t.Error("Domain(nil) is not the zero DomainInfo")
	}
}

// The base slice is the normalized one scaled by 1 + ⌊log2 N⌋.
func TestWithBaseSlice(t *testing.T) {
	top, _ := topology.Build(twoCores())
	s, err := New(top, WithBaseSlice(3_000_000))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.RQ(0).BaseSlice(); got != 6_000_000 {
		t.Errorf("base slice on 2 CPUs: %d, want 6000000", got)
	}
	if _, err := New(top, WithBaseSlice(0)); !errors.Is(err, ErrBadOption) {
		t.Errorf("a base slice of 0: %v, want ErrBadOption", err)
	}
}

// Two tasks on CPU 0 while CPU 1 runs a pinned one: a yield with a task
// queued behind switches to it; when CPU 1's task sleeps and CPU 1
// balances explicitly, the idle CPU pulls the movable, waiting task and
// the trace records the balance (idle 1: CPU_IDLE; migrate_task; one task
// moved from CPU 0).
func TestBalanceEventsAndYield(t *testing.T) {
	h := newHarness(t, twoCores(), WithEvents(true))
	s := h.s
	c := h.task(1, WithAllowed(1))
	s.WakeUpNew(c)
	s.Schedule(1)
	a := h.task(0)
	if s.WakeUpNew(a) != 0 {
		t.Fatalf("the fork placed a on CPU %d", a.CPU())
	}
	s.Schedule(0)
	b := h.task(0, WithAllowed(0))
	s.WakeUpNew(b)
	h.at(2_000_000)
	if got, err := s.Yield(0); err != nil || got != b || !a.Runnable() {
		t.Fatalf("yield on CPU 0: %v, %v; want b to run", got, err)
	}
	if err := s.Block(1); err != nil {
		t.Fatal(err)
	}
	s.ClearEvents()
	h.at(10_000_000)
	if err := s.Balance(1); err != nil {
		t.Fatal(err)
	}
	s.RunStoppers()
	h.check()
	want := []Event{{Kind: EventBalance, CPU: 1, Level: topology.MC, Idle: 1, Busiest: 0, MigrationType: 2, Moved: 1}}
	if got := s.Events(); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("events %+v, want %+v", got, want)
	}
	if a.CPU() != 1 || a.Migrations() != 1 || b.CPU() != 0 {
		t.Errorf("a on CPU %d after %d migrations, b on %d; want a pulled to 1, b left on 0", a.CPU(), a.Migrations(), b.CPU())
	}
	s.ClearEvents()
	if len(s.Events()) != 0 {
		t.Error("ClearEvents left events")
	}
}

func TestEventKindNames(t *testing.T) {
	for k, want := range map[EventKind]string{EventBalance: "lb", EventNewidleSkip: "ni_skip", EventActiveKick: "active_kick", EventActive: "active", 9: "EventKind(9)"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", k, k.String(), want)
		}
	}
}
