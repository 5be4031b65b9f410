package eevdf

import (
	"fmt"

	"github.com/schedmodel/fairclass/pelt"
)

// The per-CPU side of the group hierarchy: the queues, the group entities,
// and the walks that enqueue, dequeue, install and tick a task through
// them (enqueue_hierarchy, dequeue_hierarchy, set_next_task_fair,
// put_prev_task_fair, task_tick_fair).
//
// A task's levels, bottom-up: the task itself on its group's queue, then
// its group's entity on the parent group's queue, and so on up to a
// top-level group's entity on the CPU's root queue. A task of the root
// group has one level. On a runqueue without a hierarchy every walk below
// is that one level and costs what the flat runqueue always cost.

// cfsQueue is the part of struct cfs_rq that every queue has, the CPU's
// root queue (embedded in CfsRq) and each group's queue on the CPU.
type cfsQueue struct {
	loadWeight  uint64 // load.weight: Σ load.weight of the on_rq entities directly on it
	nrQueued    int    // nr_queued: the on_rq entities directly on it
	hNrQueued   int    // h_nr_queued: the queued tasks below it
	hNrRunnable int    // h_nr_runnable: those not delayed
	hNrIdle     int    // h_nr_idle: the SCHED_IDLE ones, and all below an idle group
	idle        bool   // cfs_rq->idle: the queue of an idle group

	// PELT, kept only when the runqueue keeps PELT signals.
	hCurr   any // h_curr: this level's entity on the running task's path (*SchedEntity or *groupRq)
	avg     pelt.Avg
	removed pelt.Removed
	prop    pelt.Propagation // propagate, prop_runnable_sum
	tg      pelt.TGContrib   // what a group queue last published to its group

	// The leaf list (leaf.go) and the h_load cache (hload.go).
	grp                *groupRq  // the group this queue belongs to, nil for the root queue
	onList             bool      // on_list: on the CPU's leaf list
	leafPrev, leafNext *cfsQueue // neighbours on the leaf list
	hLoad              uint64    // h_load: this queue's part of the CPU's root load
	hLoadStamp         uint64    // last_h_load_update as jiffy+1; 0: never refreshed
	hLoadNext          *groupRq  // h_load_next: the refresh's way down
}

// groupRq is one task group on one CPU: its entity (tg->se[cpu]) on the
// parent group's queue, and its own queue (tg->cfs_rq[cpu]). Group
// entities never enter the timeline; only their weight, counters and PELT
// signals matter.
type groupRq struct {
	tg     *TaskGroup
	rq     *CfsRq
	parent *groupRq // the parent group on this CPU; nil: the entity is on the root queue

	// The entity.
	weight     uint64 // load.weight
	onRq       bool
	runWeight  uint64 // runnable_weight: the queue's h_nr_runnable at the last walk
	avg        pelt.Avg
	sharesMode CgroupMode // the share function of the last update_cfs_group

	// The queue.
	q cfsQueue
}

// queue is cfs_rq_of(group entity): the queue the group's entity is on.
func (g *groupRq) queue() *cfsQueue {
	if g.parent == nil {
		return &g.rq.cfsQueue
	}
	return &g.parent.q
}

// depth is the entity's depth: 0 on the root queue.
func (g *groupRq) depth() int { return g.tg.depth }

// taskGroupRq is the group se belongs to on this CPU, nil for the root
// group: the queue se is on.
func (rq *CfsRq) taskGroupRq(se *SchedEntity) *groupRq {
	if se.group == nil || se.group.parent == nil {
		return nil
	}
	return se.group.cpu[rq.cpu]
}

// queueOf returns the queue of g on this CPU, the root queue for nil.
func (rq *CfsRq) queueOf(g *groupRq) *cfsQueue {
	if g == nil {
		return &rq.cfsQueue
	}
	return &g.q
}

// taskDepth is a task entity's depth: its group's entity depth + 1.
func taskDepth(se *SchedEntity) int {
	if se.group == nil || se.group.parent == nil {
		return 0
	}
	return se.group.depth + 1
}

