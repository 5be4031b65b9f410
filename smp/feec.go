package smp

import (
	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// find_energy_efficient_cpu and the energy estimate it compares
// (KERNEL-SPEC-ASYM §8.3–§8.5), with uclamp off, no IRQ, RT or DL time and
// no capacity pressure: every CPU's actual capacity is its original one.
//
// For each perf domain, the candidate is the CPU p fits with the most spare
// capacity once p is on it (prev competes on its own). The energy of the
// domain with p on a candidate, less the energy without p, is the
// candidate's cost:
//
//	E(pd, dst) = cost_i · busy,  busy = Σ util of pd's CPUs (+ p's util if dst ≥ 0),
//	                             i = the lowest state with performance ≥ max over pd of
//	                                 min(u + u/4, cap)  (schedutil's headroom, map_util_perf)
//
// Prev keeps p unless another CPU fits and its delta is strictly smaller
// (no 6 % margin: the kernel dropped it, §8.6).

// easWakeup is select_task_rq_fair's EAS step (§4.1): for a wakeup when
// the root domain is not overutilized, find_energy_efficient_cpu's answer
// is taken at once when it is a CPU; ok is false when EAS does not decide
// (off, overutilized, or no answer), and the wakeup goes on as without EAS.
func (s *System) easWakeup(p *Task, prev, this int) (cpu int, ok bool) {
	if s.isRdOverutilized() {
		if s.easOn {
			s.eas.stats.Skipped++
		}
		return -1, false
	}
	cpu = s.findEnergyEfficientCPU(p, prev, this)
	if cpu < 0 {
		return -1, false
	}
	s.eas.stats.Placements++
	if cpu != prev {
		s.eas.stats.Moved++
	}
	return cpu, true
}

// energyEnv is struct energy_env: the task's busy time and the current
// domain's busy time and capacities.
type energyEnv struct {
	taskBusyTime uint64
	pdBusyTime   uint64
	cpuCap       uint64 // the actual capacity of the domain's first CPU
	pdCap        uint64 // cpuCap · the domain's CPUs
}

// findEnergyEfficientCPU is find_energy_efficient_cpu(p, prev) run on CPU
// this (§8.5): −1 without perf domains or without an asymmetric domain of
// this that spans prev; prev when p has no utilisation; else the CPU whose
// placement costs the least energy, prev on ties.
func (s *System) findEnergyEfficientCPU(p *Task, prev, this int) int {
	if !s.easOn {
		return -1
	}
	sd := s.easDomain(this, prev)
	if sd == nil {
		return -1
	}
	target := prev
	_ = s.cpus[p.cpu].rq.SyncLoadAvg(p.se) // sync_entity_load_avg
	if taskUtilEst(p) == 0 {
		return target
	}
	var env energyEnv
	s.eenvTaskBusyTime(&env, p)
	const inf = ^uint64(0)
	prevDelta, bestDelta := inf, inf
	prevFits, bestFits := -1, -1
	var bestActualCap, prevActualCap uint64
	bestEnergyCPU := prev
	for _, pd := range s.eas.pds {
		cpus := pd.CPUs() // every CPU is online
		actualCap := s.capacityOf(cpus[0])
		env.cpuCap, env.pdCap = actualCap, 0
		prevSpare, maxSpare := int64(-1), int64(-1)
		maxCPU, maxFits := -1, -1
		for _, c := range cpus {
			env.pdCap += actualCap
			if !sd.Span().Test(c) || !p.allowedOn(c) {
				continue
			}
			u := s.cpuUtilFor(c, p, c, false)
			fits := 0
			if s.utilFitsCPU(u, c) {
				fits = 1
			}
			if fits == 0 {
				continue
			}
			spare := int64(lsub(s.capacityOf(c), u))
			if c == prev {
				prevSpare, prevFits = spare, fits
			} else if fits > maxFits || (fits == maxFits && spare > maxSpare) {
				maxSpare, maxCPU, maxFits = spare, c, fits
			}
		}
		if maxCPU < 0 && prevSpare < 0 {
			continue
		}
		s.eenvPdBusyTime(&env, cpus, p)
		base := s.computeEnergy(&env, pd, p, -1)
		if prevSpare > -1 {
			e := s.computeEnergy(&env, pd, p, prev)
			if e < base {
				return target // estimates out of step: keep prev
			}
			prevDelta = e - base
			prevActualCap = actualCap
			bestDelta = min(bestDelta, prevDelta)
		}
		if maxCPU >= 0 && maxSpare > prevSpare {
			if maxFits < bestFits || (maxFits < 0 && actualCap <= bestActualCap) {
				continue
			}
			e := s.computeEnergy(&env, pd, p, maxCPU)
			if e < base {
				return target
			}
			cur := e - base
			if maxFits > 0 && bestFits > 0 && cur >= bestDelta {
				continue
			}
			bestDelta, bestEnergyCPU, bestFits, bestActualCap = cur, maxCPU, maxFits, actualCap
		}
	}
	if bestFits > prevFits || (bestFits > 0 && bestDelta < prevDelta) || (bestFits < 0 && bestActualCap > prevActualCap) {
		target = bestEnergyCPU
	}
	return target
}

// eenvTaskBusyTime is eenv_task_busy_time: p's task_util_est (scaling by
// IRQ time is the identity without IRQ time).
func (s *System) eenvTaskBusyTime(env *energyEnv, p *Task) {
	env.taskBusyTime = taskUtilEst(p)
}

// eenvPdBusyTime is eenv_pd_busy_time: the domain's summed utilisation
// with p taken off its own CPU, each CPU's through effective_cpu_util, at
// most the domain's capacity.
func (s *System) eenvPdBusyTime(env *energyEnv, cpus []int, p *Task) {
	var busy uint64
	for _, c := range cpus {
		busy += s.effectiveCPUUtil(c, s.cpuUtilFor(c, p, -1, false))
	}
	env.pdBusyTime = min(env.pdCap, busy)
}

// eenvPdMaxUtil is eenv_pd_max_util(dst): the utilisation schedutil would
// serve on the domain's busiest CPU with p on dst (−1: nowhere), runnable
// time counting (boost): max over the CPUs of sugov_effective_cpu_perf,
// at most the domain's CPU capacity.
func (s *System) eenvPdMaxUtil(env *energyEnv, cpus []int, p *Task, dst int) uint64 {
	var mx uint64
	for _, c := range cpus {
		eff := s.effectiveCPUUtil(c, s.cpuUtilFor(c, p, dst, true))
		mx = max(mx, s.sugovEffectiveCPUPerf(c, eff))
	}
	return min(mx, env.cpuCap)
}

// computeEnergy is compute_energy(pd, dst): em_cpu_energy of the domain
// with p on dst (its busy time added, at most the domain's capacity) or,
// for dst = −1, without p.
func (s *System) computeEnergy(env *energyEnv, pd *energy.Domain, p *Task, dst int) uint64 {
	maxUtil := s.eenvPdMaxUtil(env, pd.CPUs(), p, dst)
	busy := env.pdBusyTime
	if dst >= 0 {
		busy = min(env.pdCap, busy+env.taskBusyTime)
	}
	return pd.CPUEnergy(maxUtil, busy, env.cpuCap)
}

// effectiveCPUUtil is effective_cpu_util(cpu, util) with no IRQ, RT or DL
// utilisation: util, at most the CPU's capacity. Its minimum (the
// deadline bandwidth, which would include the fair server's while it
// contends) is taken as 0: KERNEL-SPEC-ASYM §12 item 4 leaves it open, and
// it changes only near-ties of the estimate.
func (s *System) effectiveCPUUtil(cpu int, util uint64) uint64 {
	return min(util, s.capacityOf(cpu))
}

// sugovEffectiveCPUPerf is sugov_effective_cpu_perf(cpu, actual, min = 0,
// max = capacity): the performance schedutil asks for, map_util_perf's
// 25 % headroom (u + u/4), at most the capacity.
func (s *System) sugovEffectiveCPUPerf(cpu int, actual uint64) uint64 {
	return min(mapUtilPerf(actual), s.capacityOf(cpu))
}

// mapUtilPerf is map_util_perf: util with schedutil's 1.25 headroom.
func mapUtilPerf(u uint64) uint64 { return u + u>>2 }

// cpuUtilFor is cpu_util(cpu, p, dst, boost) in full (§1.5): cpu's
// utilisation as it would be with p on dst — p's util_avg (and runnable
// with boost) added when dst is cpu and p is elsewhere, taken off when p
// is here and dst is not; util_est gaining p's estimate when dst is cpu
// and, when dst is not cpu, losing it if p is queued or running (as the
// kernel's, this test does not ask where: a waking p is neither); the
// larger of the two, at most cpu's capacity.
func (s *System) cpuUtilFor(cpu int, p *Task, dst int, boost bool) uint64 {
	a := s.cpus[cpu].rq.Avg()
	pa := p.se.Avg()
	add := p.cpu != cpu && dst == cpu
	sub := p.cpu == cpu && dst != cpu
	util := a.UtilAvg
	switch {
	case sub:
		util = lsub(util, pa.UtilAvg)
	case add:
		util += pa.UtilAvg
	}
	if boost {
		r := a.RunnableAvg
		switch {
		case sub:
			r = lsub(r, pa.RunnableAvg)
		case add:
			r += pa.RunnableAvg
		}
		util = max(util, r)
	}
	if s.feat.Has(features.UtilEst) {
		est := uint64(a.UtilEst)
		if dst == cpu {
			est += pa.UtilEstValue()
		} else if p.se.OnRq() || s.cpus[p.cpu].rq.Curr() == p.se {
			est = lsub(est, pa.UtilEstValue())
		}
		util = max(util, est)
	}
	return min(util, s.capacityOf(cpu))
}

// easDomain is find_energy_efficient_cpu's domain: the waking CPU's
// sd_asym_cpucapacity, climbing until it spans prev (nil if none does).
func (s *System) easDomain(this, prev int) *topology.Domain {
	sd := s.top.SDAsymCPUCapacity(this)
	for sd != nil && !sd.Span().Test(prev) {
		sd = sd.Parent()
	}
	return sd
}
