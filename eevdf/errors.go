package eevdf

import "errors"

// Sentinel errors. Every error an operation returns wraps one of them, so
// callers can test with errors.Is; an operation that returns an error has
// left the runqueue unchanged.
var (
	// ErrAlreadyQueued: the entity is already on a runqueue.
	ErrAlreadyQueued = errors.New("entity already queued")
	// ErrNotQueued: the operation needs a queued entity.
	ErrNotQueued = errors.New("entity not queued")
	// ErrBadWeight: a weight of 0, or one outside what the model accepts.
	ErrBadWeight = errors.New("bad weight")
	// ErrBadNice: a nice value outside -20..19.
	ErrBadNice = errors.New("bad nice value")
	// ErrBadSlice: a slice the model cannot use.
	ErrBadSlice = errors.New("bad slice")
	// ErrBadPolicy: an unknown policy.
	ErrBadPolicy = errors.New("bad policy")
	// ErrClockBackwards: SetClock with a time before the current one.
	ErrClockBackwards = errors.New("clock going backwards")
	// ErrForeignEntity: the entity is queued on (or running on) another runqueue.
	ErrForeignEntity = errors.New("entity belongs to another runqueue")
	// ErrDelayed: the operation is not defined for a delayed entity (a
	// second sleep, a forced pick).
	ErrDelayed = errors.New("entity is delayed")
	// ErrNotDelayed: EnqueueDelayed or DequeueDelayed of an entity that is
	// not delayed.
	ErrNotDelayed = errors.New("entity not delayed")
	// ErrBadFlags: a flag combination the kernel never passes.
	ErrBadFlags = errors.New("bad flags")
	// ErrNilEntity: a nil *SchedEntity where an operation needs one, or
	// one that NewEntity did not make (its zero value).
	ErrNilEntity = errors.New("nil entity")
	// ErrNilRunqueue: an operation on a nil *CfsRq, or on a CfsRq that
	// NewCfsRq did not make (its zero value).
	ErrNilRunqueue = errors.New("nil runqueue")
	// ErrIdle: the operation needs a running entity and the idle task
	// runs (Sleep with nothing running).
	ErrIdle = errors.New("nothing running")
	// ErrLifecycle: an operation out of a task's life cycle: Wakeup of an
	// entity that was never enqueued (a new task starts with WakeUpNew),
	// or WakeUpNew of one that was.
	ErrLifecycle = errors.New("operation out of the task's life cycle")
	// ErrBadOption: an invalid option (of a runqueue, an entity or a
	// group), a nil one, or an invalid feature set.
	ErrBadOption = errors.New("bad option")
	// ErrRunning: the operation is not defined for the running entity
	// (detaching it for another CPU).
	ErrRunning = errors.New("entity is running")
)