// WithHierarchy makes the runqueue the next CPU of h (CPU 0 for the first
// runqueue created with h, and so on): every group of h, existing or
// created later, gets a queue and an entity on it. A runqueue with a
// hierarchy keeps PELT signals, which the share functions read.
func WithHierarchy(h *Hierarchy) Option {
	return func(rq *CfsRq) error {
		if h == nil {
			return fmt.Errorf("%w: nil hierarchy", ErrBadOption)
		}
		h.init()
		rq.h = h
		rq.pelt = true
		return nil
	}
}

// WithPELT keeps the PELT signals (load, runnable and utilization
// averages) of every entity and queue, updated at the kernel's points
// (default off: no cost). A runqueue WithHierarchy keeps them anyway.
func WithPELT(on bool) Option {
	return func(rq *CfsRq) error {
		rq.pelt = rq.pelt || on
		return nil
	}
}

// attachHierarchy registers rq as the next CPU of its hierarchy and brings
// every existing group online on it, in creation order.
func (rq *CfsRq) attachHierarchy() {
	h := rq.h
	rq.cpu = len(h.rqs)
	h.rqs = append(h.rqs, rq)
	for _, g := range h.groups {
		rq.onlineGroup(g)
	}
}

// onlineGroup is alloc_fair_sched_group and online_fair_sched_group for
// one CPU: a zeroed queue, an entity of weight NICE_0_LOAD on the parent's
// queue, attached to it for PELT at the current clock (which leaves a
// load_sum of 1 and a pending propagation, as the kernel's attach does).
func (rq *CfsRq) onlineGroup(g *TaskGroup) {
	gr := &groupRq{tg: g, rq: rq, weight: Nice0Load, sharesMode: rq.h.mode}
	gr.q.grp = gr
	if g.parent != nil && g.parent.parent != nil {
		gr.parent = g.parent.cpu[rq.cpu]
	}
	g.cpu = append(g.cpu, gr)
	rq.attachEntityGroup(gr)
}

// enqueueHierarchy is enqueue_hierarchy: count se on every level, putting
// on_rq the group entities that were not, and return the effective weight
// folded from the loads as they are after the walk (the kernel folds
// level by level; no level's update changes what a lower level reads).
// It runs on a runqueue that keeps PELT; enqueueFlat is the same
// accounting for one that does not (and so has no groups).
func (rq *CfsRq) enqueueHierarchy(se *SchedEntity, flags EnqueueFlags) uint64 {
	runnable, idle := 1, 0
	if flags&EnqueueWakeup == 0 && se.delayed {
		runnable = 0 // a delayed task restored after a save stays not runnable
	}
	if se.policy == PolicyIdle {
		idle = 1
	}
	rq.updateCurr() // update_curr of the task's level: nothing left to charge at this clock
	se.rq = rq
	on := rq.taskGroupRq(se)
	q := rq.queueOf(on)
	// enqueue_entity for the task.
	rq.updateLoadAvgTask(se, on, updateTG|doAttach)
	q.loadWeight += se.load.weight
	q.nrQueued++
	if q.nrQueued == 1 {
		rq.listAddLeaf(q)
	}
	if flags&EnqueueMigrated != 0 {
		se.execStart = 0
	}
	rq.tasks.push(se) // account_entity_enqueue: at the head of cfs_tasks
	se.onRq = true
	rq.vAtZero = false // a current se joins V
	q.hNrRunnable += runnable
	q.hNrQueued++
	q.hNrIdle += idle
	if on == nil {
		return calcPropWeight(se)
	}
	if q.idle {
		idle = 1
	}
	for g := on; g != nil; g = g.parent {
		pq := g.queue()
		if !g.onRq {
			rq.enqueueGroupEntity(g)
		} else {
			rq.updateLoadAvgGroup(g, updateTG)
			g.runWeight = uint64(g.q.hNrRunnable) // se_update_runnable
			rq.updateCfsGroup(g)
		}
		pq.hNrRunnable += runnable
		pq.hNrQueued++
		pq.hNrIdle += idle
		if pq.idle {
			idle = 1
		}
	}
	return rq.propWeight(se)
}

// enqueueGroupEntity is enqueue_entity for a group entity: PELT (attach on
// the first time), its runnable weight, its new weight from the share
// function (before it is added to the parent queue), then counted.
func (rq *CfsRq) enqueueGroupEntity(g *groupRq) {
	rq.updateLoadAvgGroup(g, updateTG|doAttach)
	g.runWeight = uint64(g.q.hNrRunnable)
	rq.updateCfsGroup(g)
	pq := g.queue()
	pq.loadWeight += g.weight
	pq.nrQueued++
	g.onRq = true
	if pq.nrQueued == 1 {
		rq.listAddLeaf(pq)
	}
}

