package fairclass_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
)

// Two CPU hogs, one of nice 5, share a CPU with a task that runs for a
// millisecond and sleeps for three. Each call is the fair-class step the
// kernel's core code takes for the event, at a clock the caller sets: the
// sleeper gets the quarter of the CPU it asks for, and the hogs split the
// rest by weight, 1024 : 335. README.md shows this example; keep the two
// the same.
func Example() {
	rq, _ := eevdf.NewCfsRq() // one CPU's runqueue, the kernel's default features
	a, _ := eevdf.NewEntity("hog A")
	b, _ := eevdf.NewEntity("hog B", eevdf.WithNice(5))
	io, _ := eevdf.NewEntity("sleeper")
	for _, se := range []*eevdf.SchedEntity{a, b, io} {
		rq.WakeUpNew(se) // wake_up_new_task: enqueue, then the wakeup check
	}
	rq.PickNext()
	for now := uint64(1_000_000); now <= 1_000_000_000; now += 1_000_000 {
		rq.SetClock(now) // the task clock is the caller's
		switch {
		case rq.Curr() == io:
			rq.Sleep() // the sleeper blocks, and the CPU picks again
		case now%4_000_000 == 0 && (!io.OnRq() || io.Delayed()):
			rq.Wakeup(io, 0) // try_to_wake_up every 4 ms (requeued if still delayed)
		}
		rq.Tick() // charge the running task; maybe ask for a reschedule
		if rq.NeedResched() {
			rq.PickNext()
		}
	}
	fmt.Println("ms of 1000 run by A, B, sleeper:", a.SumExecRuntime()/1e6, b.SumExecRuntime()/1e6, io.SumExecRuntime()/1e6)
	// Output: ms of 1000 run by A, B, sleeper: 565 185 250
}
