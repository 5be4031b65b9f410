package smp_test

import (
	"fmt"
	"strings"

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

// An smp system driven by hand, without a simulator: two cores of two
// threads, a parent that forks four children, ticks, one child that
// sleeps and is woken again. Advance runs the ticks (HZ=1000: one every
// millisecond), the balancing they trigger and the reschedules, in the
// kernel's order; the caller makes its tasks' own operations at the clock
// Advance left, then calls Advance again. Each line shows what every CPU
// runs and, in parentheses, its nr_running.
func ExampleSystem_Advance() {
	top, _ := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 2})
	sys, _ := smp.New(top, smp.WithPreset(topology.Warm, 1_000_000_000))
	const ms = 1_000_000
	t0 := sys.Clock()

	show := func(what string) {
		line := fmt.Sprintf("at %4.1f ms  %-18s", float64(sys.Clock()-t0)/ms, what)
		for cpu := range sys.NumCPUs() {
			line += fmt.Sprintf(" %-10s", fmt.Sprintf("%v(%d)", sys.Curr(cpu), sys.RQ(cpu).NrRunning()))
		}
		fmt.Println(strings.TrimRight(line, " "))
	}
	task := func(name string, opts ...smp.TaskOption) *smp.Task {
		se, _ := eevdf.NewEntity(name)
		t, _ := sys.NewTask(se, opts...)
		return t
	}

	parent := task("parent", smp.WithCPU(0))
	sys.WakeUpNew(parent)
	_ = sys.Advance(sys.Clock()) // the reschedule the fork asked for
	show("fork parent")
	var kids []*smp.Task
	for i := range 4 {
		_ = sys.Advance(sys.Clock() + ms/2)
		k := task(fmt.Sprintf("kid%d", i), smp.WithParent(parent))
		cpu := sys.WakeUpNew(k)
		_ = sys.Advance(sys.Clock())
		show(fmt.Sprintf("fork %s on %d", k, cpu))
		kids = append(kids, k)
	}
	_ = sys.Advance(t0 + 10*ms) // ten ticks: the CPUs share out the work
	show("ticks")

	// A child sleeps; its CPU, about to idle, pulls a waiting task.
	sleeper := sys.Curr(1)
	_ = sys.Block(1)
	_ = sys.Advance(sys.Clock())
	show(fmt.Sprintf("%s blocks", sleeper))
	_ = sys.Advance(t0 + 13*ms)
	cpu := sys.TryToWakeUp(sleeper, parent, 0)
	_ = sys.Advance(sys.Clock())
	show(fmt.Sprintf("%s wakes on %d", sleeper, cpu))
	_ = sys.Advance(t0 + 40*ms)
	show("ticks")
	for _, k := range kids {
		fmt.Printf("%s: CPU %d, %d migrations, placed by %v\n", k, k.CPU(), k.Migrations(), k.Placement())
	}
	fmt.Println(sys.Stats())
	// Output:
	// at  0.0 ms  fork parent        parent(1)  <idle>(0)  <idle>(0)  <idle>(0)
	// at  0.5 ms  fork kid0 on 2     parent(1)  <idle>(0)  kid0(1)    <idle>(0)
	// at  1.0 ms  fork kid1 on 1     parent(1)  kid1(1)    kid0(1)    <idle>(0)
	// at  1.5 ms  fork kid2 on 3     parent(1)  kid1(1)    kid0(1)    kid2(1)
	// at  2.0 ms  fork kid3 on 0     parent(2)  kid1(1)    kid0(1)    kid2(1)
	// at 10.0 ms  ticks              parent(2)  kid1(1)    kid0(1)    kid2(1)
	// at 10.0 ms  kid1 blocks        parent(1)  kid3(1)    kid0(1)    kid2(1)
	// at 13.0 ms  kid1 wakes on 1    parent(1)  kid1(2)    kid0(1)    kid2(1)
	// at 40.0 ms  ticks              parent(1)  kid3(2)    kid0(1)    kid2(1)
	// kid0: CPU 2, 0 migrations, placed by slow_path
	// kid1: CPU 1, 0 migrations, placed by busy_target
	// kid2: CPU 3, 0 migrations, placed by slow_path
	// kid3: CPU 1, 1 migrations, placed by slow_path
	// forks 5 wakeups 1 execs 0 migrations 1
	// placed [busy_target:1 slow_path:5] migrated []
	// fork_balance 3 exec_balance 0 wake_wide 0 affine_this 0 affine_prev 1 migrated_affine 0
	// balance_calls [busy:4 newly_idle:1] balance_moves 1
	// newidle_pulls [SMT:1] newidle_skips 0 periodic_pulls []
	// active_kicks 0 active_moves 0 ilb_kicks 0
}
