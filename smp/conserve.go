package smp

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
)

// Work conservation: a scheduler conserves work when no CPU idles while
// another has a task waiting. The load balancer is what restores it —
// newly idle balancing when a CPU goes idle, periodic balancing at its
// intervals, the ILB for tickless CPUs — so the time a CPU spends idle
// while another CPU has at least two runnable tasks measures how quickly
// balancing acts on this machine and workload (KERNEL-SPEC-SMP §6.3 C3
// bounds one such wait by the balance intervals).
//
// The System accounts it exactly, at no cost per operation: a CPU is
// classified (idle, busy, overloaded) from its runqueue's h_nr_runnable
// only when the simulated time advances, and only for the CPUs whose
// runqueue was used during the instant that ends — every change to a
// runqueue goes through rq, which lists the CPU on its first use in an
// instant (when it brings the runqueue's clock forward).

// Conservation is how much of the machine's time was idle, and idle
// while another CPU had work waiting, over an interval (System.Conservation).
// Times are CPU-nanoseconds unless said otherwise.
type Conservation struct {
	CPUs    int    // CPUs of the machine
	Elapsed uint64 // the interval's length, in ns of simulated time

	// Idle is the CPU time with no runnable fair task (h_nr_runnable 0).
	Idle uint64
	// Stranded is the part of Idle during which some other CPU had at
	// least two runnable tasks: a task that could have run, waiting.
	Stranded uint64
	// Overloaded is the simulated time (ns, not CPU time) during which at
	// least one CPU had two or more runnable tasks.
	Overloaded uint64
}

// IdleFraction is Idle over the machine's time, CPUs × Elapsed.
func (c Conservation) IdleFraction() float64 { return c.fraction(c.Idle) }

// StrandedFraction is Stranded over the machine's time, CPUs × Elapsed:
// the share of all CPU time lost to idling while a task waited elsewhere.
func (c Conservation) StrandedFraction() float64 { return c.fraction(c.Stranded) }

func (c Conservation) fraction(x uint64) float64 {
	if c.CPUs == 0 || c.Elapsed == 0 {
		return 0
	}
	return float64(x) / (float64(c.CPUs) * float64(c.Elapsed))
}

// Classes of a CPU for the accounting.
const (
	cpuIdleClass uint8 = iota // h_nr_runnable == 0
	cpuBusyClass              // one runnable task
	cpuOverClass              // two or more
)

// conservation is the System's accounting state. It is kept on machines of
// several CPUs only: one CPU never idles while another is loaded.
type conservation struct {
	on      bool
	started bool   // the first SetClock sets the start
	start   uint64 // the clock at the first SetClock
	last    uint64 // accounted up to here
	nIdle   int
	nOver   int
	class   []uint8 // by CPU, as of the last advance
	touched []int32 // CPUs whose runqueue was used in the current instant
	seen    []bool  // scratch for check

	idle, stranded, over uint64
}

func (w *conservation) init(n int) {
	if n < 2 {
		return
	}
	w.on = true
	w.class = make([]uint8, n) // every CPU starts idle
	w.nIdle = n
	w.seen = make([]bool, n)
	// Until the first advance, every CPU counts as used: the runqueues'
	// clocks need no update in the first instant, so rq cannot tell.
	w.touched = make([]int32, n, n+1)
	for i := range w.touched {
		w.touched[i] = int32(i)
	}
}

// use notes that cpu's runqueue is used in the current instant (rq calls it
// on the first use).
func (w *conservation) use(cpu int) {
	if w.on {
		w.touched = append(w.touched, int32(cpu))
	}
}

// classOf classifies cpu from its runqueue now.
func (s *System) classOf(cpu int) uint8 {
	switch n := s.cpus[cpu].rq.NrRunnable(); {
	case n == 0:
		return cpuIdleClass
	case n == 1:
		return cpuBusyClass
	default:
		return cpuOverClass
	}
}

// counts returns the idle and overloaded CPU counts with the classes of
// the touched CPUs brought up to date, storing them when store is set.
func (s *System) conservationCounts(store bool) (nIdle, nOver int) {
	w := &s.work
	nIdle, nOver = w.nIdle, w.nOver
	for _, cpu := range w.touched {
		old, cls := w.class[cpu], s.classOf(int(cpu))
		if old == cls {
			continue
		}
		switch old {
		case cpuIdleClass:
			nIdle--
		case cpuOverClass:
			nOver--
		}
		switch cls {
		case cpuIdleClass:
			nIdle++
		case cpuOverClass:
			nOver++
		}
		if store {
			w.class[cpu] = cls
		}
	}
	if store {
		w.nIdle, w.nOver = nIdle, nOver
		w.touched = w.touched[:0]
	}
	return nIdle, nOver
}

// advanceConservation accounts the instant that ends, whose state held
// from w.last until now, before the clock moves to now (SetClock).
func (s *System) advanceConservation(now uint64) {
	w := &s.work
	if !w.on {
		return
	}
	nIdle, nOver := s.conservationCounts(true)
	if w.started {
		w.add(nIdle, nOver, now-w.last)
	}
	w.last = now
}

// begin starts the accounting at the first SetClock.
func (w *conservation) begin(now uint64) {
	if !w.started {
		w.started, w.start, w.last = true, now, now
	}
}

func (w *conservation) add(nIdle, nOver int, dt uint64) {
	w.idle += uint64(nIdle) * dt
	if nOver > 0 {
		w.stranded += uint64(nIdle) * dt
		w.over += dt
	}
}

// Conservation returns the work-conservation accounting from the
// System's first SetClock up to until, which must not be before the
// current clock (the state of the current instant is taken to last until
// then). On a machine of one CPU it has only CPUs and Elapsed: nothing
// is accounted there.
func (s *System) Conservation(until uint64) (Conservation, error) {
	if until < s.now {
		return Conservation{}, fmt.Errorf("%w: conservation until %d, before the clock %d", eevdf.ErrClockBackwards, until, s.now)
	}
	w := s.work // a copy: reading changes nothing
	c := Conservation{CPUs: len(s.cpus)}
	if !w.started {
		return c, nil
	}
	c.Elapsed = until - w.start
	if !w.on {
		return c, nil
	}
	nIdle, nOver := s.conservationCounts(false)
	w.add(nIdle, nOver, until-w.last)
	c.Idle, c.Stranded, c.Overloaded = w.idle, w.stranded, w.over
	return c, nil
}

// checkConservation verifies that every CPU not used in the current
// instant has the class its runqueue gives it, and the counts: what rq
// failed to list would be stale here.
func (s *System) checkConservation() error {
	w := &s.work
	if !w.on {
		return nil
	}
	for _, cpu := range w.touched {
		w.seen[cpu] = true
	}
	defer func() {
		for _, cpu := range w.touched {
			w.seen[cpu] = false
		}
	}()
	nIdle, nOver := 0, 0
	for i := range s.cpus {
		cls := w.class[i]
		if !w.seen[i] {
			if now := s.classOf(i); now != cls {
				return fmt.Errorf("conservation: CPU %d has class %d, its runqueue %d, and was not used", i, cls, now)
			}
		}
		switch cls {
		case cpuIdleClass:
			nIdle++
		case cpuOverClass:
			nOver++
		}
	}
	if nIdle != w.nIdle || nOver != w.nOver {
		return fmt.Errorf("conservation: counts %d idle, %d overloaded; classes say %d, %d", w.nIdle, w.nOver, nIdle, nOver)
	}
	return nil
}
