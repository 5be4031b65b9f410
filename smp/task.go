package smp

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// taskState is where a task is in its life, as the core sees it.
type taskState uint8

const (
	taskNew      taskState = iota // made, not yet woken by WakeUpNew
	taskRunnable                  // queued or running
	taskSleeping                  // blocked: not queued, or still queued as delayed
	taskDead                      // exited
)

func (st taskState) String() string {
	switch st {
	case taskNew:
		return "new"
	case taskRunnable:
		return "runnable"
	case taskSleeping:
		return "sleeping"
	case taskDead:
		return "dead"
	}
	return fmt.Sprintf("taskState(%d)", uint8(st))
}

// wakee is the wake_wide statistics every task, the idle tasks included,
// keeps as a waker: last_wakee, wakee_flips, wakee_flip_decay_ts.
type wakee struct {
	last    *Task
	flips   uint32 // unsigned int wakee_flips
	decayTs uint64 // jiffies of the last halving
}

// Task is a task of the System: its scheduling entity and what the core
// keeps about it across CPUs (task_cpu, wake_cpu, recent_used_cpu, the
// allowed CPUs, the waker statistics of wake_wide). Make it with NewTask.
// A nil *Task stands for the idle task (Curr and Schedule return it): its
// methods answer with zero values (−1 for the ids) and do not panic.
type Task struct {
	se  *eevdf.SchedEntity
	sys *System
	id  int

	state   taskState
	cpu     int // task_cpu
	wakeCPU int // wake_cpu
	recent  int // recent_used_cpu

	allowed   *topology.Mask // cpus_ptr
	nrAllowed int

	maxAllowedCap uint64 // max_allowed_capacity (fits.go)

	wakee wakee

	migrations uint64 // se.nr_migrations
	placed     Rule   // the rule of the last placement
	data       any

	core coreTask // core scheduling (coresched.go)
}

// TaskOption configures NewTask.
type TaskOption func(*taskConfig) error

type taskConfig struct {
	cpu     int
	parent  *Task
	allowed []int

	cookie    Cookie // WithCookie
	cookieSet bool
}

// WithCPU sets the CPU the task is made on (sched_fork's __set_task_cpu to
// the forking CPU; default 0): WakeUpNew places it from there.
func WithCPU(cpu int) TaskOption {
	return func(c *taskConfig) error {
		c.cpu = cpu
		return nil
	}
}

// WithParent makes the task a child of p: it is made on p's CPU and
// inherits p's waker statistics (last_wakee, wakee_flips and their decay
// stamp; fork copies the task struct and does not reset them) and p's
// allowed CPUs unless WithAllowed says otherwise. p must be a task of the
// same System (ErrForeignTask), not nil (ErrNilTask).
func WithParent(p *Task) TaskOption {
	return func(c *taskConfig) error {
		if p == nil {
			return fmt.Errorf("%w: WithParent(nil)", ErrNilTask)
		}
		c.parent = p
		return nil
	}
}

// WithAllowed restricts the task to cpus (sched_setaffinity; default all).
func WithAllowed(cpus ...int) TaskOption {
	return func(c *taskConfig) error {
		c.allowed = append([]int(nil), cpus...)
		if len(c.allowed) == 0 {
			return fmt.Errorf("%w: WithAllowed()", ErrNotAllowed)
		}
		return nil
	}
}

// NewTask makes se a task of the System, not yet started: WakeUpNew
// places and enqueues it. The System takes se's data slot (SetData) to
// find the task of an entity; use the Task's SetData instead. se must be
// fresh: never enqueued anywhere, no task yet (ErrTaskState); nil is
// eevdf.ErrNilEntity. A nil option, a CPU that is not one (ErrBadCPU), a
// parent of another System (ErrForeignTask) are refused; on error the
// System is unchanged.
func (s *System) NewTask(se *eevdf.SchedEntity, opts ...TaskOption) (*Task, error) {
	if se == nil {
		return nil, eevdf.ErrNilEntity
	}
	if se.OnRq() || se.SumExecRuntime() != 0 || taskOf(se) != nil {
		return nil, fmt.Errorf("%w: %s is not a fresh entity", ErrTaskState, se.Name())
	}
	c := taskConfig{}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: task option %d is nil", ErrBadOption, i)
		}
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	if c.parent != nil {
		if c.parent.sys != s {
			return nil, fmt.Errorf("%w: parent %s", ErrForeignTask, c.parent)
		}
		c.cpu = c.parent.cpu
	}
	if c.cpu < 0 || c.cpu >= len(s.cpus) {
		return nil, fmt.Errorf("%w: %d", ErrBadCPU, c.cpu)
	}
	t := &Task{se: se, sys: s, id: len(s.tasks), cpu: c.cpu, wakeCPU: c.cpu, recent: c.cpu}
	switch {
	case c.allowed != nil:
		t.allowed = s.top.NewMask()
		for _, cpu := range c.allowed {
			if cpu < 0 || cpu >= len(s.cpus) {
				return nil, fmt.Errorf("%w: %d in WithAllowed", ErrBadCPU, cpu)
			}
			t.allowed.Set(cpu)
		}
	case c.parent != nil:
		t.allowed = c.parent.allowed.Clone()
	default:
		t.allowed = s.top.All().Clone()
	}
	t.nrAllowed = t.allowed.Weight()
	s.setTaskMaxAllowedCapacity(t)
	if c.parent != nil {
		t.wakee = c.parent.wakee
	}
	if err := s.forkCookie(t, &c); err != nil {
		return nil, err
	}
	se.SetData(t)
	s.tasks = append(s.tasks, t)
	return t, nil
}

