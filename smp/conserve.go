package smp

import (
	"fmt"
	"slices"

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
// instant (when it brings the runqueue's clock forward). The state so
// found holds from that instant until the next one.

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

	// Stretches counts the stretches of stranded time: each is one CPU
	// idle without a break while, without a break, some CPU has two or
	// more runnable tasks. LongestStretch is the longest (ns), an open
	// one included.
	Stretches      uint64 // stretches of stranded time
	LongestStretch uint64 // ns, an open stretch included
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
	last    uint64 // accounted up to here: the current instant
	nIdle   int
	nOver   int
	class   []uint8 // by CPU, as of the last advance
	touched []int32 // CPUs whose runqueue was used in the current instant
	seen    []bool  // scratch for checkConservation

	// Stretches. A CPU's stranded stretch starts at the later of the
	// instant it went idle (idleSince) and the instant some CPU became
	// overloaded (overStart). idleQ lists the idle instants in time
	// order, stale entries (the CPU left idle since) dropped lazily, so
	// that its first live entry is the longest-idle CPU.
	idleSince []uint64
	idleQ     []idleMark
	overStart uint64

	idle, stranded, over uint64
	stretches, longest   uint64
}

// idleMark is an entry of conservation.idleQ.
type idleMark struct {
	cpu   int32
	since uint64
}

func (w *conservation) init(n int) {
	if n < 2 {
		return
	}
	w.on = true
	w.class = make([]uint8, n) // every CPU starts idle
	w.nIdle = n
	w.seen = make([]bool, n)
	w.idleSince = make([]uint64, n)
	w.idleQ = make([]idleMark, n, 2*n)
	for i := range w.idleQ {
		w.idleQ[i].cpu = int32(i)
	}
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

// begin starts the accounting at the first SetClock (SetClock calls it
// until started).
func (w *conservation) begin(now uint64) {
	w.started, w.start, w.last = true, now, now
	for i := range w.idleSince {
		w.idleSince[i] = now
		w.idleQ[i].since = now
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

// advanceConservation accounts the instant that ends before the clock
// moves to now (SetClock).
func (s *System) advanceConservation(now uint64) {
	if s.work.on {
		s.advanceWork(&s.work, now)
	}
}

// advanceWork closes the current instant of w: the classes of the CPUs it
// used are brought up to date — changes that happened at the instant,
// w.last — and the state then found is taken to hold until now.
func (s *System) advanceWork(w *conservation, now uint64) {
	t := w.last
	overBefore := w.nOver > 0
	newlyIdle := 0
	for _, c := range w.touched {
		cpu := int(c)
		old, cls := w.class[cpu], s.classOf(cpu)
		if old == cls {
			continue
		}
		w.class[cpu] = cls
		switch old {
		case cpuIdleClass:
			w.nIdle--
			if overBefore {
				w.endStretch(t, w.idleSince[cpu])
			}
		case cpuOverClass:
			w.nOver--
		}
		switch cls {
		case cpuIdleClass:
			w.nIdle++
			newlyIdle++
			w.idleSince[cpu] = t
			w.markIdle(cpu, t)
		case cpuOverClass:
			w.nOver++
		}
	}
	w.touched = w.touched[:0]
	switch overNow := w.nOver > 0; {
	case !overBefore && overNow:
		// Every idle CPU starts a stretch.
		w.overStart = t
		w.stretches += uint64(w.nIdle)
	case overBefore && overNow:
		w.stretches += uint64(newlyIdle)
	case overBefore && !overNow:
		// Every CPU idle since before t ends its stretch; the longest
		// is the longest-idle one's.
		if since, ok := w.longestIdle(); ok && since < t {
			w.endStretch(t, since)
		}
	}
	if w.started {
		w.add(w.nIdle, w.nOver, now-t)
	}
	w.last = now
}

// endStretch ends at t a stretch of a CPU idle since since.
func (w *conservation) endStretch(t, since uint64) {
	w.longest = max(w.longest, t-max(since, w.overStart))
}

// markIdle queues cpu, idle since t, compacting the queue when stale
// entries make up most of it (so it stays within twice the CPU count).
func (w *conservation) markIdle(cpu int, t uint64) {
	if len(w.idleQ) == cap(w.idleQ) {
		w.idleQ = slices.DeleteFunc(w.idleQ, w.stale)
	}
	w.idleQ = append(w.idleQ, idleMark{cpu: int32(cpu), since: t})
}

// stale reports whether m no longer describes its CPU's idleness.
func (w *conservation) stale(m idleMark) bool {
	return w.class[m.cpu] != cpuIdleClass || w.idleSince[m.cpu] != m.since
}

// longestIdle returns when the longest-idle CPU went idle, if one is.
func (w *conservation) longestIdle() (uint64, bool) {
	i := 0
	for i < len(w.idleQ) && w.stale(w.idleQ[i]) {
		i++
	}
	w.idleQ = w.idleQ[:copy(w.idleQ, w.idleQ[i:])]
	if len(w.idleQ) == 0 {
		return 0, false
	}
	return w.idleQ[0].since, true
}

func (w *conservation) add(nIdle, nOver int, dt uint64) {
	w.idle += uint64(nIdle) * dt
	if nOver > 0 {
		w.stranded += uint64(nIdle) * dt
		w.over += dt
	}
}

// clone is a deep copy of w.
func (w *conservation) clone() conservation {
	c := *w
	c.class = slices.Clone(w.class)
	c.touched = slices.Clone(w.touched)
	c.idleSince = slices.Clone(w.idleSince)
	c.idleQ = slices.Clone(w.idleQ)
	return c
}

// Conservation returns the work-conservation accounting from the
// System's first SetClock up to until, which must not be before the
// current clock (the state of the current instant is taken to last until
// then). It changes nothing. On a machine of one CPU it has only CPUs and
// Elapsed: nothing is accounted there.
func (s *System) Conservation(until uint64) (Conservation, error) {
	if until < s.now {
		return Conservation{}, fmt.Errorf("%w: conservation until %d, before the clock %d", eevdf.ErrClockBackwards, until, s.now)
	}
	c := Conservation{CPUs: len(s.cpus)}
	if !s.work.started {
		return c, nil
	}
	c.Elapsed = until - s.work.start
	if !s.work.on {
		return c, nil
	}
	w := s.work.clone()
	s.advanceWork(&w, until)
	if w.nOver > 0 {
		// The stretches still open at until.
		if since, ok := w.longestIdle(); ok {
			w.endStretch(until, since)
		}
	}
	c.Idle, c.Stranded, c.Overloaded = w.idle, w.stranded, w.over
	c.Stretches, c.LongestStretch = w.stretches, w.longest
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
