package eevdf_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// Two CPU-bound tasks, nice 0 and nice 5, on a 1 ms tick: the CPU splits
// in proportion to their weights, 1024 : 335.
func Example() {
	rq, _ := eevdf.NewCfsRq(eevdf.WithFeatures(features.Default()))
	a, _ := eevdf.NewEntity("A")
	b, _ := eevdf.NewEntity("B", eevdf.WithNice(5))
	for _, se := range []*eevdf.SchedEntity{a, b} {
		rq.Enqueue(se, eevdf.EnqueueInitial) // wake_up_new_task
		rq.WakeupPreempt(se, eevdf.WFFork)
	}
	rq.PickNext()
	for now := uint64(1_000_000); now <= 100_000_000; now += 1_000_000 {
		rq.SetClock(now)
		rq.Tick()
		if rq.NeedResched() {
			rq.PickNext()
		}
		if err := rq.Check(); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("A ran %d ms, B ran %d ms\n", a.SumExecRuntime()/1e6, b.SumExecRuntime()/1e6)
	// Output:
	// A ran 75 ms, B ran 25 ms
}

// A task that sleeps while it has received more than its share stays
// queued, delayed, until its negative lag is spent.
func ExampleCfsRq_Dequeue() {
	rq, _ := eevdf.NewCfsRq()
	a, _ := eevdf.NewEntity("A")
	b, _ := eevdf.NewEntity("B")
	rq.Enqueue(a, eevdf.EnqueueInitial)
	rq.Enqueue(b, eevdf.EnqueueInitial)
	rq.PickNext() // A
	rq.SetClock(500_000)
	rq.UpdateCurr()
	dequeued, _ := rq.Dequeue(a, eevdf.DequeueSleep) // A ran ahead of B: not eligible
	fmt.Println("dequeued:", dequeued, "delayed:", a.Delayed(), "lag:", a.VLag())
	next := rq.PickNext()
	fmt.Println("next:", next.Name(), "A still queued:", a.OnRq())
	// Output:
	// dequeued: false delayed: true lag: -250000
	// next: B A still queued: true
}
