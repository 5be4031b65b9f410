package eevdf_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedmodel/fairclass/eevdf"
)

// Every misuse returns an error wrapping its sentinel and leaves the
// runqueue exactly as it was.
func TestMisuseLeavesRunqueueUnchanged(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk)
		a, bb, c := b.entity("A"), b.entity("B"), b.entity("C", eevdf.WithSlice(300000))
		sleeper, fresh := b.entity("S"), b.entity("F")
		b.new(a)
		b.new(bb)
		b.new(c)
		b.new(sleeper)
		b.schedule()
		b.at(1000000).tick()
		b.schedule()
		// Make the running task sleep fully (it is eligible: just picked at V).
		for b.rq.Curr() != sleeper {
			b.at(b.rq.Clock() + 1000000).tick()
			b.schedule()
		}
		b.at(b.rq.Clock() + 1)
		if _, err := b.rq.Dequeue(sleeper, eevdf.DequeueSleep|eevdf.DequeueSpecial); err != nil {
			t.Fatal(err)
		}
		b.schedule()
		// A delayed entity: sleep an ineligible runner.
		var delayed *eevdf.SchedEntity
		for i := 0; i < 20 && delayed == nil; i++ {
			b.at(b.rq.Clock() + 400000).tick()
			cur := b.rq.Curr()
			if !b.rq.Eligible(cur) {
				b.sleep()
				if cur.Delayed() {
					delayed = cur
				}
			} else {
				b.schedule()
			}
		}
		if delayed == nil {
			t.Fatal("setup: no delayed entity")
		}

		other, err := eevdf.NewCfsRq(eevdf.WithTimeline(bk))
		if err != nil {
			t.Fatal(err)
		}
		foreign, _ := eevdf.NewEntity("X")
		if err := other.Enqueue(foreign, eevdf.EnqueueInitial); err != nil {
			t.Fatal(err)
		}
		queued := b.rq.Entities()[0]

		tests := []struct {
			name string
			want error
			do   func() error
		}{
			{"enqueue twice", eevdf.ErrAlreadyQueued, func() error { return b.rq.Enqueue(queued, eevdf.EnqueueWakeup) }},
			{"enqueue a delayed entity as a wakeup", eevdf.ErrAlreadyQueued, func() error { return b.rq.Enqueue(delayed, eevdf.EnqueueWakeup) }},
			{"requeue an entity that is not delayed", eevdf.ErrNotDelayed, func() error { return b.rq.Enqueue(queued, eevdf.EnqueueDelayed) }},
			{"requeue an entity that is not queued", eevdf.ErrNotQueued, func() error { return b.rq.Enqueue(sleeper, eevdf.EnqueueDelayed) }},
			{"dequeue an entity that is not queued", eevdf.ErrNotQueued, func() error { _, err := b.rq.Dequeue(sleeper, eevdf.DequeueSleep); return err }},
			{"dequeue a never-created entity", eevdf.ErrNotQueued, func() error { _, err := b.rq.Dequeue(fresh, 0); return err }},
			{"sleep a delayed entity again", eevdf.ErrDelayed, func() error { _, err := b.rq.Dequeue(delayed, eevdf.DequeueSleep); return err }},
			{"complete a dequeue that is not delayed", eevdf.ErrNotDelayed, func() error {
				_, err := b.rq.Dequeue(queued, eevdf.DequeueSleep|eevdf.DequeueDelayed)
				return err
			}},
			{"complete without sleep", eevdf.ErrBadFlags, func() error { _, err := b.rq.Dequeue(delayed, eevdf.DequeueDelayed); return err }},
			{"enqueue another runqueue's entity", eevdf.ErrForeignEntity, func() error { return b.rq.Enqueue(foreign, eevdf.EnqueueWakeup) }},
			{"dequeue another runqueue's entity", eevdf.ErrForeignEntity, func() error { _, err := b.rq.Dequeue(foreign, eevdf.DequeueSleep); return err }},
			{"force another runqueue's entity", eevdf.ErrForeignEntity, func() error { return b.rq.SetNext(foreign) }},
			{"renice another runqueue's entity", eevdf.ErrForeignEntity, func() error { return b.rq.SetNice(foreign, 3) }},
			{"slice of another runqueue's entity", eevdf.ErrForeignEntity, func() error { return b.rq.SetSlice(foreign, 300000) }},
			{"force a delayed entity", eevdf.ErrDelayed, func() error { return b.rq.SetNext(delayed) }},
			{"force a sleeping entity", eevdf.ErrNotQueued, func() error { return b.rq.SetNext(sleeper) }},
			{"nice out of range", eevdf.ErrBadNice, func() error { return b.rq.SetNice(queued, 20) }},
			{"nice out of range below", eevdf.ErrBadNice, func() error { return b.rq.SetNice(queued, -21) }},
			{"clock going backwards", eevdf.ErrClockBackwards, func() error { return b.rq.SetClock(b.rq.Clock() - 1) }},
			{"nil entity", eevdf.ErrNilEntity, func() error { return b.rq.Enqueue(nil, eevdf.EnqueueWakeup) }},
		}
		for _, tt := range tests {
			t.Run(bk.String()+"/"+tt.name, func(t *testing.T) {
				before := b.rq.Snapshot()
				err := tt.do()
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
				if diff := cmp.Diff(before, b.rq.Snapshot()); diff != "" {
					t.Errorf("runqueue changed (-before +after):\n%s", diff)
				}
				if err := b.rq.Check(); err != nil {
					t.Error(err)
				}
			})
		}
		// Calls that return no error must not panic or change anything either.
		before := b.rq.Snapshot()
		b.rq.WakeupPreempt(nil, eevdf.WFTTWU)
		b.rq.WakeupPreempt(sleeper, eevdf.WFTTWU)
		b.rq.WakeupPreempt(foreign, eevdf.WFTTWU)
		if b.rq.YieldTo(nil) || b.rq.YieldTo(foreign) || b.rq.YieldTo(delayed) || b.rq.YieldTo(sleeper) {
			t.Error("YieldTo accepted an entity that is not runnable here")
		}
		if b.rq.Eligible(nil) || b.rq.Eligible(foreign) {
			t.Error("Eligible of an entity not queued here")
		}
		if diff := cmp.Diff(before, b.rq.Snapshot()); diff != "" {
			t.Errorf("runqueue changed (-before +after):\n%s", diff)
		}
	}
}

