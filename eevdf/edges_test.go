package eevdf_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// The API's edges: every exported function and method called with nil
// pointers, zero values, out-of-range numbers, stray flags, an entity of
// another runqueue and a group of another hierarchy. None may panic; each
// returns an error wrapping its sentinel, or the zero result its doc
// comment states, and leaves every runqueue exactly as it was.

// edges holds the live runqueues whose state no call below may change.
type edges struct {
	t    *testing.T
	live []*eevdf.CfsRq
}

// call runs f, failing on a panic, and asserts that no live runqueue
// changed.
func (e *edges) call(name string, f func()) {
	e.t.Helper()
	before := make([]eevdf.Snapshot, len(e.live))
	for i, rq := range e.live {
		before[i] = rq.Snapshot()
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				e.t.Errorf("%s panicked: %v", name, r)
			}
		}()
		f()
	}()
	for i, rq := range e.live {
		if diff := cmp.Diff(before[i], rq.Snapshot()); diff != "" {
			e.t.Errorf("%s changed runqueue %d (-before +after):\n%s", name, i, diff)
		}
		if err := rq.Check(); err != nil {
			e.t.Errorf("%s: %v", name, err)
		}
	}
}

// err asserts that f returns an error wrapping want.
func (e *edges) err(name string, want error, f func() error) {
	e.t.Helper()
	e.call(name, func() {
		if err := f(); !errors.Is(err, want) {
			e.t.Errorf("%s: err = %v, want %v", name, err, want)
		}
	})
}

// eq asserts that f returns want.
func (e *edges) eq(name string, want any, f func() any) {
	e.t.Helper()
	e.call(name, func() {
		if got := f(); !cmp.Equal(got, want) {
			e.t.Errorf("%s = %#v, want %#v", name, got, want)
		}
	})
}

// liveQueue is a runqueue with a running task A, a queued B, a delayed D,
// a sleeper S, a never-enqueued F and a queued C.
func liveQueue(t *testing.T) (rq *eevdf.CfsRq, a, b, c, d, s, f *eevdf.SchedEntity) {
	t.Helper()
	bn := newBench(t, eevdf.BTree)
	a, b, c, d, s, f = bn.entity("A"), bn.entity("B"), bn.entity("C"), bn.entity("D"), bn.entity("S"), bn.entity("F")
	for _, se := range []*eevdf.SchedEntity{d, s, a, b, c} {
		bn.new(se)
	}
	wantPick(t, bn.schedule(), d)
	bn.at(300000)
	if _, err := bn.rq.Sleep(); err != nil || !d.Delayed() {
		t.Fatalf("setup: D delayed %v, %v", d.Delayed(), err)
	}
	wantPick(t, bn.rq.Curr(), s)
	bn.at(300001)
	if _, err := bn.rq.Dequeue(s, eevdf.DequeueSleep|eevdf.DequeueSpecial); err != nil {
		t.Fatal(err)
	}
	wantPick(t, bn.schedule(), a)
	return bn.rq, a, b, c, d, s, f
}

