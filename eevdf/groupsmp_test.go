package eevdf

import (
	"slices"
	"testing"
)

// The worked examples of KERNEL-SPEC-GROUPS-SMP §11 on two runqueues that
// share one Hierarchy (CPU 0 and CPU 1 of a 2-CPU machine), driven as §12
// describes. Every expected number is the spec's, derived there by hand
// from the kernel's rules.

const (
	t0 = 1 << 20         // T0: every last_update_time on a period boundary
	t2 = t0 + 32<<20     // T2 = T0 + 32 periods = 34603008
	j2 = uint64(34)      // the jiffy of T2 at HZ 1000
	mb = uint64(1 << 20) // NICE_0_LOAD
)

// s11 is the state of §11.1: G at the top level, A1 (running) and A2 of G
// on CPU 0, B1 (running) of G on CPU 1, forked at T0; at T2 CPU 0 ticks,
// then CPU 1.
type s11 struct {
	h          *Hierarchy
	g          *TaskGroup
	rq0, rq1   *CfsRq
	a1, a2, b1 *SchedEntity
}

func newS11(t *testing.T, mode CgroupMode) *s11 {
	t.Helper()
	s := &s11{h: NewHierarchy(WithCgroupMode(mode), WithOnlineCPUs(2))}
	var err error
	if s.rq0, err = NewCfsRq(WithHierarchy(s.h)); err != nil {
		t.Fatal(err)
	}
	if s.rq1, err = NewCfsRq(WithHierarchy(s.h)); err != nil {
		t.Fatal(err)
	}
	must(t, s.rq0.SetClock(t0))
	must(t, s.rq1.SetClock(t0))
	if s.g, err = s.h.NewGroup("G", nil); err != nil {
		t.Fatal(err)
	}
	s.a1 = mustEntity(t, "A1", WithGroup(s.g))
	s.a2 = mustEntity(t, "A2", WithGroup(s.g))
	s.b1 = mustEntity(t, "B1", WithGroup(s.g))
	must(t, s.rq0.Enqueue(s.a1, EnqueueInitial))
	s.rq0.PickNext()
	must(t, s.rq0.Enqueue(s.a2, EnqueueInitial))
	must(t, s.rq1.Enqueue(s.b1, EnqueueInitial))
	s.rq1.PickNext()
	must(t, s.rq0.SetClock(t2))
	must(t, s.rq1.SetClock(t2))
	s.rq0.Tick()
	s.rq1.Tick()
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustEntity(t *testing.T, name string, opts ...EntityOption) *SchedEntity {
	t.Helper()
	se, err := NewEntity(name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return se
}

func checkEq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func (s *s11) state(t *testing.T, rq *CfsRq) GroupState {
	t.Helper()
	st, err := rq.Group(s.g)
	must(t, err)
	return st
}

// §11.1: publication and shares across two CPUs. CPU 1's share reads CPU
// 0's fresh publication (k = 2), CPU 0's read CPU 1's stale one (k = 1).
func TestGroupSMPPublicationAndShares(t *testing.T) {
	s := newS11(t, ModeConcur)
	checkEq(t, "tg.load_avg", s.g.LoadAvg(), 3070)
	checkEq(t, "tg.runnable_avg", s.g.RunnableAvg(), 2174)
	g0, g1 := s.state(t, s.rq0), s.state(t, s.rq1)
	checkEq(t, "ge0 weight", g0.Weight, 699050)
	checkEq(t, "ge1 weight", g1.Weight, 699278)
	checkEq(t, "g0 load_avg", g0.Avg.LoadAvg, 2047)
	checkEq(t, "g0 runnable_avg", g0.Avg.RunnableAvg, 1407)
	checkEq(t, "g0 util_avg", g0.Avg.UtilAvg, 895)
	checkEq(t, "g1 load_avg", g1.Avg.LoadAvg, 1023)
	checkEq(t, "ge0 load_avg", g0.EntityAvg.LoadAvg, 681)
	checkEq(t, "root 0 load_avg", s.rq0.Avg().LoadAvg, 681)
	checkEq(t, "root 0 load_sum", s.rq0.Avg().LoadSum, 31862017)
	checkEq(t, "root 1 load_avg", s.rq1.Avg().LoadAvg, 681)
	checkEq(t, "A1 h_weight", s.a1.HWeight(), 349525)
	checkEq(t, "A2 h_weight (T0 fold)", s.a2.HWeight(), 524288)
	checkEq(t, "B1 h_weight", s.b1.HWeight(), 699278)
	p0, err := s.rq0.Published(s.g)
	must(t, err)
	checkEq(t, "g0 published load", p0.LoadAvg, 2047)
	checkEq(t, "g0 published runnable", p0.RunnableAvg, 1407)
	checkEq(t, "g0 publication stamp", p0.LastUpdate, uint64(t2))
}

// §11.2: h_load and task_h_load at T2, first use in the jiffy, then the
// same-jiffy staleness after a detach and the refresh one jiffy later.
func TestGroupSMPTaskHLoad(t *testing.T) {
	s := newS11(t, ModeConcur)
	checkEq(t, "task_h_load(A2)", s.rq0.TaskHLoad(s.a2, j2), 340) // ⌊1024·680/2048⌋
	checkEq(t, "task_h_load(A1)", s.rq0.TaskHLoad(s.a1, j2), 339) // ⌊1023·680/2048⌋
	checkEq(t, "task_h_load(B1)", s.rq1.TaskHLoad(s.b1, j2), 679) // ⌊1023·680/1024⌋
	for _, c := range []struct {
		rq   *CfsRq
		g    *TaskGroup
		want uint64
	}{{s.rq0, s.g, 680}, {s.rq1, s.g, 680}, {s.rq0, s.h.Root(), 681}, {s.rq1, s.h.Root(), 681}} {
		hl, j, ok, err := c.rq.HLoad(c.g)
		must(t, err)
		if hl != c.want || j != j2 || !ok {
			t.Errorf("CPU %d %s: h_load %d at jiffy %d (%v), want %d at %d", c.rq.CPU(), c.g, hl, j, ok, c.want, j2)
		}
	}
	// A2 leaves CPU 0 in the same jiffy: g0's load_avg falls to 1024, the
	// cached 680 stays: ⌊1023·680/1025⌋.
	must(t, s.rq0.DetachTask(s.a2))
	checkEq(t, "task_h_load(A1) after the detach, same jiffy", s.rq0.TaskHLoad(s.a1, j2), 678)
	// Next jiffy: root 1023, g0 ⌊1023·1023/1024⌋ = 1022, ⌊1023·1022/1025⌋.
	checkEq(t, "task_h_load(A1) next jiffy", s.rq0.TaskHLoad(s.a1, j2+1), 1020)
}

// A root-group task keeps the root queue's formula, and a group queue
// never refreshed is refreshed at its first use, even at jiffy 0.
func TestTaskHLoadRootAndFirstUse(t *testing.T) {
	h := NewHierarchy(WithOnlineCPUs(1))
	rq, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	must(t, rq.SetClock(t0))
	r := mustEntity(t, "R")
	must(t, rq.Enqueue(r, EnqueueInitial))
	rq.PickNext()
	must(t, rq.SetClock(t2))
	rq.Tick()
	a := rq.Avg()
	want := r.Avg().LoadAvg * a.LoadAvg / (a.LoadAvg + 1)
	checkEq(t, "task_h_load of a root task", rq.TaskHLoad(r, 0), want)
	g, err := h.NewGroup("late", nil)
	must(t, err)
	if _, _, ok, _ := rq.HLoad(g); ok {
		t.Fatal("a new group's h_load is marked computed")
	}
	x := mustEntity(t, "X", WithGroup(g))
	must(t, rq.Enqueue(x, 0))
	rq.TaskHLoad(x, 0)
	if _, j, ok, _ := rq.HLoad(g); !ok || j != 0 {
		t.Errorf("a group queue created after boot is not refreshed at its first use at jiffy 0 (ok %v, jiffy %d)", ok, j)
	}
}

// Partial refresh: a nested group whose parent queue was refreshed
// earlier in the jiffy is computed from the parent's cached h_load, and
// the parent's cache is not touched.
func TestTaskHLoadPartialRefresh(t *testing.T) {
	h := NewHierarchy(WithOnlineCPUs(1))
	rq, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	must(t, rq.SetClock(t0))
	p, err := h.NewGroup("P", nil)
	must(t, err)
	c, err := h.NewGroup("C", p)
	must(t, err)
	tp := mustEntity(t, "TP", WithGroup(p))
	tc := mustEntity(t, "TC", WithGroup(c))
	must(t, rq.Enqueue(tp, EnqueueInitial))
	rq.PickNext()
	must(t, rq.SetClock(t2))
	rq.Tick()
	rq.TaskHLoad(tp, j2) // refreshes root and P
	pCached, _, _, _ := rq.HLoad(p)
	// C gets a task in the same jiffy: P's load changes, its cache must not.
	must(t, rq.Enqueue(tc, 0))
	rq.TaskHLoad(tc, j2)
	pAfter, _, _, _ := rq.HLoad(p)
	checkEq(t, "P's cached h_load", pAfter, pCached)
	cs, err := rq.Group(c)
	must(t, err)
	ps, err := rq.Group(p)
	must(t, err)
	cHL, _, _, _ := rq.HLoad(c)
	checkEq(t, "C's h_load from P's cached value", cHL, pCached*cs.EntityAvg.LoadAvg/(ps.Avg.LoadAvg+1))
}

// §11.6: A2 moves, queued, from CPU 0 to CPU 1 at T2.
func TestGroupSMPMoveQueuedTask(t *testing.T) {
	s := newS11(t, ModeConcur)
	must(t, s.rq0.DetachTask(s.a2))
	must(t, s.rq1.Enqueue(s.a2, EnqueueMigrated))
	a := s.a2.Avg()
	checkEq(t, "A2 load_avg", a.LoadAvg, 1023)
	checkEq(t, "A2 runnable_avg", a.RunnableAvg, 639)
	checkEq(t, "A2 util_avg", a.UtilAvg, 127)
	g0, g1 := s.state(t, s.rq0), s.state(t, s.rq1)
	checkEq(t, "g0 load", g0.Load, mb)
	checkEq(t, "g0 load_avg", g0.Avg.LoadAvg, 1024)
	checkEq(t, "g0 load_sum", g0.Avg.LoadSum, 47840255)
	checkEq(t, "ge0 weight", g0.Weight, 1049088)
	checkEq(t, "ge0 load_avg", g0.EntityAvg.LoadAvg, 1023)
	checkEq(t, "root 0 load_avg", s.rq0.Avg().LoadAvg, 1023)
	checkEq(t, "g1 load", g1.Load, 2*mb)
	checkEq(t, "g1 load_avg", g1.Avg.LoadAvg, 2046)
	checkEq(t, "g1 util_avg", g1.Avg.UtilAvg, 894)
	checkEq(t, "g1 runnable_avg", g1.Avg.RunnableAvg, 1406)
	checkEq(t, "ge1 weight", g1.Weight, 1048832)
	checkEq(t, "ge1 load_avg", g1.EntityAvg.LoadAvg, 1024)
	checkEq(t, "root 1 load_avg", s.rq1.Avg().LoadAvg, 1024)
	checkEq(t, "tg.load_avg", s.g.LoadAvg(), 3070)
	checkEq(t, "tg.runnable_avg", s.g.RunnableAvg(), 2174)
	checkEq(t, "A2 h_weight", s.a2.HWeight(), 524416)
}

// §11.7: cpu.weight 50 at T2, CPU 0 first, then CPU 1.
func TestGroupSMPCPUWeight(t *testing.T) {
	s := newS11(t, ModeConcur)
	must(t, s.g.SetCPUWeight(50))
	g0, g1 := s.state(t, s.rq0), s.state(t, s.rq1)
	checkEq(t, "ge0 weight", g0.Weight, 699278)
	checkEq(t, "ge1 weight", g1.Weight, 349639)
	checkEq(t, "root 0 load_avg", s.rq0.Avg().LoadAvg, 681)
	checkEq(t, "root 1 load_avg", s.rq1.Avg().LoadAvg, 340)
	checkEq(t, "A1 h_weight", s.a1.HWeight(), 349525)
	checkEq(t, "A2 h_weight", s.a2.HWeight(), 524288)
	checkEq(t, "B1 h_weight", s.b1.HWeight(), 699278)
}

func leafNames(rq *CfsRq) []string {
	var out []string
	for _, g := range rq.LeafList() {
		out = append(out, g.Name())
	}
	return out
}

// §11.8: the leaf list follows activation order, not creation order, and
// a branch whose parent is not listed goes to the front.
func TestLeafListOrder(t *testing.T) {
	h := NewHierarchy(WithOnlineCPUs(2))
	rq0, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	rq1, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	must(t, rq0.SetClock(t0))
	must(t, rq1.SetClock(t0))
	ga, err := h.NewGroup("A", nil)
	must(t, err)
	gb, err := h.NewGroup("B", nil)
	must(t, err)
	// mkdir lists each CPU's root queue.
	for _, rq := range []*CfsRq{rq0, rq1} {
		if got := leafNames(rq); !slices.Equal(got, []string{"/"}) {
			t.Errorf("CPU %d after mkdir: %v, want [/]", rq.CPU(), got)
		}
	}
	must(t, rq0.Enqueue(mustEntity(t, "b0", WithGroup(gb)), EnqueueInitial))
	must(t, rq0.Enqueue(mustEntity(t, "a0", WithGroup(ga)), EnqueueInitial))
	must(t, rq1.Enqueue(mustEntity(t, "a1", WithGroup(ga)), EnqueueInitial))
	must(t, rq1.Enqueue(mustEntity(t, "b1", WithGroup(gb)), EnqueueInitial))
	if got := leafNames(rq0); !slices.Equal(got, []string{"B", "A", "/"}) {
		t.Errorf("CPU 0: %v, want [B A /]", got)
	}
	if got := leafNames(rq1); !slices.Equal(got, []string{"A", "B", "/"}) {
		t.Errorf("CPU 1: %v, want [A B /]", got)
	}
	for _, rq := range []*CfsRq{rq0, rq1} {
		if err := rq.Check(); err != nil {
			t.Error(err)
		}
	}
}

// §11.8, nested: with [B, /] listed and P unlisted, a task of C ⊂ P puts
// C at the front (the cursor rule) and P before the root.
func TestLeafListBranchAtTheFront(t *testing.T) {
	h := NewHierarchy()
	rq, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	must(t, rq.SetClock(t0))
	gb, err := h.NewGroup("B", nil)
	must(t, err)
	p, err := h.NewGroup("P", nil)
	must(t, err)
	c, err := h.NewGroup("C", p) // lists P (and the root) through C's attach
	must(t, err)
	if got := leafNames(rq); !slices.Equal(got, []string{"P", "/"}) {
		t.Fatalf("after mkdir C: %v, want [P /]", got)
	}
	must(t, rq.Enqueue(mustEntity(t, "b", WithGroup(gb)), EnqueueInitial))
	rq.PickNext()
	// Long enough for P's attach residue to decay fully: a walk unlists P.
	must(t, rq.SetClock(t0+4_000_000_000))
	rq.UpdateBlockedAverages()
	if got := leafNames(rq); !slices.Equal(got, []string{"B", "/"}) {
		t.Fatalf("after P decayed: %v, want [B /]", got)
	}
	must(t, rq.Enqueue(mustEntity(t, "c", WithGroup(c)), 0))
	if got := leafNames(rq); !slices.Equal(got, []string{"C", "B", "P", "/"}) {
		t.Errorf("after a task of C: %v, want [C B P /]", got)
	}
	if err := rq.Check(); err != nil {
		t.Error(err)
	}
}

// A walk on a CPU with nothing listed changes nothing and reports no
// blocked load; the root queue, unlisted once decayed, is appended at the
// tail by its next enqueue.
func TestLeafListEmptyWalkAndRootRelisting(t *testing.T) {
	rq, err := NewCfsRq(WithPELT(true))
	must(t, err)
	must(t, rq.SetClock(t0))
	if rq.UpdateBlockedAverages() || rq.RootOnList() {
		t.Fatal("an empty CPU has blocked load or a listed root")
	}
	before := rq.Avg()
	must(t, rq.SetClock(t2))
	rq.UpdateBlockedAverages()
	if rq.Avg() != before {
		t.Error("a walk over an empty list changed the root queue")
	}
	x := mustEntity(t, "x")
	must(t, rq.Enqueue(x, EnqueueInitial))
	if !rq.RootOnList() {
		t.Fatal("the first enqueue did not list the root queue")
	}
	rq.PickNext()
	if _, err := rq.Dequeue(x, DequeueSleep); err != nil {
		t.Fatal(err)
	}
	rq.PickNext()
	must(t, rq.SetClock(t2+4_000_000_000))
	if rq.UpdateBlockedAverages() {
		t.Error("blocked load left after four seconds")
	}
	if rq.RootOnList() {
		t.Error("a fully decayed, empty root queue stayed listed")
	}
	must(t, rq.Enqueue(x, EnqueueWakeup))
	if !rq.RootOnList() {
		t.Error("the next enqueue did not list the root queue again")
	}
}

// §10.2: a weight write walks the CPUs in ascending order, so each CPU's
// new share of an ancestor reads what the CPUs before it republished in
// the same write. C ⊂ P, one running task of C on each CPU; 10 ms after
// both CPUs' ticks, cpu.weight of C republishes P's queue on each CPU.
// CPU 1, last, computes P's share from the final totals; CPU 0 computed
// its share before CPU 1 republished, from different totals.
func TestWeightWriteWalksCPUsInAscendingOrder(t *testing.T) {
	h := NewHierarchy(WithOnlineCPUs(2))
	rq0, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	rq1, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	rqs := []*CfsRq{rq0, rq1}
	for _, rq := range rqs {
		must(t, rq.SetClock(t0))
	}
	p, err := h.NewGroup("P", nil)
	must(t, err)
	c, err := h.NewGroup("C", p)
	must(t, err)
	for i, rq := range rqs {
		must(t, rq.Enqueue(mustEntity(t, "c"+string(rune('0'+i)), WithGroup(c)), EnqueueInitial))
		rq.PickNext()
	}
	for _, rq := range rqs {
		must(t, rq.SetClock(t2))
		rq.Tick()
	}
	for _, rq := range rqs {
		must(t, rq.SetClock(t2+10_000_000))
	}
	before := p.LoadAvg()
	beforeR := p.RunnableAvg()
	stamps := [2]uint64{p.cpu[0].q.tg.LastUpdate, p.cpu[1].q.tg.LastUpdate}
	must(t, c.SetCPUWeight(50))
	for i := range rqs {
		if p.cpu[i].q.tg.LastUpdate == stamps[i] {
			t.Fatalf("P's queue on CPU %d did not republish in the write (totals %d/%d)", i, before, beforeR)
		}
	}
	// concur: k = min(max(1, R>>10), 2); load = max(weight, load_avg);
	// tg_weight = L − own contribution + load; ⌊k·S·load/tg_weight⌋.
	share := func(cpu int) uint64 {
		g := p.cpu[cpu]
		k := min(max(1, p.RunnableAvg()>>10), 2)
		load := int64(max(g.q.loadWeight>>10, g.q.avg.LoadAvg))
		tgw := p.LoadAvg() - int64(g.q.tg.LoadAvg) + load
		return uint64(min(max(k*int64(p.shares)*load/tgw, 2), k*int64(p.shares)))
	}
	checkEq(t, "P's weight on CPU 1 (from the final totals)", p.cpu[1].weight, share(1))
	if p.cpu[0].weight == share(0) {
		t.Errorf("P's weight on CPU 0 (%d) equals a share of the final totals: CPU 1 republished after it", p.cpu[0].weight)
	}
}

// task_h_load and the blocked-load walk run on the balancer's hot path:
// neither allocates.
func TestHLoadAndBlockedWalkDoNotAllocate(t *testing.T) {
	s := newS11(t, ModeConcur)
	j := j2
	if n := testing.AllocsPerRun(100, func() {
		j++
		s.rq0.TaskHLoad(s.a1, j)
		s.rq0.TaskHLoad(s.a2, j)
	}); n != 0 {
		t.Errorf("TaskHLoad: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { s.rq1.UpdateBlockedAverages() }); n != 0 {
		t.Errorf("UpdateBlockedAverages: %v allocations", n)
	}
}
