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
	// An idle group's 3072 reads back as cpu.weight ⌊(3·100 + 512)/1024⌋
	// = 0, clamped to the smallest weight, 1.
	if err := g.SetIdle(true); err != nil || g.Shares() != 3072 || !g.Idle() || g.CPUWeight() != 1 {
		t.Errorf("cpu.idle 1: shares %d idle %v cpu.weight %d, %v", g.Shares(), g.Idle(), g.CPUWeight(), err)
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

// The zero Hierarchy is NewHierarchy()'s: mode concur, one online CPU, a
// root group, and groups and runqueues can be added to it; a nil one is
// an error, not a panic.
func TestGroupZeroHierarchyIsUsable(t *testing.T) {
	var h eevdf.Hierarchy
	g, err := h.NewGroup("G", nil, eevdf.WithCPUWeight(50))
	if err != nil {
		t.Fatal(err)
	}
	if h.Mode() != eevdf.ModeConcur || h.OnlineCPUs() != 1 || g.Parent() != h.Root() || h.Root().Shares() != 1048576 {
		t.Fatalf("zero hierarchy: mode %v, %d CPUs, parent %v, root shares %d", h.Mode(), h.OnlineCPUs(), g.Parent(), h.Root().Shares())
	}
	bn := groupBench(t, &h, eevdf.BTree)
	a := bn.entity("A", eevdf.WithGroup(g))
	bn.new(a)
	wantGroup(t, bn, g, 524288, 524288)
	wantHWeight(t, a, 524288)

	// A runqueue made first on a zero hierarchy has its root group.
	var z1 eevdf.Hierarchy
	bn1 := groupBench(t, &z1, eevdf.RBTree)
	r := bn1.entity("R")
	bn1.new(r)
	move(bn1, r, nil)
	if r.Group() != z1.Root() || z1.Root() == nil {
		t.Errorf("a move to the root of a zero hierarchy: group %v", r.Group())
	}

	var z2 eevdf.Hierarchy
	z2.SetMode(eevdf.ModeMax)
	if z2.Mode() != eevdf.ModeMax || z2.Root() == nil {
		t.Errorf("SetMode on a zero hierarchy: mode %v, root %v", z2.Mode(), z2.Root())
	}
	var nilH *eevdf.Hierarchy
	if _, err := nilH.NewGroup("G", nil); !errors.Is(err, eevdf.ErrBadGroup) {
		t.Errorf("NewGroup on a nil hierarchy: %v", err)
	}
}

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

// wantRel checks an entity's vruntime and deadline, written relative to
// the initial zero_vruntime z, its saved lag and its h_weight.
func wantRel(t *testing.T, se *eevdf.SchedEntity, vruntime, deadline, vlag int64, hw uint64) {
	t.Helper()
	if v, d := int64(se.Vruntime()-z), int64(se.Deadline()-z); v != vruntime || d != deadline || se.VLag() != vlag || se.HWeight() != hw {
		t.Errorf("%s: vruntime z%+d deadline z%+d vlag %d h_weight %d; want z%+d z%+d %d %d",
			se.Name(), v, d, se.VLag(), se.HWeight(), vruntime, deadline, vlag, hw)
	}
}

// wantGroup checks a group's entity weight on the bench's CPU and the
// root queue's load.
func wantGroup(t *testing.T, bn *bench, g *eevdf.TaskGroup, weight, rootLoad uint64) {
	t.Helper()
	st, err := bn.rq.Group(g)
	if err != nil {
		t.Fatal(err)
	}
	if st.Weight != weight || bn.rq.Load() != rootLoad {
		t.Errorf("%v's entity weighs %d, root load %d; want %d, %d", g, st.Weight, bn.rq.Load(), weight, rootLoad)
	}
}

// Mode max on one runqueue (KERNEL-SPEC-GROUPS §2.4, §3.1): a group's
// entity weighs min(S·N, 90891264) for N online CPUs. cpu.weight 10000
// (S = 104857600) is capped at the nice −20 weight 90891264, and a task
// alone in the group folds ⌊2^40/2^20⌋ = 2^20, then ⌊2^20·90891264/2^20⌋
// = 90891264. With 4 online CPUs cpu.weight 100 weighs 4·2^20 = 4194304
// and its lone task as much.
func TestGroupModeMaxCapsAndCountsOnlineCPUs(t *testing.T) {
	for _, tc := range []struct {
		cpus   int
		weight uint64
		want   uint64
	}{{1, 10000, 90891264}, {4, 100, 4194304}, {1, 100, 1048576}, {4, 3000, 90891264}} {
		h := eevdf.NewHierarchy(eevdf.WithCgroupMode(eevdf.ModeMax), eevdf.WithOnlineCPUs(tc.cpus))
		g := mustGroup(t, h, "G", nil, eevdf.WithCPUWeight(tc.weight))
		bn := groupBench(t, h, eevdf.BTree)
		a := bn.entity("A", eevdf.WithGroup(g))
		bn.new(a)
		wantGroup(t, bn, g, tc.want, tc.want)
		wantHWeight(t, a, tc.want)
	}
}

// A second task joining a queued group refreshes the group entity's
// weight at enqueue (update_cfs_group on the already-queued ancestors,
// KERNEL-SPEC-GROUPS §2.3). The refresh is made visible by a cgroup_mode
// switch, which by itself changes no weight (§2.4): G (cpu.weight 10000,
// S = 104857600) weighs S under up; after the switch to max it still
// does, until B's enqueue recomputes it as min(S, 90891264) = 90891264.
// B then folds ⌊2^40/2^21⌋ = 524288 in G (two tasks) and
// ⌊524288·90891264/2^20⌋ = 45445632 on top; A keeps its stale 104857600.
func TestGroupJoinRefreshesQueuedGroupEntityAtEnqueue(t *testing.T) {
	h := eevdf.NewHierarchy(eevdf.WithCgroupMode(eevdf.ModeUp))
	g := mustGroup(t, h, "G", nil, eevdf.WithCPUWeight(10000))
	bn := groupBench(t, h, eevdf.BTree)
	a := bn.entity("A", eevdf.WithGroup(g))
	b := bn.entity("B", eevdf.WithGroup(g))
	bn.new(a)
	wantGroup(t, bn, g, 104857600, 104857600)
	wantHWeight(t, a, 104857600)
	h.SetMode(eevdf.ModeMax)
	bn.check()
	wantGroup(t, bn, g, 104857600, 104857600)
	bn.new(b)
	wantGroup(t, bn, g, 90891264, 90891264)
	wantHWeight(t, b, 45445632)
	wantHWeight(t, a, 104857600)
}

// A task leaving a group that stays queued refreshes the group entity's
// weight at dequeue (update_cfs_group on the ancestors that keep load,
// KERNEL-SPEC-GROUPS §2.3). As above, G (cpu.weight 10000) weighs
// 104857600 under up, and the switch to max shows only when the entity is
// recomputed: A, picked and sleeping at once with lag 0 (not delayed),
// leaves G with B, and G's entity becomes 90891264. B's h_weight is stale
// (⌊2^40/2^21⌋ = 524288 → ⌊524288·104857600/2^20⌋ = 52428800, from its
// enqueue) until B is picked: ⌊2^40/2^20⌋ = 2^20 → 90891264.
func TestGroupLeaveRefreshesRemainingGroupEntityAtDequeue(t *testing.T) {
	h := eevdf.NewHierarchy(eevdf.WithCgroupMode(eevdf.ModeUp))
	g := mustGroup(t, h, "G", nil, eevdf.WithCPUWeight(10000))
	bn := groupBench(t, h, eevdf.BTree)
	a := bn.entity("A", eevdf.WithGroup(g))
	b := bn.entity("B", eevdf.WithGroup(g))
	bn.new(a)
	bn.new(b)
	wantHWeight(t, b, 52428800)
	wantPick(t, bn.schedule(), a)
	h.SetMode(eevdf.ModeMax)
	bn.check()
	wantGroup(t, bn, g, 104857600, 104857600)
	if delayed := bn.sleep(); delayed != b || a.OnRq() {
		t.Fatalf("A's sleep: picked %v, A on_rq %v", delayed, a.OnRq())
	}
	wantGroup(t, bn, g, 90891264, 90891264)
	wantHWeight(t, b, 90891264) // picked: set_next_task_fair refreshed it
}

// The same at a nested level: a task leaving an emptied subgroup takes the
// subgroup's entity off, and the parent group, which keeps another task,
// is recomputed. P (cpu.weight 10000) holds task A and group C (which
// holds B); B's sleep empties C and leaves P with A: P's entity goes from
// up's 104857600 to max's 90891264.
func TestGroupLeaveRefreshesParentOfEmptiedGroupAtDequeue(t *testing.T) {
	h := eevdf.NewHierarchy(eevdf.WithCgroupMode(eevdf.ModeUp))
	p := mustGroup(t, h, "P", nil, eevdf.WithCPUWeight(10000))
	c := mustGroup(t, h, "C", p)
	bn := groupBench(t, h, eevdf.RBTree)
	b := bn.entity("B", eevdf.WithGroup(c))
	a := bn.entity("A", eevdf.WithGroup(p))
	bn.new(b)
	bn.new(a)
	wantPick(t, bn.schedule(), b)
	h.SetMode(eevdf.ModeMax)
	wantGroup(t, bn, p, 104857600, 104857600)
	bn.sleep()
	st, _ := bn.rq.Group(c)
	if st.OnRq {
		t.Errorf("C's entity still queued after its last task slept")
	}
	wantGroup(t, bn, p, 90891264, 90891264)
}

// Moves between groups (sched_move_task, KERNEL-SPEC-GROUPS §5.3), with
// two nice-0 root tasks A and B, base slice 700000, and G of cpu.weight 50
// (S = 524288). New at t = 0, both at z: A (z, deadline z+350000), then
// B (z, z+350000); A is picked and protected to its deadline. In G alone
// a task folds ⌊2^40/2^20⌋ = 2^20, then ⌊2^20·524288/2^20⌋ = 524288, half
// its root weight, so a move rescales lag and relative deadline by
// 1048576/524288 = 2 before the placement inflates the lag by (W + w)/W.
func moveBench(t *testing.T, bk eevdf.Backend) (bn *bench, g *eevdf.TaskGroup, a, b *eevdf.SchedEntity) {
	t.Helper()
	h := eevdf.NewHierarchy()
	g = mustGroup(t, h, "G", nil, eevdf.WithCPUWeight(50))
	bn = groupBench(t, h, bk)
	a, b = bn.entity("A"), bn.entity("B")
	bn.new(a)
	bn.new(b)
	wantPick(t, bn.schedule(), a)
	wantRel(t, a, 0, 350000, 0, 1048576)
	wantRel(t, b, 0, 350000, 0, 1048576)
	return bn, g, a, b
}

func move(bn *bench, se *eevdf.SchedEntity, g *eevdf.TaskGroup) {
	bn.t.Helper()
	if err := bn.rq.MoveToGroup(se, g); err != nil {
		bn.t.Fatal(err)
	}
	bn.check()
}

// The running task moves: SAVE (charged 200 µs: vruntime z+200000;
// V = (200000 + 0)/2 = z+100000, lag −100000; deadline made relative,
// 150000), put back, RESTORE through G (vlag −100000·2 = −200000,
// relative deadline 300000; placed against B alone, V = z, W = 2^20,
// w = 524288: lag −200000·(2^20 + 524288)/2^20 = −300000, vruntime
// z+300000, deadline z+600000), re-installed as curr without new
// protection (vprot stays z+350000), rescheduled. V is then
// (300000·524288 + 0·2^20)/1572864 = z+100000: A's lag is −200000, its
// rescaled vlag.
func TestGroupMoveOfTheRunningTask(t *testing.T) {
	for _, bk := range backends {
		bn, g, a, b := moveBench(t, bk)
		bn.at(200000)
		move(bn, a, g)
		wantRel(t, a, 300000, 600000, -200000, 524288)
		wantRel(t, b, 0, 350000, 0, 1048576)
		if bn.rq.Curr() != a || !bn.rq.NeedResched() || a.Group() != g || a.SumExecRuntime() != 200000 {
			t.Errorf("curr %v resched %v group %v sum_exec %d", bn.rq.Curr(), bn.rq.NeedResched(), a.Group(), a.SumExecRuntime())
		}
		if vp := int64(a.Vprot() - z); vp != 350000 {
			t.Errorf("A's vprot z%+d, want z+350000 (not re-armed)", vp)
		}
		if v := int64(bn.rq.V() - z); v != 100000 || bn.rq.Lag(a) != -200000 {
			t.Errorf("V z%+d, A's lag %d; want z+100000, -200000", v, bn.rq.Lag(a))
		}
		// G's entity (524288) and B (2^20) are the root queue's entities.
		wantGroup(t, bn, g, 524288, 524288+1048576)
	}
}

// A queued task moves while A runs: SAVE charges A (z+200000, still
// protected), saves B's lag V − z = +100000 and its relative deadline
// 350000; RESTORE through G doubles both (200000, 700000) and places B
// against curr A alone (V = z+200000, W = 2^20): lag 200000·1.5 = 300000,
// vruntime z−100000, deadline z+600000. The wakeup check (flags 0, PICK):
// V = (200000·2^20 − 100000·524288)/1572864 = z+100000, so A is not
// eligible and B, eligible and leftmost, is the pick: A loses its
// protection (vprot = vruntime) and a resched is requested.
func TestGroupMoveOfAQueuedTask(t *testing.T) {
	for _, bk := range backends {
		bn, g, a, b := moveBench(t, bk)
		bn.at(200000)
		move(bn, b, g)
		wantRel(t, b, -100000, 600000, 200000, 524288)
		wantRel(t, a, 200000, 350000, 0, 1048576)
		if bn.rq.Curr() != a || !bn.rq.NeedResched() || a.Vprot() != a.Vruntime() {
			t.Errorf("curr %v resched %v, A's vprot z%+d", bn.rq.Curr(), bn.rq.NeedResched(), int64(a.Vprot()-z))
		}
		if v := int64(bn.rq.V() - z); v != 100000 || bn.rq.Lag(b) != 200000 {
			t.Errorf("V z%+d, B's lag %d; want z+100000, 200000", v, bn.rq.Lag(b))
		}
		wantPick(t, bn.schedule(), b)
	}
}

// A delayed task moves and stays delayed: A runs 400 µs, past its
// deadline (a new one from its vruntime: z+400000 + 700000), and sleeps
// with lag (400000 + 0)/2 − 400000 = −200000, so it is delayed and B is
// picked, protected to z+350000. At 500 µs the move's SAVE charges B
// (z+100000), saves A's lag against V = (400000 + 100000)/2 = z+250000:
// −150000, above the floor −200000 recorded at the sleep and capped at 0
// by DELAY_ZERO, and its relative deadline 1100000 − 400000 = 700000.
// RESTORE through G keeps it not runnable, doubles both (−300000,
// 1400000) and places it against curr B alone (V = z+100000): lag
// −300000·1.5 = −450000, vruntime z+550000, deadline z+1950000. The
// wakeup check sees a delayed wakee and only bounds B's protection:
// min(z+350000, z+100000 + 700000) leaves it.
func TestGroupMoveOfADelayedTask(t *testing.T) {
	for _, bk := range backends {
		bn, g, a, b := moveBench(t, bk)
		bn.at(400000)
		wantPick(t, bn.sleep(), b)
		if !a.Delayed() {
			t.Fatal("A's sleep was not delayed")
		}
		wantRel(t, a, 400000, 1100000, -200000, 1048576)
		bn.at(500000)
		move(bn, a, g)
		wantRel(t, a, 550000, 1950000, -300000, 524288)
		wantRel(t, b, 100000, 350000, 0, 1048576)
		if !a.Delayed() || !a.OnRq() || bn.rq.Curr() != b || bn.rq.NeedResched() {
			t.Errorf("A delayed %v on_rq %v; curr %v resched %v", a.Delayed(), a.OnRq(), bn.rq.Curr(), bn.rq.NeedResched())
		}
		if vp := int64(b.Vprot() - z); vp != 350000 {
			t.Errorf("B's vprot z%+d, want z+350000", vp)
		}
		// V = (550000·524288 + 100000·2^20)/1572864 = z+250000.
		if v := int64(bn.rq.V() - z); v != 250000 || bn.rq.Lag(a) != -300000 {
			t.Errorf("V z%+d, A's lag %d; want z+250000, -300000", v, bn.rq.Lag(a))
		}
		st, _ := bn.rq.Group(g)
		if !st.OnRq || st.HNrQueued != 1 || st.HNrRunnable != 0 || bn.rq.NrRunnable() != 1 || bn.rq.NrQueued() != 2 {
			t.Errorf("G %+v; root h_nr_runnable %d h_nr_queued %d", st, bn.rq.NrRunnable(), bn.rq.NrQueued())
		}
	}
}
