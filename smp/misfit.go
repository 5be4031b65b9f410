package smp

import (
	"fmt"

	"github.com/schedmodel/fairclass/topology"
)

// Misfit tasks (KERNEL-SPEC-ASYM §5, §7): a CPU running a task too big for
// it records the task's load in rq->misfit_task_load, which the balancer
// of a bigger CPU reads to pull the task, by active balance if it is the
// only one there.

// updateMisfitStatus is update_misfit_status(p, rq) for cpu (§5.1): with
// the asym key on, the load of p when p is a misfit there — it may run
// elsewhere, a bigger CPU is allowed to it, and it does not fit cpu —
// else 0. p nil clears it. Called when a pick switches to a fair task, at
// every tick of a fair task, and first thing in a newly idle balance.
// Callers on the paths of every pick and tick test s.asym themselves
// first, which spares finding p on a symmetric machine.
func (s *System) updateMisfitStatus(p *Task, cpu int) {
	if !s.asym {
		return
	}
	c := &s.cpus[cpu]
	if p == nil || p.nrAllowed == 1 || s.capacityOf(cpu) == p.maxAllowedCap || s.taskFitsCPU(p, cpu) {
		c.misfitTaskLoad = 0
		return
	}
	c.misfitTaskLoad = max(s.taskHLoad(p), 1)
}

// MisfitTaskLoad returns rq->misfit_task_load of cpu: the load of the
// misfit task it runs, 0 when it has none (always on a symmetric machine,
// and for a bad id).
func (s *System) MisfitTaskLoad(cpu int) uint64 {
	if uint(cpu) >= uint(len(s.cpus)) {
		return 0
	}
	return s.cpus[cpu].misfitTaskLoad
}

// asymMisfitStats is update_sg_lb_stats's misfit accounting for a busy CPU
// i of a non-local group of an SD_ASYM_CPUCAPACITY domain (§7.1): a misfit
// there makes the root overloaded when balancing at the top domain, and
// its load is the group's if the balancing CPU is noticeably bigger than
// every CPU of the group and the load is the group's largest so far.
func (s *System) asymMisfitStats(env *lbEnv, sg *topology.Group, i int, top bool, st *sgStats, overloaded *bool) {
	mis := s.cpus[i].misfitTaskLoad
	if mis == 0 {
		return
	}
	if top {
		*overloaded = true
	}
	if capacityGreater(s.capacityOf(env.dstCPU), sg.MaxCapacity()) && mis > st.groupMisfitTaskLoad {
		st.groupMisfitTaskLoad = mis
	}
}

// asymPickVeto is update_sd_pick_busiest's two asymmetric filters (§7.3),
// on an SD_ASYM_CPUCAPACITY domain: a misfit group this CPU cannot relieve
// (it is not noticeably bigger than the group's biggest CPU, or its own
// group has no spare capacity), and a group no busier than fully busy
// whose smallest CPU is noticeably bigger than this one, are never the
// busiest.
func (s *System) asymPickVeto(env *lbEnv, sds *sdStats, sg *topology.Group, st *sgStats) bool {
	if !env.sd.Has(topology.SDAsymCPUCapacity) || st.sumHNrRunning == 0 {
		return false
	}
	dst := s.capacityOf(env.dstCPU)
	if st.groupType == groupMisfitTask && (!capacityGreater(dst, sg.MaxCapacity()) || sds.localSt.groupType != groupHasSpare) {
		return true
	}
	return st.groupType <= groupFullyBusy && capacityGreater(sg.MinCapacity(), dst)
}

// asymSkipSrcRq is sched_balance_find_src_rq's asymmetric skip (§7.6, T =
// 1): on an SD_ASYM_CPUCAPACITY domain the only runnable task of a CPU
// that is not noticeably smaller than the destination stays.
func (s *System) asymSkipSrcRq(env *lbEnv, i, nr int) bool {
	return nr == 1 && env.sd.Has(topology.SDAsymCPUCapacity) && !capacityGreater(s.capacityOf(env.dstCPU), s.capacityOf(i))
}

// wakeupMisfitLoad is update_sg_wakeup_stats's misfit typing on an
// SD_ASYM_CPUCAPACITY domain (§4.5 rule 1): 1 when p fits none of the
// group's CPUs it may use, else 0.
func (s *System) wakeupMisfitLoad(g *topology.Group, p *Task) uint64 {
	span := g.Span()
	for i := span.FirstAnd(p.allowed); i >= 0; i = span.NextAnd(i, p.allowed) {
		if s.taskFitsCPU(p, i) {
			return 0
		}
	}
	return 1
}

// checkCapacities is System.Check's part for capacities and misfits: every
// runqueue has its CPU's capacity (and 1024 on a symmetric machine); every
// task's max_allowed_capacity is that of its allowed CPUs; no CPU has a
// misfit on a symmetric machine, and on an asymmetric one only a CPU below
// the largest capacity can (a task on the largest CPU it may use is never
// a misfit).
func (s *System) checkCapacities() error {
	for i := range s.cpus {
		c := s.capacityOf(i)
		if got := s.cpus[i].rq.Capacity(); got != c || c != s.top.CPUCapacity(i) {
			return fmt.Errorf("CPU %d: runqueue capacity %d, capacity_of %d, topology %d", i, got, c, s.top.CPUCapacity(i))
		}
		if m := s.cpus[i].misfitTaskLoad; m != 0 && (!s.asym || c >= topology.CapacityScale) {
			return fmt.Errorf("CPU %d of capacity %d has misfit_task_load %d (asymmetric %v)", i, c, m, s.asym)
		}
	}
	for _, t := range s.tasks {
		want := uint64(topology.CapacityScale)
		if s.asym {
			want = s.top.MaxAllowedCapacity(t.allowed)
		}
		if t.maxAllowedCap != want {
			return fmt.Errorf("task %s: max_allowed_capacity %d, want %d", t, t.maxAllowedCap, want)
		}
	}
	return nil
}
