package smp

import "github.com/schedmodel/fairclass/topology"

// Periodic balancing (KERNEL-SPEC-SMP §5.1–§5.2): a CPU's tick raises the
// balance softirq when its next_balance is due; the softirq updates the
// blocked loads and walks the CPU's domains, balancing each whose interval
// has passed.

// tickBalance is the end of sched_tick: rq->idle_balance is set from
// idle_cpu, then sched_balance_trigger raises the softirq if the CPU's
// next balance is due and, with the tick stopped on idle CPUs, decides on
// an idle-load-balancer kick; the softirq runs as the tick returns.
//
// A CPU without domains (the one CPU of a one-CPU machine) never
// balances: New notes it (noDomains), and the tick then sets
// rq->idle_balance alone rather than call tickBalance
// only for it to return.
func (s *System) tickBalance(cpu int) {
	c := &s.cpus[cpu]
	c.idleBalance = s.idleCPU(cpu)
	if c.noDomains {
		return // a CPU without domains never balances
	}
	raise := timeAfterEq(s.jiffies, c.nextBalance)
	s.nohzBalancerKick(cpu)
	if raise {
		s.balanceSoftirq(cpu)
	}
}

// balanceSoftirq is sched_balance_softirq: an idle balancer kicked to
// balance for the CPUs whose tick is stopped does that instead of its own
// balance; otherwise the CPU's blocked loads are updated and its domains
// walked.
func (s *System) balanceSoftirq(cpu int) {
	idle := cpuNotIdle
	if s.cpus[cpu].idleBalance {
		idle = cpuIdle
	}
	if s.nohzIdleBalance(cpu, idle) {
		return
	}
	s.updateBlockedAverages(cpu)
	s.balanceDomains(cpu, idle)
}

// balanceDomains is sched_balance_domains (§5.2): every domain bottom-up,
// its newidle cost decayed, balanced when its interval (longer for a busy
// CPU) has passed since its last balance, until should_we_balance hands a
// level to another CPU; rq->next_balance becomes the earliest next
// balance, and max_idle_balance_cost follows the decayed costs.
func (s *System) balanceDomains(cpu int, idle cpuIdleType) {
	c := &s.cpus[cpu]
	cont := true
	busy := idle != cpuIdle && !s.schedIdleRq(cpu)
	next := s.jiffies + 60*s.hz
	update := false
	needDecay := false
	var maxCost uint64
	for _, sd := range s.top.Domains(cpu) {
		d := s.dom(sd)
		needDecay = s.updateNewidleCost(sd, 0, 0)
		maxCost += d.maxNewidleLBCost
		if !cont {
			if needDecay {
				continue
			}
			break
		}
		interval := s.balanceInterval(sd, busy)
		if timeAfterEq(s.jiffies, d.lastBalance+interval) {
			if n := s.balanceRQ(cpu, sd, idle, &cont); n > 0 {
				s.stats.PeriodicPulls[sd.Kind()]++
				idle = cpuNotIdle
				if s.idleCPU(cpu) {
					idle = cpuIdle
				}
				busy = idle == cpuNotIdle && !s.schedIdleRq(cpu)
			}
			d.lastBalance = s.jiffies
			interval = s.balanceInterval(sd, busy)
		}
		if timeAfter(next, d.lastBalance+interval) {
			next = d.lastBalance + interval
			update = true
		}
	}
	if needDecay {
		c.maxIdleBalanceCost = max(uint64(topology.MigrationCost), maxCost)
	}
	if update {
		c.nextBalance = next
	}
}