// dequeueHierarchy is dequeue_hierarchy: uncount se on every level; a group
// entity whose queue became empty leaves its parent's queue, and from the
// first level that keeps load on, the entities stay and only get their
// PELT and weight updates. Like enqueueHierarchy it runs on a runqueue
// that keeps PELT (dequeueFlat otherwise).
func (rq *CfsRq) dequeueHierarchy(se *SchedEntity, flags DequeueFlags) {
	sleep := flags&DequeueSleep != 0
	completing := flags&DequeueDelayed != 0
	runnable, idle := 0, 0
	if sleep || completing || !se.delayed {
		runnable = 1 // a delayed task saved for a change was not runnable
	}
	if se.policy == PolicyIdle {
		idle = 1
	}
	rq.updateCurr() // nothing left to charge at this clock
	on := rq.taskGroupRq(se)
	q := rq.queueOf(on)
	// dequeue_entity for the task.
	action := updateTG
	if flags&dequeueMigrating != 0 {
		action |= doDetach
	}
	if sleep && !completing {
		action |= updateUtilEst
	}
	rq.updateLoadAvgTask(se, on, action)
	rq.tasks.remove(se) // account_entity_dequeue
	se.onRq = false
	rq.vAtZero = false // a current se leaves V
	q.loadWeight -= se.load.weight
	q.nrQueued--
	q.hNrRunnable -= runnable
	q.hNrQueued--
	q.hNrIdle -= idle
	if on == nil {
		return
	}
	if q.idle {
		idle = 1
	}
	dequeue := q.loadWeight == 0
	for g := on; g != nil; g = g.parent {
		pq := g.queue()
		if dequeue {
			rq.dequeueGroupEntity(g)
			dequeue = pq.loadWeight == 0
		} else {
			rq.updateLoadAvgGroup(g, updateTG)
			g.runWeight = uint64(g.q.hNrRunnable)
			rq.updateCfsGroup(g)
		}
		pq.hNrRunnable -= runnable
		pq.hNrQueued--
		pq.hNrIdle -= idle
		if pq.idle {
			idle = 1
		}
	}
}

// dequeueGroupEntity is dequeue_entity for a group entity whose queue is
// empty: PELT, off the parent's queue; its weight stays (update_cfs_group
// keeps an empty group's weight).
func (rq *CfsRq) dequeueGroupEntity(g *groupRq) {
	rq.updateLoadAvgGroup(g, updateTG)
	g.runWeight = uint64(g.q.hNrRunnable)
	g.onRq = false
	pq := g.queue()
	pq.loadWeight -= g.weight
	pq.nrQueued--
	rq.updateCfsGroup(g)
}

// addRunnable adds d to h_nr_runnable on every level of se's path: the
// kernel's set_delayed and clear_delayed.
func (rq *CfsRq) addRunnable(se *SchedEntity, d int) {
	if rq.h == nil {
		rq.hNrRunnable += d
		return
	}
	rq.addRunnableLevels(se, d)
}

// addRunnableLevels is addRunnable with groups. It is kept out of line
// (its cost, 78, would otherwise be inlined into addRunnable, taking it
// over the budget): addRunnable's flat case then inlines into
// set_delayed and clear_delayed, a call fewer at each delay and wakeup
// of a delayed entity.
//
//go:noinline
func (rq *CfsRq) addRunnableLevels(se *SchedEntity, d int) {
	on := rq.taskGroupRq(se)
	rq.queueOf(on).hNrRunnable += d
	for g := on; g != nil; g = g.parent {
		g.queue().hNrRunnable += d
	}
}

