package smp

import (
	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// sched_balance_rq and what it reads (KERNEL-SPEC-SMP §5.5–§5.13): the
// statistics of a domain's groups, the busiest group and CPU, the amount
// and kind of imbalance, and the detach and attach of tasks.

// cpuIdleType is enum cpu_idle_type.
type cpuIdleType uint8

const (
	cpuNotIdle   cpuIdleType = iota // __CPU_NOT_IDLE: a busy CPU's periodic balance
	cpuIdle                         // CPU_IDLE: an idle CPU's periodic balance
	cpuNewlyIdle                    // CPU_NEWLY_IDLE: about to go idle
)

// migrationType is enum migration_type.
type migrationType uint8

const (
	migrateLoad migrationType = iota
	migrateUtil
	migrateTask
	migrateMisfit
)

// lbFlags are the LBF_* flags.
type lbFlags uint8

const (
	lbfAllPinned lbFlags = 1 << iota
	lbfNeedBreak
	lbfDstPinned
	lbfSomePinned
	lbfActiveLB
)

// lbEnv is struct lb_env.
type lbEnv struct {
	sd         *topology.Domain
	d          *domState
	srcCPU     int
	dstCPU     int
	dstGrpmask *topology.Mask
	newDstCPU  int
	idle       cpuIdleType
	imbalance  int64
	cpus       *topology.Mask
	flags      lbFlags
	loop       int
	loopBreak  int
	loopMax    int
	mtype      migrationType
}

// sdStats is struct sd_lb_stats.
type sdStats struct {
	busiest, local     *topology.Group
	totalLoad          uint64
	totalCapacity      uint64
	avgLoad            uint64
	busiestSt, localSt sgStats
	preferSibling      bool
}

// dom returns the balancing state of domain d.
func (s *System) dom(d *topology.Domain) *domState { return &s.doms[d.ID()] }

// balanceInterval is get_sd_balance_interval: balance_interval ms, times
// busy_factor for a busy CPU, in jiffies, one less when busy (so that
// levels do not fall due at multiples of each other), clamped to
// [1, max_load_balance_interval].
func (s *System) balanceInterval(sd *topology.Domain, busy bool) uint64 {
	ms := s.dom(sd).balanceInterval
	if busy {
		ms *= sd.BusyFactor()
	}
	iv := s.msecsToJiffies(ms)
	if busy {
		iv--
	}
	return min(max(iv, 1), s.top.MaxLoadBalanceInterval(int(s.hz)))
}

// msecsToJiffies is msecs_to_jiffies: ⌈m·HZ/1000⌉.
func (s *System) msecsToJiffies(m uint64) uint64 { return (m*s.hz + 999) / 1000 }

// shouldWeBalance is should_we_balance (§5.3): a newly idle CPU always
// balances (unless something is queued on it meanwhile); otherwise only the
// first idle CPU of the local group — preferring one on an idle core above
// the SMT level —, or its first CPU if none idles, balances the level.
func (s *System) shouldWeBalance(env *lbEnv) bool {
	if !env.cpus.Test(env.dstCPU) {
		return false
	}
	if env.idle == cpuNewlyIdle {
		return s.cpus[env.dstCPU].rq.NrRunning() == 0
	}
	sg := env.sd.LocalGroup()
	swb := s.swbCpus
	swb.Copy(sg.BalanceMask())
	idleSMT := -1
	for c := swb.FirstAnd(env.cpus); c >= 0; c = swb.NextAnd(c, env.cpus) {
		if !s.idleCPU(c) {
			continue
		}
		if !env.sd.Has(topology.SDShareCPUCapacity) && !s.isCoreIdle(c) {
			if idleSMT == -1 {
				idleSMT = c
			}
			swb.AndNot(swb, s.top.SMTMask(c))
			continue
		}
		return c == env.dstCPU
	}
	if idleSMT != -1 {
		return idleSMT == env.dstCPU
	}
	return sg.BalanceCPU() == env.dstCPU
}

// updateSgLbStats is update_sg_lb_stats (§5.6 rule 2). overloaded reports
// a CPU with more than one task, for the top domain's root flag.
func (s *System) updateSgLbStats(env *lbEnv, sg *topology.Group, local bool, overloaded *bool) sgStats {
	st := sgStats{eas: s.easOn}
	top := env.sd.Parent() == nil
	span := sg.Span()
	for i := span.FirstAnd(env.cpus); i >= 0; i = span.NextAnd(i, env.cpus) {
		rq := s.cpus[i].rq
		st.groupLoad += s.cpuLoad(i)
		st.groupUtil += s.cpuUtilCfs(i)
		st.groupRunnable += s.cpuRunnable(i)
		st.sumHNrRunning += rq.NrRunnable()
		nr := rq.NrRunning()
		st.sumNrRunning += nr
		if s.easOn && s.cpuOverutilized(i) {
			st.groupOverutilized = true // KERNEL-SPEC-ASYM §7.1
		}
		if nr == 0 && s.idleCPU(i) {
			st.idleCPUs++
			continue
		}
		if top && nr > 1 {
			*overloaded = true
		}
		if !local && env.sd.Has(topology.SDAsymCPUCapacity) {
			s.asymMisfitStats(env, sg, i, top, &st, overloaded)
		}
	}
	st.groupCapacity = sg.Capacity()
	st.groupWeight = sg.Weight()
	st.groupImbalance = s.groupImbalanced(sg)
	// smt_balance: an SMT core with more than one runnable task, seen
	// from an idle CPU.
	if !local && env.idle != cpuNotIdle && sg.Flags().Has(topology.SDShareCPUCapacity) && st.sumHNrRunning > 1 {
		st.groupSMTBal = true
	}
	st.groupType = groupClassify(env.sd.ImbalancePct(), &st)
	if st.groupType == groupOverloaded {
		st.avgLoad = st.groupLoad * capacity / st.groupCapacity
	}
	return st
}

// isSMTGroup reports a group that is an SMT core (its flags are its child
// SMT domain's).
func isSMTGroup(g *topology.Group) bool {
	return g != nil && g.Flags().Has(topology.SDShareCPUCapacity)
}

// smtVsNonSMTGroups is smt_vs_nonsmt_groups: exactly one of the two is an
// SMT group.
func smtVsNonSMTGroups(a, b *topology.Group) bool {
	if a == nil || b == nil {
		return false
	}
	return isSMTGroup(a) != isSMTGroup(b)
}

// updateSdPickBusiest is update_sd_pick_busiest (§5.8): does sg (stats
// st) replace the busiest group so far?
func updateSdPickBusiest(sds *sdStats, sg *topology.Group, st *sgStats) bool {
	b := &sds.busiestSt
	if st.sumHNrRunning == 0 {
		return false
	}
	if st.groupType != b.groupType {
		return st.groupType > b.groupType
	}
	switch st.groupType {
	case groupOverloaded:
		return st.avgLoad > b.avgLoad
	case groupImbalanced:
		return false
	case groupMisfitTask:
		return st.groupMisfitTaskLoad > b.groupMisfitTaskLoad
	case groupSMTBalance:
		if st.idleCPUs != 0 || b.idleCPUs != 0 {
			return hasSparePick(st, b)
		}
		fallthrough
	case groupFullyBusy:
		// avg_load is not computed for these (0 on both sides): the
		// later group wins, unless the busiest so far is an SMT core.
		if st.avgLoad < b.avgLoad {
			return false
		}
		if st.avgLoad == b.avgLoad && isSMTGroup(sds.busiest) {
			return false
		}
		return true
	case groupHasSpare:
		if smtVsNonSMTGroups(sds.busiest, sg) {
			return !(isSMTGroup(sg) && st.sumHNrRunning <= 1)
		}
		return hasSparePick(st, b)
	}
	return true
}

// hasSparePick is the has_spare comparison: fewer idle CPUs, then more
// tasks, wins.
func hasSparePick(st, b *sgStats) bool {
	if st.idleCPUs > b.idleCPUs {
		return false
	}
	return !(st.idleCPUs == b.idleCPUs && st.sumNrRunning <= b.sumNrRunning)
}

// updateSdLbStats is update_sd_lb_stats (§5.6): the statistics of every
// group of the domain, in the domain's group order from the local one,
// the busiest non-local group, the root overloaded flag at the top
// domain, and nr_idle_scan at the LLC domain. (update_group_capacity is
// not modelled: capacities never change, §1.10.)
func (s *System) updateSdLbStats(env *lbEnv, sds *sdStats) {
	*sds = sdStats{busiestSt: sgStats{idleCPUs: int(^uint32(0) >> 1), groupType: groupHasSpare}}
	var sumUtil uint64
	overloaded, overutilized := false, false
	for k := 0; k < env.sd.NumGroups(); k++ {
		sg := env.sd.Group(k)
		local := sg.Span().Test(env.dstCPU)
		st := s.updateSgLbStats(env, sg, local, &overloaded)
		if local {
			sds.local, sds.localSt = sg, st
		} else if !s.asymPickVeto(env, sds, sg, &st) && updateSdPickBusiest(sds, sg, &st) {
			sds.busiest, sds.busiestSt = sg, st
		}
		sds.totalLoad += st.groupLoad
		sds.totalCapacity += st.groupCapacity
		sumUtil += st.groupUtil
		overutilized = overutilized || st.groupOverutilized
	}
	if sds.busiest != nil {
		sds.preferSibling = sds.busiest.Flags().Has(topology.SDPreferSibling)
	}
	if env.sd.Parent() == nil {
		s.overloaded = overloaded
	}
	if s.easOn {
		s.updateSdOverutilized(env.sd, overutilized) // KERNEL-SPEC-ASYM §6 rule 4
	}
	s.updateIdleCPUScan(env, sumUtil)
}

// updateIdleCPUScan is update_idle_cpu_scan (§3.6 rule 5): after a
// periodic balance of the LLC domain, the number of CPUs select_idle_cpu
// may scan shrinks with the LLC's utilization, quadratically, to none at
// about 85 %: with x the mean utilization per CPU, w the LLC weight and p
// its imbalance_pct, nr_idle_scan = ⌊(1024 − min(⌊x²p²/(10⁴·1024)⌋, 1024))·w/1024⌋.
//
// It runs for a domain that owns a shared object (KERNEL-SPEC-ASYM §2.5):
// the LLC domain, and an asymmetric domain above the LLCs, whose object's
// nr_idle_scan bounds select_idle_capacity (§4.3); w and p are then that
// domain's.
func (s *System) updateIdleCPUScan(env *lbEnv, sumUtil uint64) {
	if !s.feat.Has(features.SISUtil) || env.idle == cpuNewlyIdle {
		return
	}
	var l *llcState
	w := uint64(s.top.SDLLCSize(env.dstCPU))
	switch {
	case uint64(env.sd.Weight()) == w:
		l = s.llcOf(env.dstCPU)
	case env.sd == s.top.SDAsymCPUCapacity(env.dstCPU):
		w = uint64(env.sd.Weight())
		l = s.asymSharedOf(env.dstCPU)
	}
	if l == nil {
		return
	}
	x := sumUtil / w
	pct := env.sd.ImbalancePct()
	t := min(x*x*pct*pct/(10000*capacity), capacity)
	y := (capacity - t) * w / capacity
	l.nrIdleScan = int(y)
}

// siblingImbalance is sibling_imbalance (§5.9 rule 8): how many tasks to
// move so that both groups run as many tasks per core.
func siblingImbalance(env *lbEnv, sds *sdStats) int64 {
	b, l := &sds.busiestSt, &sds.localSt
	if env.idle == cpuNotIdle || b.sumNrRunning == 0 {
		return 0
	}
	nb, nl := int64(sds.busiest.Cores()), int64(sds.local.Cores())
	if nb == nl {
		return max(int64(b.sumNrRunning)-int64(l.sumNrRunning), 0)
	}
	imb := max(nl*int64(b.sumNrRunning)-nb*int64(l.sumNrRunning), 0)
	imb = (2*imb + nl + nb) / (nl + nb) // normalised, rounded
	if imb <= 1 && l.sumNrRunning == 0 && b.sumNrRunning > 1 {
		imb = 2 // an empty group takes a task from a busier one
	}
	return imb
}

// findSrcGroup is sched_balance_find_src_group (§5.9): the busiest group
// if there is an imbalance worth fixing (env.imbalance set), else nil.
func (s *System) findSrcGroup(env *lbEnv) *topology.Group {
	var sds sdStats
	s.updateSdLbStats(env, &sds)
	if sds.busiest == nil {
		env.imbalance = 0
		return nil
	}
	b, l := &sds.busiestSt, &sds.localSt
	pct := env.sd.ImbalancePct()
	if b.groupType != groupMisfitTask && s.easBalanced() {
		// While EAS places tasks, only misfits move (KERNEL-SPEC-ASYM §7.4).
		env.imbalance = 0
		return nil
	}
	// A misfit is dealt with whatever the loads (KERNEL-SPEC-ASYM §7.4).
	force := b.groupType == groupImbalanced || b.groupType == groupMisfitTask
	if !force {
		switch {
		case l.groupType > b.groupType:
			env.imbalance = 0
			return nil
		case l.groupType == groupOverloaded:
			if l.avgLoad >= b.avgLoad {
				env.imbalance = 0
				return nil
			}
			sds.avgLoad = sds.totalLoad * capacity / sds.totalCapacity
			if l.avgLoad >= sds.avgLoad || 100*b.avgLoad <= pct*l.avgLoad {
				env.imbalance = 0
				return nil
			}
		}
	}
	if !force && sds.preferSibling && l.groupType == groupHasSpare && siblingImbalance(env, &sds) > 1 {
		force = true
	}
	if !force && b.groupType != groupOverloaded {
		switch {
		case env.idle == cpuNotIdle:
			// A busy CPU leaves a group that is not overloaded to the
			// idle CPUs.
			env.imbalance = 0
			return nil
		case b.groupType == groupSMTBalance && smtVsNonSMTGroups(sds.local, sds.busiest):
			// A CPU of a non-SMT group takes from an SMT core.
		case b.groupWeight > 1 && l.idleCPUs <= b.idleCPUs+1,
			b.sumHNrRunning == 1:
			env.imbalance = 0
			return nil
		}
	}
	s.calculateImbalance(env, &sds)
	if env.imbalance == 0 {
		return nil
	}
	return sds.busiest
}

// calculateImbalance is calculate_imbalance (§5.10): the migration type
// and the amount.
func (s *System) calculateImbalance(env *lbEnv, sds *sdStats) {
	b, l := &sds.busiestSt, &sds.localSt
	if b.groupType == groupMisfitTask && env.sd.Has(topology.SDAsymCPUCapacity) {
		// Move the misfit task itself (KERNEL-SPEC-ASYM §7.5).
		env.mtype, env.imbalance = migrateMisfit, 1
		return
	}
	switch b.groupType {
	case groupSMTBalance, groupImbalanced:
		// Reduce the tasks sharing a core; or move anything, affinity
		// permitting, and let the next pass even the load.
		env.mtype, env.imbalance = migrateTask, 1
		return
	}
	if l.groupType == groupHasSpare {
		if b.groupType > groupFullyBusy && !env.sd.Has(topology.SDShareLLC) {
			// Fill the local spare capacity from an overloaded group.
			env.mtype = migrateUtil
			env.imbalance = int64(max(l.groupCapacity, l.groupUtil) - l.groupUtil)
			if env.idle != cpuNotIdle && env.imbalance == 0 {
				env.mtype, env.imbalance = migrateTask, 1
			}
			return
		}
		env.mtype = migrateTask
		if b.groupWeight == 1 || sds.preferSibling {
			env.imbalance = siblingImbalance(env, sds)
		} else {
			// Even out the idle CPUs (unsigned difference read as int).
			env.imbalance = max(int64(int32(uint32(l.idleCPUs)-uint32(b.idleCPUs))), 0)
		}
		env.imbalance >>= 1
		return
	}
	if l.groupType < groupOverloaded {
		l.avgLoad = l.groupLoad * capacity / l.groupCapacity
		if l.avgLoad >= b.avgLoad {
			env.imbalance = 0
			return
		}
		sds.avgLoad = sds.totalLoad * capacity / sds.totalCapacity
		if l.avgLoad >= sds.avgLoad {
			env.imbalance = 0
			return
		}
	}
	// Both are (or will be) overloaded: move towards the domain's average
	// load without pushing either side past it, in unsigned arithmetic.
	env.mtype = migrateLoad
	env.imbalance = int64(min((b.avgLoad-sds.avgLoad)*b.groupCapacity, (sds.avgLoad-l.avgLoad)*l.groupCapacity) / capacity)
}

// findSrcRq is sched_balance_find_src_rq (§5.11): the busiest CPU of the
// group for the migration type, the lowest id on ties.
func (s *System) findSrcRq(env *lbEnv, g *topology.Group) int {
	busiest := -1
	var bestLoad, bestUtil uint64
	bestCap := uint64(1)
	bestNr := 0
	span := g.Span()
	for i := span.FirstAnd(env.cpus); i >= 0; i = span.NextAnd(i, env.cpus) {
		nr := s.cpus[i].rq.NrRunnable()
		if nr == 0 || s.asymSkipSrcRq(env, i, nr) {
			continue
		}
		switch env.mtype {
		case migrateMisfit:
			// The biggest misfit; a CPU without one is never chosen.
			if m := s.cpus[i].misfitTaskLoad; m > bestLoad {
				bestLoad, busiest = m, i
			}
		case migrateLoad:
			load := s.cpuLoad(i)
			// A lone task heavier than the imbalance stays (the CPU's
			// capacity is never reduced in the model).
			if nr == 1 && load > uint64(env.imbalance) {
				continue
			}
			if c := s.capacityOf(i); load*bestCap > bestLoad*c {
				bestLoad, bestCap, busiest = load, c, i
			}
		case migrateUtil:
			util := s.cpuUtilCfsBoost(i)
			if nr <= 1 {
				continue
			}
			if bestUtil < util {
				bestUtil, busiest = util, i
			}
		case migrateTask:
			if bestNr < nr {
				bestNr, busiest = nr, i
			}
		}
	}
	return busiest
}

// taskHot is task_hot (§5.12 rule 4): a task that ran less than
// migration_cost ago on its CPU is cache-hot, unless it is SCHED_IDLE or
// the domain is an SMT core; the source's next buddy is hot while the
// destination has tasks (CACHE_HOT_BUDDY).
func (s *System) taskHot(p *Task, env *lbEnv) bool {
	if p.se.Policy() == eevdf.PolicyIdle || env.sd.Has(topology.SDShareCPUCapacity) {
		return false
	}
	src := s.cpus[env.srcCPU].rq
	if s.feat.Has(features.CacheHotBuddy) && s.cpus[env.dstCPU].rq.NrRunning() > 0 && src.NextBuddy() == p.se {
		return true
	}
	if !s.coreCookieMatch(env.dstCPU, p) {
		return true // a core running another cookie: keep the task (core scheduling)
	}
	delta := int64(src.Clock() - p.se.ExecStart())
	return delta < topology.MigrationCost
}

// canMigrateTask is can_migrate_task (§5.12 rule 3), in the kernel's order.
func (s *System) canMigrateTask(p *Task, env *lbEnv) bool {
	se := p.se
	if se.Delayed() && env.mtype != migrateLoad {
		return false
	}
	// Ineligible tasks move only after a failure (task_is_ineligible_on_dst_cpu).
	if env.d.nrBalanceFailed == 0 && s.feat.Has(features.PlaceLag) &&
		s.cpus[env.dstCPU].rq.NrQueuedEntities() > 0 && !s.cpus[env.srcCPU].rq.Eligible(se) {
		return false
	}
	if !p.allowedOn(env.dstCPU) {
		env.flags |= lbfSomePinned
		if env.idle == cpuNewlyIdle || env.flags&(lbfDstPinned|lbfActiveLB) != 0 {
			return false
		}
		// Remember a CPU of the local group that p may use.
		for c := env.dstGrpmask.FirstAnd(env.cpus); c >= 0; c = env.dstGrpmask.NextAnd(c, env.cpus) {
			if p.allowedOn(c) {
				env.flags |= lbfDstPinned
				env.newDstCPU = c
				break
			}
		}
		return false
	}
	env.flags &^= lbfAllPinned
	if s.cpus[env.srcCPU].rq.Curr() == se {
		return false
	}
	if env.flags&lbfActiveLB != 0 {
		return true
	}
	hot := s.taskHot(p, env)
	return !hot || env.d.nrBalanceFailed > env.sd.CacheNiceTries()
}

// shrBound is shr_bound: v >> min(s, 63).
func shrBound(v, sh uint64) uint64 { return v >> min(sh, 63) }

// detachTasks is detach_tasks (§5.12): from the tail of the busiest CPU's
// cfs_tasks (the least recently run), the tasks that may move and fit the
// imbalance, rotating the others to the head; a newly idle balance takes
// one. It returns how many were detached onto s.lbTasks.
func (s *System) detachTasks(env *lbEnv) int {
	src := s.cpus[env.srcCPU].rq
	if src.NrRunning() <= 1 {
		env.flags &^= lbfAllPinned
		return 0
	}
	if env.imbalance <= 0 {
		return 0
	}
	detached := 0
	for src.LastTask() != nil {
		if env.idle != cpuNotIdle && src.NrRunning() <= 1 {
			break // never take the last task
		}
		env.loop++
		if env.loop > env.loopMax {
			break
		}
		if env.loop > env.loopBreak {
			env.loopBreak += topology.NrMigrateBreak
			env.flags |= lbfNeedBreak
			break
		}
		se := src.LastTask()
		p := s.ownTask(se)
		if p == nil || !s.canMigrateTask(p, env) {
			// An entity that is no task of the System (enqueued behind
			// its back) is never moved: it stays, as a pinned task does.
			_ = src.RotateTask(se)
			continue
		}
		switch env.mtype {
		case migrateLoad:
			load := max(s.taskHLoad(p), 1)
			if s.feat.Has(features.LBMin) && load < 16 && env.d.nrBalanceFailed == 0 {
				_ = src.RotateTask(p.se)
				continue
			}
			if shrBound(load, env.d.nrBalanceFailed) > uint64(env.imbalance) {
				_ = src.RotateTask(p.se)
				continue
			}
			env.imbalance -= int64(load)
		case migrateUtil:
			util := taskUtilEst(p)
			if shrBound(util, env.d.nrBalanceFailed) > uint64(env.imbalance) {
				_ = src.RotateTask(p.se)
				continue
			}
			env.imbalance -= int64(util)
		case migrateTask:
			env.imbalance--
		case migrateMisfit:
			if s.taskFitsCPU(p, env.srcCPU) {
				_ = src.RotateTask(p.se) // not the misfit one
				continue
			}
			env.imbalance = 0
		}
		s.detachTask(p, env.dstCPU)
		// list_add: the detached list is attached from its front, so in
		// reverse detach order.
		s.lbTasks = append(s.lbTasks, p)
		detached++
		if env.idle == cpuNewlyIdle {
			break // a preemptible kernel detaches one task when newly idle
		}
		if env.imbalance <= 0 {
			break
		}
	}
	return detached
}

// attachTasks is attach_tasks: the detached tasks onto the destination,
// the last detached first.
func (s *System) attachTasks() {
	for i := len(s.lbTasks) - 1; i >= 0; i-- {
		s.attachTask(s.lbTasks[i])
		s.stats.BalanceMoves++
	}
	s.lbTasks = s.lbTasks[:0]
}

// balanceRQ is sched_balance_rq (§5.5) of domain sd for this CPU: it
// returns the number of tasks moved here, and clears continueBalancing
// when another CPU of the local group is the one to balance this level.
func (s *System) balanceRQ(this int, sd *topology.Domain, idle cpuIdleType, continueBalancing *bool) int {
	d := s.dom(sd)
	env := lbEnv{
		sd:         sd,
		d:          d,
		dstCPU:     this,
		dstGrpmask: sd.LocalGroup().BalanceMask(),
		idle:       idle,
		loopBreak:  topology.NrMigrateBreak,
		cpus:       s.lbCpus,
		newDstCPU:  -1,
	}
	env.cpus.Copy(sd.Span()) // ∩ cpu_active_mask: every CPU is active
	s.stats.BalanceCalls[idle]++
	moved := 0
	busiest := -1
	activeKicked := false
	if s.traceEvents {
		defer func() { s.lbEvent(this, &env, busiest, moved) }()
	}
redo:
	if !s.shouldWeBalance(&env) {
		*continueBalancing = false
		return s.balanced(&env, sd)
	}
	group := s.findSrcGroup(&env)
	if group == nil {
		return s.balanced(&env, sd)
	}
	busiest = s.findSrcRq(&env, group)
	if busiest < 0 {
		return s.balanced(&env, sd)
	}
	env.srcCPU = busiest
	env.flags |= lbfAllPinned
	if n := s.cpus[busiest].rq.NrRunning(); n > 1 {
		env.loopMax = min(topology.NrMigrate, n)
	more:
		_ = s.rq(busiest) // update_rq_clock(busiest)
		cur := s.detachTasks(&env)
		if cur > 0 {
			s.rq(env.dstCPU)
			s.attachTasks()
			moved += cur
		}
		if env.flags&lbfNeedBreak != 0 {
			env.flags &^= lbfNeedBreak
			goto more
		}
		if env.flags&lbfDstPinned != 0 && env.imbalance > 0 {
			// Revisit the source for another CPU of the local group.
			env.cpus.Clear(env.dstCPU)
			env.dstCPU = env.newDstCPU
			env.flags &^= lbfDstPinned
			env.loop = 0
			env.loopBreak = topology.NrMigrateBreak
			goto more
		}
		if p := sd.Parent(); p != nil && env.flags&lbfSomePinned != 0 && env.imbalance > 0 {
			s.groups[p.LocalGroup().ID()].imbalance = true
		}
		if env.flags&lbfAllPinned != 0 {
			env.cpus.Clear(busiest)
			if !env.cpus.SubsetOf(env.dstGrpmask) {
				env.loop = 0
				env.loopBreak = topology.NrMigrateBreak
				goto redo
			}
			return s.allPinned(&env, sd)
		}
	}
	if moved == 0 {
		if idle != cpuNewlyIdle && env.mtype != migrateMisfit {
			d.nrBalanceFailed++
		}
		if s.needActiveBalance(&env) {
			bcurr := s.ownTask(s.cpus[busiest].rq.Curr())
			if bcurr == nil || !bcurr.allowedOn(this) {
				return s.onePinned(&env, sd)
			}
			env.flags &^= lbfAllPinned
			if bc := &s.cpus[busiest]; !bc.activeBalance && bcurr.se.OnRq() {
				bc.activeBalance = true
				bc.pushCPU = this
				s.deferStopper(busiest)
				s.event(Event{Kind: EventActiveKick, CPU: this, Busiest: busiest, Target: this})
				activeKicked = true
				s.stats.ActiveKicks++
			}
		}
	} else {
		d.nrBalanceFailed = 0
	}
	_ = activeKicked
	// Unbalanced: balance again soon.
	d.balanceInterval = sd.MinInterval()
	return moved
}

// balanced is the out_balanced exit: the parent's view of this domain as
// held back by affinity is cleared if some task could have moved, then as
// all pinned.
func (s *System) balanced(env *lbEnv, sd *topology.Domain) int {
	if p := sd.Parent(); p != nil && env.flags&lbfAllPinned == 0 {
		s.groups[p.LocalGroup().ID()].imbalance = false
	}
	return s.allPinned(env, sd)
}

// allPinned is the out_all_pinned exit: no failure counted.
func (s *System) allPinned(env *lbEnv, sd *topology.Domain) int {
	env.d.nrBalanceFailed = 0
	return s.onePinned(env, sd)
}

// onePinned is the out_one_pinned exit: a periodic balance that moved
// nothing backs off, doubling balance_interval up to max_interval (up to
// MAX_PINNED_INTERVAL while everything is pinned).
func (s *System) onePinned(env *lbEnv, sd *topology.Domain) int {
	if env.idle == cpuNewlyIdle || env.mtype == migrateMisfit {
		return 0
	}
	d := env.d
	if (env.flags&lbfAllPinned != 0 && d.balanceInterval < topology.MaxPinnedInterval) || d.balanceInterval < sd.MaxInterval() {
		d.balanceInterval *= 2
	}
	return 0
}

// needActiveBalance is need_active_balance (§5.14 rule 1): tasks must be
// moved and the domain has failed more than cache_nice_tries + 2 times in
// a row, or a misfit is to move (the reduced-capacity rule never applies:
// no capacity is reduced in the model).
func (s *System) needActiveBalance(env *lbEnv) bool {
	if env.mtype == migrateTask && env.d.nrBalanceFailed > env.sd.CacheNiceTries()+2 {
		return true
	}
	// A misfit is pushed by the stopper of its CPU (KERNEL-SPEC-ASYM §7.9).
	return env.mtype == migrateMisfit
}
