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

// Two groups on one CPU: "batch" (cpu.weight 25) with three hogs and
// "web" (cpu.weight 100) with one. The CPU is split between the groups
// first (1:4) and then inside them, so each batch hog gets a fifteenth and
// the web task four fifths. Each task's effective weight is the hierarchy
// folded into one number: ⌊2^40/(3·2^20)⌋ = 349525 in the group, then
// ⌊349525·262144/2^20⌋ = 87381 for a batch hog.
func Example_taskGroups() {
	h := eevdf.NewHierarchy()
	batch, _ := h.NewGroup("batch", nil, eevdf.WithCPUWeight(25))
	web, _ := h.NewGroup("web", nil)
	rq, _ := eevdf.NewCfsRq(eevdf.WithHierarchy(h))
	var tasks []*eevdf.SchedEntity
	for _, name := range []string{"b1", "b2", "b3"} {
		se, _ := eevdf.NewEntity(name, eevdf.WithGroup(batch))
		tasks = append(tasks, se)
	}
	w, _ := eevdf.NewEntity("w", eevdf.WithGroup(web))
	tasks = append(tasks, w)
	for _, se := range tasks {
		rq.Enqueue(se, eevdf.EnqueueInitial)
	}
	rq.PickNext()
	now := uint64(0)
	for i := 0; i < 3000; i++ { // 3 s of 1 ms ticks
		now += 1000000
		rq.SetClock(now)
		rq.Tick()
		if rq.NeedResched() {
			rq.PickNext()
		}
	}
	for _, se := range tasks {
		fmt.Printf("%s in %-6s h_weight %7d  ran %4d ms\n", se.Name(), se.Group().Name(), se.HWeight(), se.SumExecRuntime()/1000000)
	}
	// Output:
	// b1 in batch  h_weight   87381  ran  200 ms
	// b2 in batch  h_weight   87381  ran  200 ms
	// b3 in batch  h_weight   87381  ran  200 ms
	// w in web    h_weight 1048576  ran 2400 ms
}
