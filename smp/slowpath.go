package smp

import "github.com/schedmodel/fairclass/topology"

// The slow path of fork and exec placement (KERNEL-SPEC-SMP §3.7):
// sched_balance_find_dst_cpu descends from the highest domain with the
// balance flag, at each level into the idlest group and then to its idlest
// CPU, and continues in that CPU's lower domains.

// groupType is enum group_type, in increasing order of pull priority.
type groupType uint8

const (
	groupHasSpare groupType = iota
	groupFullyBusy
	groupMisfitTask
	groupSMTBalance
	groupAsymPacking
	groupImbalanced
	groupLLCBalance
	groupOverloaded
)

var groupTypeNames = [...]string{"has_spare", "fully_busy", "misfit_task", "smt_balance",
	"asym_packing", "imbalanced", "llc_balance", "overloaded"}

func (g groupType) String() string {
	if int(g) < len(groupTypeNames) {
		return groupTypeNames[g]
	}
	return "group_type(?)"
}

// sgStats is struct sg_lb_stats: what a group's CPUs add up to.
type sgStats struct {
	avgLoad        uint64 // group_load·1024 / group_capacity, for the types that compare it
	groupLoad      uint64
	groupCapacity  uint64
	groupUtil      uint64
	groupRunnable  uint64
	sumNrRunning   int // nr_running over the CPUs, delayed tasks included
	sumHNrRunning  int // h_nr_runnable over the CPUs
	idleCPUs       int
	groupWeight    int
	groupType      groupType
	groupSMTBal    bool // group_smt_balance
	groupImbalance bool // sgc->imbalance, read through sg_imbalanced

	groupMisfitTaskLoad uint64 // group_misfit_task_load (misfit.go)
	groupOverutilized   bool   // group_overutilized: a CPU of the group is (overutil.go)
	eas                 bool   // sched_energy_enabled(): overloaded needs group_overutilized
	groupMaxCapacity    uint64 // sgc->max_capacity, for the slow path's misfit groups
}

// groupIsOverloaded is group_is_overloaded: more tasks than CPUs, and the
// group's utilization or runnable load beyond its capacity by the margin;
// with EAS on, only a group with an overutilized CPU can be (the slow
// path never computes that, so none is there).
func groupIsOverloaded(pct uint64, s *sgStats) bool {
	if s.eas && !s.groupOverutilized {
		return false // KERNEL-SPEC-ASYM §7.2: with EAS, only an overutilized group
	}
	if s.sumNrRunning <= s.groupWeight {
		return false
	}
	if s.groupCapacity*100 < s.groupUtil*pct {
		return true
	}
	return s.groupCapacity*pct < s.groupRunnable*100
}

// groupHasCapacity is group_has_capacity: fewer tasks than CPUs, or
// utilization and runnable load within the capacity.
func groupHasCapacity(pct uint64, s *sgStats) bool {
	if s.sumNrRunning < s.groupWeight {
		return true
	}
	if s.groupCapacity*pct < s.groupRunnable*100 {
		return false
	}
	return s.groupCapacity*100 > s.groupUtil*pct
}

// groupClassify is group_classify (§5.7), first match: overloaded,
// imbalanced (sgc->imbalance), smt_balance, misfit_task (asymmetric
// machines only), fully_busy (no capacity left), has_spare. The asym and
// LLC types never arise on the modelled machine.
func groupClassify(pct uint64, s *sgStats) groupType {
	switch {
	case groupIsOverloaded(pct, s):
		return groupOverloaded
	case s.groupImbalance:
		return groupImbalanced
	case s.groupSMTBal:
		return groupSMTBalance
	case s.groupMisfitTaskLoad != 0:
		return groupMisfitTask
	case !groupHasCapacity(pct, s):
		return groupFullyBusy
	}
	return groupHasSpare
}

// taskRunningOnCPU is task_running_on_cpu: p counts in cpu's numbers —
// its CPU, attached, and queued.
func taskRunningOnCPU(cpu int, p *Task) bool {
	return accountedOn(p, cpu) && p.se.OnRq()
}

