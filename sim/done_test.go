package sim

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/smp"
)

// tieConfig is one CPU whose events tie as often as they can: phases of
// whole ticks and half ticks, so that completions fall on tick instants,
// on wakeups, on other creations and on the ends of switch costs; hogs and
// a nice −5 task that preempt at those instants; a channel whose sends
// wake a receiver at the instant its sender's Run phase ends.
func tieConfig(swCost, wakeCost time.Duration, nohz smp.NohzMode) Config {
	ch := NewChannel("c", 2, false)
	return Config{
		Seed: 3, Duration: 300 * ms, SwitchCost: swCost, WakeupCost: wakeCost, Nohz: nohz,
		ShareInterval: 5 * ms, Trace: true,
		Workloads: []Workload{Custom("ties",
			TaskSpec{Name: "a", Program: []Phase{Forever(Run(ms), Sleep(ms))}},
			TaskSpec{Name: "b", Program: []Phase{Forever(Run(500*us), Sleep(500*us))}},
			TaskSpec{Name: "c", TaskOptions: TaskOptions{Nice: -5}, Program: []Phase{Forever(Run(2*ms), Sleep(3*ms))}},
			TaskSpec{Name: "h", Program: []Phase{SpinFor(20 * ms), Forever(Run(250*us), Yield())}},
			TaskSpec{Name: "s", TaskOptions: TaskOptions{Start: ms}, Program: []Phase{Forever(Run(ms), Send(ch, 1))}},
			TaskSpec{Name: "r", TaskOptions: TaskOptions{Start: ms}, Program: []Phase{Forever(Recv(ch, 1), Run(500*us))}},
			TaskSpec{Name: "u", TaskOptions: TaskOptions{Start: 2 * ms}, Program: []Phase{SpinUntil(10 * ms), Forever(Run(ms), SleepUntil(0))}},
		)},
	}
}

// startTieConfig is one CPU on which tasks are created at the instants
// where a Run phase of a task running alone ends (a creation, posted
// first, comes before the completion), with a tick far from them.
func startTieConfig(swCost time.Duration) Config {
	spec := func(name string, start time.Duration) TaskSpec {
		return TaskSpec{Name: name, TaskOptions: TaskOptions{Start: start}, Program: []Phase{Run(3 * ms), Exit()}}
	}
	return Config{
		Seed: 1, Duration: 50 * ms, HZ: 100, SwitchCost: swCost, Trace: true,
		Workloads: []Workload{Custom("starts",
			spec("x", 0), spec("y", 3*ms+swCost), spec("z", 6*ms+2*swCost), spec("w", 20*ms), spec("v", 23*ms+swCost))},
	}
}

// TestDoneApartKeepsOrder runs one-CPU configurations twice, with the
// running task's completion kept apart from the heap (nextIsDone) and
// with every completion queued in the heap as on several CPUs: the events
// must come in the same order at the same times, and the reports and
// traces must be the same bytes.
func TestDoneApartKeepsOrder(t *testing.T) {
	type tcase struct {
		name      string
		cfg       Config
		minEvents uint64
	}
	var cases []tcase
	for _, sw := range []time.Duration{0, 500 * us, 37 * us} {
		for _, wc := range []time.Duration{0, 500 * us} {
			for _, nohz := range []smp.NohzMode{smp.NohzOff, smp.NohzIdle} {
				cases = append(cases, tcase{fmt.Sprintf("ties/switch=%v/wakeup=%v/nohz=%d", sw, wc, nohz), tieConfig(sw, wc, nohz), 500})
			}
		}
		cases = append(cases, tcase{fmt.Sprintf("starts/switch=%v", sw), startTieConfig(sw), 5})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Debug = true
			apart, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			queued, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !apart.doneApart {
				t.Fatal("one CPU does not keep its completion apart")
			}
			queued.doneApart = false // no completion is posted before Run
			// Step each to its next counted event (a stale one
			// popped from the heap is a Step that counts none). The
			// comparison means something only if completions were kept
			// apart in one run and never in the other.
			kept := 0
			for n := 0; ; n++ {
				for !apart.Done() && apart.events == uint64(n) {
					apart.Step()
					if apart.donePosted {
						kept++
					}
				}
				for !queued.Done() && queued.events == uint64(n) {
					queued.Step()
					if queued.donePosted {
						t.Fatal("a completion kept apart with doneApart off")
					}
				}
				if apart.events != queued.events || apart.now != queued.now ||
					apart.ctxSwitches != queued.ctxSwitches || apart.preemptions != queued.preemptions {
					t.Fatalf("event %d: kept apart: %d events at %v, %d switches, %d preemptions; queued: %d at %v, %d, %d",
						n+1, apart.events, apart.Now(), apart.ctxSwitches, apart.preemptions,
						queued.events, queued.Now(), queued.ctxSwitches, queued.preemptions)
				}
				if apart.Done() || queued.Done() {
					break
				}
			}
			if apart.err != nil || queued.err != nil {
				t.Fatal(apart.err, queued.err)
			}
			if apart.events < tc.minEvents {
				t.Fatalf("only %d events", apart.events)
			}
			if kept == 0 {
				t.Fatal("no completion was kept apart")
			}
			ra, rq := apart.Report(), queued.Report()
			if !bytes.Equal(reportBytes(t, ra), reportBytes(t, rq)) {
				t.Fatal("the reports differ")
			}
			var ta, tq bytes.Buffer
			if err := ra.WriteTrace(&ta); err != nil {
				t.Fatal(err)
			}
			if err := rq.WriteTrace(&tq); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ta.Bytes(), tq.Bytes()) {
				t.Fatal("the traces differ")
			}
		})
	}
}
