package smp

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// fingerprint is what a System decided so far: the clock, the counters,
// what every CPU runs and queues, and where every task is.
func fingerprint(s *System) string {
	var b strings.Builder
	fmt.Fprintf(&b, "t=%d %+v\n", s.Clock(), s.Stats())
	for c := range s.NumCPUs() {
		fmt.Fprintf(&b, "cpu%d curr=%v nr=%d stopped=%v; ", c, s.Curr(c), s.RQ(c).NrRunning(), s.TickStopped(c))
	}
	for _, t := range s.Tasks() {
		fmt.Fprintf(&b, "%s@%d/%v ", t, t.CPU(), t.state)
	}
	return b.String()
}

// checkedSetup is a four-CPU System with a task of every kind: running
// (CPU 0), sleeping, never started, exited; and a task of another System.
func checkedSetup(t *testing.T) (h *harness, running, sleeping, fresh, dead, foreign *Task) {
	h = newHarness(t, oneLLC4x1)
	running = h.pinnedStart(0)
	sleeping = h.pinnedStart(1)
	h.block(1)
	dead = h.pinnedStart(2)
	if err := h.s.Exit(2); err != nil {
		t.Fatal(err)
	}
	h.check()
	fresh = h.task(3)
	other := newHarness(t, oneLLC4x1)
	foreign = other.pinnedStart(0)
	return
}

// The checked forms say what was wrong, with an error wrapping the
// sentinel of the case and naming the input, and change nothing; the
// contract forms return their neutral value for the same input and change
// nothing either.
func TestCheckedFormsReportBadInput(t *testing.T) {
	h, running, sleeping, fresh, dead, foreign := checkedSetup(t)
	s := h.s
	c := s.Checked()
	for _, tc := range []struct {
		name    string
		checked func() error
		plain   func() bool // the contract form returned its neutral value
		want    error
		says    string
	}{
		{"Tick(-1)", func() error { return c.Tick(-1) }, func() bool { s.Tick(-1); return true }, ErrBadCPU, "-1"},
		{"Tick(N)", func() error { return c.Tick(4) }, func() bool { s.Tick(4); return true }, ErrBadCPU, "4 (the machine has CPUs 0-3)"},
		{"Schedule(-1)", func() error { _, err := c.Schedule(-1); return err }, func() bool { return s.Schedule(-1) == nil }, ErrBadCPU, "-1"},
		{"Schedule(N)", func() error { _, err := c.Schedule(4); return err }, func() bool { return s.Schedule(4) == nil }, ErrBadCPU, "4"},
		{"Exec(-1)", func() error { _, err := c.Exec(-1); return err }, func() bool { return s.Exec(-1) == -1 }, ErrBadCPU, "-1"},
		{"Exec(N)", func() error { _, err := c.Exec(1 << 40); return err }, func() bool { return s.Exec(1<<40) == -1 }, ErrBadCPU, "1099511627776"},
		{"Exec(idle)", func() error { _, err := c.Exec(3); return err }, func() bool { return s.Exec(3) == -1 }, ErrIdle, "CPU 3"},
		{"WakeUpNew(nil)", func() error { _, err := c.WakeUpNew(nil); return err }, func() bool { return s.WakeUpNew(nil) == -1 }, ErrNilTask, "nil task"},
		{"WakeUpNew(foreign)", func() error { _, err := c.WakeUpNew(foreign); return err }, func() bool { return s.WakeUpNew(foreign) == -1 }, ErrForeignTask, foreign.Name()},
		{"WakeUpNew(running)", func() error { _, err := c.WakeUpNew(running); return err }, func() bool { return s.WakeUpNew(running) == -1 }, ErrTaskState, "started already"},
		{"WakeUpNew(sleeping)", func() error { _, err := c.WakeUpNew(sleeping); return err }, func() bool { return s.WakeUpNew(sleeping) == -1 }, ErrTaskState, sleeping.Name()},
		{"WakeUpNew(dead)", func() error { _, err := c.WakeUpNew(dead); return err }, func() bool { return s.WakeUpNew(dead) == -1 }, ErrExited, dead.Name()},
		{"TryToWakeUp(nil)", func() error { _, err := c.TryToWakeUp(nil, nil, 0); return err }, func() bool { return s.TryToWakeUp(nil, nil, 0) == -1 }, ErrNilTask, "nil task"},
		{"TryToWakeUp(foreign)", func() error { _, err := c.TryToWakeUp(foreign, nil, 0); return err }, func() bool { return s.TryToWakeUp(foreign, nil, 0) == -1 }, ErrForeignTask, foreign.Name()},
		{"TryToWakeUp(by foreign)", func() error { _, err := c.TryToWakeUp(sleeping, foreign, 0); return err }, func() bool { return s.TryToWakeUp(sleeping, foreign, 0) == -1 }, ErrForeignTask, "waker " + foreign.Name()},
		{"TryToWakeUp(never started)", func() error { _, err := c.TryToWakeUp(fresh, nil, 0); return err }, func() bool { return s.TryToWakeUp(fresh, nil, 0) == -1 }, ErrNotStarted, fresh.Name()},
		{"TryToWakeUp(exited)", func() error { _, err := c.TryToWakeUp(dead, running, 0); return err }, func() bool { return s.TryToWakeUp(dead, running, 0) == -1 }, ErrExited, dead.Name()},
	} {
		before := fingerprint(s)
		err := tc.checked()
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error wrapping %q that says %q", tc.name, err, tc.want, tc.says)
		}
		if after := fingerprint(s); after != before {
			t.Errorf("%s: the checked form changed the System:\n%s\n%s", tc.name, before, after)
		}
		if !tc.plain() {
			t.Errorf("%s: the contract form did not return its neutral value", tc.name)
		}
		if after := fingerprint(s); after != before {
			t.Errorf("%s: the contract form changed the System:\n%s\n%s", tc.name, before, after)
		}
		h.check()
	}
	// The state errors are also ErrTaskState; a nil task is none.
	for _, err := range []error{ErrNotStarted, ErrExited} {
		if !errors.Is(err, ErrTaskState) {
			t.Errorf("%v does not wrap ErrTaskState", err)
		}
	}
	if errors.Is(ErrNilTask, ErrTaskState) || errors.Is(ErrNilTask, ErrForeignTask) {
		t.Error("ErrNilTask wraps another sentinel")
	}
}

