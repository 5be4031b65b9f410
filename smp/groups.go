package smp

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
)

// Task groups on a System (KERNEL-SPEC-GROUPS-SMP): the cgroup tree is an
// eevdf.Hierarchy given to every runqueue (WithRunqueueOptions(
// eevdf.WithHierarchy(h))), runqueue i being CPU i of it. The group
// operations below are the cgroup file writes as the kernel performs them
// on a machine: every CPU whose runqueue they touch has its clock brought
// to now first (update_rq_clock inside the kernel's per-CPU loop), and the
// CPUs are walked in ascending order, so that CPU c's new share reads what
// CPUs below c published in the same write.

// checkHierarchy is New's check of a hierarchy given through the runqueue
// options: tg_cpus() must be the machine's CPU count, and runqueue i must
// be CPU i of the hierarchy (a hierarchy already used by other runqueues
// would shift the numbering).
func (s *System) checkHierarchy() error {
	h := s.cpus[0].rq.Hierarchy()
	if h == nil {
		return nil
	}
	if n := h.OnlineCPUs(); n != len(s.cpus) {
		return fmt.Errorf("%w: the hierarchy counts %d online CPUs (eevdf.WithOnlineCPUs), the machine has %d", ErrBadOption, n, len(s.cpus))
	}
	for i := range s.cpus {
		rq := s.cpus[i].rq
		if rq.Hierarchy() != h {
			return fmt.Errorf("%w: CPU %d has another hierarchy", ErrBadOption, i)
		}
		if rq.CPU() != i {
			return fmt.Errorf("%w: runqueue %d is CPU %d of its hierarchy (a hierarchy can serve one System only)", ErrBadOption, i, rq.CPU())
		}
	}
	return nil
}

// Hierarchy returns the System's cgroup tree, nil without groups.
func (s *System) Hierarchy() *eevdf.Hierarchy { return s.cpus[0].rq.Hierarchy() }

// syncAll brings every CPU's runqueue clock to now, in ascending order.
func (s *System) syncAll() {
	for c := range s.cpus {
		s.rq(c)
	}
}

// errNoGroups is the error of a group operation on a System without a
// hierarchy.
func errNoGroups() error {
	return fmt.Errorf("%w: the System has no task groups (WithRunqueueOptions(eevdf.WithHierarchy(h)))", eevdf.ErrForeignGroup)
}

// NewGroup creates a group under parent (nil: the root), as mkdir does:
// on every CPU in ascending order, with its clock at now, the group's
// entity is attached to the parent's queue, which puts that queue (and its
// ancestors) on the CPU's leaf list. Errors are eevdf.Hierarchy.NewGroup's.
func (s *System) NewGroup(name string, parent *eevdf.TaskGroup, opts ...eevdf.GroupOption) (*eevdf.TaskGroup, error) {
	h := s.Hierarchy()
	if h == nil {
		return nil, errNoGroups()
	}
	s.syncAll()
	return h.NewGroup(name, parent, opts...)
}

// SetCPUWeight writes g's cpu.weight (sched_group_set_shares): every CPU
// in ascending order updates g's entity and its ancestors and recomputes
// their shares. No task's effective weight changes until its next refresh
// point on its own CPU.
func (s *System) SetCPUWeight(g *eevdf.TaskGroup, w uint64) error {
	if err := s.ownGroup(g); err != nil {
		return err
	}
	s.syncAll()
	return g.SetCPUWeight(w)
}

// SetCPUWeightNice writes g's cpu.weight.nice, otherwise as SetCPUWeight.
func (s *System) SetCPUWeightNice(g *eevdf.TaskGroup, nice int) error {
	if err := s.ownGroup(g); err != nil {
		return err
	}
	s.syncAll()
	return g.SetCPUWeightNice(nice)
}

// SetGroupIdle writes g's cpu.idle (sched_group_set_idle): every CPU in
// ascending order recounts h_nr_idle, then the shares become 3072 or
// NICE_0_LOAD as SetCPUWeight would write them. A CPU running only tasks
// below idle groups is then sched-idle for placement and balances at idle
// intervals.
func (s *System) SetGroupIdle(g *eevdf.TaskGroup, idle bool) error {
	if err := s.ownGroup(g); err != nil {
		return err
	}
	s.syncAll()
	return g.SetIdle(idle)
}

// MoveToGroup moves t to group g (nil: the root group), as writing its pid
// to cgroup.procs does (sched_move_task): on t's CPU only, with that CPU's
// clock at now; a queued task is dequeued and enqueued again through the
// new group, a running one rescheduled. A sleeping task is attached to the
// new group's queue on its last CPU, and a later wakeup elsewhere removes
// its load from there. Before t is started only the group is recorded.
func (s *System) MoveToGroup(t *Task, g *eevdf.TaskGroup) error {
	switch {
	case t == nil:
		return ErrNilTask
	case t.sys != s:
		return fmt.Errorf("move %s: %w", t, ErrForeignTask)
	case t.state == taskDead:
		return fmt.Errorf("move %s: %w", t, ErrExited)
	}
	if s.Hierarchy() == nil {
		return errNoGroups()
	}
	rq := s.rq(t.cpu)
	if err := rq.MoveToGroup(t.se, g); err != nil {
		return err
	}
	s.markResched(t.cpu)
	return nil
}

// ownGroup checks that g is a group of the System's hierarchy.
func (s *System) ownGroup(g *eevdf.TaskGroup) error {
	h := s.Hierarchy()
	switch {
	case h == nil:
		return errNoGroups()
	case g == nil:
		return fmt.Errorf("%w: nil group", eevdf.ErrBadGroup)
	case g.Hierarchy() != h:
		return fmt.Errorf("%w: %s", eevdf.ErrForeignGroup, g.Path())
	}
	return nil
}

// TaskHLoad returns task_h_load of t as the balancer would read it now:
// t's share of the root load of its CPU through its group's queue there,
// refreshing the h_load caches on the way (once per jiffy per queue). 0
// for nil or a task of another System.
func (s *System) TaskHLoad(t *Task) uint64 {
	if t == nil || t.sys != s {
		return 0
	}
	return s.taskHLoad(t)
}

// checkGroups verifies that every group's totals are the sums of its
// queues' published contributions, over all the CPUs.
func (s *System) checkGroups() error {
	h := s.Hierarchy()
	if h == nil {
		return nil
	}
	for _, g := range h.Groups() {
		var load, runnable int64
		for c := range s.cpus {
			p, err := s.cpus[c].rq.Published(g)
			if err != nil {
				return fmt.Errorf("group %s on CPU %d: %w", g.Path(), c, err)
			}
			load += int64(p.LoadAvg)
			runnable += int64(p.RunnableAvg)
		}
		if load != g.LoadAvg() || runnable != g.RunnableAvg() {
			return fmt.Errorf("group %s: tg load_avg %d, runnable_avg %d; the CPUs published %d, %d",
				g.Path(), g.LoadAvg(), g.RunnableAvg(), load, runnable)
		}
	}
	return nil
}