// propWeight folds se's path into its effective weight: __calc_prop_weight
// from the task up, starting at NICE_0_LOAD. At each level
// w = max(⌊w·(entity weight)/D⌋, MIN_SHARES), where D is the weight of
// the queue the entity is on, except on the root queue, where D is
// NICE_0_LOAD (a top-level group competes as a task of its own weight
// would). A root-group task gets its load weight.
func (rq *CfsRq) propWeight(se *SchedEntity) uint64 {
	on := rq.taskGroupRq(se)
	if on == nil {
		return calcPropWeight(se)
	}
	w := propStep(Nice0Load, se.load.weight, on.q.loadWeight)
	for g := on; g != nil; g = g.parent {
		d := Nice0Load
		if g.parent != nil {
			d = g.parent.q.loadWeight
		}
		w = propStep(w, g.weight, d)
	}
	return w
}

// propStep is one level of __calc_prop_weight (unsigned long arithmetic).
// A queue that carries the entity never weighs 0; the guard only keeps a
// broken state from dividing by zero.
func propStep(w, weight, d uint64) uint64 {
	return max(w*weight/max(d, 1), minShares)
}

// updateCfsGroup is update_cfs_group: a non-empty group's entity takes the
// weight of the share function; an empty group keeps its weight.
func (rq *CfsRq) updateCfsGroup(g *groupRq) {
	if g.q.loadWeight == 0 {
		return
	}
	g.sharesMode = rq.h.mode
	rq.reweightGroupEntity(g, g.calcShares())
}

// reweightGroupEntity is reweight_entity for a group entity: the weight
// leaves and re-enters the parent queue's load, and the PELT load average
// is recomputed from its sum at the new weight. No EEVDF state changes.
func (rq *CfsRq) reweightGroupEntity(g *groupRq, w uint64) {
	if g.weight == w {
		return
	}
	pq := g.queue()
	if g.onRq {
		pq.loadWeight -= g.weight
	}
	if rq.pelt {
		pq.avg.DequeueLoad(&g.avg, scaleLoadDown(g.weight))
	}
	g.weight = w
	if rq.pelt {
		g.avg.Reweight(scaleLoadDown(w))
		pq.avg.EnqueueLoad(&g.avg, scaleLoadDown(w))
	}
	if g.onRq {
		pq.loadWeight += w
	}
}

// calcShares is the share function of the hierarchy's mode (the kernel's
// calc_group_shares static call) for this group on this CPU.
func (g *groupRq) calcShares() uint64 {
	tg := g.tg
	s := int64(tg.shares)
	var v int64
	switch tg.h.mode {
	case ModeUp:
		v = s
	case ModeSMP:
		v = g.calcSMPShares(s, s)
	case ModeMax:
		v = g.calcSMPShares(s*tg.tgCPUs(), maxGroupCapWeight)
	case ModeTasks:
		nr := tg.tgTasks()
		v = g.calcSMPShares(nr*s, nr*s)
	default: // ModeConcur
		nr := min(tg.tgTasks(), tg.tgCPUs())
		v = g.calcSMPShares(nr*s, nr*s)
	}
	return uint64(v)
}

// calcSMPShares is __calc_smp_shares: this CPU's share of the group's
// total, t·load/tg_weight, where load = max(queue weight unscaled, the
// queue's load_avg) and tg_weight replaces this CPU's published
// contribution in tg->load_avg by load; then clamp(·, MIN_SHARES, m) as
// the kernel's clamp evaluates it (m wins when m < MIN_SHARES). On one
// CPU tg_weight = load and the result is t exactly.
func (g *groupRq) calcSMPShares(t, m int64) int64 {
	load := int64(max(scaleLoadDown(g.q.loadWeight), g.q.avg.LoadAvg))
	tgWeight := g.tg.loadAvg - int64(g.q.tg.LoadAvg) + load
	shares := t * load
	if tgWeight != 0 {
		shares /= tgWeight
	}
	return kernelClamp(shares, int64(minShares), m)
}

// GroupState is one group's state on one CPU, as plain values.
type GroupState struct {
	Weight      uint64   // the group entity's load.weight
	OnRq        bool     // the group entity is queued (its queue holds a queued task)
	Load        uint64   // the group queue's load.weight
	NrQueued    int      // entities directly on the group queue
	HNrQueued   int      // queued tasks below the group, delayed ones included (h_nr_queued)
	HNrRunnable int      // those of them not delayed (h_nr_runnable)
	HNrIdle     int      // those counted idle (h_nr_idle): SCHED_IDLE tasks, and all tasks of idle groups strictly below this one
	Avg         pelt.Avg // the group queue's PELT signals
	EntityAvg   pelt.Avg // the group entity's
}