// On good input the checked forms do the contract forms' work and return
// no error: a runnable task's wakeup is a no-op that returns its CPU, a
// tick of a CPU whose tick is stopped does nothing.
func TestCheckedFormsOnGoodInput(t *testing.T) {
	h, running, sleeping, fresh, _, _ := checkedSetup(t)
	c := h.s.Checked()
	if c.System() != h.s {
		t.Fatal("Checked().System() is not the System")
	}
	if cpu, err := c.TryToWakeUp(running, nil, 0); cpu != 0 || err != nil {
		t.Errorf("TryToWakeUp(runnable) = %d, %v; want 0, nil", cpu, err)
	}
	if cpu, err := c.WakeUpNew(fresh); cpu < 0 || err != nil || !fresh.Runnable() {
		t.Errorf("WakeUpNew(new) = %d, %v (runnable %v)", cpu, err, fresh.Runnable())
	}
	if cpu, err := c.TryToWakeUp(sleeping, running, 0); cpu < 0 || err != nil || !sleeping.Runnable() {
		t.Errorf("TryToWakeUp(sleeping) = %d, %v (runnable %v)", cpu, err, sleeping.Runnable())
	}
	h.settle()
	for cpu := range h.s.NumCPUs() {
		if err := c.Tick(cpu); err != nil {
			t.Errorf("Tick(%d): %v", cpu, err)
		}
		if _, err := c.Schedule(cpu); err != nil {
			t.Errorf("Schedule(%d): %v", cpu, err)
		}
	}
	if cpu, err := c.Exec(0); cpu < 0 || err != nil {
		t.Errorf("Exec(0) = %d, %v", cpu, err)
	}
	h.settle()
	h.check()

	// Mode B: an idle CPU's stopped tick is no error.
	hb := newHarness(t, oneLLC4x1, WithNohz(NohzIdle), WithPreset(topology.Warm, 1_000_000_000))
	if !hb.s.TickStopped(3) {
		t.Fatal("setup: CPU 3's tick runs")
	}
	if err := hb.s.Checked().Tick(3); err != nil {
		t.Errorf("Tick of a stopped CPU: %v", err)
	}
}

