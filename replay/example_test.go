package replay_test

import (
	"fmt"
	"strings"

	"github.com/schedmodel/fairclass/replay"
	"github.com/schedmodel/fairclass/trace"
)

// Two tasks on one CPU: A runs, B wakes, A blocks and the kernel runs B,
// the task the model picks too.
func ExamplePinned() {
	text := `# tracer: nop
       <idle>-0     [000] d..2. 1.000000000: sched_wakeup_new: comm=A pid=10 prio=120 target_cpu=000
       <idle>-0     [000] d..2. 1.000000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=A next_pid=10 next_prio=120
            A-10    [000] d..2. 1.000100000: sched_wakeup: comm=B pid=11 prio=120 target_cpu=000
            A-10    [000] d..2. 1.000500000: sched_switch: prev_comm=A prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=B next_pid=11 next_prio=120
            B-11    [000] d..2. 1.000900000: sched_switch: prev_comm=B prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`
	evs, _, err := trace.ReadAll(strings.NewReader(text), trace.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := replay.Pinned(evs, replay.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d of %d picks agree; %d switches, %d left out (the CPU's first)\n",
		r.Overall.Agreed, r.Overall.Scored, r.Coverage.Picks, r.Coverage.Inconsistent)
	for _, c := range r.ByCause {
		if c.Scored > 0 {
			fmt.Printf("%s: %d of %d\n", c.Cause, c.Agreed, c.Scored)
		}
	}
	// Output:
	// 2 of 2 picks agree; 3 switches, 1 left out (the CPU's first)
	// block: 2 of 2
}

// The same trace's agreement over time, in windows of 250 µs from its
// first event: each scored pick counts in the window of its switch.
func ExampleReport_Timeline() {
	text := `# tracer: nop
       <idle>-0     [000] d..2. 1.000000000: sched_wakeup_new: comm=A pid=10 prio=120 target_cpu=000
       <idle>-0     [000] d..2. 1.000000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=A next_pid=10 next_prio=120
            A-10    [000] d..2. 1.000100000: sched_wakeup: comm=B pid=11 prio=120 target_cpu=000
            A-10    [000] d..2. 1.000500000: sched_switch: prev_comm=A prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=B next_pid=11 next_prio=120
            B-11    [000] d..2. 1.000900000: sched_switch: prev_comm=B prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`
	evs, _, err := trace.ReadAll(strings.NewReader(text), trace.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := replay.Pinned(evs, replay.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range r.Timeline(-1, 250_000) {
		fmt.Printf("from %6d ns: %d of %d picks agree\n", w.Start-r.Start, w.Agreed, w.Scored)
	}
	fmt.Printf("default window: %d ns\n", r.TimelineWidth())
	// Output:
	// from      0 ns: 0 of 0 picks agree
	// from 250000 ns: 0 of 0 picks agree
	// from 500000 ns: 1 of 1 picks agree
	// from 750000 ns: 1 of 1 picks agree
	// default window: 5000 ns
}