func TestNilReceiversAndArguments(t *testing.T) {
	live, a, b, _, d, s, fresh := liveQueue(t)
	e := &edges{t: t, live: []*eevdf.CfsRq{live}}
	var nilSE *eevdf.SchedEntity

	// A nil runqueue and a zero CfsRq (not made by NewCfsRq) refuse every
	// operation and answer every query with a zero value.
	for _, rq := range []*eevdf.CfsRq{nil, {}} {
		p := fmt.Sprintf("%T(%v)/", rq, rq == nil)
		for _, se := range []*eevdf.SchedEntity{fresh, nil} {
			e.err(p+"Enqueue", eevdf.ErrNilRunqueue, func() error { return rq.Enqueue(se, eevdf.EnqueueWakeup) })
			e.err(p+"Dequeue", eevdf.ErrNilRunqueue, func() error { return second(rq.Dequeue(se, eevdf.DequeueSleep)) })
			e.err(p+"SetNext", eevdf.ErrNilRunqueue, func() error { return rq.SetNext(se) })
			e.err(p+"SetNice", eevdf.ErrNilRunqueue, func() error { return rq.SetNice(se, 1) })
			e.err(p+"SetSlice", eevdf.ErrNilRunqueue, func() error { return rq.SetSlice(se, 300000) })
			e.err(p+"MoveToGroup", eevdf.ErrNilRunqueue, func() error { return rq.MoveToGroup(se, nil) })
			e.err(p+"DetachTask", eevdf.ErrNilRunqueue, func() error { return rq.DetachTask(se) })
			e.err(p+"MigrateOut", eevdf.ErrNilRunqueue, func() error { return rq.MigrateOut(se) })
			e.err(p+"RemoveLoadAvg", eevdf.ErrNilRunqueue, func() error { return rq.RemoveLoadAvg(se) })
			e.err(p+"SyncLoadAvg", eevdf.ErrNilRunqueue, func() error { return rq.SyncLoadAvg(se) })
			e.err(p+"RotateTask", eevdf.ErrNilRunqueue, func() error { return rq.RotateTask(se) })
			e.err(p+"Wakeup", eevdf.ErrNilRunqueue, func() error { return rq.Wakeup(se, 0) })
			e.err(p+"WakeUpNew", eevdf.ErrNilRunqueue, func() error { return rq.WakeUpNew(se) })
			e.eq(p+"Lag", int64(0), func() any { return rq.Lag(se) })
			e.eq(p+"LagLimit", int64(0), func() any { return rq.LagLimit(se) })
			e.eq(p+"Eligible", false, func() any { return rq.Eligible(se) })
			e.eq(p+"YieldTo", false, func() any { return rq.YieldTo(se) })
			e.call(p+"WakeupPreempt", func() { rq.WakeupPreempt(se, eevdf.WFTTWU) })
		}
		e.err(p+"Sleep", eevdf.ErrNilRunqueue, func() error { return second(rq.Sleep()) })
		e.err(p+"SetFeatures", eevdf.ErrNilRunqueue, func() error { return rq.SetFeatures(features.Default()) })
		e.err(p+"Group", eevdf.ErrNilRunqueue, func() error {
			if rq == nil {
				return second(rq.Group(nil))
			}
			// A zero runqueue has no hierarchy: every group is foreign.
			if _, err := rq.Group(eevdf.NewHierarchy().Root()); !errors.Is(err, eevdf.ErrForeignGroup) {
				return fmt.Errorf("zero runqueue: %w", err)
			}
			return eevdf.ErrNilRunqueue
		})
		e.eq(p+"PickNext", nilSE, func() any { return rq.PickNext() })
		e.eq(p+"PickTask", nilSE, func() any { return rq.PickTask() })
		e.eq(p+"Curr", nilSE, func() any { return rq.Curr() })
		e.eq(p+"NextBuddy", nilSE, func() any { return rq.NextBuddy() })
		e.eq(p+"LastTask", nilSE, func() any { return rq.LastTask() })
		e.eq(p+"EntitySnapshot(A)", eevdf.EntitySnapshot{Name: "A"}, func() any {
			s := rq.EntitySnapshot(a) // A's own fields, judged against V = 0
			return eevdf.EntitySnapshot{Name: s.Name}
		})
		e.call(p+"PutPrev/Tick/UpdateCurr/Yield", func() { rq.PutPrev(); rq.Tick(); rq.UpdateCurr(); rq.Yield() })
		e.eq(p+"V", uint64(0), func() any { return rq.V() })
		e.eq(p+"AvgVruntime", uint64(0), func() any { return rq.AvgVruntime() })
		e.eq(p+"ZeroVruntime", uint64(0), func() any { return rq.ZeroVruntime() })
		e.eq(p+"counters", [6]int{}, func() any {
			return [6]int{rq.NrQueued(), rq.NrQueuedEntities(), rq.NrRunnable(), rq.NrRunning(), rq.NrIdle(), rq.CPU()}
		})
		e.eq(p+"Load/BaseSlice/TickNsec/Clock", [4]uint64{}, func() any {
			return [4]uint64{rq.Load(), rq.BaseSlice(), rq.TickNsec(), rq.Clock()}
		})
		e.eq(p+"SumJlag/AvgVjlag", [2]int64{}, func() any { return [2]int64{rq.SumJlag(), rq.AvgVjlag()} })
		e.eq(p+"NeedResched/PELT/UpdateBlockedAverages", [3]bool{}, func() any {
			return [3]bool{rq.NeedResched(), rq.PELT(), rq.UpdateBlockedAverages()}
		})
		e.eq(p+"Features", true, func() any { return rq.Features() == features.None() })
		e.eq(p+"Backend/Kernel", "btree v7.3", func() any { return rq.Backend().String() + " " + rq.Kernel().String() })
		e.eq(p+"Stats", eevdf.Stats{}, func() any { return rq.Stats() })
		e.eq(p+"Hierarchy", (*eevdf.Hierarchy)(nil), func() any { return rq.Hierarchy() })
		e.eq(p+"Entities", 0, func() any { return len(rq.Entities()) })
		e.eq(p+"Snapshot", eevdf.Snapshot{}, func() any { return rq.Snapshot() })
		e.eq(p+"Avg", live.Avg(), func() any { return rq.Avg() }) // a runqueue without PELT: zero signals
		e.eq(p+"Tasks", 0, func() any {
			n := 0
			for range rq.Tasks() {
				n++
			}
			for range rq.TasksFromTail() {
				n++
			}
			return n
		})
	}
	var nilRq *eevdf.CfsRq
	e.err("nil/SetClock", eevdf.ErrNilRunqueue, func() error { return nilRq.SetClock(1) })
	e.err("nil/Check", eevdf.ErrNilRunqueue, func() error { return nilRq.Check() })
	e.err("zero/Check", nil, func() error { return (&eevdf.CfsRq{}).Check() })

	// A nil entity on a live runqueue.
	e.err("Enqueue(nil)", eevdf.ErrNilEntity, func() error { return live.Enqueue(nil, eevdf.EnqueueWakeup) })
	e.err("Dequeue(nil)", eevdf.ErrNilEntity, func() error { return second(live.Dequeue(nil, eevdf.DequeueSleep)) })
	e.err("SetNext(nil)", eevdf.ErrNilEntity, func() error { return live.SetNext(nil) })
	e.err("SetNice(nil)", eevdf.ErrNilEntity, func() error { return live.SetNice(nil, 0) })
	e.err("SetSlice(nil)", eevdf.ErrNilEntity, func() error { return live.SetSlice(nil, 0) })
	e.err("MoveToGroup(nil)", eevdf.ErrNilEntity, func() error { return live.MoveToGroup(nil, nil) })
	e.err("DetachTask(nil)", eevdf.ErrNilEntity, func() error { return live.DetachTask(nil) })
	e.err("MigrateOut(nil)", eevdf.ErrNilEntity, func() error { return live.MigrateOut(nil) })
	e.err("RemoveLoadAvg(nil)", eevdf.ErrNilEntity, func() error { return live.RemoveLoadAvg(nil) })
	e.err("SyncLoadAvg(nil)", eevdf.ErrNilEntity, func() error { return live.SyncLoadAvg(nil) })
	e.err("RotateTask(nil)", eevdf.ErrNilEntity, func() error { return live.RotateTask(nil) })
	e.err("Wakeup(nil)", eevdf.ErrNilEntity, func() error { return live.Wakeup(nil, 0) })
	e.err("WakeUpNew(nil)", eevdf.ErrNilEntity, func() error { return live.WakeUpNew(nil) })
	e.err("WakeUpNew of a zero SchedEntity", eevdf.ErrNilEntity, func() error { return live.WakeUpNew(&eevdf.SchedEntity{}) })
	e.err("Enqueue of a zero SchedEntity", eevdf.ErrNilEntity, func() error { return live.Enqueue(&eevdf.SchedEntity{}, eevdf.EnqueueInitial) })
	e.err("SetNice of a zero SchedEntity", eevdf.ErrNilEntity, func() error { return live.SetNice(&eevdf.SchedEntity{}, 1) })
	e.eq("queries of a zero SchedEntity", "false 0 false", func() any {
		zse := &eevdf.SchedEntity{}
		live.WakeupPreempt(zse, eevdf.WFTTWU)
		return fmt.Sprintf("%v %d %v", live.Eligible(zse), live.LagLimit(zse), live.YieldTo(zse))
	})
	e.eq("Lag(nil)", int64(0), func() any { return live.Lag(nil) })
	e.eq("LagLimit(nil)", int64(0), func() any { return live.LagLimit(nil) })
	e.eq("EntitySnapshot(nil)", eevdf.EntitySnapshot{}, func() any { return live.EntitySnapshot(nil) })
	e.eq("Eligible(nil)", false, func() any { return live.Eligible(nil) })
	e.eq("YieldTo(nil)", false, func() any { return live.YieldTo(nil) })
	e.call("WakeupPreempt(nil)", func() { live.WakeupPreempt(nil, eevdf.WFTTWU) })
	e.err("Group(nil)", eevdf.ErrBadGroup, func() error { return second(live.Group(nil)) })

	// The accessors of a nil entity read as a zero entity.
	e.eq("nil entity accessors", "|0 0 0 0 0 false 0 0 0 0 normal false false 0 0 0 <nil> / <nil>", func() any {
		var se *eevdf.SchedEntity
		se.SetData(1)
		return fmt.Sprintf("%s|%d %d %d %d %d %v %d %d %d %d %v %v %v %d %d %d %v %v %v",
			se.Name(), se.Vruntime(), se.Deadline(), se.VLag(), se.Vprot(), se.Slice(), se.CustomSlice(),
			se.Weight(), se.EffectiveWeight(), se.HWeight(), se.Nice(), se.Policy(), se.OnRq(), se.Delayed(),
			se.SumExecRuntime(), se.PrevSumExecRuntime(), se.ExecStart(), se.String(), se.Group().Path(), se.Data())
	})
	e.eq("nil entity Avg", live.Avg(), func() any { return nilSE.Avg() })

	// A nil group reads as a root group; writes on it fail.
	var g *eevdf.TaskGroup
	e.eq("nil group queries", "/ / true true 1048576 100 false 0 0 /", func() any {
		return fmt.Sprintf("%s %s %v %v %d %d %v %d %d %v", g.Name(), g.Path(), g.Parent() == nil, g.Hierarchy() == nil,
			g.Shares(), g.CPUWeight(), g.Idle(), g.LoadAvg(), g.RunnableAvg(), g)
	})
	e.err("nil group SetCPUWeight", eevdf.ErrBadGroup, func() error { return g.SetCPUWeight(50) })
	e.err("nil group SetCPUWeightNice", eevdf.ErrBadGroup, func() error { return g.SetCPUWeightNice(3) })
	e.err("nil group SetIdle", eevdf.ErrBadGroup, func() error { return g.SetIdle(true) })
	zg := &eevdf.TaskGroup{}
	e.eq("zero group queries", "/ 0 1", func() any { return fmt.Sprintf("%s %d %d", zg.Path(), zg.Shares(), zg.CPUWeight()) })
	e.err("zero group SetCPUWeight", eevdf.ErrRootGroup, func() error { return zg.SetCPUWeight(50) })

	// A nil hierarchy: the defaults, no groups, no writes.
	var h *eevdf.Hierarchy
	e.eq("nil hierarchy queries", "true concur 1 0", func() any {
		h.SetMode(eevdf.ModeUp)
		return fmt.Sprintf("%v %v %d %d", h.Root() == nil, h.Mode(), h.OnlineCPUs(), len(h.Groups()))
	})
	e.err("nil hierarchy NewGroup", eevdf.ErrBadGroup, func() error { return second(h.NewGroup("x", nil)) })
	e.err("WithHierarchy(nil)", eevdf.ErrBadOption, func() error { return second(eevdf.NewCfsRq(eevdf.WithHierarchy(nil))) })

	// The states an entity may be in, each refused where it does not fit.
	idle, err := eevdf.NewCfsRq()
	if err != nil {
		t.Fatal(err)
	}
	e.live = append(e.live, idle)
	e.err("Sleep while idle runs", eevdf.ErrIdle, func() error { return second(idle.Sleep()) })
	e.err("Wakeup of a new entity", eevdf.ErrLifecycle, func() error { return live.Wakeup(fresh, 0) })
	e.err("WakeUpNew of a sleeper", eevdf.ErrLifecycle, func() error { return live.WakeUpNew(s) })
	e.err("WakeUpNew of a queued entity", eevdf.ErrAlreadyQueued, func() error { return live.WakeUpNew(b) })
	e.err("Wakeup of curr", eevdf.ErrRunning, func() error { return live.Wakeup(a, 0) })
	e.err("Wakeup of a queued entity", eevdf.ErrAlreadyQueued, func() error { return live.Wakeup(b, 0) })
	e.err("Wakeup with WFFork", eevdf.ErrBadFlags, func() error { return live.Wakeup(s, eevdf.WFFork) })
	e.err("Wakeup of a delayed entity with WFMigrated", eevdf.ErrBadFlags, func() error { return live.Wakeup(d, eevdf.WFMigrated) })
	// Detached while delayed, it is on no timeline: a wakeup anywhere
	// before an Enqueue attaches it is refused, not a broken requeue.
	if err := live.DetachTask(d); err != nil {
		t.Fatal(err)
	}
	e.err("Wakeup of a detached delayed entity elsewhere", eevdf.ErrLifecycle, func() error { return idle.Wakeup(d, 0) })
	e.err("Wakeup of a detached delayed entity where it was", eevdf.ErrLifecycle, func() error { return live.Wakeup(d, 0) })
}

