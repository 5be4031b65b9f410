package smp

import (
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// Newly idle balancing (KERNEL-SPEC-SMP §5.4): a CPU about to run its idle
// task first tries to pull a task, domain by domain, as long as the
// balancing is expected to cost less than the idle time it fills.

// newidleBalance is sched_balance_newidle: it returns the number of tasks
// pulled (or 1 if a task arrived meanwhile), 0 to go idle.
func (s *System) newidleBalance(cpu int) int {
	c := &s.cpus[cpu]
	s.updateMisfitStatus(nil, cpu)
	// The idle period is measured from here (set before the balance so
	// that its time counts as idle).
	c.idleStamp = s.rq(cpu).Clock()
	nextBalance := s.jiffies + s.hz
	pulled := 0
	if sd := s.top.Base(cpu); sd != nil {
		if !s.overloaded || c.avgIdle < s.dom(sd).maxNewidleLBCost {
			s.updateNextBalance(sd, &nextBalance)
		} else {
			pulled = s.newidleWalk(cpu, &nextBalance)
		}
	}
	if timeAfter(c.nextBalance, nextBalance) {
		c.nextBalance = nextBalance
	}
	if pulled != 0 {
		c.idleStamp = 0
	} else {
		s.nohzNewidleBalance(cpu)
	}
	return pulled
}

// newidleWalk is the domain walk of sched_balance_newidle: blocked loads
// updated, then each domain with SD_BALANCE_NEWIDLE balanced while the cost
// so far plus the domain's recorded maximum fits in avg_idle; NI_RANDOM
// skips a domain with a probability that follows its success ratio.
func (s *System) newidleWalk(cpu int, nextBalance *uint64) int {
	c := &s.cpus[cpu]
	var currCost uint64
	charge := s.cost.Blocked // the blocked-load update goes to the first domain balanced
	s.updateBlockedAverages(cpu)
	pulled := 0
	cont := true
	for _, sd := range s.top.Domains(cpu) {
		d := s.dom(sd)
		s.updateNextBalance(sd, nextBalance)
		if c.avgIdle < currCost+d.maxNewidleLBCost {
			break
		}
		if sd.Has(topology.SDBalanceNewidle) {
			weight := uint64(1)
			if s.feat.Has(features.NIRandom) && d.newidleRatio < 1024 {
				draw := uint64(c.rng.next() % 1024)
				weight = 1 + d.newidleRatio
				if draw > weight {
					s.event(Event{Kind: EventNewidleSkip, CPU: cpu, Level: sd.Kind(), Draw: uint32(draw)})
					s.updateNewidleStats(d, 0)
					s.stats.NewidleSkips++
					continue
				}
				// A success counts as many attempts as are skipped on
				// average, rounded: ⌊(1024 + w/2)/w⌋.
				weight = (1024 + weight/2) / weight
			}
			pulled = s.balanceRQ(cpu, sd, cpuNewlyIdle, &cont)
			cost := s.cost.Base + s.cost.PerCPU*uint64(sd.Weight()) + charge
			charge = 0
			currCost += cost
			success := uint64(0)
			if pulled > 0 {
				success = weight
				s.stats.NewidlePulls[sd.Kind()]++
			}
			s.updateNewidleCost(sd, cost, success)
		}
		if pulled > 0 || !cont {
			break
		}
	}
	if currCost > c.maxIdleBalanceCost {
		c.maxIdleBalanceCost = currCost
	}
	if s.cpus[cpu].rq.NrQueued() > 0 && pulled == 0 {
		pulled = 1 // a task arrived while the domains were walked
	}
	return pulled
}

// updateNextBalance is update_next_balance: next is brought forward to
// the domain's next balance as an idle CPU sees it.
func (s *System) updateNextBalance(sd *topology.Domain, next *uint64) {
	n := s.dom(sd).lastBalance + s.balanceInterval(sd, false)
	if timeAfter(*next, n) {
		*next = n
	}
}

// updateNewidleCost is update_newidle_cost (§5.4 rule 12): a costed attempt
// counts in the statistics; the domain's maximum cost rises to a new
// maximum, or decays by 253/256 at most once a second. It reports a decay.
func (s *System) updateNewidleCost(sd *topology.Domain, cost, success uint64) bool {
	d := s.dom(sd)
	if cost != 0 {
		s.updateNewidleStats(d, success)
	}
	if cost > d.maxNewidleLBCost {
		d.maxNewidleLBCost = cost
		d.lastDecayMaxLBCost = s.jiffies
		return false
	}
	if timeAfter(s.jiffies, d.lastDecayMaxLBCost+s.hz) {
		d.maxNewidleLBCost = d.maxNewidleLBCost * 253 / 256
		d.lastDecayMaxLBCost = s.jiffies
		return true
	}
	return false
}

// updateNewidleStats is update_newidle_stats (§5.4 rule 13): every 1024
// calls the success ratio is recomputed from the successes (plus, with
// NI_RATE, one per 2^22 ns since the last window), at most 1024, and both
// counters halve.
func (s *System) updateNewidleStats(d *domState, success uint64) {
	d.newidleCall++
	d.newidleSuccess += success
	if d.newidleCall < 1024 {
		return
	}
	now := s.now
	var delta uint64
	if now > d.newidleStamp {
		delta = now - d.newidleStamp
	}
	d.newidleStamp = now
	ratio := d.newidleSuccess
	if s.feat.Has(features.NIRate) {
		ratio += delta >> 22
	}
	d.newidleRatio = min(1024, ratio)
	d.newidleCall /= 2
	d.newidleSuccess /= 2
}

// updateBlockedAverages is __sched_balance_update_blocked_averages (§2.9):
// the queues on the CPU's leaf list are decayed to now, children before
// parents (eevdf.CfsRq.UpdateBlockedAverages), and has_blocked_load says
// whether anything is left to decay. A queue never filled, or taken off
// the list once fully decayed, is not walked and keeps its stale
// last_update_time.
func (s *System) updateBlockedAverages(cpu int) {
	c := &s.cpus[cpu]
	c.lastBlockedLoadUpdateTick = s.jiffies
	if !s.rq(cpu).UpdateBlockedAverages() {
		c.hasBlockedLoad = false // only a CPU entering idle sets it
	}
}