// A nil *Task is the idle task: its methods answer with zero values.
func TestNilTaskAnswersLikeTheIdleTask(t *testing.T) {
	var n *Task
	if n.String() != "<idle>" || n.Name() != "" || n.ID() != -1 || n.CPU() != -1 || n.RecentUsedCPU() != -1 ||
		n.Entity() != nil || n.Allowed() != nil || n.Migrations() != 0 || n.Placement() != RuleInPlace ||
		n.WakeeFlips() != 0 || n.Runnable() || n.Sleeping() || n.Dead() || n.Data() != nil {
		t.Error("a nil Task answers with something else than zero values")
	}
	n.SetData(1) // does nothing
}

// An entity enqueued on a CPU's runqueue directly, behind the System's
// back, is reported by Check — a bare entity, or a task of another
// System — and balancing passes over it: a newly idle pull and the CPU
// stopper's push, which walk the busiest CPU's tasks from the tail where it
// stands, neither panic nor move it.
func TestCheckReportsAnEntityEnqueuedBehindTheSystemsBack(t *testing.T) {
	for _, kind := range []string{"bare entity", "task of another System"} {
		t.Run(kind, func(t *testing.T) {
			h, sleeper := b2(t, 2, 0)
			var se *eevdf.SchedEntity
			var want string
			switch kind {
			case "bare entity":
				se, _ = eevdf.NewEntity("intruder")
				want = `CPU 2: entity "intruder" is queued but is no task of the System`
			default:
				other := newHarness(t, oneLLC2x2)
				se = other.task(2).Entity() // made, never started there
				want = `CPU 2: entity "T1" is queued but is a task of another System`
			}
			rq := h.s.RQ(2)
			if err := rq.Enqueue(se, eevdf.EnqueueInitial); err != nil {
				t.Fatal(err)
			}
			// The intruder at the tail of cfs_tasks, where the balancer
			// starts.
			for _, tk := range h.s.Tasks() {
				if tk.CPU() == 2 {
					_ = rq.RotateTask(tk.se)
				}
			}
			if rq.LastTask() != se {
				t.Fatal("setup: the intruder is not at the tail")
			}
			err := h.s.Check()
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Check: %v; want %q", err, want)
			}

			// Newly idle balancing on CPU 0 looks at the intruder first.
			if err := h.s.Block(0); err != nil {
				t.Fatal(err)
			}
			if !queuedOn(rq, se) {
				t.Errorf("the intruder is no longer queued on CPU 2")
			}
			if h.s.Curr(0) == nil || h.s.Curr(0) == sleeper {
				t.Errorf("CPU 0 runs %v: newly idle balancing pulled no task of CPU 2's", h.s.Curr(0))
			}

			// The stopper's push from CPU 2, the intruder at the tail again.
			_ = rq.RotateTask(rq.Curr())
			for e := range rq.Tasks() {
				if e != se {
					_ = rq.RotateTask(e)
				}
			}
			b := &h.s.cpus[2]
			b.activeBalance, b.pushCPU = true, 3
			h.s.activeLoadBalanceCPUStop(2)
			h.settle()
			if !queuedOn(rq, se) {
				t.Errorf("the stopper pushed the intruder")
			}
			if h.s.RQ(3).NrRunning() != 1 {
				t.Errorf("CPU 3 has %d tasks after the push, want CPU 2's task", h.s.RQ(3).NrRunning())
			}
		})
	}
}

// queuedOn reports whether se is on rq's cfs_tasks list.
func queuedOn(rq *eevdf.CfsRq, se *eevdf.SchedEntity) bool {
	for e := range rq.Tasks() {
		if e == se {
			return true
		}
	}
	return false
}
