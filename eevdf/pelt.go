package eevdf

import (
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/pelt"
)

// PELT signals (KERNEL-SPEC-GROUPS §4): update_load_avg and the attach,
// detach and propagation paths of fair.c around package pelt's arithmetic.
// Kept only when the runqueue keeps PELT (WithPELT, WithHierarchy); every
// caller tests rq.pelt first. The PELT clock is rq_clock_pelt (peltNow):
// the task clock at capacity 1024, the scaled clock of peltclock.go below
// it; frequency is at its maximum, nothing is throttled.

// update_load_avg flags.
const (
	updateTG      = 0x1  // UPDATE_TG: publish the group contribution if it moved
	skipAgeLoad   = 0x2  // SKIP_AGE_LOAD
	doAttach      = 0x4  // DO_ATTACH: attach an entity never attached (last_update_time 0)
	doDetach      = 0x8  // DO_DETACH: a migrating task leaves
	updateUtilEst = 0x10 // UPDATE_UTIL_EST: a task's sleep updates its estimate
)

// seWeight is se_weight: the entity's load weight scaled down, the weight
// its load average is measured in.
func seWeight(w uint64) uint64 { return scaleLoadDown(w) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// updateLoadAvgTask is update_load_avg(q, se, flags) for a task on the
// queue of group on (nil: the root queue).
func (rq *CfsRq) updateLoadAvgTask(se *SchedEntity, on *groupRq, flags int) {
	q := rq.queueOf(on)
	now := rq.peltNow()
	if se.avg.LastUpdateTime != 0 && flags&skipAgeLoad == 0 {
		// __update_load_avg_se: load while on_rq, runnable while queued
		// and not delayed, running while it is this level's h_curr.
		se.avg.UpdateEntityUtilEst(now, b2u(se.onRq), b2u(se.onRq && !se.delayed), q.hCurr == any(se), seWeight(se.load.weight), rq.feat.Has(features.UtilEst))
	}
	decayed := rq.updateCfsRqLoadAvg(now, q)
	switch {
	case se.avg.LastUpdateTime == 0 && flags&doAttach != 0:
		rq.attachEntityLoadAvg(q, &se.avg, seWeight(se.load.weight))
		rq.updateTgLoadAvg(on)
	case flags&doDetach != 0:
		q.prop.Add(q.avg.Detach(&se.avg, seWeight(se.load.weight)))
		rq.updateTgLoadAvg(on)
	case decayed && flags&updateTG != 0:
		rq.updateTgLoadAvg(on)
	}
	if flags&updateUtilEst != 0 && rq.feat.Has(features.UtilEst) {
		se.avg.UtilEstUpdate()
	}
}

// updateLoadAvgGroup is update_load_avg(cfs_rq_of(g), g, flags) for a group
// entity, with its pending propagation.
func (rq *CfsRq) updateLoadAvgGroup(g *groupRq, flags int) {
	q := g.queue()
	now := rq.peltNow()
	if g.avg.LastUpdateTime != 0 && flags&skipAgeLoad == 0 {
		g.avg.UpdateEntityUtilEst(now, b2u(g.onRq), g.runWeight, q.hCurr == any(g), seWeight(g.weight), rq.feat.Has(features.UtilEst))
	}
	decayed := rq.updateCfsRqLoadAvg(now, q)
	if rq.propagateEntityLoadAvg(g) {
		decayed = true
	}
	switch {
	case g.avg.LastUpdateTime == 0 && flags&doAttach != 0:
		rq.attachEntityLoadAvg(q, &g.avg, seWeight(g.weight))
		rq.updateTgLoadAvg(g.parent)
	case flags&doDetach != 0:
		q.prop.Add(q.avg.Detach(&g.avg, seWeight(g.weight)))
		rq.updateTgLoadAvg(g.parent)
	case decayed && flags&updateTG != 0:
		rq.updateTgLoadAvg(g.parent)
	}
}

// attachEntityLoadAvg is attach_entity_load_avg, with the propagation it
// records on the queue (add_tg_cfs_propagate).
func (rq *CfsRq) attachEntityLoadAvg(q *cfsQueue, se *pelt.Avg, w uint64) {
	q.prop.Add(q.avg.Attach(se, w))
}

// updateCfsRqLoadAvg is update_cfs_rq_load_avg: apply the load removed by
// tasks that left (recording its propagation), then age the queue with
// the state of the elapsed interval: its load weight, its runnable tasks,
// and whether an entity of it runs.
func (rq *CfsRq) updateCfsRqLoadAvg(now uint64, q *cfsQueue) bool {
	decayed := false
	if q.removed.NR != 0 {
		prop, _ := q.avg.ApplyRemoved(&q.removed)
		q.prop.Add(prop)
		decayed = true
	}
	if q.avg.UpdateQueue(now, scaleLoadDown(q.loadWeight), uint64(q.hNrRunnable), q.hCurr != nil) {
		decayed = true
	}
	return decayed
}

// propagateEntityLoadAvg is propagate_entity_load_avg for a group entity:
// what was attached to or detached from its queue since the last update
// reaches the entity and, through it, the parent queue.
func (rq *CfsRq) propagateEntityLoadAvg(g *groupRq) bool {
	pq := g.queue()
	return pelt.PropagateEntity(&pq.avg, &pq.prop, &g.avg, seWeight(g.weight), &g.q.avg, &g.q.prop, scaleLoadDown(g.q.loadWeight))
}

// updateTgLoadAvg is update_tg_load_avg for the queue of group on: a
// queue that moved enough since it last published (at most once per ms of
// rq_clock) adds the difference to its group's totals. The root queue
// publishes nothing.
func (rq *CfsRq) updateTgLoadAvg(on *groupRq) {
	if on == nil {
		return
	}
	if dl, dr, ok := on.q.tg.Update(&on.q.avg, rq.clock); ok {
		on.tg.loadAvg += dl
		on.tg.runnableAvg += dr
	}
}

// propagateEntityCfsRq is propagate_entity_cfs_rq for an entity on the
// queue of group g (nil: the root queue): that queue goes on the leaf list,
// then from g up every ancestor entity is updated (UPDATE_TG), carrying a
// change of the queue below it to the root, and the queue it is on is
// listed too.
func (rq *CfsRq) propagateEntityCfsRq(g *groupRq) {
	rq.listAddLeaf(rq.queueOf(g))
	for ; g != nil; g = g.parent {
		rq.updateLoadAvgGroup(g, updateTG)
		rq.listAddLeaf(g.queue())
	}
}

// attachAgeFlags are update_load_avg's flags at an attach: aging with
// ATTACH_AGE_LOAD (the default), SKIP_AGE_LOAD without.
func (rq *CfsRq) attachAgeFlags() int {
	if rq.feat.Has(features.AttachAgeLoad) {
		return 0
	}
	return skipAgeLoad
}

// attachEntityGroup is attach_entity_cfs_rq for a group entity (a group
// coming online).
func (rq *CfsRq) attachEntityGroup(g *groupRq) {
	if !rq.pelt {
		return
	}
	rq.updateLoadAvgGroup(g, rq.attachAgeFlags())
	rq.attachEntityLoadAvg(g.queue(), &g.avg, seWeight(g.weight))
	rq.updateTgLoadAvg(g.parent)
	rq.propagateEntityCfsRq(g.parent)
}

// attachEntityTask is attach_entity_cfs_rq for a task (after a move to
// another group).
func (rq *CfsRq) attachEntityTask(se *SchedEntity) {
	on := rq.taskGroupRq(se)
	rq.updateLoadAvgTask(se, on, rq.attachAgeFlags())
	rq.attachEntityLoadAvg(rq.queueOf(on), &se.avg, seWeight(se.load.weight))
	rq.updateTgLoadAvg(on)
	rq.propagateEntityCfsRq(on)
}

// detachEntityTask is detach_entity_cfs_rq for a task: brought up to date,
// its load leaves the queue, and the change propagates up. A task never
// attached (last_update_time 0) has nothing to detach.
func (rq *CfsRq) detachEntityTask(se *SchedEntity) {
	if se.avg.LastUpdateTime == 0 {
		return
	}
	on := rq.taskGroupRq(se)
	rq.updateLoadAvgTask(se, on, 0)
	q := rq.queueOf(on)
	q.prop.Add(q.avg.Detach(&se.avg, seWeight(se.load.weight)))
	rq.updateTgLoadAvg(on)
	rq.propagateEntityCfsRq(on)
}

// initEntityPELT is init_entity_runnable_average at fork, then
// post_init_entity_util_avg on the task's queue: a new task looks fully
// loaded, with half the queue's spare utilization (capped by its share of
// the queue's load).
func (rq *CfsRq) initEntityPELT(se *SchedEntity) {
	se.avg = pelt.NewTaskAvg(seWeight(se.load.weight))
	capacity := uint64(pelt.CapacityScale)
	if rq.pc.capacity != 0 {
		capacity = rq.pc.capacity
	}
	pelt.PostInitUtilAvgCapacity(&rq.queueOf(rq.taskGroupRq(se)).avg, &se.avg, seWeight(se.load.weight), capacity)
}

// reweightTaskPELT is reweight_entity's PELT part for a task that is not
// queued (set_load_weight from a nice or slice change): its load average
// leaves its queue, is recomputed from the sum at the new weight, and
// comes back.
func (rq *CfsRq) reweightTaskPELT(se *SchedEntity, old, w uint64) {
	q := rq.queueOf(rq.taskGroupRq(se))
	q.avg.DequeueLoad(&se.avg, seWeight(old))
	se.avg.Reweight(seWeight(w))
	q.avg.EnqueueLoad(&se.avg, seWeight(w))
}

// Avg returns the entity's PELT signals (all zero unless its runqueue
// keeps PELT).
func (se *SchedEntity) Avg() pelt.Avg {
	if se == nil {
		return pelt.Avg{}
	}
	return se.avg
}

// Avg returns the root queue's PELT signals (cfs_rq->avg of rq->cfs).
func (rq *CfsRq) Avg() pelt.Avg {
	if rq == nil {
		return pelt.Avg{}
	}
	return rq.cfsQueue.avg
}

// PELT reports whether the runqueue keeps PELT signals.
func (rq *CfsRq) PELT() bool {
	if rq == nil {
		return false
	}
	return rq.pelt
}

// utilEstEnqueue is util_est_enqueue on the root queue: the task's
// estimate (without its flag bit) joins the CPU's.
func (rq *CfsRq) utilEstEnqueue(se *SchedEntity) {
	if rq.feat.Has(features.UtilEst) {
		pelt.UtilEstEnqueue(&rq.cfsQueue.avg, &se.avg)
	}
}

// utilEstDequeue is util_est_dequeue on the root queue (floored at 0).
func (rq *CfsRq) utilEstDequeue(se *SchedEntity) {
	if rq.feat.Has(features.UtilEst) {
		pelt.UtilEstDequeue(&rq.cfsQueue.avg, &se.avg)
	}
}
