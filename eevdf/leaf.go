package eevdf

import "fmt"

// The per-CPU leaf list (rq->leaf_cfs_rq_list, KERNEL-SPEC-GROUPS-SMP §6):
// the queues whose blocked load the CPU still has to decay, group queues
// and the root queue, walked head to tail by UpdateBlockedAverages. The
// order is the kernel's and it matters: a child must come before its
// parent, so that its decay reaches the parent in the same walk, and the
// order of siblings decides which of them the parent's 1 ms publication
// limit lets through (§6.3).
//
// Insertion (list_add_leaf_cfs_rq) keeps children before parents without
// knowing the whole branch in advance. A queue whose parent queue is
// already listed goes immediately before it; the root queue goes to the
// tail; any other queue — its parent is not listed yet — goes after a
// cursor (tmp_alone_branch) that starts at the head and then follows the
// queues inserted that way, so a branch enqueued bottom-up lands at the
// front in order, and the first queue whose parent is listed (or the root)
// connects it and puts the cursor back at the head:
//
//	list [gB, /], a task of C ⊂ P arrives, P not listed:
//	  gC: parent gP unlisted → after the cursor (head)  [gC, gB, /]   cursor gC
//	  gP: parent / listed    → before /                 [gC, gB, gP, /] cursor head
//
// The list is kept on runqueues with PELT signals only; a flat runqueue's
// list holds at most its root queue.

// leafList is the list head and the cursor. A nil cursor is the head.
type leafList struct {
	head, tail *cfsQueue
	cursor     *cfsQueue // tmp_alone_branch; nil: the list head
}

// parentQueue is the queue q's group entity is on (the root queue for a
// top-level group), nil for the root queue itself.
func (rq *CfsRq) parentQueue(q *cfsQueue) *cfsQueue {
	if q.grp == nil {
		return nil
	}
	return q.grp.queue()
}

// queueGroup is the task group q belongs to (the root group for the root
// queue).
func (rq *CfsRq) queueGroup(q *cfsQueue) *TaskGroup {
	if q.grp == nil {
		if rq.h == nil {
			return nil
		}
		return rq.h.root
	}
	return q.grp.tg
}

// leafInsertBefore puts q before at (at the tail when at is nil).
func (l *leafList) insertBefore(q, at *cfsQueue) {
	q.leafNext = at
	if at == nil {
		q.leafPrev = l.tail
		l.tail = q
	} else {
		q.leafPrev = at.leafPrev
		at.leafPrev = q
	}
	if q.leafPrev == nil {
		l.head = q
	} else {
		q.leafPrev.leafNext = q
	}
}

// listAddLeaf is list_add_leaf_cfs_rq: q onto the list by the three rules
// above. It reports whether the branch is connected (the cursor is back
// at the head).
func (rq *CfsRq) listAddLeaf(q *cfsQueue) bool {
	l := &rq.leaf
	if q.onList {
		return l.cursor == nil
	}
	q.onList = true
	if pq := rq.parentQueue(q); pq != nil && pq.onList {
		l.insertBefore(q, pq) // a: right before the parent
		l.cursor = nil
		return true
	}
	if q.grp == nil {
		l.insertBefore(q, nil) // b: the root queue, at the tail
		l.cursor = nil
		return true
	}
	// c: after the cursor, which moves to q.
	if l.cursor == nil {
		l.insertBefore(q, l.head)
	} else {
		l.insertBefore(q, l.cursor.leafNext)
	}
	l.cursor = q
	return false
}

// listDelLeaf is list_del_leaf_cfs_rq: q off the list; a cursor on q
// moves to the element before it.
func (rq *CfsRq) listDelLeaf(q *cfsQueue) {
	if !q.onList {
		return
	}
	l := &rq.leaf
	if l.cursor == q {
		l.cursor = q.leafPrev
	}
	if q.leafPrev == nil {
		l.head = q.leafNext
	} else {
		q.leafPrev.leafNext = q.leafNext
	}
	if q.leafNext == nil {
		l.tail = q.leafPrev
	} else {
		q.leafNext.leafPrev = q.leafPrev
	}
	q.leafPrev, q.leafNext, q.onList = nil, nil, false
}

