package smp_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// Energy-aware scheduling on the RB5: with an energy model the System
// lists the perf domains as the kernel does (descending first CPU) and,
// while no CPU is overutilized, places a small task's wakeup where it adds
// the least energy — here the little CPU it slept on.
func ExampleWithEnergyModel() {
	p, _ := topology.LookupMachine("rb5")
	top, _ := p.Build()
	s, err := smp.New(top, smp.WithEnergyModel(energy.RB5()))
	if err != nil {
		panic(err)
	}
	for _, d := range s.PerfDomains() {
		fmt.Print(d.CPUs(), " ")
	}
	fmt.Println("EAS:", s.EnergyEnabled())

	se, _ := eevdf.NewEntity("light")
	t, _ := s.NewTask(se, smp.WithCPU(0))
	now := uint64(1_000_000)
	_ = s.SetClock(now)
	s.Schedule(s.WakeUpNew(t))
	_ = s.SetClock(now + 1_000_000) // it runs 1 ms, then sleeps
	_ = s.Block(t.CPU())
	_ = s.SetClock(now + 16_000_000)
	cpu := s.TryToWakeUp(t, nil, 0)
	fmt.Println("woke on CPU", cpu, "overutilized:", s.Overutilized())
	fmt.Printf("%+v\n", s.EnergyStats())
	// Output:
	// [7] [4 5 6] [0 1 2 3] EAS: true
	// woke on CPU 0 overutilized: false
	// {Placements:1 Moved:0 Skipped:0 OverutilizedSet:0 OverutilizedCleared:0}
}
