package scenario_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/schedmodel/fairclass/scenario"
)

// Two tasks forked on CPU 0 of a two-core machine: the fork's slow path
// sends the second to the idle core. When the first sleeps and B, running
// on CPU 1, wakes it, wake_affine keeps it on its idle previous CPU.
func ExampleSMPReplayer() {
	const text = `machine 1 1 2 1   # one package, one LLC, two cores, no SMT
task A
task B
1000000 new A on 0
1000000 schedule 0
1000000 new B on 0
1000000 schedule 1
1500000 sleep 0
2000000 wakeup A from 1
`
	sc, err := scenario.ParseSMP(strings.NewReader(text), "example")
	if err != nil {
		log.Fatal(err)
	}
	r, err := scenario.NewSMPReplayer(sc, scenario.SMPOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for !r.Done() {
		res, err := r.Step()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-8s %-4s", res.Op, res.Task)
		if res.ChosenCPU >= 0 {
			fmt.Printf(" CPU %d -> %d", res.PrevCPU, res.ChosenCPU)
		}
		for _, c := range res.CPUs {
			fmt.Printf(" | cpu%d curr=%q queued=%d", c.CPU, c.Curr, c.NrRunning)
		}
		fmt.Println()
	}
	// Output:
	// new      A    CPU 0 -> 0 | cpu0 curr="" queued=1 | cpu1 curr="" queued=0
	// schedule      | cpu0 curr="A" queued=1 | cpu1 curr="" queued=0
	// new      B    CPU 0 -> 1 | cpu0 curr="A" queued=1 | cpu1 curr="" queued=1
	// schedule      | cpu0 curr="A" queued=1 | cpu1 curr="B" queued=1
	// sleep    A    | cpu0 curr="" queued=0 | cpu1 curr="B" queued=1
	// wakeup   A    CPU 0 -> 0 | cpu0 curr="" queued=1 | cpu1 curr="B" queued=1
}