// taskOf returns the Task of an entity (nil for nil or a foreign entity).
func taskOf(se *eevdf.SchedEntity) *Task {
	if se == nil {
		return nil
	}
	t, _ := se.Data().(*Task)
	return t
}

// ownTask returns the Task of an entity if it is a task of s: nil for nil,
// for an entity that is no task, and for a task of another System (an
// entity enqueued behind the System's back, which Check reports).
func (s *System) ownTask(se *eevdf.SchedEntity) *Task {
	if t := taskOf(se); t != nil && t.sys == s {
		return t
	}
	return nil
}

// Entity returns the task's scheduling entity (nil for a nil Task).
func (t *Task) Entity() *eevdf.SchedEntity {
	if t == nil {
		return nil
	}
	return t.se
}

// Name returns the entity's name ("" for a nil Task).
func (t *Task) Name() string {
	if t == nil {
		return ""
	}
	return t.se.Name()
}

// String returns the entity's name, or "<idle>" for a nil Task: the idle
// task, as Curr and Schedule report it.
func (t *Task) String() string {
	if t == nil {
		return "<idle>"
	}
	return t.se.Name()
}

// ID returns the task's index in creation order (−1 for a nil Task).
func (t *Task) ID() int {
	if t == nil {
		return -1
	}
	return t.id
}

// CPU returns task_cpu: the CPU the task runs or is queued on, or last ran
// on (−1 for a nil Task).
func (t *Task) CPU() int {
	if t == nil {
		return -1
	}
	return t.cpu
}

// RecentUsedCPU returns recent_used_cpu (−1 for a nil Task).
func (t *Task) RecentUsedCPU() int {
	if t == nil {
		return -1
	}
	return t.recent
}

// Allowed returns the task's allowed CPUs (do not modify; nil for a nil
// Task).
func (t *Task) Allowed() *topology.Mask {
	if t == nil {
		return nil
	}
	return t.allowed
}

// Migrations returns se.nr_migrations: the CPU changes of the task.
func (t *Task) Migrations() uint64 {
	if t == nil {
		return 0
	}
	return t.migrations
}

// Placement returns the rule that chose the task's CPU at its last
// wakeup or fork (RuleInPlace, the zero Rule, before the first and for a
// nil Task).
func (t *Task) Placement() Rule {
	if t == nil {
		return 0
	}
	return t.placed
}

// WakeeFlips returns wakee_flips, the waker statistic of wake_wide.
func (t *Task) WakeeFlips() uint32 {
	if t == nil {
		return 0
	}
	return t.wakee.flips
}

// Runnable reports whether the task is queued or running (not asleep, not
// new, not dead).
func (t *Task) Runnable() bool { return t != nil && t.state == taskRunnable }

// Sleeping reports whether the task is blocked (possibly still queued as
// delayed).
func (t *Task) Sleeping() bool { return t != nil && t.state == taskSleeping }

// Dead reports whether the task has exited.
func (t *Task) Dead() bool { return t != nil && t.state == taskDead }

// SetData attaches a value of the caller's to the task (on a nil Task it
// does nothing).
func (t *Task) SetData(v any) {
	if t != nil {
		t.data = v
	}
}

// Data returns the value given to SetData (nil for a nil Task).
func (t *Task) Data() any {
	if t == nil {
		return nil
	}
	return t.data
}

// allowedOn is cpumask_test_cpu(cpu, p->cpus_ptr).
func (t *Task) allowedOn(cpu int) bool { return t.allowed.Test(cpu) }
