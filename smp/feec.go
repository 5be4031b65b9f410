package smp

import (
	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/pelt"
	"github.com/schedmodel/fairclass/topology"
)

// find_energy_efficient_cpu and the energy estimate it compares
// (KERNEL-SPEC-ASYM §8.3–§8.5), with uclamp off, no IRQ, RT or DL time and
// no capacity pressure: every CPU's actual capacity is its original one.
//
// For each perf domain, the candidate is the CPU p fits with the most spare
// capacity once p is on it (prev competes on its own). The energy of the
// domain with p on a candidate, less its energy without p, is the
// candidate's cost:
//
//	E(pd, dst) = cost_i · busy,  busy = Σ util of pd's CPUs (+ p's util_est if dst ≥ 0),
//	                             i = the lowest state with performance ≥ max over pd of
//	                                 min(u + ⌊u/4⌋, cap)  (schedutil's headroom, map_util_perf)
//
// where each CPU's u counts p only if p is on dst = that CPU, and runnable
// time as utilisation. Prev keeps p unless another CPU fits and its delta
// is strictly smaller (no 6 % margin: the kernel dropped it, §8.6).
//
// The search reads a snapshot of the signals (easView), filled from the
// runqueues at the wakeup, so that it is a pure function of the numbers
// the spec's worked examples give.

// easWakeup is select_task_rq_fair's EAS step (§4.1): for a wakeup when
// the root domain is not overutilized, find_energy_efficient_cpu's answer
// is taken at once when it is a CPU; ok is false when EAS does not decide
// (off, overutilized, or no answer), and the wakeup goes on as without EAS.
func (s *System) easWakeup(p *Task, prev, this int) (cpu int, ok bool) {
	if !s.easOn { // small enough to inline: no cost without EAS
		return -1, false
	}
	return s.easWakeupOn(p, prev, this)
}