// Group returns g's state on this runqueue's CPU. The root group reports
// the runqueue's own queue (with no entity).
func (rq *CfsRq) Group(g *TaskGroup) (GroupState, error) {
	switch {
	case rq == nil:
		return GroupState{}, ErrNilRunqueue
	case g == nil:
		return GroupState{}, fmt.Errorf("%w: nil group", ErrBadGroup)
	case rq.h == nil || g.h != rq.h:
		return GroupState{}, fmt.Errorf("%w: %s", ErrForeignGroup, g.name)
	}
	if g.parent == nil {
		return queueState(&rq.cfsQueue), nil
	}
	gr := g.cpu[rq.cpu]
	s := queueState(&gr.q)
	s.Weight, s.OnRq, s.EntityAvg = gr.weight, gr.onRq, gr.avg
	return s, nil
}

func queueState(q *cfsQueue) GroupState {
	return GroupState{Load: q.loadWeight, NrQueued: q.nrQueued, HNrQueued: q.hNrQueued,
		HNrRunnable: q.hNrRunnable, HNrIdle: q.hNrIdle, Avg: q.avg}
}

// Hierarchy returns the runqueue's hierarchy, nil for a flat runqueue.
func (rq *CfsRq) Hierarchy() *Hierarchy {
	if rq == nil {
		return nil
	}
	return rq.h
}

// CPU returns the runqueue's CPU number in its hierarchy (0 without one).
func (rq *CfsRq) CPU() int {
	if rq == nil {
		return 0
	}
	return rq.cpu
}

// tickLevels is entity_tick's PELT and group-weight part on every level of
// the running task's path (the charge is the caller's).
func (rq *CfsRq) tickLevels(c *SchedEntity) {
	on := rq.taskGroupRq(c)
	rq.updateLoadAvgTask(c, on, updateTG)
	for g := on; g != nil; g = g.parent {
		rq.updateLoadAvgGroup(g, updateTG)
		rq.updateCfsGroup(g)
	}
}

// MoveToGroup moves se to group g (nil: the root group), as writing its pid
// to the cgroup's cgroup.procs does: sched_move_task (KERNEL-SPEC-GROUPS
// §5.3). A queued task (delayed or not) is saved and dequeued through its
// old group, a running one put back; its PELT load is detached from the
// old queue and attached to the new one; then it is enqueued through the
// new group — its lag and relative deadline rescaled from its last
// installed h_load to the new one and re-placed — or re-installed as
// curr. A running task is then rescheduled, a queued one gets the wakeup
// check (flags 0). A sleeping task only changes group: its lag is
// rescaled at its next wakeup. A task that was never enqueued (still
// "new") only records the group. Moving a task to its own group does
// nothing.
func (rq *CfsRq) MoveToGroup(se *SchedEntity, g *TaskGroup) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	if g == nil {
		if rq.h == nil {
			return fmt.Errorf("%w: the runqueue has no hierarchy", ErrForeignGroup)
		}
		g = rq.h.root
	}
	if rq.h == nil || g.h != rq.h {
		return fmt.Errorf("%w: %s", ErrForeignGroup, g.Path())
	}
	if se.group == g || g.parent == nil && (se.group == nil || se.group.parent == nil) {
		se.group = g
		return nil
	}
	if se.rq == nil {
		se.group = g // TASK_NEW: the entity follows at wake_up_new_task
		return nil
	}
	queued := se.onRq && se.rq == rq
	running := rq.curr == se
	if queued {
		rq.dequeueTaskFair(se, DequeueSave|DequeueMove)
	}
	if running {
		rq.putPrevTaskFair(se, nil, false)
	}
	// task_change_group_fair.
	rq.detachEntityTask(se)
	se.avg.LastUpdateTime = 0
	se.group = g
	rq.attachEntityTask(se)
	if queued {
		rq.enqueueTask(se, EnqueueRestore|EnqueueMove)
	}
	if running {
		rq.setNextTaskFair(nil, se, false)
	}
	// prio_changed_fair: the priority did not change.
	switch {
	case running:
		rq.resched()
	case queued:
		rq.wakeupPreempt(se, 0)
	}
	return nil
}
