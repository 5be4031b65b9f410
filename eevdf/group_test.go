package eevdf_test

import (
	"errors"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// groupBench is a runqueue of a hierarchy, checked after every step.
func groupBench(t *testing.T, h *eevdf.Hierarchy, bk eevdf.Backend) *bench {
	t.Helper()
	return newBench(t, bk, eevdf.WithHierarchy(h))
}

func mustGroup(t *testing.T, h *eevdf.Hierarchy, name string, parent *eevdf.TaskGroup, opts ...eevdf.GroupOption) *eevdf.TaskGroup {
	t.Helper()
	g, err := h.NewGroup(name, parent, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func wantHWeight(t *testing.T, se *eevdf.SchedEntity, w uint64) {
	t.Helper()
	if se.HWeight() != w {
		t.Errorf("%s h_weight %d, want %d", se.Name(), se.HWeight(), w)
	}
}

// KERNEL-SPEC-GROUPS §3.3: root task R; group A (cpu.weight 100) holding
// A1 and group B (cpu.weight 50), which holds B1 and B2. With B1 enqueued
// first, alone, its enqueue folds ⌊2^40/2^20⌋ = 2^20, then
// ⌊2^20·524288/524288⌋ (B's entity alone on A's queue), then
// ⌊2^20·2^20/2^20⌋: 1048576, and it keeps that stale value while A1, B2
// and R arrive. B2's enqueue sees W_B = 2·2^20 and W_A = 2^20 + 524288:
// ⌊2^40/2^21⌋ = 524288, ⌊524288·524288/1572864⌋ = 174762. A1's (after
// B1's) sees W_A = 1572864: ⌊2^40/1572864⌋ = 699050. Once each has been
// picked, B1 too carries 174762; A's tasks sum to 1048574 (2 lost to
// truncation), R keeps 1048576.
func TestGroupWeightsFoldAndStayStaleUntilPicked(t *testing.T) {
	for _, bk := range backends {
		h := eevdf.NewHierarchy()
		a := mustGroup(t, h, "A", nil)
		b := mustGroup(t, h, "B", a, eevdf.WithCPUWeight(50))
		bn := groupBench(t, h, bk)
		r := bn.entity("R")
		a1 := bn.entity("A1", eevdf.WithGroup(a))
		b1 := bn.entity("B1", eevdf.WithGroup(b))
		b2 := bn.entity("B2", eevdf.WithGroup(b))
		bn.new(b1)
		wantHWeight(t, b1, 1048576)
		bn.new(a1)
		bn.new(b2)
		bn.new(r)
		wantHWeight(t, b1, 1048576) // stale: B1 was not refreshed
		wantHWeight(t, a1, 699050)
		wantHWeight(t, b2, 174762)
		wantHWeight(t, r, 1048576)
		for _, se := range []*eevdf.SchedEntity{b1, a1, b2, r} {
			if err := bn.rq.SetNext(se); err != nil {
				t.Fatal(err)
			}
			bn.check()
		}
		wantHWeight(t, b1, 174762)
		wantHWeight(t, b2, 174762)
		wantHWeight(t, a1, 699050)
		wantHWeight(t, r, 1048576)
		if sum := b1.HWeight() + b2.HWeight() + a1.HWeight(); sum != 1048574 {
			t.Errorf("A's tasks sum to %d, want 1048574", sum)
		}
		st, err := bn.rq.Group(a)
		if err != nil {
			t.Fatal(err)
		}
		if st.Weight != 1048576 || st.Load != 1048576+524288 || st.HNrQueued != 3 || st.NrQueued != 2 {
			t.Errorf("A: %+v", st)
		}
	}
}

// KERNEL-SPEC-GROUPS §3.2: cpu.weight W becomes shares
// scale_load(⌊(W·1024 + 50)/100⌋); cpu.weight.nice N the nice table's
// weight; cpu.idle 3072 and, when cleared, NICE_0_LOAD (the earlier weight
// is not restored).
func TestGroupShareConversions(t *testing.T) {
	h := eevdf.NewHierarchy()
	g := mustGroup(t, h, "G", nil)
	for _, tc := range []struct {
		w      uint64
		shares uint64
	}{{100, 1048576}, {50, 524288}, {1, 10240}, {10000, 104857600}, {3, 31744}} {
		if err := g.SetCPUWeight(tc.w); err != nil {
			t.Fatal(err)
		}
		if g.Shares() != tc.shares || g.CPUWeight() != tc.w {
			t.Errorf("cpu.weight %d: shares %d (want %d), reads back %d", tc.w, g.Shares(), tc.shares, g.CPUWeight())
		}
	}
	if err := g.SetCPUWeightNice(-20); err != nil || g.Shares() != 88761<<10 {
		t.Errorf("cpu.weight.nice -20: shares %d, %v", g.Shares(), err)
	}
	if err := g.SetIdle(true); err != nil || g.Shares() != 3072 || !g.Idle() {
		t.Errorf("cpu.idle 1: shares %d idle %v, %v", g.Shares(), g.Idle(), err)
	}
	if err := g.SetCPUWeight(200); !errors.Is(err, eevdf.ErrIdleGroup) || g.Shares() != 3072 {
		t.Errorf("weight write on an idle group: %v, shares %d", err, g.Shares())
	}
	if err := g.SetIdle(false); err != nil || g.Shares() != 1048576 || g.CPUWeight() != 100 {
		t.Errorf("cpu.idle 0: shares %d, %v", g.Shares(), err)
	}
}

// Bad group input is a clean error that changes nothing.
func TestGroupErrors(t *testing.T) {
	h := eevdf.NewHierarchy()
	other := eevdf.NewHierarchy()
	g := mustGroup(t, h, "G", nil)
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"cpu.weight 0", g.SetCPUWeight(0), eevdf.ErrGroupWeight},
		{"cpu.weight 10001", g.SetCPUWeight(10001), eevdf.ErrGroupWeight},
		{"cpu.weight.nice 20", g.SetCPUWeightNice(20), eevdf.ErrGroupWeight},
		{"cpu.weight of /", h.Root().SetCPUWeight(50), eevdf.ErrRootGroup},
		{"cpu.idle of /", h.Root().SetIdle(true), eevdf.ErrRootGroup},
		{"a parent of another hierarchy", second(h.NewGroup("X", other.Root())), eevdf.ErrForeignGroup},
		{"a name taken under the same parent", second(h.NewGroup("G", nil)), eevdf.ErrBadGroup},
		{"the name /", second(h.NewGroup("/", nil)), eevdf.ErrBadGroup},
		{"a bad option", second(h.NewGroup("Y", nil, eevdf.WithCPUWeight(0))), eevdf.ErrGroupWeight},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if g.Shares() != 1048576 || len(h.Groups()) != 1 {
		t.Errorf("errors changed state: shares %d, %d groups", g.Shares(), len(h.Groups()))
	}
	// A task of one hierarchy cannot be queued on another's runqueue.
	rq, _ := eevdf.NewCfsRq(eevdf.WithHierarchy(other))
	se, _ := eevdf.NewEntity("T", eevdf.WithGroup(g))
	if err := rq.Enqueue(se, eevdf.EnqueueInitial); !errors.Is(err, eevdf.ErrForeignGroup) {
		t.Errorf("enqueue on a foreign hierarchy: %v", err)
	}
	if err := rq.MoveToGroup(se, g); !errors.Is(err, eevdf.ErrForeignGroup) {
		t.Errorf("move to a foreign group: %v", err)
	}
	flat, _ := eevdf.NewCfsRq()
	if err := flat.Enqueue(se, eevdf.EnqueueInitial); !errors.Is(err, eevdf.ErrForeignGroup) || se.OnRq() {
		t.Errorf("enqueue of a grouped task on a flat runqueue: %v", err)
	}
	if _, err := eevdf.NewCfsRq(eevdf.WithHierarchy(h), eevdf.WithKernel(eevdf.KernelV71)); !errors.Is(err, eevdf.ErrBadOption) {
		t.Errorf("groups with the v7.1 kernel: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// A group write changes no task at once (KERNEL-SPEC-GROUPS §5.4): the
// running task is charged at its old weight by the next tick and only
// then takes the new one; a queued task takes it when picked.
func TestGroupWeightWriteReachesTasksAtTheirRefresh(t *testing.T) {
	h := eevdf.NewHierarchy()
	g := mustGroup(t, h, "G", nil)
	bn := groupBench(t, h, eevdf.BTree)
	a := bn.entity("A", eevdf.WithGroup(g))
	b := bn.entity("B", eevdf.WithGroup(g))
	r := bn.entity("R")
	bn.new(a)
	bn.new(b)
	bn.new(r)
	wantPick(t, bn.schedule(), a)
	// A and B share G's 2^20: ⌊2^40/2^21⌋ = 524288 each (B's enqueue saw
	// both; A was refreshed by its pick).
	wantHWeight(t, a, 524288)
	wantHWeight(t, b, 524288)
	if err := g.SetCPUWeight(200); err != nil {
		t.Fatal(err)
	}
	bn.check()
	wantHWeight(t, a, 524288)
	wantHWeight(t, b, 524288)
	st, _ := bn.rq.Group(g)
	if st.Weight != 2097152 {
		t.Errorf("G's entity weighs %d after cpu.weight 200, want 2097152", st.Weight)
	}
	bn.at(100000).tick()
	// Charged 100 µs (at the old weight), then refreshed:
	// ⌊2^40/2^21⌋ = 524288 in G, ⌊524288·2^21/2^20⌋ = 1048576 on top.
	wantHWeight(t, a, 1048576)
	wantHWeight(t, b, 524288)
	if a.SumExecRuntime() != 100000 {
		t.Errorf("A ran %d ns, want 100000", a.SumExecRuntime())
	}
	if err := bn.rq.SetNext(b); err != nil {
		t.Fatal(err)
	}
	bn.check()
	wantHWeight(t, b, 1048576)
}

// A sleeping task moved to another group keeps its saved lag and h_load
// until its wakeup, whose enqueue rescales the lag once, from the last
// installed h_load to the weight in the new group.
func TestGroupMoveWhileAsleepRescalesAtWakeup(t *testing.T) {
	h := eevdf.NewHierarchy()
	g := mustGroup(t, h, "G", nil, eevdf.WithCPUWeight(50))
	bn := groupBench(t, h, eevdf.RBTree)
	a := bn.entity("A")
	b := bn.entity("B")
	bn.new(a)
	bn.new(b)
	wantPick(t, bn.schedule(), a)
	bn.at(200000)
	if _, err := bn.rq.Dequeue(a, eevdf.DequeueSleep|eevdf.DequeueSpecial); err != nil {
		t.Fatal(err)
	}
	bn.schedule()
	vlag := a.VLag() // A ran 200 µs ahead of B: lag −100000
	if vlag != -100000 {
		t.Fatalf("A's saved lag %d, want −100000", vlag)
	}
	if err := bn.rq.MoveToGroup(a, g); err != nil {
		t.Fatal(err)
	}
	bn.check()
	if a.VLag() != vlag || a.HWeight() != 1048576 || a.Group() != g {
		t.Fatalf("move while asleep changed A: vlag %d h_weight %d group %v", a.VLag(), a.HWeight(), a.Group())
	}
	bn.wakeup(a)
	// In G (cpu.weight 50) alone: h_load 524288, so the lag doubles:
	// −100000·1048576/524288 = −200000, then placement inflates it.
	wantHWeight(t, a, 524288)
	if a.VLag() != -200000 {
		t.Errorf("A's lag after the wakeup %d, want −200000", a.VLag())
	}
}
