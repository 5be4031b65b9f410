package energy_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/energy"
)

// The synthetic 2 + 2 machine of KERNEL-SPEC-ASYM §10.3, and the energy
// estimate of worked example AS12: on the little domain, a busiest CPU
// needing 187 (150 with schedutil's 1.25 headroom) fits the first state,
// whose cost prices the domain's summed util 250.
func ExampleDomain_CPUEnergy() {
	m := energy.Synthetic2x2()
	for _, d := range m.Domains() {
		for _, s := range d.States() {
			fmt.Printf("%v f=%d P=%d perf=%d cost=%d\n", d.CPUs(), s.Frequency, s.Power, s.Performance, s.Cost)
		}
	}
	little := m.DomainOf(0)
	fmt.Println(little.CPUEnergy(187, 250, little.Capacity()))
	// Output:
	// [0 1] f=500000 P=100000 perf=256 cost=3906
	// [0 1] f=1000000 P=400000 perf=512 cost=7812
	// [2 3] f=1000000 P=400000 perf=512 cost=7812
	// [2 3] f=2000000 P=1600000 perf=1024 cost=15625
	// 976500
}