// idleCPUWithout is idle_cpu_without: cpu would be idle without p — it runs
// its idle task or p (no remote wakeup pending in the model).
func (s *System) idleCPUWithout(cpu int, p *Task) bool {
	c := s.cpus[cpu].rq.Curr()
	return c == nil || c == p.se
}

// updateSgWakeupStats is update_sg_wakeup_stats: group's CPUs that p may
// use, each with p's own contribution taken out.
func (s *System) updateSgWakeupStats(sd *topology.Domain, g *topology.Group, p *Task) sgStats {
	st := sgStats{eas: s.easOn} // group_overutilized is never computed here
	if sd.Has(topology.SDAsymCPUCapacity) {
		st.groupMisfitTaskLoad = s.wakeupMisfitLoad(g, p)
	}
	span := g.Span()
	for i := span.FirstAnd(p.allowed); i >= 0; i = span.NextAnd(i, p.allowed) {
		rq := s.cpus[i].rq
		st.groupLoad += s.cpuLoadWithout(i, p)
		st.groupUtil += s.cpuUtilWithout(i, p)
		st.groupRunnable += s.cpuRunnableWithout(i, p)
		local := 0
		if taskRunningOnCPU(i, p) {
			local = 1
		}
		st.sumHNrRunning += rq.NrRunnable() - local
		nr := rq.NrRunning() - local
		st.sumNrRunning += nr
		if nr == 0 && s.idleCPUWithout(i, p) {
			st.idleCPUs++
		}
	}
	st.groupCapacity = g.Capacity()
	st.groupMaxCapacity = g.MaxCapacity()
	st.groupWeight = g.Weight()
	st.groupImbalance = s.groupImbalanced(g)
	st.groupType = groupClassify(sd.ImbalancePct(), &st)
	if st.groupType == groupFullyBusy || st.groupType == groupOverloaded {
		st.avgLoad = st.groupLoad * capacity / st.groupCapacity
	}
	return st
}

// groupImbalanced is sg_imbalanced: the group's shared capacity object's
// affinity imbalance bit, which balancing of the level below sets when
// pinned tasks kept it from balancing, and clears once it balances.
func (s *System) groupImbalanced(g *topology.Group) bool { return s.groups[g.ID()].imbalance }

// updatePickIdlest is update_pick_idlest: does group stats st replace the
// idlest so far? A lower type wins; among overloaded or fully busy groups
// the strictly lower average load; among misfit groups the strictly bigger
// largest CPU; among groups with spare capacity more idle CPUs, then the
// strictly lower utilization; other types never.
func updatePickIdlest(idlest, st *sgStats) bool {
	if st.groupType != idlest.groupType {
		return st.groupType < idlest.groupType
	}
	switch st.groupType {
	case groupOverloaded, groupFullyBusy:
		return idlest.avgLoad > st.avgLoad
	case groupMisfitTask:
		// The group with the biggest CPU (KERNEL-SPEC-ASYM §4.5 rule 3).
		return st.groupMaxCapacity > idlest.groupMaxCapacity
	case groupHasSpare:
		if idlest.idleCPUs > st.idleCPUs {
			return false
		}
		return !(idlest.idleCPUs == st.idleCPUs && idlest.groupUtil <= st.groupUtil)
	}
	return false
}