// Flag bits outside the defined sets are ErrBadFlags, checked before any
// test that reads the flags: 0xdead has EnqueueDelayed's bit, which would
// otherwise report the queued entity as not delayed.
func TestStrayFlags(t *testing.T) {
	live, _, b, _, d, s, _ := liveQueue(t)
	e := &edges{t: t, live: []*eevdf.CfsRq{live}}
	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"Enqueue 0xdead", func() error { return live.Enqueue(s, 0xdead) }},
		{"Enqueue 0xdead of a queued entity", func() error { return live.Enqueue(b, 0xdead) }},
		{"Enqueue ENQUEUE_QUEUED (fair-internal)", func() error { return live.Enqueue(s, 0x200000) }},
		{"Enqueue EnqueueWakeup|0x8", func() error { return live.Enqueue(s, eevdf.EnqueueWakeup|0x8) }},
		{"Dequeue 0xdead", func() error { return second(live.Dequeue(b, 0xdead)) }},
		{"Dequeue the migrating bit (fair-internal)", func() error { return second(live.Dequeue(b, 0x10)) }},
		{"Dequeue DequeueSleep|DequeueDelayed|0x100 of a delayed entity", func() error {
			return second(live.Dequeue(d, eevdf.DequeueSleep|eevdf.DequeueDelayed|0x100))
		}},
		{"Dequeue of a sleeper, 0x8", func() error { return second(live.Dequeue(s, 0x8)) }},
		{"Wakeup 0xdead", func() error { return live.Wakeup(s, 0xdead) }},
		{"Wakeup WFTTWU|0x1", func() error { return live.Wakeup(d, eevdf.WFTTWU|0x1) }},
	} {
		e.err(tc.name, eevdf.ErrBadFlags, tc.do)
	}
	// The message names the stray bits.
	err := live.Enqueue(s, 0xdead)
	if want := "bad flags: enqueue flags 0xde88 outside the defined set"; err == nil || err.Error() != want {
		t.Errorf("Enqueue(S, 0xdead) = %v, want %q", err, want)
	}
}

