package smp

import (
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/pelt"
)

// The PELT-derived quantities placement and balancing read
// (KERNEL-SPEC-SMP §2.8), from the root queues' and the tasks' signals as
// eevdf keeps them. capacity is SCHED_CAPACITY_SCALE, the scale of loads
// per capacity; a CPU's own capacity is capacityOf (fits.go), 1024
// everywhere on a symmetric machine (§1.10).

const capacity = pelt.CapacityScale

// cpuLoad is cpu_load: the root queue's load_avg.
func (s *System) cpuLoad(cpu int) uint64 { return s.cpus[cpu].rq.Avg().LoadAvg }

// cpuRunnable is cpu_runnable: the root queue's runnable_avg.
func (s *System) cpuRunnable(cpu int) uint64 { return s.cpus[cpu].rq.Avg().RunnableAvg }

// cpuUtil is cpu_util(cpu, p, dst, boost) for dst = −1: the root queue's
// util_avg (or its runnable_avg if larger, with boost), less p's util_avg
// when p is given (it is accounted here and about to leave), then the
// larger of that and the queue's util_est (less p's estimate when p is
// queued here), at most the CPU's own capacity.
func (s *System) cpuUtil(cpu int, p *Task, boost bool) uint64 {
	a := s.cpus[cpu].rq.Avg()
	util := a.UtilAvg
	if boost {
		util = max(util, a.RunnableAvg)
	}
	if p != nil {
		util = lsub(util, p.se.Avg().UtilAvg)
	}
	if s.feat.Has(features.UtilEst) {
		est := uint64(a.UtilEst)
		if p != nil && p.se.OnRq() {
			pa := p.se.Avg()
			est = lsub(est, pa.UtilEstValue())
		}
		util = max(util, est)
	}
	return min(util, s.capacityOf(cpu)) // KERNEL-SPEC-ASYM §1.5
}

// cpuUtilCfs is cpu_util_cfs.
func (s *System) cpuUtilCfs(cpu int) uint64 { return s.cpuUtil(cpu, nil, false) }

// cpuUtilCfsBoost is cpu_util_cfs_boost: runnable_avg counts as
// utilization too.
func (s *System) cpuUtilCfsBoost(cpu int) uint64 { return s.cpuUtil(cpu, nil, true) }

// accountedOn reports whether p's signals are part of cpu's: p's CPU, and
// attached (last_update_time ≠ 0) — the test of the "without p" variants.
func accountedOn(p *Task, cpu int) bool {
	return p.cpu == cpu && p.se.Avg().LastUpdateTime != 0
}

// cpuLoadWithout is cpu_load_without: cpu's load as if p were not on it.
func (s *System) cpuLoadWithout(cpu int, p *Task) uint64 {
	if !accountedOn(p, cpu) {
		return s.cpuLoad(cpu)
	}
	return lsub(s.cpuLoad(cpu), s.taskHLoad(p))
}

// cpuRunnableWithout is cpu_runnable_without.
func (s *System) cpuRunnableWithout(cpu int, p *Task) uint64 {
	if !accountedOn(p, cpu) {
		return s.cpuRunnable(cpu)
	}
	return lsub(s.cpuRunnable(cpu), p.se.Avg().RunnableAvg)
}

// cpuUtilWithout is cpu_util_without.
func (s *System) cpuUtilWithout(cpu int, p *Task) uint64 {
	if !accountedOn(p, cpu) {
		p = nil
	}
	return s.cpuUtil(cpu, p, false)
}

// taskHLoad is task_h_load (KERNEL-SPEC-GROUPS-SMP §7): p's share of the
// root load of its CPU, through its group's queue there. Each queue's
// h_load is refreshed at most once per jiffy (update_cfs_rq_h_load), so
// within a jiffy it is stale while the denominators are current, as in
// the kernel. For a task of the root group it is load_avg · the root's
// h_load / (the root's load_avg + 1).
func (s *System) taskHLoad(p *Task) uint64 {
	return s.cpus[p.cpu].rq.TaskHLoad(p.se, s.jiffies)
}

// taskUtilEst is task_util_est: max(util_avg, util_est without its flag).
func taskUtilEst(p *Task) uint64 {
	a := p.se.Avg()
	return pelt.TaskUtilEst(&a)
}

// lsub is lsub_positive's value: a − b, or 0 if b > a.
func lsub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}
