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
	// ErrNilEntity: a nil *SchedEntity.
	ErrNilEntity = errors.New("nil entity")
	// ErrBadOption: an invalid runqueue option.
	ErrBadOption = errors.New("bad option")
	// ErrRunning: the operation is not defined for the running entity
	// (detaching it for another CPU).
	ErrRunning = errors.New("entity is running")
)