// childOnList is child_cfs_rq_on_list: the element just before q on the
// list (or the cursor, if q is not listed) is a queue of a child group of
// q's group. Only that one element is looked at, as in the kernel.
func (rq *CfsRq) childOnList(q *cfsQueue) bool {
	prev := rq.leaf.cursor
	if q.onList {
		prev = q.leafPrev
	}
	if prev == nil || prev.grp == nil {
		return false
	}
	return prev.grp.tg.parent == rq.queueGroup(q)
}

// cfsRqIsDecayed is cfs_rq_is_decayed: nothing queued, every PELT sum at
// zero, no child right before it on the list, nothing published.
func (rq *CfsRq) cfsRqIsDecayed(q *cfsQueue) bool {
	switch {
	case q.loadWeight != 0:
		return false
	case q.avg.LoadSum != 0 || q.avg.UtilSum != 0 || q.avg.RunnableSum != 0:
		return false
	case rq.childOnList(q):
		return false
	}
	return q.tg.LoadAvg == 0
}

// LeafList returns the CPU's leaf list, head first, as the groups whose
// queues are on it (the root group for the root queue; nil for the root
// queue of a runqueue without a hierarchy): the order
// UpdateBlockedAverages walks. It allocates; it is meant for tests and
// reports.
func (rq *CfsRq) LeafList() []*TaskGroup {
	var out []*TaskGroup
	for q := rq.leaf.head; q != nil; q = q.leafNext {
		out = append(out, rq.queueGroup(q))
	}
	return out
}

// RootOnList reports whether the root queue is on the CPU's leaf list:
// listed by the enqueue that gives it its first entity, unlisted by the
// blocked-load walk that finds it empty and fully decayed.
func (rq *CfsRq) RootOnList() bool { return rq.cfsQueue.onList }

// OnList reports whether g's queue on this CPU is on the leaf list (the
// root queue for the root group); false for a group of another hierarchy.
func (rq *CfsRq) OnList(g *TaskGroup) bool {
	q := rq.groupQueue(g)
	return q != nil && q.onList
}

// groupQueue is g's queue on this CPU, the root queue for the root group,
// nil for nil or a group of another hierarchy.
func (rq *CfsRq) groupQueue(g *TaskGroup) *cfsQueue {
	switch {
	case g == nil || rq.h == nil || g.h != rq.h:
		return nil
	case g.parent == nil:
		return &rq.cfsQueue
	}
	return &g.cpu[rq.cpu].q
}

// checkLeafList verifies the list's links and the order rules: every
// listed queue is marked, no queue twice, the root queue (if listed) is
// last, and every listed group queue whose parent queue is listed comes
// before it.
func (rq *CfsRq) checkLeafList() error {
	pos := map[*cfsQueue]int{}
	var prev *cfsQueue
	i := 0
	for q := rq.leaf.head; q != nil; q = q.leafNext {
		if q.leafPrev != prev {
			return fmt.Errorf("leaf list: broken back link at position %d", i)
		}
		if !q.onList {
			return fmt.Errorf("leaf list: queue at position %d is not marked on_list", i)
		}
		if _, dup := pos[q]; dup {
			return fmt.Errorf("leaf list: queue listed twice")
		}
		pos[q] = i
		prev = q
		i++
	}
	if rq.leaf.tail != prev {
		return fmt.Errorf("leaf list: tail is not the last element")
	}
	if rq.cfsQueue.onList && rq.leaf.tail != &rq.cfsQueue {
		return fmt.Errorf("leaf list: the root queue is listed but not last")
	}
	if _, ok := pos[&rq.cfsQueue]; ok != rq.cfsQueue.onList {
		return fmt.Errorf("leaf list: the root queue's on_list disagrees with the list")
	}
	if rq.cfsQueue.nrQueued != 0 && !rq.cfsQueue.onList {
		return fmt.Errorf("leaf list: the root queue holds entities but is not listed")
	}
	if rq.h == nil {
		return nil
	}
	for _, g := range rq.h.groups {
		q := &g.cpu[rq.cpu].q
		at, ok := pos[q]
		if ok != q.onList {
			return fmt.Errorf("leaf list: %s's on_list disagrees with the list", g.Path())
		}
		if q.nrQueued != 0 && !ok {
			return fmt.Errorf("leaf list: %s holds entities but is not listed", g.Path())
		}
		if !ok {
			continue
		}
		if pat, pok := pos[rq.parentQueue(q)]; pok && pat < at {
			return fmt.Errorf("leaf list: %s comes after its parent's queue", g.Path())
		}
	}
	return nil
}
