package sim

import (
	"fmt"
	"time"
)

// StressWorkload models stress --cpu N: N tasks that spin without ever
// sleeping, until Timeout (stress --timeout, wall clock) or the end of the
// simulation.
type StressWorkload struct {
	// Label is the workload's name in reports (default "stress").
	Label string
	// N is stress --cpu (default 1).
	N int
	// Timeout is stress --timeout; 0 spins until the simulation ends.
	Timeout time.Duration
	// Options are the hogs' scheduling attributes.
	Options TaskOptions
}

// Stress returns n CPU hogs.
func Stress(n int, opt TaskOptions) *StressWorkload { return &StressWorkload{N: n, Options: opt} }

// Name implements Workload.
func (w *StressWorkload) Name() string { return orDefault(w.Label, "stress") }

// Kind implements Workload.
func (w *StressWorkload) Kind() string { return "stress" }

// Tasks implements Workload.
func (w *StressWorkload) Tasks() ([]TaskSpec, error) {
	n := orDefault(w.N, 1)
	if err := checkCount("stress tasks", n, maxTasks); err != nil {
		return nil, err
	}
	if err := checkDur("stress timeout", w.Timeout); err != nil {
		return nil, err
	}
	prog := Spin()
	if w.Timeout > 0 {
		prog = SpinUntil(w.Options.Start + w.Timeout)
	}
	out := make([]TaskSpec, n)
	for i := range out {
		out[i] = w.Options.spec(fmt.Sprintf("%s-%d", w.Name(), i), prog)
	}
	return out, nil
}

// YieldLoopWorkload models seed 004's yield_loop: one task that calls
// sched_yield in a loop until YieldFor has passed on the clock, each call
// costing YieldCost of CPU time (the syscall and the clock read), then
// spins: until the simulation ends, or for SpinFor if set.
//
//	while (time(NULL) - start < 5) sched_yield();
//	while (1) {}
type YieldLoopWorkload struct {
	// Label is the workload's name in reports (default "yield_loop").
	Label string
	// YieldFor is how long it yields (default 5 s).
	YieldFor time.Duration
	// YieldCost is the CPU time of one loop iteration (default 1 µs).
	YieldCost time.Duration
	// SpinFor bounds the spinning that follows; 0 spins until the end.
	SpinFor time.Duration
	// Options are the task's scheduling attributes.
	Options TaskOptions
}

// YieldLoop returns seed 004's yield_loop yielding for yieldFor.
func YieldLoop(yieldFor time.Duration, opt TaskOptions) *YieldLoopWorkload {
	return &YieldLoopWorkload{YieldFor: yieldFor, Options: opt}
}

// Name implements Workload.
func (w *YieldLoopWorkload) Name() string { return orDefault(w.Label, "yield_loop") }

// Kind implements Workload.
func (w *YieldLoopWorkload) Kind() string { return "yield_loop" }

// Tasks implements Workload.
func (w *YieldLoopWorkload) Tasks() ([]TaskSpec, error) {
	yf := orDefault(w.YieldFor, 5*time.Second)
	cost := orDefault(w.YieldCost, time.Microsecond)
	for _, d := range []time.Duration{yf, cost, w.SpinFor} {
		if err := checkDur("yield_loop", d); err != nil {
			return nil, err
		}
	}
	spin := Spin()
	if w.SpinFor > 0 {
		spin = SpinFor(w.SpinFor)
	}
	return []TaskSpec{w.Options.spec(w.Name(), LoopFor(yf, Run(cost), Yield()), spin)}, nil
}

// MassiveIntrWorkload models massive_intr: N tasks that each burn Runtime
// on the clock (a busy loop reading the time, so time spent preempted
// counts), sleep Sleeptime, and count a "loops" mark, until Duration (0:
// the end of the simulation). The loop counts show how evenly the CPU was
// shared.
type MassiveIntrWorkload struct {
	// Label is the workload's name in reports (default "massive_intr").
	Label string
	// N is the number of tasks (default 1).
	N int
	// Runtime is the busy stretch (default 8 ms).
	Runtime time.Duration
	// Sleeptime is the sleep after each stretch (default 1 ms).
	Sleeptime time.Duration
	// Duration ends the tasks; 0 runs until the simulation ends.
	Duration time.Duration
	// Options are the tasks' scheduling attributes.
	Options TaskOptions
}

// MassiveIntr returns n massive_intr tasks burning runtime and sleeping
// sleeptime in turn.
func MassiveIntr(n int, runtime, sleeptime time.Duration, opt TaskOptions) *MassiveIntrWorkload {
	return &MassiveIntrWorkload{N: n, Runtime: runtime, Sleeptime: sleeptime, Options: opt}
}

// Name implements Workload.
func (w *MassiveIntrWorkload) Name() string { return orDefault(w.Label, "massive_intr") }

// Kind implements Workload.
func (w *MassiveIntrWorkload) Kind() string { return "massive_intr" }

// Tasks implements Workload.
func (w *MassiveIntrWorkload) Tasks() ([]TaskSpec, error) {
	n := orDefault(w.N, 1)
	rt, st := orDefault(w.Runtime, 8*time.Millisecond), orDefault(w.Sleeptime, time.Millisecond)
	if err := checkCount("massive_intr tasks", n, maxTasks); err != nil {
		return nil, err
	}
	for _, d := range []time.Duration{rt, st, w.Duration} {
		if err := checkDur("massive_intr", d); err != nil {
			return nil, err
		}
	}
	body := []Phase{SpinFor(rt), Sleep(st), Mark("loops")}
	prog := Forever(body...)
	if w.Duration > 0 {
		prog = LoopFor(w.Duration, body...)
	}
	out := make([]TaskSpec, n)
	for i := range out {
		out[i] = w.Options.spec(fmt.Sprintf("%s-%d", w.Name(), i), prog)
	}
	return out, nil
}
