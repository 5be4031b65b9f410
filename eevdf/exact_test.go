package eevdf_test

import (
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// z is the kernel's initial zero_vruntime, 2^64 − 2^20: every vruntime and
// deadline below is written relative to it and wraps.
const z = ^uint64(0) - (1 << 20) + 1

var backends = []eevdf.Backend{eevdf.BTree, eevdf.RBTree}

// bench is a small driver for the exact-number tests: it fails the test on
// any error and runs Check after every operation.
type bench struct {
	t  *testing.T
	rq *eevdf.CfsRq
}

func newBench(t *testing.T, b eevdf.Backend, opts ...eevdf.Option) *bench {
	t.Helper()
	rq, err := eevdf.NewCfsRq(append([]eevdf.Option{eevdf.WithTimeline(b)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return &bench{t, rq}
}

func (b *bench) entity(name string, opts ...eevdf.EntityOption) *eevdf.SchedEntity {
	b.t.Helper()
	se, err := eevdf.NewEntity(name, opts...)
	if err != nil {
		b.t.Fatal(err)
	}
	return se
}

func (b *bench) at(now uint64) *bench {
	b.t.Helper()
	if err := b.rq.SetClock(now); err != nil {
		b.t.Fatal(err)
	}
	return b
}

func (b *bench) check() {
	b.t.Helper()
	if err := b.rq.Check(); err != nil {
		b.t.Fatal(err)
	}
}

// new is wake_up_new_task.
func (b *bench) new(se *eevdf.SchedEntity) {
	b.t.Helper()
	if err := b.rq.Enqueue(se, eevdf.EnqueueInitial); err != nil {
		b.t.Fatal(err)
	}
	b.rq.WakeupPreempt(se, eevdf.WFFork)
	b.check()
}

func (b *bench) schedule() *eevdf.SchedEntity {
	b.t.Helper()
	se := b.rq.PickNext()
	b.check()
	return se
}

func (b *bench) tick() {
	b.t.Helper()
	b.rq.Tick()
	b.check()
}

func (b *bench) sleep() *eevdf.SchedEntity {
	b.t.Helper()
	if _, err := b.rq.Dequeue(b.rq.Curr(), eevdf.DequeueSleep); err != nil {
		b.t.Fatal(err)
	}
	return b.schedule()
}

// want asserts an entity's vruntime, deadline and vprot relative to z.
func want(t *testing.T, se *eevdf.SchedEntity, vr, dl, vprot int64) {
	t.Helper()
	if got := int64(se.Vruntime() - z); got != vr {
		t.Errorf("%s vruntime z%+d, want z%+d", se.Name(), got, vr)
	}
	if got := int64(se.Deadline() - z); got != dl {
		t.Errorf("%s deadline z%+d, want z%+d", se.Name(), got, dl)
	}
	if vprot != skip {
		if got := int64(se.Vprot() - z); got != vprot {
			t.Errorf("%s vprot z%+d, want z%+d", se.Name(), got, vprot)
		}
	}
}

const skip = -1 << 62

func wantPick(t *testing.T, got, want *eevdf.SchedEntity) {
	t.Helper()
	if got != want {
		t.Fatalf("picked %v, want %v", got, want)
	}
}

// Three nice-0 tasks, all CPU-bound, with a tick every 1 ms followed by a
// schedule. Each tick the running task passes its 0.7 ms deadline, gets a
// new one from its vruntime and is rescheduled; the pick takes the earliest
// deadline among the eligible, so the three take turns A B C A B C. After
// 30 ticks each has run 10 ms and sits at z + 10 ms.
func TestThreeEqualTasksRoundRobin(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk)
		a, bb, c := b.entity("A"), b.entity("B"), b.entity("C")
		b.new(a)
		b.new(bb)
		b.new(c)
		// Each placed at V = z with half a slice: deadline z + 350000.
		for _, se := range []*eevdf.SchedEntity{a, bb, c} {
			want(t, se, 0, 350000, skip)
		}
		if !b.rq.NeedResched() {
			t.Fatal("a wakeup while idle runs must request a reschedule")
		}
		wantPick(t, b.schedule(), a) // equal deadlines: the first inserted
		want(t, a, 0, 350000, 350000)

		b.at(1000000).tick()
		want(t, a, 1000000, 1700000, 350000) // deadline renewed from vruntime
		if !b.rq.NeedResched() {
			t.Fatal("deadline reached with competitors: resched expected")
		}
		wantPick(t, b.schedule(), bb)
		if v := b.rq.V(); v-z != 333333 { // ⌊(1000000 + 0 + 0)/3⌋
			t.Errorf("V = z%+d, want z+333333", int64(v-z))
		}
		order := []*eevdf.SchedEntity{c, a, bb}
		for i := 2; i <= 30; i++ {
			b.at(uint64(i) * 1000000).tick()
			wantPick(t, b.schedule(), order[(i-2)%3])
		}
		b.at(31000000).tick() // the 31st tick, A's 11th
		for _, se := range []*eevdf.SchedEntity{bb, c} {
			if se.SumExecRuntime() != 10000000 || se.Vruntime()-z != 10000000 {
				t.Errorf("%s: runtime %d, vruntime z%+d; want 10 ms each", se.Name(), se.SumExecRuntime(), int64(se.Vruntime()-z))
			}
		}
		if a.SumExecRuntime() != 11000000 {
			t.Errorf("A ran %d, want 11 ms", a.SumExecRuntime())
		}
	}
}

// Nice −5, 0 and +5 (weights 3121, 1024, 335): virtual time runs at
// 1024/w of real time, so the heavy task's requests are short in virtual
// time and it is picked more often.
func TestNiceMixedExact(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk)
		h, m, l := b.entity("H", eevdf.WithNice(-5)), b.entity("M"), b.entity("L", eevdf.WithNice(5))
		b.new(h)
		b.new(m)
		b.new(l)
		// vslice = ⌊700000·1024/w⌋: 229669 (nice −5), 700000, 2139701 (nice 5);
		// a new task gets half of it.
		want(t, h, 0, 114834, skip)
		want(t, m, 0, 350000, skip)
		want(t, l, 0, 1069850, skip)
		wantPick(t, b.schedule(), h)

		b.at(1000000).tick()
		// 1 ms at weight 3121: 1000000·1024/3121 = 328099 virtual ns.
		want(t, h, 328099, 328099+229669, skip)
		// V = ⌊3121·328099 / (3121 + 1024 + 335)⌋ = ⌊1023996979/4480⌋.
		if v := b.rq.V(); v-z != 228570 {
			t.Errorf("V = z%+d, want z+228570", int64(v-z))
		}
		wantPick(t, b.schedule(), m) // H is past V; M has the earliest eligible deadline
		b.at(2000000).tick()
		want(t, m, 1000000, 1700000, skip)
		// V = ⌊(3121·328099 + 1024·1000000)/4480⌋ = 457142: H (328099) and
		// L (0) are eligible; H's deadline 557768 is earlier than L's.
		if v := b.rq.V(); v-z != 457142 {
			t.Errorf("V = z%+d, want z+457142", int64(v-z))
		}
		wantPick(t, b.schedule(), h)
	}
}

