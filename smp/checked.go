package smp

import "github.com/schedmodel/fairclass/eevdf"

// Checked is the checked view of a System: the entry points whose kernel
// shape has no error result (Tick, Schedule, Exec, WakeUpNew,
// TryToWakeUp), under the same names and arguments, each also returning
// an error that says what was wrong with its input. The work done on good
// input is exactly the System method's; on bad input nothing changes.
// Make it with System.Checked; it is a small value, cheap to copy. The
// zero Checked has no System to work on and must not be used.
type Checked struct{ s *System }

// Checked returns the checked view of s.
func (s *System) Checked() Checked { return Checked{s} }

// System returns the System c checks.
func (c Checked) System() *System { return c.s }

// Tick is System.Tick: nil once the tick ran, or did nothing because the
// CPU's tick is stopped (TickStopped); an error wrapping ErrBadCPU for an
// id that is not a CPU.
func (c Checked) Tick(cpu int) error {
	s := c.s
	if uint(cpu) >= uint(len(s.cpus)) {
		return s.badCPU(cpu)
	}
	s.tick(cpu, &s.cpus[cpu])
	return nil
}

// Schedule is System.Schedule: the task cpu runs after __schedule (nil:
// idle); an error wrapping ErrBadCPU for an id that is not a CPU.
func (c Checked) Schedule(cpu int) (*Task, error) {
	s := c.s
	if uint(cpu) >= uint(len(s.cpus)) {
		return nil, s.badCPU(cpu)
	}
	return s.scheduleCPU(cpu, &s.cpus[cpu]), nil
}

// Exec is System.Exec: the CPU the running task of cpu runs on after
// sched_exec; −1 and an error wrapping ErrBadCPU for an id that is not a
// CPU, or ErrIdle for a CPU that runs no task.
func (c Checked) Exec(cpu int) (int, error) { return c.s.exec(cpu) }

// WakeUpNew is System.WakeUpNew: the CPU the new task was placed on; −1
// and an error wrapping ErrNilTask, ErrForeignTask (a task of another
// System), ErrExited, or ErrTaskState for a task started already.
func (c Checked) WakeUpNew(t *Task) (int, error) { return c.s.wakeUpNew(t) }

// TryToWakeUp is System.TryToWakeUp: the CPU the task is queued on after
// the wakeup (its own CPU, with no change, for a task already runnable);
// −1 and an error wrapping ErrNilTask, ErrForeignTask (t or the waker of
// another System), ErrNotStarted (never started with WakeUpNew) or
// ErrExited.
func (c Checked) TryToWakeUp(t, waker *Task, wf eevdf.WakeFlags) (int, error) {
	return c.s.tryToWakeUp(t, waker, wf)
}
