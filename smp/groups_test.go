package smp

import (
	"errors"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// Task groups across CPUs through the System (KERNEL-SPEC-GROUPS-SMP §11,
// §12 D3–D7). The machine of §11: 2 CPUs of one LLC, concur, nice-0
// tasks, G at the top level; T0 = 2^20 ns, T2 = T0 + 32 periods.

const (
	gT0 = 1 << 20
	gT2 = gT0 + 32<<20
)

var twoCPUs = topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1}

// groupSystem builds a System of m with a hierarchy of mode over its CPUs.
func groupSystem(t *testing.T, m topology.Machine, mode eevdf.CgroupMode, opts ...Option) *System {
	t.Helper()
	top, err := topology.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	h := eevdf.NewHierarchy(eevdf.WithCgroupMode(mode), eevdf.WithOnlineCPUs(top.NumCPUs()))
	s, err := New(top, append(opts, WithRunqueueOptions(eevdf.WithHierarchy(h)))...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// groupTask forks a task of g pinned to cpu.
func groupTask(t *testing.T, s *System, name string, g *eevdf.TaskGroup, cpu int, eopts ...eevdf.EntityOption) *Task {
	t.Helper()
	if g != nil {
		eopts = append(eopts, eevdf.WithGroup(g))
	}
	se, err := eevdf.NewEntity(name, eopts...)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := s.NewTask(se, WithCPU(cpu), WithAllowed(cpu))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.WakeUpNew(tk); got != cpu {
		t.Fatalf("%s forked onto CPU %d, want %d", name, got, cpu)
	}
	return tk
}

// example11 is the §11.1 sequence through the System: mkdir G at T0, A1
// (picked) and A2 onto CPU 0, B1 (picked) onto CPU 1; at T2 CPU 0 ticks,
// then CPU 1.
func example11(t *testing.T) (s *System, g *eevdf.TaskGroup, a1, a2, b1 *Task) {
	t.Helper()
	s = groupSystem(t, twoCPUs, eevdf.ModeConcur)
	if err := s.SetClock(gT0); err != nil {
		t.Fatal(err)
	}
	g, err := s.NewGroup("G", nil)
	if err != nil {
		t.Fatal(err)
	}
	a1 = groupTask(t, s, "A1", g, 0)
	s.Schedule(0)
	a2 = groupTask(t, s, "A2", g, 0)
	b1 = groupTask(t, s, "B1", g, 1)
	s.Schedule(1)
	if err := s.SetClock(gT2); err != nil {
		t.Fatal(err)
	}
	s.Tick(0)
	s.Tick(1)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return s, g, a1, a2, b1
}

func groupOn(t *testing.T, s *System, g *eevdf.TaskGroup, cpu int) eevdf.GroupState {
	t.Helper()
	st, err := s.RQ(cpu).Group(g)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func want[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// §11.1 and §11.2 on the System: the published totals, the shares each
// CPU computed in tick order, and the group-aware task_h_load the
// balancer and wake_affine read (the root formula gave 1021, 1022, 1021).
func TestGroupExampleOnSystem(t *testing.T) {
	s, g, a1, a2, b1 := example11(t)
	want(t, "tg.load_avg", g.LoadAvg(), 3070)
	want(t, "tg.runnable_avg", g.RunnableAvg(), 2174)
	want(t, "ge0 weight", groupOn(t, s, g, 0).Weight, 699050)
	want(t, "ge1 weight", groupOn(t, s, g, 1).Weight, 699278)
	want(t, "cpu_load(0)", s.cpuLoad(0), 681)
	want(t, "cpu_load(1)", s.cpuLoad(1), 681)
	want(t, "task_h_load(A1)", s.TaskHLoad(a1), 339)
	want(t, "task_h_load(A2)", s.TaskHLoad(a2), 340)
	want(t, "task_h_load(B1)", s.TaskHLoad(b1), 679)
}

// §11.7 through the System: cpu.weight 50 at T2, CPU 0 then CPU 1.
func TestGroupCPUWeightOnSystem(t *testing.T) {
	s, g, a1, _, b1 := example11(t)
	if err := s.SetCPUWeight(g, 50); err != nil {
		t.Fatal(err)
	}
	want(t, "ge0 weight", groupOn(t, s, g, 0).Weight, 699278)
	want(t, "ge1 weight", groupOn(t, s, g, 1).Weight, 349639)
	want(t, "cpu_load(0)", s.cpuLoad(0), 681)
	want(t, "cpu_load(1)", s.cpuLoad(1), 340)
	want(t, "A1 h_weight (until its next refresh)", a1.se.HWeight(), 349525)
	want(t, "B1 h_weight (until its next refresh)", b1.se.HWeight(), 699278)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// wake_affine_weight weighs a grouped wakee by its group-aware
// task_h_load on its previous CPU (§10A, §11.5): E_prev = (cpu_load(prev)
// − t)·108·1024 with t the task's share of the root load: 680 against
// the root formula's 1022, §11.5's two values.
func TestWakeAffineWeighsTheGroupShare(t *testing.T) {
	s, _, a1, a2, _ := example11(t)
	// A2 sleeps on CPU 0: make it run, then block it.
	if err := s.RQ(0).SetNext(a2.se); err != nil {
		t.Fatal(err)
	}
	s.Schedule(0)
	if err := s.Block(0); err != nil {
		t.Fatal(err)
	}
	if s.Curr(0) != a1 {
		t.Fatalf("CPU 0 runs %v, want A1", s.Curr(0))
	}
	tl := s.taskHLoad(a2)
	root := a2.se.Avg().LoadAvg * s.cpuLoad(0) / (s.cpuLoad(0) + 1)
	want(t, "task_h_load(A2), group-aware", tl, 680)
	want(t, "the root formula's value", root, 1022)
	sd := s.top.Domains(1)[0]
	_, prevEff, _ := s.wakeAffineLoads(sd, a2, 1, 0, false, s.current(1))
	want(t, "E_prev", prevEff, int64(s.cpuLoad(0)-tl)*108*1024)
}

// D4: the hierarchy must count the machine's CPUs and number its
// runqueues as the machine does.
func TestNewChecksTheHierarchy(t *testing.T) {
	top, err := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 1})
	if err != nil {
		t.Fatal(err)
	}
	h1 := eevdf.NewHierarchy(eevdf.WithOnlineCPUs(1))
	if _, err := New(top, WithRunqueueOptions(eevdf.WithHierarchy(h1))); !errors.Is(err, ErrBadOption) {
		t.Errorf("4 CPUs with a 1-CPU hierarchy: %v, want ErrBadOption", err)
	}
	h4 := eevdf.NewHierarchy(eevdf.WithOnlineCPUs(4))
	if _, err := New(top, WithRunqueueOptions(eevdf.WithHierarchy(h4))); err != nil {
		t.Fatalf("4 CPUs with a 4-CPU hierarchy: %v", err)
	}
	if _, err := New(top, WithRunqueueOptions(eevdf.WithHierarchy(h4))); !errors.Is(err, ErrBadOption) {
		t.Errorf("a hierarchy reused by a second System: %v, want ErrBadOption", err)
	}
}

// D6 (removed path, §9.2): a group sleeper that leaves CPU 0 by a wakeup
// elsewhere leaves its load in CPU 0's group queue; a tick of a root-group
// task there does not apply it, CPU 0's next blocked walk does, lowering
// cpu_load(0) in that walk.
func TestGroupSleeperMigratesLeavesRemovedLoad(t *testing.T) {
	// Without delayed dequeue the sleeper leaves the queue at once.
	s := groupSystem(t, twoCPUs, eevdf.ModeConcur, WithFeatures(features.Default().Toggle(features.DelayDequeue, false)))
	if err := s.SetClock(gT0); err != nil {
		t.Fatal(err)
	}
	g, err := s.NewGroup("G", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := groupTask(t, s, "P", g, 0)
	s.Schedule(0)
	r := groupTask(t, s, "R", nil, 0)
	if err := s.SetClock(gT0 + 20_000_000); err != nil {
		t.Fatal(err)
	}
	if err := s.Block(0); err != nil { // P sleeps; R runs
		t.Fatal(err)
	}
	if s.Curr(0) != r {
		t.Fatalf("CPU 0 runs %v, want R", s.Curr(0))
	}
	free(p)
	if err := s.SetClock(gT0 + 21_000_000); err != nil {
		t.Fatal(err)
	}
	if got, err := s.TryToWakeUpFrom(p, 1, 0); err != nil || got != 1 {
		t.Fatalf("P woke on CPU %d (%v, rule %v), want 1", got, err, p.Placement())
	}
	before := s.cpuLoad(0)
	g0 := groupOn(t, s, g, 0)
	if g0.Avg.LoadAvg == 0 {
		t.Fatal("CPU 0's group queue carries no load after P left")
	}
	if err := s.SetClock(gT0 + 22_000_000); err != nil {
		t.Fatal(err)
	}
	s.rq(0).Tick() // R's tick: the root queue only
	ticked := groupOn(t, s, g, 0)
	if ticked.Avg.LoadAvg != g0.Avg.LoadAvg {
		t.Errorf("a root task's tick applied the group's removed load: %d → %d", g0.Avg.LoadAvg, ticked.Avg.LoadAvg)
	}
	s.updateBlockedAverages(0)
	if got := groupOn(t, s, g, 0).Avg.LoadAvg; got >= g0.Avg.LoadAvg/2 {
		t.Errorf("the blocked walk left CPU 0's group load at %d (was %d)", got, g0.Avg.LoadAvg)
	}
	if after := s.cpuLoad(0); after >= before {
		t.Errorf("cpu_load(0) %d after the walk, %d before: the removal did not reach the root", after, before)
	}
}

// D7: a CPU that runs only tasks of an idle group is sched-idle: as good
// as idle for a normal-policy wakee (also one of that group), not for a
// SCHED_IDLE one; and it balances at idle intervals.
func TestIdleGroupMakesASchedIdleCPU(t *testing.T) {
	s := groupSystem(t, twoCPUs, eevdf.ModeConcur)
	if err := s.SetClock(gT0); err != nil {
		t.Fatal(err)
	}
	g, err := s.NewGroup("bg", nil, eevdf.WithIdleGroup())
	if err != nil {
		t.Fatal(err)
	}
	groupTask(t, s, "B", g, 1)
	s.Schedule(1)
	if !s.schedIdleRq(1) {
		t.Fatal("a CPU running only a task of an idle group is not sched_idle_rq")
	}
	normal, err := eevdf.NewEntity("N", eevdf.WithGroup(g))
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.NewTask(normal)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := eevdf.NewEntity("I", eevdf.WithPolicy(eevdf.PolicyIdle))
	if err != nil {
		t.Fatal(err)
	}
	i, err := s.NewTask(idle)
	if err != nil {
		t.Fatal(err)
	}
	if !s.chooseIdleCPU(1, n) {
		t.Error("a normal-policy task of the idle group does not take the sched-idle CPU as idle")
	}
	if s.chooseIdleCPU(1, i) {
		t.Error("a SCHED_IDLE task takes the sched-idle CPU as idle")
	}
	if err := s.SetGroupIdle(g, false); err != nil {
		t.Fatal(err)
	}
	if s.schedIdleRq(1) {
		t.Error("cpu.idle 0 left the CPU sched-idle")
	}
}
