package smp

import (
	"strconv"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// Placement: select_task_rq and select_task_rq_fair with the fast path of
// select_idle_sibling (KERNEL-SPEC-SMP §3.1–§3.6).

// Rule names the rule that chose a task's CPU.
type Rule uint8

const (
	// RuleInPlace: the task was still queued (delayed) and was woken on
	// its own CPU (ttwu_runnable); no CPU was selected.
	RuleInPlace Rule = iota
	// RuleSingleCPU: the task may run on one CPU only.
	RuleSingleCPU
	// RuleCurrentCPU: WF_CURRENT_CPU, the waking CPU.
	RuleCurrentCPU
	// RuleTarget: the target of select_idle_sibling was idle (rule 1);
	// with EAS, also find_energy_efficient_cpu's target, returned at once
	// (System.EnergyStats counts those apart).
	RuleTarget
	// RulePrev: the previous CPU, idle and sharing the target's LLC (rule 2).
	RulePrev
	// RuleRecent: the recently used CPU, idle and sharing the LLC (rule 4).
	RuleRecent
	// RuleNoLLC: the target has no LLC domain to scan (rule 5).
	RuleNoLLC
	// RuleIdleSMT: an idle SMT sibling of the previous CPU (rule 6).
	RuleIdleSMT
	// RuleIdleCore: the first CPU of a wholly idle core (rule 7 with
	// has_idle_cores).
	RuleIdleCore
	// RuleIdleCPU: an idle CPU found by the LLC scan (rule 7), or on an
	// asymmetric machine by select_idle_capacity.
	RuleIdleCPU
	// RuleBusyTarget: nothing idle was found: the target (rule 8).
	RuleBusyTarget
	// RuleSlowPath: the fork or exec slow path (find_dst_group/_cpu).
	RuleSlowPath
	// RuleFallback: the chosen CPU was not allowed: select_fallback_rq.
	RuleFallback
	numRules
)

var ruleNames = [numRules]string{
	"in_place", "single_cpu", "current_cpu", "target", "prev", "recent", "no_llc",
	"idle_smt", "idle_core", "idle_cpu", "busy_target", "slow_path", "fallback",
}

// String returns the rule's name as reports print it ("slow_path",
// "target", …; the constant's name in snake case), or "Rule(n)" for a
// value that is no Rule.
func (r Rule) String() string {
	if r < numRules {
		return ruleNames[r]
	}
	return "Rule(" + strconv.Itoa(int(r)) + ")"
}

// Rules returns every Rule in order, for reports.
func Rules() []Rule {
	rs := make([]Rule, numRules)
	for i := range rs {
		rs[i] = Rule(i)
	}
	return rs
}

// waking is the context of a placement: the CPU the code runs on
// (smp_processor_id) and its current task (nil: the idle task).
type waking struct {
	cpu  int
	curr *Task
}

// wakeeOf returns the waker statistics of the waking context's current.
func (s *System) wakeeOf(w waking) *wakee {
	if w.curr != nil {
		return &w.curr.wakee
	}
	return &s.cpus[w.cpu].idle
}

// selectTaskRq is the core's select_task_rq: the class's choice when the
// task may run on several CPUs (adding WF_RQ_SELECTED), else its one CPU,
// taken from the allowed mask and so needing no test (on a one-CPU
// machine, every task's case); a choice that is not allowed falls back
// (select_fallback_rq).
func (s *System) selectTaskRq(p *Task, prev int, wf *eevdf.WakeFlags, w waking) (int, Rule) {
	if p.nrAllowed > 1 {
		return s.selectTaskRqMany(p, prev, wf, w)
	}
	return p.allowed.First(), RuleSingleCPU
}

// selectTaskRqMany is selectTaskRq for a task allowed on several CPUs.
func (s *System) selectTaskRqMany(p *Task, prev int, wf *eevdf.WakeFlags, w waking) (int, Rule) {
	cpu, rule := s.selectTaskRqFair(p, prev, *wf, w)
	*wf |= eevdf.WFRqSelected
	if !p.allowedOn(cpu) {
		cpu, rule = s.selectFallbackRq(p), RuleFallback
	}
	return cpu, rule
}

// selectFallbackRq is select_fallback_rq on the one-node machine with
// every CPU active: the first allowed CPU.
func (s *System) selectFallbackRq(p *Task) int { return p.allowed.First() }

// selectTaskRqFair is select_task_rq_fair (§3.2). A wakeup records the
// wakee and decides whether an affine wakeup is wanted; the domains of the
// waking CPU are walked bottom-up: the first one with SD_WAKE_AFFINE that
// spans prev decides between the waking CPU and prev (wake_affine), and a
// domain with the balance flag of the wakeup kind (only fork and exec have
// one) selects the slow path; a wakeup then searches around the chosen
// CPU for an idle one.
func (s *System) selectTaskRqFair(p *Task, prev int, wf eevdf.WakeFlags, w waking) (int, Rule) {
	sync := wf&eevdf.WFSync != 0 // (the waker is never exiting in the model)
	cpu := w.cpu
	newCPU := prev
	wantAffine := false
	sdFlag := topology.Flags(wf & 0xF)
	if wf&eevdf.WFTTWU != 0 {
		s.recordWakee(p, w)
		if wf&eevdf.WFCurrentCPU != 0 && p.allowedOn(cpu) {
			return cpu, RuleCurrentCPU
		}
		if c, ok := s.easWakeup(p, prev, cpu); ok { // KERNEL-SPEC-ASYM §4.1 (feec.go)
			return c, RuleTarget
		}
		wide := s.wakeWide(p, w)
		if wide {
			s.stats.WakeWide++
		}
		wantAffine = !wide && p.allowedOn(cpu)
	}
	var sd *topology.Domain
	for _, tmp := range s.top.Domains(cpu) {
		if wantAffine && tmp.Has(topology.SDWakeAffine) && tmp.Span().Test(prev) {
			if cpu != prev {
				newCPU = s.wakeAffine(tmp, p, cpu, prev, sync, w)
			}
			sd = nil // an affine wakeup overrides the balance flags
			break
		}
		if tmp.Flags()&sdFlag != 0 {
			sd = tmp
		} else if !wantAffine {
			break
		}
	}
	if sd != nil {
		return s.findDstCPU(sd, p, cpu, prev, sdFlag), RuleSlowPath
	}
	if wf&eevdf.WFTTWU != 0 {
		return s.selectIdleSibling(p, prev, newCPU)
	}
	return newCPU, RuleBusyTarget
}

// recordWakee is record_wakee, on the waking context's current task W: W's
// flips halve once if more than a second (HZ jiffies) has passed since the
// last halving, then count one more if W now wakes a different task.
func (s *System) recordWakee(p *Task, w waking) {
	wk := s.wakeeOf(w)
	if timeAfter(s.jiffies, wk.decayTs+s.hz) {
		wk.flips >>= 1
		wk.decayTs = s.jiffies
	}
	if wk.last != p {
		wk.last = p
		wk.flips++
	}
}

// wakeWide is wake_wide: with m and s the larger and the smaller of the
// waker's and the wakee's flips and f the waking CPU's sd_llc_size, the
// wakeup is wide iff s ≥ f and m ≥ s·f — a 1:N pattern whose N exceeds the
// LLC, which pulling every wakee to the waker would overload.
func (s *System) wakeWide(p *Task, w waking) bool {
	master, slave := s.wakeeOf(w).flips, p.wakee.flips
	factor := uint32(s.top.SDLLCSize(w.cpu))
	if master < slave {
		master, slave = slave, master
	}
	return slave >= factor && master >= slave*factor
}

// wakeAffine is wake_affine (§3.4): this (the waking CPU) or prev. The
// idle test decides first (WA_IDLE), then the load comparison (WA_WEIGHT);
// anything but a verdict for this keeps prev.
func (s *System) wakeAffine(sd *topology.Domain, p *Task, this, prev int, sync bool, w waking) int {
	target := -1
	if s.feat.Has(features.WAIdle) {
		target = s.wakeAffineIdle(this, prev, sync)
	}
	if target < 0 && s.feat.Has(features.WAWeight) {
		target = s.wakeAffineWeight(sd, p, this, prev, sync, w)
	}
	if target != this {
		s.stats.AffinePrev++
		return prev
	}
	s.stats.AffineThis++
	s.affinePull = true
	return this
}

// wakeAffineIdle is wake_affine_idle: an idle waking CPU that shares the
// cache with prev gives prev if prev is idle too, else itself; a sync
// wakeup from a CPU that runs only the waker gives the waking CPU; an idle
// prev gives prev; otherwise no opinion (−1).
func (s *System) wakeAffineIdle(this, prev int, sync bool) int {
	if s.availableIdleCPU(this) && s.top.CPUsShareCache(this, prev) {
		if s.availableIdleCPU(prev) {
			return prev
		}
		return this
	}
	if sync {
		rq := s.cpus[this].rq
		if rq.NrRunning()-(rq.NrQueued()-rq.NrRunnable()) == 1 {
			return this
		}
	}
	if s.availableIdleCPU(prev) {
		return prev
	}
	return -1
}

// wakeAffineWeight is wake_affine_weight: this if its effective load
// (wakeAffineLoads) is strictly below prev's, else no opinion (−1).
func (s *System) wakeAffineWeight(sd *topology.Domain, p *Task, this, prev int, sync bool, w waking) int {
	thisEff, prevEff, early := s.wakeAffineLoads(sd, p, this, prev, sync, w)
	if early || thisEff < prevEff {
		return this
	}
	return -1
}

// wakeAffineLoads computes wake_affine_weight's two sides, in the kernel's
// signed 64-bit arithmetic: the waking CPU's load with p added (for a sync
// wakeup the waker's load taken off — it will sleep — and this decided at
// once, early, if the waker alone outweighs the CPU), against prev's load
// without p, prev's side weighted by half the domain's imbalance margin
// (WA_BIAS: 108 at MC and PKG, 105 at SMT, against 100), each side
// multiplied by the other CPU's capacity, and prev's side one more for a
// sync wakeup.
func (s *System) wakeAffineLoads(sd *topology.Domain, p *Task, this, prev int, sync bool, w waking) (thisEff, prevEff int64, early bool) {
	thisEff = int64(s.cpuLoad(this))
	if sync {
		var cur int64
		if w.curr != nil {
			cur = int64(s.taskHLoad(w.curr))
		}
		if cur > thisEff {
			return 0, 0, true
		}
		thisEff -= cur
	}
	taskLoad := int64(s.taskHLoad(p))
	thisEff += taskLoad
	if s.feat.Has(features.WABias) {
		thisEff *= 100
	}
	thisEff *= int64(s.capacityOf(prev))
	prevEff = int64(s.cpuLoad(prev)) - taskLoad
	if s.feat.Has(features.WABias) {
		prevEff *= 100 + (int64(sd.ImbalancePct())-100)/2
	}
	prevEff *= int64(s.capacityOf(this))
	if sync {
		prevEff++
	}
	return thisEff, prevEff, false
}

// selectIdleSibling is select_idle_sibling (§3.5): the fast path's search
// for an idle CPU sharing the target's LLC, shortcuts first.
func (s *System) selectIdleSibling(p *Task, prev, target int) (int, Rule) {
	u := s.asymWakeupUtil(p) // KERNEL-SPEC-ASYM §4.2: each shortcut needs a fit
	if s.chooseIdleCPU(target, p) && s.asymFitsCPU(u, target) {
		return target, RuleTarget
	}
	if prev != target && s.top.CPUsShareCache(prev, target) && s.chooseIdleCPU(prev, p) && s.asymFitsCPU(u, prev) {
		return prev, RulePrev
	}
	recent := p.recent
	p.recent = prev
	if recent != prev && recent != target && s.top.CPUsShareCache(recent, target) &&
		s.chooseIdleCPU(recent, p) && p.allowedOn(recent) && s.asymFitsCPU(u, recent) {
		return recent, RuleRecent
	}
	if s.asym {
		if sd := s.top.SDAsymCPUCapacity(target); sd != nil {
			// select_idle_capacity replaces the LLC scan (§4.2 step 2).
			if i := s.selectIdleCapacity(p, sd, target, u); i >= 0 {
				return i, RuleIdleCPU
			}
			return target, RuleBusyTarget
		}
	}
	sd := s.top.SDLLC(target)
	if sd == nil {
		return target, RuleNoLLC
	}
	hasIdleCore := false
	if s.top.SMTActive() {
		hasIdleCore = s.llcOf(target).hasIdleCores
		if !hasIdleCore && s.top.CPUsShareCache(prev, target) {
			if i := s.selectIdleSMT(p, sd, prev); i >= 0 {
				return i, RuleIdleSMT
			}
		}
	}
	if i, core := s.selectIdleCPU(p, sd, hasIdleCore, target); i >= 0 {
		if core {
			return i, RuleIdleCore
		}
		return i, RuleIdleCPU
	}
	return target, RuleBusyTarget
}

// selectIdleSMT is select_idle_smt: an idle sibling of prev's core in the
// LLC, in ascending order.
func (s *System) selectIdleSMT(p *Task, sd *topology.Domain, prev int) int {
	smt := s.top.SMTMask(prev)
	for c := smt.FirstAnd(p.allowed); c >= 0; c = smt.NextAnd(c, p.allowed) {
		if c == prev || !sd.Span().Test(c) {
			continue
		}
		if s.chooseIdleCPU(c, p) {
			return c
		}
	}
	return -1
}

// selectIdleCPU is select_idle_cpu (§3.6 rule 2): the LLC's CPUs that p may
// use, walked from the one after target round to target. With an idle core
// known, whole cores are tested (the first idle thread of a busy core kept
// as the fallback) and a scan that finds none clears has_idle_cores;
// otherwise at most nr_idle_scan CPUs (SIS_UTIL) are tested for an idle
// one. core reports that a whole idle core was found.
func (s *System) selectIdleCPU(p *Task, sd *topology.Domain, hasIdleCore bool, target int) (idle int, core bool) {
	nr := int(^uint(0) >> 1)
	if s.feat.Has(features.SISUtil) {
		if l := s.llcOf(target); l != nil {
			nr = l.nrIdleScan + 1
			if nr == 1 {
				return -1, false // an overloaded LLC is unlikely to have an idle CPU
			}
		}
	}
	cpus := s.scratch
	if !cpus.And(sd.Span(), p.allowed) {
		return -1, false
	}
	idleCPU := -1
	start := target + 1
	if start >= cpus.Len() {
		start = 0
	}
	for c := cpus.FirstWrap(start); c >= 0; c = cpus.NextWrap(c, start) {
		if hasIdleCore {
			if i := s.selectIdleCore(p, c, cpus, &idleCPU); i >= 0 {
				return i, true
			}
			continue
		}
		nr--
		if nr <= 0 {
			return -1, false
		}
		if s.chooseIdleCPU(c, p) && s.cpuCookieMatch(c, p) { // __select_idle_cpu
			idleCPU = c
			break
		}
	}
	if hasIdleCore {
		s.llcOf(target).hasIdleCores = false
	}
	return idleCPU, false
}

// selectIdleCore is select_idle_core (§3.6 rule 3): core (a CPU) if every
// thread of its core is idle; otherwise its threads leave cpus, and the
// first idle (or, for a non-idle task, SCHED_IDLE-only) thread allowed is
// remembered in idleCPU if none was.
func (s *System) selectIdleCore(p *Task, core int, cpus *topology.Mask, idleCPU *int) int {
	idle := true
	smt := s.top.SMTMask(core)
	for c := smt.First(); c >= 0; c = smt.Next(c) {
		if !s.availableIdleCPU(c) {
			idle = false
			if *idleCPU == -1 {
				if s.chooseSchedIdleRq(c, p) && cpus.Test(c) {
					*idleCPU = c
					break
				}
				continue
			}
			break
		}
		if *idleCPU == -1 && cpus.Test(c) {
			*idleCPU = c
		}
	}
	if idle {
		return core
	}
	cpus.AndNot(cpus, smt)
	return -1
}

// timeAfter is time_after(a, b) on jiffies: a is after b, wrap-safe.
func timeAfter(a, b uint64) bool { return int64(b-a) < 0 }

// timeAfterEq is time_after_eq(a, b).
func timeAfterEq(a, b uint64) bool { return int64(a-b) >= 0 }
