package eevdf

import (
	"fmt"

	"github.com/schedmodel/fairclass/pelt"
)

// The hierarchical load (KERNEL-SPEC-GROUPS-SMP §7): how much of a CPU's
// root load falls to one task, which load balancing moves and
// wake_affine weighs. Every queue caches h_load, its part of the root
// load, refreshed at most once per jiffy (update_cfs_rq_h_load):
//
//	h(root)  = root.load_avg
//	h(child) = ⌊h(parent) · ge.load_avg / (parent.load_avg + 1)⌋
//
// with ge the child group's entity on the parent queue, and a task's
// share of its queue q is
//
//	task_h_load(p) = ⌊p.load_avg · h(q) / (q.load_avg + 1)⌋.
//
// The "+ 1" keeps an empty queue from dividing by zero. A refresh climbs
// from q to the nearest queue already refreshed in this jiffy (or to the
// root, which it refreshes from its own load), leaving on each queue it
// passes the entity to come back down through (h_load_next), then walks
// down recomputing each queue below. Within a jiffy the cached h_load of
// a queue is reused while the denominators and the task's load are read
// fresh, so a detach in the same jiffy divides an old h_load by a new
// load; that staleness is the kernel's.

// TaskHLoad returns task_h_load of se at jiffy jiffies: its load_avg
// scaled by the h_load of its group's queue on this runqueue's CPU over
// that queue's load_avg + 1, refreshing the caches of the queues on the
// way to the root first (at most once per jiffy each). se must be queued
// on this runqueue or have last been attached to it; for a task of the
// root group it is the root queue's formula. It returns 0 on a runqueue
// without PELT signals or for an entity of another hierarchy. O(depth),
// no allocation.
func (rq *CfsRq) TaskHLoad(se *SchedEntity, jiffies uint64) uint64 {
	if se == nil || !rq.pelt {
		return 0
	}
	var g *groupRq
	if se.group != nil && se.group.parent != nil {
		if rq.h == nil || se.group.h != rq.h {
			return 0
		}
		g = se.group.cpu[rq.cpu]
	}
	q := rq.queueOf(g)
	rq.updateCfsRqHLoad(q, jiffies)
	return se.avg.LoadAvg * q.hLoad / (q.avg.LoadAvg + 1)
}

// updateCfsRqHLoad is update_cfs_rq_h_load: q's h_load made current for
// jiffy j, with the queues between it and the nearest ancestor refreshed
// in this jiffy (or the root).
func (rq *CfsRq) updateCfsRqHLoad(q *cfsQueue, j uint64) {
	stamp := j + 1 // 0 is "never"
	if q.hLoadStamp == stamp {
		return
	}
	q.hLoadNext = nil
	top := q
	found := false
	for e := q.grp; e != nil; e = e.parent {
		top = e.queue()
		top.hLoadNext = e
		if top.hLoadStamp == stamp {
			found = true
			break
		}
	}
	if !found {
		top.hLoad = top.avg.LoadAvg
		top.hLoadStamp = stamp
	}
	for e := top.hLoadNext; e != nil; e = top.hLoadNext {
		load := top.hLoad * e.avg.LoadAvg / (top.avg.LoadAvg + 1)
		top = &e.q
		top.hLoad = load
		top.hLoadStamp = stamp
	}
}

// HLoad returns the h_load g's queue on this CPU cached (the root queue
// for the root group) and the jiffy it was computed at; ok is false when
// it was never computed. An error for nil or a group of another
// hierarchy.
func (rq *CfsRq) HLoad(g *TaskGroup) (hLoad, jiffy uint64, ok bool, err error) {
	q := rq.groupQueue(g)
	if q == nil {
		if g == nil {
			return 0, 0, false, fmt.Errorf("%w: nil group", ErrBadGroup)
		}
		return 0, 0, false, fmt.Errorf("%w: %s", ErrForeignGroup, g.Path())
	}
	if q.hLoadStamp == 0 {
		return q.hLoad, 0, false, nil
	}
	return q.hLoad, q.hLoadStamp - 1, true, nil
}

// Published returns what g's queue on this CPU last published into the
// group's totals (tg_load_avg_contrib, tg_runnable_avg_contrib and the
// rq_clock of the publication, last_update_tg_load_avg); zero for the
// root group, which publishes nothing. An error for nil or a group of
// another hierarchy.
func (rq *CfsRq) Published(g *TaskGroup) (pelt.TGContrib, error) {
	q := rq.groupQueue(g)
	if q == nil {
		if g == nil {
			return pelt.TGContrib{}, fmt.Errorf("%w: nil group", ErrBadGroup)
		}
		return pelt.TGContrib{}, fmt.Errorf("%w: %s", ErrForeignGroup, g.Path())
	}
	return q.tg, nil
}
