package topology_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/topology"
)

// The RB5's capacities from its device tree, and the domain its CPUs
// share: one MC level over all eight CPUs, asymmetric and complete.
func ExampleLookupMachine() {
	p, err := topology.LookupMachine("rb5")
	if err != nil {
		panic(err)
	}
	t, err := p.Build()
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Capacities(), "HZ", p.HZ)
	for _, e := range t.CapacityList() {
		fmt.Printf("%d: %v\n", e.Capacity, e.CPUs)
	}
	d := t.SDAsymCPUCapacity(0)
	fmt.Println(d.Name(), d.Span(), d.Has(topology.SDAsymCPUCapacityFull), d == t.SDLLC(0))
	// Output:
	// [284 284 284 284 871 871 871 1024] HZ 250
	// 1024: 7
	// 871: 4-6
	// 284: 0-3
	// MC 0-7 true true
}

// Capacities from capacity-dmips-mhz and maximum frequencies, normalised
// so that the fastest CPU has 1024.
func ExampleCapacitiesFromDMIPS() {
	caps, err := topology.CapacitiesFromDMIPS(
		[]uint64{448, 1024, 1024},
		[]uint64{1804800, 2419200, 3091200})
	fmt.Println(caps, err)
	// Output: [261 801 1024] <nil>
}
