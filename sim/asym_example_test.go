package sim_test

import (
	"fmt"
	"time"

	"github.com/schedmodel/fairclass/sim"
)

// The same 1 ms of work pinned to a little, a gold and the prime CPU of
// the RB5: it takes ⌈10⁶·1024/C⌉ ns of CPU time on a CPU of capacity C.
// The preset also sets the tick: HZ 250.
func ExampleConfig_machinePreset() {
	for _, cpu := range []int{0, 4, 7} {
		r, err := sim.Simulate(sim.Config{
			MachinePreset: "rb5",
			Duration:      100 * time.Millisecond,
			Workloads: []sim.Workload{sim.Custom("job", sim.TaskSpec{
				Name:        "job",
				TaskOptions: sim.TaskOptions{CPUs: []int{cpu}},
				Program:     []sim.Phase{sim.Run(time.Millisecond)},
			})},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		t := r.Tasks[0]
		fmt.Printf("CPU %d (capacity %d): %d ns of work in %d ns of CPU time, tick %d ns\n",
			cpu, r.Capacities[cpu], t.WorkNs, t.RuntimeNs, r.TickNs)
	}
	// Output:
	// CPU 0 (capacity 284): 1000000 ns of work in 3605634 ns of CPU time, tick 4000000 ns
	// CPU 4 (capacity 871): 1000000 ns of work in 1175661 ns of CPU time, tick 4000000 ns
	// CPU 7 (capacity 1024): 1000000 ns of work in 1000000 ns of CPU time, tick 4000000 ns
}