// A 0.1 ms custom slice against a 3 ms one. The long-slice task's
// protection is cut where it would turn ineligible (PREEMPT_SHORT), one
// virtual ns past the short task's vruntime.
func TestCustomSlicesExact(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk)
		long, short := b.entity("L", eevdf.WithSlice(3000000)), b.entity("S", eevdf.WithSlice(100000))
		b.new(long)
		b.new(short)
		want(t, long, 0, 1500000, skip)
		want(t, short, 0, 50000, skip)
		wantPick(t, b.schedule(), short)
		want(t, short, 0, 50000, 50000) // shortest slice is its own: up to the deadline

		b.at(1000000).tick()
		want(t, short, 1000000, 1100000, 50000) // the custom slice is kept at renewal
		wantPick(t, b.schedule(), long)
		// ineligible_vruntime = z + ⌊1000000·w/w⌋ + 1.
		want(t, long, 0, 1500000, 1000001)

		b.at(2000000).tick()
		if b.rq.NeedResched() {
			t.Fatal("L at z+1000000 is still before vprot z+1000001: no resched")
		}
		b.at(3000000).tick()
		want(t, long, 2000000, 5000000, 1000001)
		if !b.rq.NeedResched() {
			t.Fatal("L's deadline was renewed: resched expected")
		}
		wantPick(t, b.schedule(), short)
		want(t, short, 1000000, 1100000, 1100000)
	}
}