// easWakeupOn is easWakeup with EAS on.
func (s *System) easWakeupOn(p *Task, prev, this int) (cpu int, ok bool) {
	if s.eas.overutil {
		s.eas.stats.Skipped++
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

// cpuSignals are the PELT signals of a CPU's root cfs_rq that the energy
// estimate reads.
type cpuSignals struct{ util, runnable, utilEst uint64 }

// taskSignals are the waking task's: task_cpu, util_avg, runnable_avg,
// _task_util_est (the estimate without its flag bit), task_util_est, and
// whether it is queued or running (never, for a wakeup).
type taskSignals struct {
	cpu                     int
	util, runnable, utilEst uint64
	utilEstMax              uint64 // task_util_est: max(util_avg, _task_util_est)
	queuedOrCurr            bool
}

// easView is the snapshot find_energy_efficient_cpu decides on.
type easView struct {
	caps    []uint64     // capacity_of, per CPU
	sig     []cpuSignals // per CPU
	utilEst bool         // sched_feat(UTIL_EST)
	p       taskSignals
	allowed *topology.Mask   // p's CPUs
	span    *topology.Mask   // the asymmetric domain's span
	pds     []*energy.Domain // rd->pd
}

// findEnergyEfficientCPU is find_energy_efficient_cpu(p, prev) run on CPU
// this (§8.5, steps 1–2 here, the search in feecSearch): −1 without perf
// domains or without an asymmetric domain of this that spans prev; prev
// when p has no utilisation after its sync; else feecSearch's answer.
func (s *System) findEnergyEfficientCPU(p *Task, prev, this int) int {
	if !s.easOn {
		return -1
	}
	sd := s.easDomain(this, prev)
	if sd == nil {
		return -1
	}
	_ = s.cpus[p.cpu].rq.SyncLoadAvg(p.se) // sync_entity_load_avg
	if taskUtilEst(p) == 0 {
		return prev
	}
	v := &s.eas.view
	v.caps, v.utilEst, v.allowed, v.span, v.pds = s.caps, s.feat.Has(features.UtilEst), p.allowed, sd.Span(), s.eas.pds
	if v.sig == nil {
		v.sig = make([]cpuSignals, len(s.cpus))
	}
	for i := range s.cpus {
		a := s.cpus[i].rq.Avg()
		v.sig[i] = cpuSignals{util: a.UtilAvg, runnable: a.RunnableAvg, utilEst: uint64(a.UtilEst)}
	}
	pa := p.se.Avg()
	v.p = taskSignals{cpu: p.cpu, util: pa.UtilAvg, runnable: pa.RunnableAvg, utilEst: pa.UtilEstValue(),
		utilEstMax: pelt.TaskUtilEst(&pa), queuedOrCurr: p.se.OnRq() || s.cpus[p.cpu].rq.Curr() == p.se}
	return v.feecSearch(prev)
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

// energyEnv is struct energy_env: the task's busy time and the current
// domain's busy time and capacities.
type energyEnv struct {
	taskBusyTime uint64
	pdBusyTime   uint64
	cpuCap       uint64 // the actual capacity of the domain's first CPU
	pdCap        uint64 // cpuCap · the domain's CPUs
}

// feecSearch is find_energy_efficient_cpu's search (§8.5 steps 3–8): in
// rd->pd order, each domain's fitting CPU of most spare capacity (the
// first on ties) and prev compete by the energy their placement adds;
// the best candidate replaces prev only if it fits better, or fits and
// adds strictly less energy. An estimate below the domain's base means
// the signals moved under the search: prev is kept at once.
func (v *easView) feecSearch(prev int) int {
	target := prev
	var env energyEnv
	v.eenvTaskBusyTime(&env)
	const inf = ^uint64(0)
	prevDelta, bestDelta := inf, inf
	prevFits, bestFits := -1, -1
	var bestActualCap, prevActualCap uint64
	bestEnergyCPU := prev
	for _, pd := range v.pds {
		cpus := pd.CPUs() // every CPU is online
		actualCap := v.caps[cpus[0]]
		env.cpuCap, env.pdCap = actualCap, 0
		prevSpare, maxSpare := int64(-1), int64(-1)
		maxCPU, maxFits := -1, -1
		for _, c := range cpus {
			env.pdCap += actualCap
			if !v.span.Test(c) || !v.allowed.Test(c) {
				continue
			}
			u := v.cpuUtil(c, c, false)
			fits := 0 // util_fits_cpu with uclamp off: 1 or 0
			if fitsCapacity(u, v.caps[c]) {
				fits = 1
			}
			if fits == 0 {
				continue
			}
			spare := int64(lsub(v.caps[c], u))
			if c == prev {
				prevSpare, prevFits = spare, fits
			} else if fits > maxFits || (fits == maxFits && spare > maxSpare) {
				maxSpare, maxCPU, maxFits = spare, c, fits
			}
		}
		if maxCPU < 0 && prevSpare < 0 {
			continue
		}
		v.eenvPdBusyTime(&env, cpus)
		base := v.computeEnergy(&env, pd, -1)
		if prevSpare > -1 {
			e := v.computeEnergy(&env, pd, prev)
			if e < base {
				return target
			}
			prevDelta = e - base
			prevActualCap = actualCap
			bestDelta = min(bestDelta, prevDelta)
		}
		if maxCPU >= 0 && maxSpare > prevSpare {
			if maxFits < bestFits || (maxFits < 0 && actualCap <= bestActualCap) {
				continue
			}
			e := v.computeEnergy(&env, pd, maxCPU)
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
func (v *easView) eenvTaskBusyTime(env *energyEnv) { env.taskBusyTime = v.p.utilEstMax }

// eenvPdBusyTime is eenv_pd_busy_time: the domain's summed utilisation
// with p taken off its own CPU, each CPU's through effective_cpu_util, at
// most the domain's capacity.
func (v *easView) eenvPdBusyTime(env *energyEnv, cpus []int) {
	var busy uint64
	for _, c := range cpus {
		busy += v.effectiveCPUUtil(c, v.cpuUtil(c, -1, false))
	}
	env.pdBusyTime = min(env.pdCap, busy)
}

// eenvPdMaxUtil is eenv_pd_max_util(dst): the utilisation schedutil would
// serve on the domain's busiest CPU with p on dst (−1: nowhere), runnable
// time counting (boost): max over the CPUs of sugov_effective_cpu_perf,
// at most the domain's CPU capacity.
func (v *easView) eenvPdMaxUtil(env *energyEnv, cpus []int, dst int) uint64 {
	var mx uint64
	for _, c := range cpus {
		eff := v.effectiveCPUUtil(c, v.cpuUtil(c, dst, true))
		mx = max(mx, v.sugovEffectiveCPUPerf(c, eff))
	}
	return min(mx, env.cpuCap)
}

// computeEnergy is compute_energy(pd, dst): em_cpu_energy of the domain
// with p on dst (its busy time added, at most the domain's capacity) or,
// for dst = −1, without p.
func (v *easView) computeEnergy(env *energyEnv, pd *energy.Domain, dst int) uint64 {
	maxUtil := v.eenvPdMaxUtil(env, pd.CPUs(), dst)
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
func (v *easView) effectiveCPUUtil(cpu int, util uint64) uint64 { return min(util, v.caps[cpu]) }

// sugovEffectiveCPUPerf is sugov_effective_cpu_perf(cpu, actual, min = 0,
// max = capacity): the performance schedutil asks for, map_util_perf's
// 25 % headroom, at most the capacity.
func (v *easView) sugovEffectiveCPUPerf(cpu int, actual uint64) uint64 {
	return min(mapUtilPerf(actual), v.caps[cpu])
}

// mapUtilPerf is map_util_perf: util with schedutil's 1.25 headroom,
// u + ⌊u/4⌋.
func mapUtilPerf(u uint64) uint64 { return u + u>>2 }

// cpuUtil is cpu_util(cpu, p, dst, boost) in full (§1.5): cpu's
// utilisation as it would be with p on dst — p's util_avg (and runnable
// with boost) added when dst is cpu and p is elsewhere, taken off when p
// is here and dst is not; util_est gaining p's estimate when dst is cpu
// and, when dst is not cpu, losing it if p is queued or running (as the
// kernel's, this test does not ask where: a waking p is neither); the
// larger of the two, at most cpu's capacity.
func (v *easView) cpuUtil(cpu, dst int, boost bool) uint64 {
	sg, p := &v.sig[cpu], &v.p
	add := p.cpu != cpu && dst == cpu
	sub := p.cpu == cpu && dst != cpu
	util := sg.util
	switch {
	case sub:
		util = lsub(util, p.util)
	case add:
		util += p.util
	}
	if boost {
		r := sg.runnable
		switch {
		case sub:
			r = lsub(r, p.runnable)
		case add:
			r += p.runnable
		}
		util = max(util, r)
	}
	if v.utilEst {
		est := sg.utilEst
		if dst == cpu {
			est += p.utilEst
		} else if p.queuedOrCurr {
			est = lsub(est, p.utilEst)
		}
		util = max(util, est)
	}
	return min(util, v.caps[cpu])
}
