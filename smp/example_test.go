package smp_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// A two-socket machine, 4 cores of 2 threads each per socket: a parent
// forks four children, one of which then sleeps and is woken by the parent.
// Each line says where a task landed and by which rule.
func Example() {
	top, _ := topology.Build(topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2})
	sys, _ := smp.New(top, smp.WithPreset(topology.Warm, 1_000_000_000))

	newTask := func(name string, opts ...smp.TaskOption) *smp.Task {
		se, _ := eevdf.NewEntity(name)
		t, _ := sys.NewTask(se, opts...)
		return t
	}
	parent := newTask("parent", smp.WithCPU(0))
	fmt.Printf("%-8s CPU %2d (%v)\n", parent.Name(), sys.WakeUpNew(parent), parent.Placement())
	sys.Schedule(0)

	var kids []*smp.Task
	for i := range 4 {
		_ = sys.SetClock(1_000_000_000 + uint64(i+1)*100_000)
		c := newTask(fmt.Sprintf("child%d", i), smp.WithParent(parent))
		cpu := sys.WakeUpNew(c)
		sys.Schedule(cpu)
		fmt.Printf("%-8s CPU %2d (%v)\n", c.Name(), cpu, c.Placement())
		kids = append(kids, c)
	}

	// child0 sleeps; its CPU idles. The parent wakes it.
	_ = sys.SetClock(1_002_000_000)
	_ = sys.Block(kids[0].CPU())
	_ = sys.SetClock(1_003_000_000)
	cpu := sys.TryToWakeUp(kids[0], parent, 0)
	fmt.Printf("%-8s CPU %2d (%v)\n", kids[0].Name(), cpu, kids[0].Placement())
	// Output:
	// parent   CPU  0 (slow_path)
	// child0   CPU  8 (slow_path)
	// child1   CPU  2 (slow_path)
	// child2   CPU 10 (slow_path)
	// child3   CPU  4 (slow_path)
	// child0   CPU  8 (target)
}
