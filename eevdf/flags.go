package eevdf

import "fmt"

// EnqueueFlags are the ENQUEUE_* flags of kernel/sched/sched.h, with the
// kernel's values. Enqueue refuses any bit outside the constants below
// with ErrBadFlags.
type EnqueueFlags uint32

// Enqueue flags. Only those with an effect on a flat fair runqueue are
// exported.
const (
	// EnqueueWakeup: a real wakeup (its absence makes the enqueue "new"
	// for the runnable count).
	EnqueueWakeup EnqueueFlags = 0x01
	// EnqueueRestore: the restore after a save (nice or slice change).
	EnqueueRestore EnqueueFlags = 0x02
	// EnqueueMove: with EnqueueRestore when the priority or group changes
	// (no effect on the fair class's arithmetic).
	EnqueueMove EnqueueFlags = 0x04
	// EnqueueDelayed: the wakeup of a delayed entity (requeue only).
	EnqueueDelayed EnqueueFlags = 0x20
	// EnqueueMigrated: the entity arrived from another CPU (exec_start = 0).
	EnqueueMigrated EnqueueFlags = 0x40000
	// EnqueueInitial: the first enqueue of a new task (half a slice).
	EnqueueInitial EnqueueFlags = 0x80000

	// enqueueQueued is fair-internal: place_entity's entity is already counted.
	enqueueQueued EnqueueFlags = 0x200000
)

// DequeueFlags are the DEQUEUE_* flags, with the kernel's values. Dequeue
// refuses any bit outside the constants below with ErrBadFlags.
type DequeueFlags uint32

// Dequeue flags.
const (
	// DequeueSleep: the task blocks (it may stay queued as delayed).
	DequeueSleep DequeueFlags = 0x01
	// DequeueSave: saved for a nice or slice change (never delayed; the
	// deadline becomes relative).
	DequeueSave DequeueFlags = 0x02
	// DequeueMove: with DequeueSave when the priority or group changes
	// (no effect on the fair class's arithmetic).
	DequeueMove DequeueFlags = 0x04
	// DequeueDelayed: completion of a delayed dequeue (with DequeueSleep).
	DequeueDelayed DequeueFlags = 0x20
	// DequeueSpecial: a block in a special state (stopped, traced, dead):
	// never delayed.
	DequeueSpecial DequeueFlags = 0x10000

	// dequeueMigrating stands for task_on_rq_migrating: the task leaves
	// for another CPU, so its PELT load is detached (DO_DETACH).
	dequeueMigrating DequeueFlags = 0x10
)

// WakeFlags are the WF_* wake flags, with the kernel's values. Wakeup
// refuses any bit outside the constants below with ErrBadFlags;
// WakeupPreempt, which reports no error, reads only the bits it tests.
type WakeFlags uint32

// Wake flags.
const (
	// WFExec: placement of a task that execs (sched_exec), the
	// SD_BALANCE_EXEC bit.
	WFExec WakeFlags = 0x02
	// WFFork: the first wakeup of a new task.
	WFFork WakeFlags = 0x04
	// WFTTWU: a real wakeup (try_to_wake_up).
	WFTTWU WakeFlags = 0x08
	// WFSync: the waker will sleep soon.
	WFSync WakeFlags = 0x10
	// WFMigrated: the task changed CPU on this wakeup.
	WFMigrated WakeFlags = 0x20
	// WFCurrentCPU: wake the task on the waking CPU if it may run there.
	WFCurrentCPU WakeFlags = 0x40
	// WFRqSelected: CPU selection chose this runqueue.
	WFRqSelected WakeFlags = 0x80
)

// The flags a caller may pass: every bit outside these sets is refused
// with ErrBadFlags before anything that depends on the flags is looked at.
// The fair-internal flags (ENQUEUE_QUEUED, the migrating dequeue) are
// outside them: the model sets them itself where the kernel does.
const (
	enqueueFlagsMask = EnqueueWakeup | EnqueueRestore | EnqueueMove | EnqueueDelayed | EnqueueMigrated | EnqueueInitial
	dequeueFlagsMask = DequeueSleep | DequeueSave | DequeueMove | DequeueDelayed | DequeueSpecial
	wakeFlagsMask    = WFExec | WFFork | WFTTWU | WFSync | WFMigrated | WFCurrentCPU | WFRqSelected
)

// errStrayFlags is the error for flag bits outside the defined set, out of
// line so that the callers' test stays small.
func errStrayFlags(kind string, stray uint32) error {
	return fmt.Errorf("%w: %s 0x%x outside the defined set", ErrBadFlags, kind, stray)
}
