package eevdf_test

import (
	"errors"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// flags is the pair (hard, lazy) a runqueue reports.
type flags struct{ hard, lazy bool }

func flagsOf(rq *eevdf.CfsRq) flags { return flags{rq.NeedReschedHard(), rq.NeedReschedLazy()} }

// twoTasks returns a runqueue under model m with A running and B queued,
// both nice 0 with the 0.7 ms base slice, at clock 0, no request pending.
func twoTasks(t *testing.T, m eevdf.PreemptModel, opts ...eevdf.Option) (*eevdf.CfsRq, *eevdf.SchedEntity, *eevdf.SchedEntity) {
	t.Helper()
	rq, err := eevdf.NewCfsRq(append([]eevdf.Option{eevdf.WithPreempt(m)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := eevdf.NewEntity("A")
	b, _ := eevdf.NewEntity("B")
	for _, se := range []*eevdf.SchedEntity{a, b} {
		if err := rq.Enqueue(se, eevdf.EnqueueInitial); err != nil {
			t.Fatal(err)
		}
	}
	if rq.PickNext() != a {
		t.Fatal("A should run first")
	}
	return rq, a, b
}

// expire moves the clock to now and charges A: past its 0.7 ms deadline
// the charge renews it and asks for a reschedule (update_curr, a lazy
// site).
func expire(t *testing.T, rq *eevdf.CfsRq, now uint64) {
	t.Helper()
	if err := rq.SetClock(now); err != nil {
		t.Fatal(err)
	}
	rq.UpdateCurr()
}

// P1 of KERNEL-SPEC-PREEMPT §10.3: the algebra of the two flags.
func TestReschedFlagRules(t *testing.T) {
	t.Run("update_curr's request is lazy under lazy", func(t *testing.T) {
		rq, _, _ := twoTasks(t, eevdf.PreemptLazy)
		expire(t, rq, 1_000_000)
		if got := flagsOf(rq); got != (flags{false, true}) || !rq.NeedResched() {
			t.Errorf("flags %+v, NeedResched %v; want lazy only, NeedResched true", got, rq.NeedResched())
		}
	})
	t.Run("lazy then hard sets hard and keeps lazy", func(t *testing.T) {
		rq, _, _ := twoTasks(t, eevdf.PreemptLazy)
		expire(t, rq, 1_000_000)
		rq.ReschedCurr()
		if got := flagsOf(rq); got != (flags{true, true}) {
			t.Errorf("flags %+v, want both", got)
		}
	})
	t.Run("hard then lazy changes nothing", func(t *testing.T) {
		rq, _, _ := twoTasks(t, eevdf.PreemptLazy)
		rq.ReschedCurr()
		expire(t, rq, 1_000_000)
		if got := flagsOf(rq); got != (flags{true, false}) {
			t.Errorf("flags %+v, want hard only", got)
		}
	})
	t.Run("lazy twice is one lazy request", func(t *testing.T) {
		rq, _, _ := twoTasks(t, eevdf.PreemptLazy)
		expire(t, rq, 1_000_000)
		expire(t, rq, 2_000_000)
		if got := flagsOf(rq); got != (flags{false, true}) {
			t.Errorf("flags %+v, want lazy only", got)
		}
	})
	t.Run("a wakeup while idle runs asks hard", func(t *testing.T) {
		rq, err := eevdf.NewCfsRq(eevdf.WithPreempt(eevdf.PreemptLazy))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := eevdf.NewEntity("A")
		rq.Enqueue(a, eevdf.EnqueueInitial)
		rq.WakeupPreempt(a, eevdf.WFFork)
		if got := flagsOf(rq); got != (flags{true, false}) {
			t.Errorf("flags %+v, want hard only", got)
		}
	})
	t.Run("the tick upgrades a pending lazy request before its own charge", func(t *testing.T) {
		rq, _, _ := twoTasks(t, eevdf.PreemptLazy)
		rq.SetClock(1_000_000)
		rq.Tick() // nothing pending to upgrade; the charge raises a lazy request
		if got := flagsOf(rq); got != (flags{false, true}) {
			t.Fatalf("after the tick that raised it: flags %+v, want lazy only", got)
		}
		rq.SetClock(2_000_000)
		rq.Tick() // the next tick upgrades it
		if got := flagsOf(rq); got != (flags{true, true}) {
			t.Errorf("after the next tick: flags %+v, want both", got)
		}
	})
	t.Run("schedule clears both", func(t *testing.T) {
		rq, _, b := twoTasks(t, eevdf.PreemptLazy)
		expire(t, rq, 1_000_000)
		rq.ReschedCurr()
		if rq.PickNext() != b {
			t.Fatal("B should run")
		}
		if got := flagsOf(rq); got != (flags{}) || rq.NeedResched() {
			t.Errorf("flags %+v after schedule, want none", got)
		}
	})
	t.Run("a forced pick clears both", func(t *testing.T) {
		rq, _, b := twoTasks(t, eevdf.PreemptLazy)
		expire(t, rq, 1_000_000)
		rq.ReschedCurr()
		if err := rq.SetNext(b); err != nil {
			t.Fatal(err)
		}
		if got := flagsOf(rq); got != (flags{}) {
			t.Errorf("flags %+v after SetNext, want none", got)
		}
	})
	for _, m := range []eevdf.PreemptModel{eevdf.PreemptFull, eevdf.PreemptVoluntary, eevdf.PreemptNone} {
		t.Run("every request is hard under "+m.String(), func(t *testing.T) {
			rq, _, _ := twoTasks(t, m)
			expire(t, rq, 1_000_000)
			if got := flagsOf(rq); got != (flags{true, false}) {
				t.Errorf("flags %+v, want hard only", got)
			}
			rq.SetClock(2_000_000)
			rq.Tick()
			if got := flagsOf(rq); got != (flags{true, false}) {
				t.Errorf("after a tick: flags %+v, want hard only", got)
			}
		})
	}
}

// The wakeup check's early exit on a pending request reads the hard flag
// only (with PREEMPT_SHORT off at the pinned commit): a pending lazy
// request lets the check run, which with NEXT_BUDDY makes the wakee the
// next buddy; a pending hard request stops it before that.
func TestWakeupCheckReadsHardFlagOnly(t *testing.T) {
	noShort := eevdf.WithFeatures(features.Default().Without(features.PreemptShort).With(features.NextBuddy))
	for _, tc := range []struct {
		name  string
		model eevdf.PreemptModel
		buddy string // the next buddy after the check
	}{
		{"pending lazy request: the check runs", eevdf.PreemptLazy, "C"},
		{"pending hard request: the check stops", eevdf.PreemptFull, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rq, _, _ := twoTasks(t, tc.model, noShort)
			expire(t, rq, 1_000_000)
			c, _ := eevdf.NewEntity("C")
			rq.SetClock(1_500_000)
			if err := rq.Enqueue(c, eevdf.EnqueueWakeup); err != nil {
				t.Fatal(err)
			}
			rq.WakeupPreempt(c, eevdf.WFTTWU)
			if got := rq.Snapshot().Next; got != tc.buddy {
				t.Errorf("next buddy %q, want %q", got, tc.buddy)
			}
		})
	}
}

func TestPreemptModelOption(t *testing.T) {
	for _, s := range []string{"full", "lazy", "voluntary", "none"} {
		m, err := eevdf.ParsePreemptModel(s)
		if err != nil || m.String() != s {
			t.Errorf("ParsePreemptModel(%q) = %v, %v", s, m, err)
		}
		rq, err := eevdf.NewCfsRq(eevdf.WithPreempt(m))
		if err != nil || rq.Preempt() != m {
			t.Errorf("WithPreempt(%v): %v", m, err)
		}
	}
	if _, err := eevdf.ParsePreemptModel("rt"); !errors.Is(err, eevdf.ErrBadOption) {
		t.Errorf("ParsePreemptModel(rt) = %v, want ErrBadOption", err)
	}
	if _, err := eevdf.NewCfsRq(eevdf.WithPreempt(eevdf.PreemptModel(9))); !errors.Is(err, eevdf.ErrBadOption) {
		t.Errorf("WithPreempt(9) = %v, want ErrBadOption", err)
	}
	for _, k := range []eevdf.Kernel{eevdf.KernelV73, eevdf.KernelV71, eevdf.KernelV70} {
		if !k.HasLazy() {
			t.Errorf("%v should have the lazy model", k)
		}
		if _, err := eevdf.NewCfsRq(eevdf.WithKernel(k), eevdf.WithPreempt(eevdf.PreemptLazy)); err != nil {
			t.Errorf("%v with lazy: %v", k, err)
		}
	}
	if eevdf.Kernel(200).HasLazy() {
		t.Error("an unknown kernel should not have the lazy model")
	}
}
