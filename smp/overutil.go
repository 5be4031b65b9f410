package smp

import "github.com/schedmodel/fairclass/topology"

// The root domain's overutilized state (KERNEL-SPEC-ASYM §6): while no CPU
// runs beyond 80 % of its capacity, EAS places wakeups by energy and the
// balancer moves nothing but misfit tasks; once one does, the machine is
// "overutilized" and both fall back to their capacity-aware forms until a
// balance at the top domain finds every CPU below the mark again. With
// EAS off the flag reads true (is_rd_overutilized) and is never written.

// cpuOverutilized is cpu_overutilized (§6 rule 1): with EAS on, the CPU's
// capped utilisation does not fit its capacity — cpu_util_cfs ≥ 80 % of
// capacity_of (228 on a capacity-284 CPU, 697 on 871, 820 on 1024).
func (s *System) cpuOverutilized(cpu int) bool {
	return s.easOn && !s.utilFitsCPU(s.cpuUtilCfs(cpu), cpu)
}

// isRdOverutilized is is_rd_overutilized: true with EAS off.
func (s *System) isRdOverutilized() bool { return !s.easOn || s.eas.overutil }

// setRdOverutilized is set_rd_overutilized: a no-op with EAS off.
func (s *System) setRdOverutilized(v bool) {
	if !s.easOn || s.eas.overutil == v {
		return
	}
	s.eas.overutil = v
	if v {
		s.eas.stats.OverutilizedSet++
	} else {
		s.eas.stats.OverutilizedCleared++
	}
}

// checkUpdateOverutilizedStatus is check_update_overutilized_status (§6
// rule 3), run at the end of a wakeup's enqueue (ENQUEUE_WAKEUP: not a
// fork's first enqueue, a balancer's attach or a delayed task's requeue)
// and at every tick of a fair task: the flag is set if cpu is
// overutilized. It never clears the flag.
func (s *System) checkUpdateOverutilizedStatus(cpu int) {
	if s.easOn && !s.eas.overutil { // small enough to inline: no cost without EAS
		s.setIfOverutilized(cpu)
	}
}

// setIfOverutilized sets the root's flag if cpu is overutilized.
func (s *System) setIfOverutilized(cpu int) {
	if s.cpuOverutilized(cpu) {
		s.setRdOverutilized(true)
	}
}

// updateSdOverutilized is update_sd_lb_stats's write of the flag (§6
// rule 4): a balance of the top domain sets it to whether any CPU it saw
// is overutilized — the only place it clears —, a lower domain only sets
// it.
func (s *System) updateSdOverutilized(sd *topology.Domain, any bool) {
	if sd.Parent() == nil {
		s.setRdOverutilized(any)
	} else if any {
		s.setRdOverutilized(true)
	}
}

// easBalanced is sched_balance_find_src_group's EAS exit (§7.4): with
// perf domains and the root not overutilized, a domain is balanced unless
// its busiest group holds a misfit.
func (s *System) easBalanced() bool { return s.easOn && !s.eas.overutil }

// Overutilized returns is_rd_overutilized(): the root domain's flag while
// EAS is on, true while it is off (placement and balancing then never
// take the EAS paths).
func (s *System) Overutilized() bool { return s.isRdOverutilized() }

// CPUOverutilized returns cpu_overutilized(cpu): with EAS on, cpu's
// utilisation (cpu_util_cfs, capped at its capacity) is at least 80 % of
// its capacity; false with EAS off and for a bad id.
func (s *System) CPUOverutilized(cpu int) bool {
	if uint(cpu) >= uint(len(s.cpus)) {
		return false
	}
	return s.cpuOverutilized(cpu)
}
