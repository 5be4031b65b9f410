package sim_test

import (
	"fmt"
	"time"

	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/topology"
)

// Two CPU hogs with different cookies on one core of two SMT threads
// (KERNEL-SPEC-CORESCHED §9, example 1): the core runs one cookie at a
// time, so each hog gets half the second and its thread is forced idle
// for the other half.
func Example_coreScheduling() {
	one := topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 2}
	r, err := sim.Simulate(sim.Config{Machine: one, Duration: time.Second, Workloads: []sim.Workload{
		&sim.StressWorkload{Label: "a", Options: sim.TaskOptions{Cookie: 1, CPUs: []int{0}}},
		&sim.StressWorkload{Label: "b", Options: sim.TaskOptions{Cookie: 2, CPUs: []int{1}, Start: 200 * time.Microsecond}},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, t := range r.Tasks {
		fmt.Printf("%s: cookie %d, ran %v, its CPU forced idle %v\n", t.Name, t.Cookie,
			time.Duration(t.RuntimeNs), time.Duration(r.CPUStats[i].ForcedIdleNs))
	}
	// Output:
	// a-0: cookie 1, ran 500.2ms, its CPU forced idle 499.8ms
	// b-0: cookie 2, ran 499.8ms, its CPU forced idle 500ms
}
