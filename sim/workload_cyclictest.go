package sim

import (
	"fmt"
	"time"
)

// CyclictestWorkload models rt-tests' cyclictest: Threads measuring threads,
// each waking from an absolute timer every Interval and recording how late
// it runs.
//
// Thread i (from 0) has the interval Interval + i·Distance. It takes the
// time t0 when it first runs and sleeps with clock_nanosleep(TIMER_ABSTIME)
// until t0 + k·interval, k = 1, 2, ...; each time it runs again it records
// a latency sample — the time from the timer's expiry to the moment the
// thread runs — then spends Work of CPU time (its bookkeeping) and sleeps
// until the next expiry. An expiry it runs too late for is skipped
// (cyclictest's catch-up: while (now > next) next += interval), so a thread
// records at most one sample per interval and, on an idle CPU with no
// wakeup or switch cost, exactly one of latency 0 per interval.
//
// The workload's latency histogram merges every thread's samples.
type CyclictestWorkload struct {
	// Label is the workload's name in reports (default "cyclictest").
	Label string
	// Threads is cyclictest -t (default 1).
	Threads int
	// Interval is cyclictest -i (default 1000 µs).
	Interval time.Duration
	// Distance is cyclictest -d, the interval increment between threads
	// (cyclictest's own default is 500 µs; here 0).
	Distance time.Duration
	// Duration is cyclictest -D: a thread exits instead of sleeping to an
	// expiry later than Start + Duration; 0 runs until the simulation ends.
	Duration time.Duration
	// Loops is cyclictest -l: samples per thread; 0 is unlimited.
	Loops int
	// Work is the CPU time each thread spends after a wakeup (default 2 µs).
	Work time.Duration
	// SysWork is kernel-mode CPU time at each wakeup before the sample is
	// taken: the return from clock_nanosleep (a Sys phase, which the
	// preemption model may delay). The default 0 leaves it out;
	// KERNEL-SPEC-PREEMPT §7.1 estimates 1–2 µs.
	SysWork time.Duration
	// Options are the threads' scheduling attributes (--policy, nice, the
	// slice, -a affinity).
	Options TaskOptions
}

// Cyclictest returns a cyclictest of threads threads waking every interval,
// with the given scheduling attributes; adjust the other fields as needed.
func Cyclictest(threads int, interval time.Duration, opt TaskOptions) *CyclictestWorkload {
	return &CyclictestWorkload{Threads: threads, Interval: interval, Options: opt}
}

// Name implements Workload.
func (w *CyclictestWorkload) Name() string { return orDefault(w.Label, "cyclictest") }

// Kind implements Workload.
func (w *CyclictestWorkload) Kind() string { return "cyclictest" }

// Tasks implements Workload.
func (w *CyclictestWorkload) Tasks() ([]TaskSpec, error) {
	threads := orDefault(w.Threads, 1)
	interval := orDefault(w.Interval, time.Millisecond)
	work := orDefault(w.Work, 2*time.Microsecond)
	if err := checkCount("cyclictest threads", threads, maxTasks); err != nil {
		return nil, err
	}
	if err := checkCount("cyclictest loops", w.Loops, 1<<40); err != nil {
		return nil, err
	}
	for _, d := range []time.Duration{interval, w.Distance, w.Duration, work, w.SysWork} {
		if err := checkDur("cyclictest", d); err != nil {
			return nil, err
		}
	}
	if interval == 0 {
		return nil, fmt.Errorf("cyclictest interval must be positive")
	}
	var out []TaskSpec
	for i := range threads {
		per := interval + time.Duration(i)*w.Distance
		timer := Timer(per)
		if w.Duration > 0 {
			timer = TimerUntil(per, w.Options.Start+w.Duration)
		}
		body := []Phase{timer, Latency(), Run(work)}
		if w.SysWork > 0 {
			body = []Phase{timer, Sys(w.SysWork), Latency(), Run(work)}
		}
		var prog Phase
		if w.Loops > 0 {
			prog = Loop(w.Loops, body...)
		} else {
			prog = Forever(body...)
		}
		out = append(out, w.Options.spec(fmt.Sprintf("%s-%d", w.Name(), i), prog))
	}
	return out, nil
}
