package smp

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// What a replay of a multi-CPU scenario (SMP-SCENARIOS) needs beyond a
// simulator's entry points: wakeups and forks whose waker or parent is a
// CPU's idle task, an explicit balance softirq and yield on a CPU, the
// stopper works run with the busiest CPU's reschedule at once, the jiffies
// and base slice of the booted kernel, and read access to the balancing
// state and to a trace of what balancing did.

// WithJiffies0 sets the jiffies at time 0 (default 0): jiffies are
// j0 + ⌊now / TICK_NSEC⌋, and every boot-time jiffy stamp (next_balance,
// each domain's last_balance and last_decay_max_lb_cost) starts at j0.
// All jiffy comparisons are wrap-safe, so a j0 near 2^32 or 2^64 works.
func WithJiffies0(j0 uint64) Option {
	return func(c *config) error {
		c.jiffies0 = j0
		return nil
	}
}

// WithBaseSlice sets the normalized base slice in ns (default
// topology.NormalizedBaseSlice): every runqueue's base slice is it scaled
// as the kernel scales it at boot, by 1 + ⌊log2(min(N, 8))⌋ on N CPUs.
func WithBaseSlice(ns uint64) Option {
	return func(c *config) error {
		if ns == 0 {
			return fmt.Errorf("%w: a base slice of 0", ErrBadOption)
		}
		c.baseSlice = ns
		return nil
	}
}

// WithEvents records a trace of what balancing does (Events). Off by
// default: the trace costs an append per balance call that found work.
func WithEvents(on bool) Option {
	return func(c *config) error {
		c.events = on
		return nil
	}
}

// EventKind says what an Event records.
type EventKind uint8

const (
	// EventBalance: a sched_balance_rq call that found a busiest CPU or
	// moved tasks ended.
	EventBalance EventKind = iota
	// EventNewidleSkip: NI_RANDOM skipped a domain of a newly idle walk.
	EventNewidleSkip
	// EventActiveKick: an active balance was queued for the CPU stopper
	// of the busiest CPU.
	EventActiveKick
	// EventActive: the CPU stopper's active balance ran.
	EventActive
)

var eventNames = [...]string{"lb", "ni_skip", "active_kick", "active"}

// String returns the event's name in the scenario output: lb, ni_skip,
// active_kick, active.
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one record of the balancing trace. Which fields mean something
// depends on Kind:
//
//	EventBalance      CPU, Level, Idle, Busiest, MigrationType, Moved
//	EventNewidleSkip  CPU, Level, Draw
//	EventActiveKick   Busiest, Target (the push CPU)
//	EventActive       Busiest, Target, Task (nil: nothing moved)
type Event struct {
	Kind  EventKind
	CPU   int           // the balancing CPU
	Level topology.Kind // the domain's level
	// Idle is the kernel's cpu_idle_type of the call: 0 a busy CPU's
	// periodic balance, 1 an idle CPU's, 2 a newly idle one.
	Idle int
	// Busiest is the source CPU (of the last attempt that found one).
	Busiest int
	// MigrationType is the environment's migration_type when the call
	// ended: 0 load, 1 util, 2 task, 3 misfit.
	MigrationType int
	Moved         int    // the tasks the call moved
	Draw          uint32 // the sched_rng() mod 1024 that exceeded 1 + newidle_ratio
	Target        int
	Task          *Task
}

// Events returns the trace recorded since the last ClearEvents (empty
// without WithEvents). The slice is reused after ClearEvents.
func (s *System) Events() []Event { return s.events }

// ClearEvents empties the trace.
func (s *System) ClearEvents() { s.events = s.events[:0] }

// event records e when the trace is on.
func (s *System) event(e Event) {
	if s.traceEvents {
		s.events = append(s.events, e)
	}
}

// lbEvent records the end of a sched_balance_rq call on env that found a
// busiest CPU or moved tasks.
func (s *System) lbEvent(this int, env *lbEnv, busiest, moved int) {
	if !s.traceEvents || (busiest < 0 && moved == 0) {
		return
	}
	s.event(Event{Kind: EventBalance, CPU: this, Level: env.sd.Kind(), Idle: int(env.idle),
		Busiest: busiest, MigrationType: int(env.mtype), Moved: moved})
}

// DomainInfo is the balancing state one CPU keeps for one of its domains.
type DomainInfo struct {
	BalanceInterval  uint64 // balance_interval, ms
	NrBalanceFailed  uint64 // nr_balance_failed
	LastBalance      uint64 // last_balance, jiffies
	MaxNewidleLBCost uint64 // max_newidle_lb_cost, ns of the newly idle cost model
	NewidleCall      uint64 // newidle_call
	NewidleSuccess   uint64 // newidle_success
	NewidleRatio     uint64 // newidle_ratio, out of 1024
}

// Domain returns the balancing state of domain d, one of
// Topology().Domains(cpu) (the zero DomainInfo for nil).
func (s *System) Domain(d *topology.Domain) DomainInfo {
	if d == nil || d.ID() < 0 || d.ID() >= len(s.doms) {
		return DomainInfo{}
	}
	x := &s.doms[d.ID()]
	return DomainInfo{
		BalanceInterval:  x.balanceInterval,
		NrBalanceFailed:  x.nrBalanceFailed,
		LastBalance:      x.lastBalance,
		MaxNewidleLBCost: x.maxNewidleLBCost,
		NewidleCall:      x.newidleCall,
		NewidleSuccess:   x.newidleSuccess,
		NewidleRatio:     x.newidleRatio,
	}
}

