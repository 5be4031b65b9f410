package smp

import "github.com/schedmodel/fairclass/topology"

// NOHZ idle balancing (KERNEL-SPEC-SMP §5.15, mode B): an idle CPU stops
// its tick and leaves its periodic balancing, and the decay of its blocked
// load, to an idle load balancer (ILB) that a busy CPU kicks. In mode A
// (NohzOff) no CPU ever enters the NOHZ idle mask, so none of this fires.

// nohzFlag is the NOHZ_*_KICK bits of rq->nohz_flags.
type nohzFlag uint8

const (
	nohzBalanceKick nohzFlag = 1 << iota // NOHZ_BALANCE_KICK: balance for the idle CPUs
	nohzStatsKick                        // NOHZ_STATS_KICK: update their blocked load
	nohzNewILBKick                       // NOHZ_NEWILB_KICK: a newly idle CPU's own stats update
	nohzNextKick                         // NOHZ_NEXT_KICK: recompute nohz.next_balance

	nohzKickMask = nohzBalanceKick | nohzStatsKick | nohzNextKick
)

// nohzGlobal is the kernel's struct nohz.
type nohzGlobal struct {
	idle           *topology.Mask // idle_cpus_mask: CPUs whose tick is stopped
	hasBlockedLoad bool
	needsUpdate    bool
	nextBalance    uint64 // jiffies
	nextBlocked    uint64 // jiffies
}

// TickStopped reports whether cpu's tick is stopped (mode B, idle): a
// simulator does not tick it until it runs a task again.
func (s *System) TickStopped(cpu int) bool {
	if cpu < 0 || cpu >= len(s.cpus) {
		return false
	}
	return s.cpus[cpu].tickStopped && s.idleCPU(cpu)
}

// idleEntry is what follows a switch to the idle task in mode B: the
// start of the idle loop (nohz_run_idle_balance), then the tick stop
// (nohz_balance_enter_idle; the model stops the tick at every idle entry).
func (s *System) idleEntry(cpu int) {
	if s.nohz != NohzIdle {
		return
	}
	s.nohzRunIdleBalance(cpu)
	s.nohzBalanceEnterIdle(cpu)
}

// nohzBalanceEnterIdle is nohz_balance_enter_idle (rule 1).
func (s *System) nohzBalanceEnterIdle(cpu int) {
	c := &s.cpus[cpu]
	c.hasBlockedLoad = true
	if !c.tickStopped {
		if s.top.Base(cpu) == nil {
			return
		}
		c.tickStopped = true
		s.nohzState.idle.Set(cpu)
		s.setSDStateIdle(cpu, true)
		s.nohzState.needsUpdate = true
	}
	s.nohzState.hasBlockedLoad = true
}

// nohzBalanceExitIdle is nohz_balance_exit_idle (rule 2), at the first busy
// tick after an idle period.
func (s *System) nohzBalanceExitIdle(cpu int) {
	c := &s.cpus[cpu]
	if !c.tickStopped {
		return
	}
	c.tickStopped = false
	s.nohzState.idle.Clear(cpu)
	s.setSDStateIdle(cpu, false)
}

// setSDStateIdle is set_cpu_sd_state_idle / _busy: cpu's sd_llc marks it
// idle once and the LLC's nr_busy_cpus follows.
func (s *System) setSDStateIdle(cpu int, idle bool) {
	sd := s.top.SDLLC(cpu)
	if sd == nil {
		return
	}
	d := s.dom(sd)
	if d.nohzIdle == idle {
		return
	}
	d.nohzIdle = idle
	if l := s.llcOf(cpu); l != nil {
		if idle {
			l.nrBusyCPUs--
		} else {
			l.nrBusyCPUs++
		}
	}
}

// nohzBalancerKick is nohz_balancer_kick (rule 3), on every tick of a busy
// CPU: a kick when a CPU runs two tasks or an LLC has two busy CPUs, once
// nohz.next_balance is due; a stats kick when blocked load waits.
func (s *System) nohzBalancerKick(cpu int) {
	c := &s.cpus[cpu]
	if c.idleBalance {
		return
	}
	s.nohzBalanceExitIdle(cpu)
	g := &s.nohzState
	var flags nohzFlag
	if g.hasBlockedLoad && timeAfter(s.jiffies, g.nextBlocked) {
		flags = nohzStatsKick
	}
	switch {
	case timeAfter(g.nextBalance, s.jiffies): // time_before(now, next_balance)
	case g.idle.Empty():
		return
	case c.rq.NrRunning() >= 2:
		flags = nohzStatsKick | nohzBalanceKick
	case s.asym && s.top.SDAsymCPUCapacity(cpu) != nil:
		// On an asymmetric CPU only a misfit asks for balance, and the
		// LLC's busy count is not read (KERNEL-SPEC-ASYM §7.12).
		if c.misfitTaskLoad != 0 {
			flags = nohzStatsKick | nohzBalanceKick
		}
	default:
		if l := s.llcOf(cpu); l != nil && l.nrBusyCPUs > 1 {
			flags = nohzStatsKick | nohzBalanceKick
		}
	}
	if g.needsUpdate {
		flags |= nohzNextKick
	}
	if flags != 0 {
		s.kickILB(flags)
	}
}