func TestNewEntityErrors(t *testing.T) {
	tests := []struct {
		name string
		opts []eevdf.EntityOption
		want error
	}{
		{"weight 0", []eevdf.EntityOption{eevdf.WithWeight(0)}, eevdf.ErrBadWeight},
		{"weight too large", []eevdf.EntityOption{eevdf.WithWeight(eevdf.MaxWeight + 1)}, eevdf.ErrBadWeight},
		{"nice 20", []eevdf.EntityOption{eevdf.WithNice(20)}, eevdf.ErrBadNice},
		{"nice and weight", []eevdf.EntityOption{eevdf.WithNice(1), eevdf.WithWeight(100)}, eevdf.ErrBadWeight},
		{"idle with weight", []eevdf.EntityOption{eevdf.WithPolicy(eevdf.PolicyIdle), eevdf.WithWeight(100)}, eevdf.ErrBadWeight},
		{"unknown policy", []eevdf.EntityOption{eevdf.WithPolicy(9)}, eevdf.ErrBadPolicy},
	}
	for _, tt := range tests {
		if _, err := eevdf.NewEntity("x", tt.opts...); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	se, err := eevdf.NewEntity("s", eevdf.WithSlice(50000))
	if err != nil || se.Slice() != eevdf.MinCustomSlice || !se.CustomSlice() {
		t.Errorf("a 50 µs slice is clamped to 100 µs: %v %d", err, se.Slice())
	}
	se, _ = eevdf.NewEntity("s", eevdf.WithSlice(200000000))
	if se.Slice() != eevdf.MaxCustomSlice {
		t.Errorf("a 200 ms slice is clamped to 100 ms: %d", se.Slice())
	}
	if _, err := eevdf.NewCfsRq(eevdf.WithBaseSlice(0)); !errors.Is(err, eevdf.ErrBadOption) {
		t.Errorf("base slice 0: %v", err)
	}
}
