package smp

import (
	"github.com/schedmodel/fairclass/topology"
)

// Active balancing (KERNEL-SPEC-SMP §5.14): when the tasks to move all run
// (one per CPU, nothing queued to detach) and the domain keeps failing, the
// balancer asks the CPU stopper of the busiest CPU to push its running task
// to the balancing CPU. The stopper work runs after the ticks of the
// instant (§7.3 step 4), as an immediate preemption, detach and attach.

// deferredWork is what the ticks of an instant queued for other CPUs:
// idle-load-balancer kicks (their IPIs) and stopper works, each in order.
type deferredWork struct {
	kicks    []int // ILB CPUs, in send order
	stoppers []int // busiest CPUs whose active balance is queued
}

// RunPending runs the work the ticks of the current instant queued for
// other CPUs, as the kernel's IPIs and stopper threads would run it right
// after: the kicks of the idle load balancer, in the order they were sent,
// then the CPU stopper works of active balancing, in the order queued
// (KERNEL-SPEC-SMP §7.3 step 4). A simulator calls it once all CPUs have
// ticked, then runs Schedule on the CPUs Resched returns. SetClock runs
// what is left when time moves on.
func (s *System) RunPending() {
	if s.deferred.pending() {
		s.runPending()
	}
}

// deferKick queues the kick of the idle load balancer ilb, and
// deferStopper the stopper work of active balancing on busiest. Both
// clear SetClock's one-CPU pointer (clock1), so that while work is
// queued the time moves on through SetClock's general path, which runs
// that work first.
func (s *System) deferKick(ilb int) {
	s.deferred.kicks = append(s.deferred.kicks, ilb)
	s.clock1 = nil
}

func (s *System) deferStopper(busiest int) {
	s.deferred.stoppers = append(s.deferred.stoppers, busiest)
	s.clock1 = nil
}

// pending reports whether work is queued.
func (d *deferredWork) pending() bool { return len(d.kicks) > 0 || len(d.stoppers) > 0 }

// runPending is RunPending when work is queued, kept out of line: most
// instants queue none, and the test inlines into SetClock and the caller.
func (s *System) runPending() {
	for len(s.deferred.kicks) > 0 || len(s.deferred.stoppers) > 0 {
		for len(s.deferred.kicks) > 0 {
			ilb := s.deferred.kicks[0]
			s.deferred.kicks = s.deferred.kicks[1:]
			s.nohzCSD(ilb)
		}
		for len(s.deferred.stoppers) > 0 {
			b := s.deferred.stoppers[0]
			s.deferred.stoppers = s.deferred.stoppers[1:]
			s.activeLoadBalanceCPUStop(b)
		}
	}
	s.deferred.kicks = s.deferred.kicks[:0]
	s.deferred.stoppers = s.deferred.stoppers[:0]
}

// activeLoadBalanceCPUStop is active_load_balance_cpu_stop on busiest: the
// stopper preempts the running task (it is queued again, not running);
// then, unless the request was withdrawn or no fair task is left, the first
// task from the tail of cfs_tasks that may move (cache heat and the
// delayed state do not matter: LBF_ACTIVE_LB, migrate_load) goes to the
// push CPU through the lowest domain of that CPU spanning busiest, whose
// failure count then restarts. Busiest reschedules afterwards.
func (s *System) activeLoadBalanceCPUStop(busiest int) {
	b := &s.cpus[busiest]
	rq := s.rq(busiest)
	// The stop task is enqueued on busiest first (add_nr_running): a CPU
	// with one task reaches two runnable tasks, which marks the root
	// domain overloaded like any other rise to two.
	if rq.NrRunning() == 1 {
		s.overloaded = true
	}
	if rq.Curr() != nil {
		rq.PutPrev() // the stopper runs: the task it preempts is queued again
	} else {
		s.updateRqAvgIdle(busiest) // the stopper switches the idle task out
	}
	b.stopped = true
	s.addResched(busiest)
	target := b.pushCPU
	var p *Task
	if b.activeBalance && target >= 0 && rq.NrRunning() > 0 {
		var sd *topology.Domain
		for _, d := range s.top.Domains(target) {
			if d.Span().Test(busiest) {
				sd = d
				break
			}
		}
		if sd != nil {
			env := lbEnv{
				sd:         sd,
				d:          s.dom(sd),
				dstCPU:     target,
				srcCPU:     busiest,
				dstGrpmask: sd.LocalGroup().BalanceMask(),
				idle:       cpuIdle,
				flags:      lbfActiveLB,
				mtype:      migrateLoad,
				cpus:       s.lbCpus,
				newDstCPU:  -1,
			}
			env.cpus.Copy(sd.Span())
			p = s.detachOneTask(&env)
			if p != nil {
				env.d.nrBalanceFailed = 0
			}
		}
	}
	b.activeBalance = false
	s.event(Event{Kind: EventActive, CPU: busiest, Busiest: busiest, Target: target, Task: p})
	if p != nil {
		s.rq(target)
		s.attachTask(p)
		s.stats.ActiveMoves++
	}
}

// detachOneTask is detach_one_task: the first task from the tail of the
// source's cfs_tasks that may move, without rotating the list.
func (s *System) detachOneTask(env *lbEnv) *Task {
	for se := range s.cpus[env.srcCPU].rq.TasksFromTail() {
		p := s.ownTask(se)
		if p == nil || !s.canMigrateTask(p, env) { // no task of the System: never moved
			continue
		}
		s.detachTask(p, env.dstCPU)
		return p
	}
	return nil
}
