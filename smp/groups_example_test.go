package smp_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// A group spread over two CPUs (KERNEL-SPEC-GROUPS-SMP §11.1–§11.2): two
// tasks of G on CPU 0, one on CPU 1. After 32 ms each CPU's tick publishes
// its group load; CPU 1, ticking second, sees CPU 0's fresh contribution
// and gives G a larger share than CPU 0 did. The balancer would weigh each
// task by its part of its CPU's root load.
func ExampleSystem_NewGroup() {
	top, _ := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1})
	h := eevdf.NewHierarchy(eevdf.WithOnlineCPUs(top.NumCPUs()))
	s, _ := smp.New(top, smp.WithRunqueueOptions(eevdf.WithHierarchy(h)))
	_ = s.SetClock(1 << 20)
	g, _ := s.NewGroup("G", nil)
	fork := func(name string, cpu int) *smp.Task {
		se, _ := eevdf.NewEntity(name, eevdf.WithGroup(g))
		t, _ := s.NewTask(se, smp.WithCPU(cpu), smp.WithAllowed(cpu))
		s.WakeUpNew(t)
		return t
	}
	a1 := fork("A1", 0)
	s.Schedule(0)
	a2 := fork("A2", 0)
	b1 := fork("B1", 1)
	s.Schedule(1)
	_ = s.SetClock(1<<20 + 32<<20)
	s.Tick(0)
	s.Tick(1)
	g0, _ := s.RQ(0).Group(g)
	g1, _ := s.RQ(1).Group(g)
	fmt.Println("tg load_avg:", g.LoadAvg(), "runnable_avg:", g.RunnableAvg())
	fmt.Println("G's weight on CPU 0:", g0.Weight, "on CPU 1:", g1.Weight)
	fmt.Println("task_h_load A1, A2, B1:", s.TaskHLoad(a1), s.TaskHLoad(a2), s.TaskHLoad(b1))
	// Output:
	// tg load_avg: 3070 runnable_avg: 2174
	// G's weight on CPU 0: 699050 on CPU 1: 699278
	// task_h_load A1, A2, B1: 339 340 679
}