// findDstGroup is sched_balance_find_dst_group: the idlest group of sd for
// p, or nil if the local group (the one holding this) is no worse by the
// domain's margins.
func (s *System) findDstGroup(sd *topology.Domain, p *Task, this int) *topology.Group {
	var idlest, local *topology.Group
	var idlestSt, localSt sgStats
	for k := 0; k < sd.NumGroups(); k++ {
		g := sd.Group(k)
		if !g.Span().Intersects(p.allowed) || !s.groupCookieMatch(g, p) {
			continue
		}
		st := s.updateSgWakeupStats(sd, g, p)
		if g.Span().Test(this) {
			local, localSt = g, st
			continue
		}
		if idlest == nil || updatePickIdlest(&idlestSt, &st) {
			idlest, idlestSt = g, st
		}
	}
	switch {
	case idlest == nil:
		return nil
	case local == nil:
		return idlest
	case localSt.groupType < idlestSt.groupType:
		return nil
	case localSt.groupType > idlestSt.groupType:
		return idlest
	}
	pct := sd.ImbalancePct()
	switch localSt.groupType {
	case groupOverloaded, groupFullyBusy:
		// The allowed imbalance in load: NICE_0's unscaled weight times
		// the margin, 174 at MC and PKG (pct 117), 102 at SMT (110).
		imbalance := 1024 * (pct - 100) / 100
		if idlestSt.avgLoad >= localSt.avgLoad+imbalance {
			return nil
		}
		if 100*localSt.avgLoad <= pct*idlestSt.avgLoad {
			return nil
		}
	case groupHasSpare:
		if localSt.idleCPUs >= idlestSt.idleCPUs {
			return nil
		}
	case groupMisfitTask:
		// Stay unless the idlest group has a bigger CPU (§4.5 rule 4).
		if localSt.groupMaxCapacity >= idlestSt.groupMaxCapacity {
			return nil
		}
	default:
		return nil
	}
	return idlest
}

// findDstGroupCPU is sched_balance_find_dst_group_cpu: a one-CPU group's
// CPU; else, among the group's CPUs p may use, a CPU running only SCHED_IDLE
// tasks at once (for a task that is not SCHED_IDLE), else the idle CPU
// that idled most recently (rq->idle_stamp strictly the latest; without
// cpuidle states nothing else distinguishes idle CPUs, and a stamp of 0 is
// never chosen), else the least loaded busy CPU (this if none is lower).
func (s *System) findDstGroupCPU(g *topology.Group, p *Task, this int) int {
	if g.Weight() == 1 {
		return g.FirstCPU()
	}
	minLoad := ^uint64(0)
	var latest uint64
	leastLoaded, shallowest := this, -1
	span := g.Span()
	for i := span.FirstAnd(p.allowed); i >= 0; i = span.NextAnd(i, p.allowed) {
		if !s.coreCookieMatch(i, p) {
			continue
		}
		if s.chooseSchedIdleRq(i, p) {
			return i
		}
		if s.availableIdleCPU(i) {
			if st := s.cpus[i].idleStamp; st > latest {
				latest, shallowest = st, i
			}
		} else if shallowest == -1 {
			if load := s.cpuLoad(i); load < minLoad {
				minLoad, leastLoaded = load, i
			}
		}
	}
	if shallowest != -1 {
		return shallowest
	}
	return leastLoaded
}

// findDstCPU is sched_balance_find_dst_cpu (§3.7 rule 1): from sd down,
// the idlest group's idlest CPU; after a move to another CPU, that CPU's
// highest domain below the current level with the flag is next.
func (s *System) findDstCPU(sd *topology.Domain, p *Task, cpu, prev int, sdFlag topology.Flags) int {
	if !sd.Span().Intersects(p.allowed) {
		return prev
	}
	if sdFlag&topology.SDBalanceFork == 0 {
		_ = s.rq(p.cpu).SyncLoadAvg(p.se)
	}
	newCPU := cpu
	for sd != nil {
		if sd.Flags()&sdFlag == 0 {
			sd = sd.Child()
			continue
		}
		g := s.findDstGroup(sd, p, cpu)
		if g == nil {
			sd = sd.Child()
			continue
		}
		newCPU = s.findDstGroupCPU(g, p, cpu)
		if newCPU == cpu {
			sd = sd.Child()
			continue
		}
		cpu = newCPU
		weight := sd.Weight()
		sd = nil
		for _, tmp := range s.top.Domains(cpu) {
			if weight <= tmp.Weight() {
				break
			}
			if tmp.Flags()&sdFlag != 0 {
				sd = tmp
			}
		}
	}
	return newCPU
}
