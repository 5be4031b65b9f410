package smp

import (
	"testing"

	"github.com/schedmodel/fairclass/topology"
)

// The wakeup and the sleep take a one-CPU machine's runqueue from clock1
// instead of rq(0): that is only right if, whenever clock1 is set, it is
// CPU 0's runqueue with its clock at the System's time and its epoch
// current, so that rq(0) would return it with nothing to do. Checked
// around every operation of a run/sleep loop with a tick at every jiffy.
func TestClock1IsRq0AtItsTime(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 1})
	s := h.s
	check := func(when string) {
		t.Helper()
		rq := s.clock1
		if rq == nil {
			return
		}
		c := &s.cpus[0]
		if rq != c.rq || c.clockEpoch != s.epoch || rq.Clock() != s.now {
			t.Fatalf("%s at %d: clock1 is CPU 0's runqueue %v, its epoch %d of %d, its clock %d",
				when, s.now, rq == c.rq, c.clockEpoch, s.epoch, rq.Clock())
		}
	}
	var tasks []*Task
	for range 4 {
		tk := h.task(0)
		if s.WakeUpNew(tk) != 0 {
			t.Fatalf("%v not started on CPU 0", tk)
		}
		tasks = append(tasks, tk)
	}
	s.Schedule(0)
	seen := false
	for i := range 400 {
		h.at(h.now + 300_000)
		check("SetClock")
		seen = seen || s.clock1 != nil
		if i%4 == 3 {
			s.Tick(0)
			check("Tick")
		}
		for _, tk := range tasks {
			if tk.Sleeping() && (i+tk.ID())%3 == 0 {
				s.TryToWakeUp(tk, nil, 0)
				check("TryToWakeUp")
			}
		}
		if s.Curr(0) != nil && i%2 == 0 {
			if _, err := s.BlockNext(0); err != nil {
				t.Fatal(err)
			}
			check("BlockNext")
		}
		for _, cpu := range s.Resched() {
			s.Schedule(cpu)
			check("Schedule")
		}
		h.check()
	}
	if !seen {
		t.Fatal("clock1 was never set: the loop tests nothing")
	}
}
