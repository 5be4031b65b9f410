package sim_test

import (
	"fmt"
	"time"

	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/sim"
)

// The RB5 with its energy model: EAS is on, a light periodic task's
// wakeups are placed by energy, and the report estimates the run's
// energy per performance domain at the states schedutil would pick.
func ExampleConfig_energyModel() {
	r, err := sim.Simulate(sim.Config{
		MachinePreset: "rb5",
		EnergyModel:   energy.RB5(),
		Duration:      200 * time.Millisecond,
		Workloads: []sim.Workload{sim.Custom("light", sim.TaskSpec{
			Name:    "light",
			Program: []sim.Phase{sim.Forever(sim.Timer(16*time.Millisecond), sim.Run(time.Millisecond))},
		})},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	e := r.Energy
	fmt.Printf("EAS on: %v, %d placements by energy, overutilized %d ns\n", e.Enabled, e.Placements, e.OverutilizedNs)
	for _, d := range e.Meter.Domains {
		fmt.Printf("CPUs %v: %.0f uJ\n", d.CPUs, d.UJ)
	}
	fmt.Printf("the light task ends on CPU %d\n", r.Tasks[0].CPU)
	// Output:
	// EAS on: true, 12 placements by energy, overutilized 0 ns
	// CPUs [0 1 2 3]: 5468 uJ
	// CPUs [4 5 6]: 0 uJ
	// CPUs [7]: 0 uJ
	// the light task ends on CPU 0
}