// Out-of-range numbers, nil options and foreign objects.
func TestOutOfRangeAndForeign(t *testing.T) {
	live, a, b, _, _, s, _ := liveQueue(t)
	e := &edges{t: t, live: []*eevdf.CfsRq{live}}

	e.eq("NiceWeight(99), NiceWeight(-21), TickNsecForHZ(0)", [3]uint64{}, func() any {
		return [3]uint64{eevdf.NiceWeight(99), eevdf.NiceWeight(-21), eevdf.TickNsecForHZ(0)}
	})
	e.err("SetNice 99", eevdf.ErrBadNice, func() error { return live.SetNice(b, 99) })
	e.err("SetNice -21 of curr", eevdf.ErrBadNice, func() error { return live.SetNice(a, -21) })
	for _, tc := range []struct {
		name string
		want error
		opts []eevdf.EntityOption
	}{
		{"WithNice(99)", eevdf.ErrBadNice, []eevdf.EntityOption{eevdf.WithNice(99)}},
		{"WithWeight(0)", eevdf.ErrBadWeight, []eevdf.EntityOption{eevdf.WithWeight(0)}},
		{"WithPolicy(9)", eevdf.ErrBadPolicy, []eevdf.EntityOption{eevdf.WithPolicy(9)}},
		{"WithDefaultSlice(0)", eevdf.ErrBadSlice, []eevdf.EntityOption{eevdf.WithDefaultSlice(0)}},
		{"a nil entity option", eevdf.ErrBadOption, []eevdf.EntityOption{eevdf.WithNice(1), nil}},
	} {
		e.err("NewEntity "+tc.name, tc.want, func() error { return second(eevdf.NewEntity("x", tc.opts...)) })
	}
	for _, tc := range []struct {
		name string
		opt  eevdf.Option
	}{
		{"WithTimeline(7)", eevdf.WithTimeline(7)},
		{"WithArithmetic(9)", eevdf.WithArithmetic(9)},
		{"WithKernel(9)", eevdf.WithKernel(9)},
		{"WithTickNsec(0)", eevdf.WithTickNsec(0)},
		{"WithTickNsec(2e9)", eevdf.WithTickNsec(2e9)},
		{"WithBaseSlice(0)", eevdf.WithBaseSlice(0)},
		{"WithScaledBaseSlice(0, 1)", eevdf.WithScaledBaseSlice(0, 1)},
		{"WithScaledBaseSlice(1000, 0)", eevdf.WithScaledBaseSlice(1000, 0)},
		{"WithScaledBaseSlice(2^62, 8)", eevdf.WithScaledBaseSlice(1<<62, 8)},
		{"WithFeatures(two yield variants)", eevdf.WithFeatures(features.Default().With(features.YieldBumpDeadline, features.YieldForfeitAlways))},
		{"a nil option", nil},
	} {
		e.err("NewCfsRq "+tc.name, eevdf.ErrBadOption, func() error { return second(eevdf.NewCfsRq(tc.opt)) })
	}
	e.err("ParseKernel", eevdf.ErrBadOption, func() error { return second(eevdf.ParseKernel("v9")) })
	e.err("ParseCgroupMode", eevdf.ErrBadOption, func() error { return second(eevdf.ParseCgroupMode("")) })
	e.eq("String of out-of-range values", "Backend(9) Policy(9) Kernel(9) CgroupMode(9)", func() any {
		return fmt.Sprintf("%v %v %v %v", eevdf.Backend(9), eevdf.Policy(9), eevdf.Kernel(9), eevdf.CgroupMode(9))
	})

	// Groups: out-of-range weights, nil options, foreign hierarchies.
	h, other := eevdf.NewHierarchy(eevdf.WithCgroupMode(99), eevdf.WithOnlineCPUs(-3), nil), eevdf.NewHierarchy()
	e.eq("WithCgroupMode(99), WithOnlineCPUs(-3)", "concur 1", func() any { return fmt.Sprintf("%v %d", h.Mode(), h.OnlineCPUs()) })
	grq, err := eevdf.NewCfsRq(eevdf.WithHierarchy(h))
	if err != nil {
		t.Fatal(err)
	}
	e.live = append(e.live, grq)
	g := mustGroup(t, h, "g", nil)
	foreign := mustGroup(t, other, "f", nil)
	e.err("WithCPUWeight(0)", eevdf.ErrGroupWeight, func() error { return second(h.NewGroup("x", nil, eevdf.WithCPUWeight(0))) })
	e.err("WithCPUWeightNice(20)", eevdf.ErrGroupWeight, func() error { return second(h.NewGroup("x", nil, eevdf.WithCPUWeightNice(20))) })
	e.err("a nil group option", eevdf.ErrBadGroup, func() error { return second(h.NewGroup("x", nil, nil)) })
	e.err("SetCPUWeight(10001)", eevdf.ErrGroupWeight, func() error { return g.SetCPUWeight(10001) })
	e.err("SetCPUWeightNice(-21)", eevdf.ErrGroupWeight, func() error { return g.SetCPUWeightNice(-21) })
	e.err("a parent of another hierarchy", eevdf.ErrForeignGroup, func() error { return second(h.NewGroup("x", foreign)) })
	e.err("a zero parent", eevdf.ErrForeignGroup, func() error { return second(h.NewGroup("x", &eevdf.TaskGroup{})) })
	e.err("Group of another hierarchy", eevdf.ErrForeignGroup, func() error { return second(grq.Group(foreign)) })
	e.err("Group on a flat runqueue", eevdf.ErrForeignGroup, func() error { return second(live.Group(g)) })
	e.err("MoveToGroup of another hierarchy", eevdf.ErrForeignGroup, func() error { return live.MoveToGroup(s, foreign) })
	e.err("MoveToGroup(nil) on a flat runqueue", eevdf.ErrForeignGroup, func() error { return live.MoveToGroup(s, nil) })
	x, err := eevdf.NewEntity("X", eevdf.WithGroup(foreign))
	if err != nil {
		t.Fatal(err)
	}
	e.err("WakeUpNew of an entity of another hierarchy's group", eevdf.ErrForeignGroup, func() error { return grq.WakeUpNew(x) })
	e.err("Enqueue of an entity of another hierarchy's group", eevdf.ErrForeignGroup, func() error { return grq.Enqueue(x, eevdf.EnqueueInitial) })

	// An entity of another runqueue.
	rq2, err := eevdf.NewCfsRq()
	if err != nil {
		t.Fatal(err)
	}
	y, _ := eevdf.NewEntity("Y")
	if err := rq2.WakeUpNew(y); err != nil {
		t.Fatal(err)
	}
	e.live = append(e.live, rq2)
	e.err("Wakeup of another runqueue's entity", eevdf.ErrForeignEntity, func() error { return live.Wakeup(y, 0) })
	e.err("WakeUpNew of another runqueue's entity", eevdf.ErrForeignEntity, func() error { return live.WakeUpNew(y) })
	e.err("SetNice of another runqueue's entity", eevdf.ErrForeignEntity, func() error { return live.SetNice(y, 99) })
	e.eq("Eligible of another runqueue's entity", false, func() any { return live.Eligible(y) })
	// The limit is the queue's and the entity's weight's: Y (nice 0) gets
	// this queue's (700000 + 1000000) ns.
	e.eq("LagLimit of another runqueue's entity", int64(1700000), func() any { return live.LagLimit(y) })
}