// kickILB is kick_ilb (rule 4): the first idle CPU of an idle core in the
// NOHZ mask (else the first idle CPU) gets the flags, and an IPI unless a
// kick is already in flight to it.
func (s *System) kickILB(flags nohzFlag) {
	if flags&nohzBalanceKick != 0 {
		s.nohzState.nextBalance = s.jiffies + 1
	}
	ilb := s.findNewILB()
	if ilb < 0 {
		return
	}
	c := &s.cpus[ilb]
	if c.nohzFlags&flags == flags {
		return
	}
	old := c.nohzFlags
	c.nohzFlags |= flags
	if old&nohzKickMask != 0 {
		return
	}
	s.deferKick(ilb)
	s.stats.ILBKicks++
}

// findNewILB is find_new_ilb: over the NOHZ mask, ascending, the first idle
// CPU on an idle core, else the first idle CPU met (on a busy core).
func (s *System) findNewILB() int {
	m := s.nohzState.idle
	fallback := -1
	for c := m.First(); c >= 0; c = m.Next(c) {
		if !s.idleCPU(c) {
			continue
		}
		if s.isCoreIdle(c) {
			return c
		}
		if fallback < 0 {
			fallback = c
		}
	}
	return fallback
}

// nohzCSD is nohz_csd_func (rule 5), the kicked ILB's IPI: its flags are
// taken, and if it is still idle its softirq balances for the idle CPUs.
func (s *System) nohzCSD(ilb int) {
	c := &s.cpus[ilb]
	flags := c.nohzFlags & (nohzKickMask | nohzNewILBKick)
	c.nohzFlags &^= nohzKickMask | nohzNewILBKick
	c.idleBalance = s.idleCPU(ilb)
	if c.idleBalance && !s.rq(ilb).NeedReschedHard() {
		c.nohzIdleBalance = flags
		s.balanceSoftirq(ilb)
	}
}

// nohzIdleBalance is nohz_idle_balance: the flags handed to this CPU's
// softirq, if any, replace its own balance by the sweep.
func (s *System) nohzIdleBalance(cpu int, idle cpuIdleType) bool {
	c := &s.cpus[cpu]
	flags := c.nohzIdleBalance
	if flags == 0 {
		return false
	}
	c.nohzIdleBalance = 0
	if idle != cpuIdle {
		return false
	}
	s.nohzSweep(cpu, flags)
	return true
}

// nohzSweep is _nohz_idle_balance (rule 6): every idle CPU of the NOHZ
// mask, from the one after this to this, gets its blocked load updated
// (stats kick) and, when its next balance is due, its domains balanced as
// itself (balance kick); nohz.next_balance becomes their earliest.
func (s *System) nohzSweep(this int, flags nohzFlag) {
	g := &s.nohzState
	next := s.jiffies + 60*s.hz
	update := false
	hasBlocked := false
	if flags&nohzStatsKick != 0 {
		g.hasBlockedLoad = false
	}
	if flags&nohzNextKick != 0 {
		g.needsUpdate = false
	}
	start := this + 1
	aborted := false
	for b := g.idle.FirstWrap(start); b >= 0; b = g.idle.NextWrap(b, start) {
		if !s.idleCPU(b) {
			continue
		}
		if !s.idleCPU(this) && s.rq(this).NeedReschedHard() { // need_resched(): the hard request
			if flags&nohzStatsKick != 0 {
				hasBlocked = true
			}
			if flags&nohzNextKick != 0 {
				g.needsUpdate = true
			}
			aborted = true
			break
		}
		if s.onSweep != nil {
			s.onSweep(this, b)
		}
		if flags&nohzStatsKick != 0 && s.updateNohzStats(b) {
			hasBlocked = true
		}
		bc := &s.cpus[b]
		if timeAfterEq(s.jiffies, bc.nextBalance) {
			s.rq(b)
			if flags&nohzBalanceKick != 0 {
				s.balanceDomains(b, cpuIdle)
			}
		}
		if timeAfter(next, bc.nextBalance) {
			next = bc.nextBalance
			update = true
		}
	}
	if !aborted {
		if update {
			g.nextBalance = next
		}
		if flags&nohzStatsKick != 0 {
			g.nextBlocked = s.jiffies + s.msecsToJiffies(topology.LoadAvgPeriod)
		}
	}
	if hasBlocked {
		g.hasBlockedLoad = true
	}
}

// updateNohzStats is update_nohz_stats: an idle CPU's blocked load, updated
// at most once a jiffy; it reports whether the CPU still has some.
func (s *System) updateNohzStats(cpu int) bool {
	c := &s.cpus[cpu]
	if !c.hasBlockedLoad || !s.nohzState.idle.Test(cpu) {
		return false
	}
	if !timeAfter(s.jiffies, c.lastBlockedLoadUpdateTick) {
		return true
	}
	s.updateBlockedAverages(cpu)
	return c.hasBlockedLoad
}

// nohzNewidleBalance is nohz_newidle_balance (rule 8): a CPU whose newly
// idle balance found nothing, and that expects to idle long, asks itself
// to refresh the idle CPUs' blocked load when its idle loop starts.
func (s *System) nohzNewidleBalance(cpu int) {
	c := &s.cpus[cpu]
	g := &s.nohzState
	if c.avgIdle < topology.MigrationCost || !g.hasBlockedLoad || timeAfter(g.nextBlocked, s.jiffies) {
		return
	}
	c.nohzFlags |= nohzNewILBKick
}

// nohzRunIdleBalance is nohz_run_idle_balance, at the start of the idle
// loop: a pending NEWILB request alone runs a stats-only sweep.
func (s *System) nohzRunIdleBalance(cpu int) {
	c := &s.cpus[cpu]
	flags := c.nohzFlags
	c.nohzFlags &^= nohzNewILBKick
	if flags == nohzNewILBKick && !s.rq(cpu).NeedReschedHard() {
		s.nohzSweep(cpu, nohzStatsKick)
	}
}
