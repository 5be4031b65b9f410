package sim

import (
	"fmt"
	"time"
)

// Workload is a set of tasks that run together, such as a benchmark. The
// built-in workloads (Cyclictest, Hackbench, Stress, YieldLoop,
// MassiveIntr, Schbench, the rt-app reader) implement it; so can callers.
type Workload interface {
	// Name labels the workload in reports.
	Name() string
	// Kind names what it models ("cyclictest", "hackbench", ...).
	Kind() string
	// Tasks returns its tasks, in creation order. It is called once per
	// simulation; channels it creates belong to that simulation.
	Tasks() ([]TaskSpec, error)
}

// Custom returns a workload made of the given tasks.
func Custom(name string, tasks ...TaskSpec) Workload {
	return &customWorkload{name: name, tasks: tasks}
}

type customWorkload struct {
	name  string
	tasks []TaskSpec
}

// Name implements Workload.
func (w *customWorkload) Name() string { return w.name }

// Kind implements Workload.
func (w *customWorkload) Kind() string { return "tasks" }

// Tasks implements Workload.
func (w *customWorkload) Tasks() ([]TaskSpec, error) {
	return append([]TaskSpec(nil), w.tasks...), nil
}

// spec builds a task from shared options.
func (o TaskOptions) spec(name string, prog ...Phase) TaskSpec {
	return TaskSpec{Name: name, TaskOptions: o, Program: prog}
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func checkCount(what string, n, limit int) error {
	if n < 0 || n > limit {
		return fmt.Errorf("%s %d outside 0..%d", what, n, limit)
	}
	return nil
}

func checkDur(what string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%s: negative duration %v", what, d)
	}
	return nil
}

// maxTasks bounds the tasks one workload may create.
const maxTasks = 1 << 20
