package smp

import (
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// The asymmetric part of the wakeup fast path (KERNEL-SPEC-ASYM §4.2,
// §4.3): select_idle_sibling's shortcuts also require that the task fit
// the CPU, and on a CPU with an sd_asym_cpucapacity domain the LLC scan is
// replaced by select_idle_capacity over that domain.

// asymWakeupUtil is select_idle_sibling's first step on an asymmetric
// machine: p is decayed as blocked to its queue's last update
// (sync_entity_load_avg) and its task_util_est read. On a symmetric
// machine it does nothing and returns 0 (asymFitsCPU ignores it).
func (s *System) asymWakeupUtil(p *Task) uint64 {
	if !s.asym {
		return 0
	}
	_ = s.cpus[p.cpu].rq.SyncLoadAvg(p.se)
	return taskUtilEst(p)
}

// selectIdleCapacity is select_idle_capacity (§4.3) at T = 1 with uclamp
// off: over the CPUs of sd that p may use, wrapping from target itself,
// the first idle CPU p fits; failing that the idle CPU of the largest
// capacity (the first on ties); at most nr_idle_scan CPUs examined, none
// at all when nr_idle_scan is 0. It returns −1 when it finds nothing.
//
// The scan limit is the domain's shared object's nr_idle_scan. When the
// asym domain is the LLC domain that is the LLC's; an asym domain above
// the LLCs (capacity classes in separate LLCs) has an object of its own,
// which its periodic balance keeps (updateIdleCPUScan).
func (s *System) selectIdleCapacity(p *Task, sd *topology.Domain, target int, u uint64) int {
	nr := int(^uint(0) >> 1)
	if s.feat.Has(features.SISUtil) {
		var l *llcState
		switch sd {
		case s.top.SDLLC(target):
			l = s.llcOf(target)
		case s.top.SDAsymCPUCapacity(target):
			l = s.asymSharedOf(target)
		}
		if l != nil {
			nr = l.nrIdleScan + 1
			if nr == 1 {
				return -1
			}
		}
	}
	cpus := s.scratch
	if !cpus.And(sd.Span(), p.allowed) {
		return -1
	}
	best, bestFits, bestCap := -1, 0, uint64(0)
	for c := cpus.FirstWrap(target); c >= 0; c = cpus.NextWrap(c, target) {
		nr--
		if nr <= 0 {
			return best
		}
		if !s.chooseIdleCPU(c, p) {
			continue
		}
		if s.utilFitsCPU(u, c) {
			return c
		}
		// An idle CPU the task does not fit ranks −3 (util_fits_cpu's 0,
		// less 3 for a preferred CPU); among equal ranks the larger
		// capacity wins, strictly.
		const fits = -3
		if cp := s.capacityOf(c); fits < bestFits || (fits == bestFits && cp > bestCap) {
			best, bestFits, bestCap = c, fits, cp
		}
	}
	return best
}