// A task created while another runs is placed at V with half a slice, and
// a forked task never preempts by the PICK rule (only a shorter slice can).
func TestNewTaskAtVWithHalfSlice(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk)
		a := b.entity("A")
		b.new(a)
		wantPick(t, b.schedule(), a)
		b.at(2500000).tick() // alone: no resched, deadline renewed silently
		if b.rq.NeedResched() {
			t.Fatal("a lone task is never rescheduled by the tick")
		}
		want(t, a, 2500000, 3200000, 350000)

		n := b.entity("N", eevdf.WithNice(5))
		b.at(2600000)
		b.new(n)
		// A charged to 2600000 first; V is A's vruntime; vslice(nice 5) = 2139701.
		want(t, a, 2600000, 3200000, skip)
		want(t, n, 2600000, 2600000+2139701/2, skip)
		if b.rq.NeedResched() {
			t.Fatal("a forked task with a longer slice does not preempt")
		}
	}
}

// KERNEL-SPEC §11.11, the worked replay: a short-slice task created while
// B runs preempts it although the pick would keep B (SHORT rule), becomes
// the buddy and is picked; when it sleeps ineligible it stays queued as
// delayed, and B's protection is cut by the shorter slice in the tree.
func TestWorkedReplay(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk)
		a, bb, c := b.entity("A"), b.entity("B"), b.entity("C", eevdf.WithSlice(300000))
		b.new(a)
		b.new(bb)
		wantPick(t, b.schedule(), a)
		want(t, a, 0, 350000, 350000)
		b.at(700000).tick()
		want(t, a, 700000, 1400000, 350000)
		wantPick(t, b.schedule(), bb)
		want(t, bb, 0, 350000, 350000)

		b.at(900000)
		b.new(c)
		want(t, bb, 200000, 350000, 200000) // charged, then protection cancelled
		want(t, c, 450000, 600000, skip)
		if !b.rq.NeedResched() || b.rq.NextBuddy() != c {
			t.Fatalf("resched %v buddy %v; want true, C", b.rq.NeedResched(), b.rq.NextBuddy())
		}
		wantPick(t, b.schedule(), c)
		want(t, c, 450000, 600000, 600000)

		b.at(1000000).tick()
		want(t, c, 550000, 600000, 600000)
		if b.rq.NeedResched() {
			t.Fatal("C is protected and before its deadline")
		}
		b.at(1100000)
		wantPick(t, b.sleep(), bb)
		want(t, c, 650000, 950000, 600000)
		if !c.Delayed() || !c.OnRq() || c.VLag() != -133334 {
			t.Errorf("C delayed %v on_rq %v vlag %d; want true true −133334", c.Delayed(), c.OnRq(), c.VLag())
		}
		want(t, bb, 200000, 350000, 350000)
		if v := b.rq.V(); v-z != 516666 {
			t.Errorf("V = z%+d, want z+516666", int64(v-z))
		}
		if a.SumExecRuntime() != 700000 || bb.SumExecRuntime() != 200000 || c.SumExecRuntime() != 200000 {
			t.Error("sum_exec after op 8: want A 700000, B 200000, C 200000")
		}
	}
}

// Core scheduling picks on every sibling without installing (PickTask),
// then installs its choice (SetNext) or forces the CPU idle (PutPrev).
func TestPickTaskAndPutPrev(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk)
		a, bb := b.entity("A"), b.entity("B")
		b.new(a)
		b.new(bb)
		wantPick(t, b.schedule(), a)
		b.at(1000000)
		if got := b.rq.PickTask(); got != bb {
			t.Fatalf("PickTask = %v, want B", got)
		}
		// Nothing was installed: A is still running, charged to 1 ms.
		if b.rq.Curr() != a || a.SumExecRuntime() != 1000000 || !b.rq.NeedResched() {
			t.Fatalf("curr %v runtime %d resched %v", b.rq.Curr(), a.SumExecRuntime(), b.rq.NeedResched())
		}
		b.check()
		b.rq.PutPrev()
		if b.rq.Curr() != nil || b.rq.NeedResched() || b.rq.NrQueued() != 2 {
			t.Fatalf("after PutPrev: curr %v resched %v queued %d", b.rq.Curr(), b.rq.NeedResched(), b.rq.NrQueued())
		}
		b.check()
		b.at(2000000)
		wantPick(t, b.schedule(), bb) // from idle; A was not charged for the idle time
		if a.SumExecRuntime() != 1000000 {
			t.Errorf("A charged for forced idle: %d", a.SumExecRuntime())
		}
	}
}