// NextBalance returns rq->next_balance of cpu in jiffies (0 for a bad id).
func (s *System) NextBalance(cpu int) uint64 {
	if uint(cpu) >= uint(len(s.cpus)) {
		return 0
	}
	return s.cpus[cpu].nextBalance
}

// Fork makes se a task forked on cpu by what runs there (NewTask with
// WithCPU(cpu) and opts): the parent is cpu's running task or, when cpu
// is idle, its idle task, and the child starts with a copy of the
// parent's waker statistics (last_wakee, wakee_flips and their decay
// stamp), as fork's copy of the task structure leaves them; the parent's
// own do not change. The affinity is opts' (default all CPUs), not the
// parent's. WakeUpNew then places and enqueues the child.
func (s *System) Fork(se *eevdf.SchedEntity, cpu int, opts ...TaskOption) (*Task, error) {
	if uint(cpu) >= uint(len(s.cpus)) {
		return nil, fmt.Errorf("%w: %d", ErrBadCPU, cpu)
	}
	t, err := s.NewTask(se, append(opts[:len(opts):len(opts)], WithCPU(cpu))...)
	if err != nil {
		return nil, err
	}
	t.wakee = *s.wakeeOf(s.current(cpu))
	return t, nil
}

// TryToWakeUpFrom is try_to_wake_up of a sleeping task t run on CPU cpu:
// the waker is what runs there — a task, or cpu's idle task, whose waker
// statistics record_wakee then updates — and smp_processor_id() is cpu,
// so wake_affine weighs cpu against t's previous CPU. wf may carry
// eevdf.WFSync (refused while cpu is idle: the idle task does not wake
// synchronously) and eevdf.WFCurrentCPU. Otherwise it is TryToWakeUp:
// a delayed task is requeued in place without placement. It returns the
// task's CPU.
func (s *System) TryToWakeUpFrom(t *Task, cpu int, wf eevdf.WakeFlags) (int, error) {
	if err := s.own(t); err != nil {
		return -1, err
	}
	if uint(cpu) >= uint(len(s.cpus)) {
		return -1, fmt.Errorf("%w: %d", ErrBadCPU, cpu)
	}
	switch t.state {
	case taskNew, taskDead, taskRunnable:
		return -1, fmt.Errorf("%w: wakeup of %s, which is %v", ErrTaskState, t, t.state)
	}
	w := s.current(cpu)
	if wf&eevdf.WFSync != 0 && w.curr == nil {
		return -1, fmt.Errorf("%w: a sync wakeup from CPU %d", ErrIdle, cpu)
	}
	return s.wakeSleeping(t, w, wf), nil
}

// Balance runs the balance softirq on cpu as if raised now, without a tick
// and without the trigger's test of next_balance: rq->idle_balance is set
// from idle_cpu, the blocked loads are updated and the domains walked, each
// balanced only when its own interval has elapsed. Active balances it
// queues wait for RunStoppers (or RunPending).
func (s *System) Balance(cpu int) error {
	if uint(cpu) >= uint(len(s.cpus)) {
		return fmt.Errorf("%w: %d", ErrBadCPU, cpu)
	}
	c := &s.cpus[cpu]
	s.rq(cpu)
	c.idleBalance = s.idleCPU(cpu)
	if s.top.Base(cpu) == nil {
		return nil
	}
	s.balanceSoftirq(cpu)
	return nil
}

// Yield is sched_yield on cpu: yield_task_fair of the running task, then
// __schedule on cpu as Schedule (with a newly idle balance if nothing is
// left to run). It returns the task that runs now (nil: idle) and fails on
// an idle CPU.
func (s *System) Yield(cpu int) (*Task, error) {
	if _, err := s.running(cpu); err != nil {
		return nil, err
	}
	s.rq(cpu).Yield()
	return s.schedule(cpu, false), nil
}

// RunStoppers runs the CPU stopper works queued by active balancing, in
// queue order, each followed at once by __schedule on its busiest CPU (the
// stop task blocks and the CPU picks again, possibly a newly idle balance
// that queues another work, run after it): KERNEL-SPEC-SMP §5.14 with the
// stopper acting at once. Idle-load-balancer kicks queued meanwhile run
// first, as RunPending runs them.
func (s *System) RunStoppers() {
	for len(s.deferred.kicks) > 0 || len(s.deferred.stoppers) > 0 {
		for len(s.deferred.kicks) > 0 {
			ilb := s.deferred.kicks[0]
			s.deferred.kicks = s.deferred.kicks[1:]
			s.nohzCSD(ilb)
		}
		if len(s.deferred.stoppers) > 0 {
			b := s.deferred.stoppers[0]
			s.deferred.stoppers = s.deferred.stoppers[1:]
			s.activeLoadBalanceCPUStop(b)
			s.Schedule(b)
		}
	}
	s.deferred.kicks = s.deferred.kicks[:0]
	s.deferred.stoppers = s.deferred.stoppers[:0]
}
