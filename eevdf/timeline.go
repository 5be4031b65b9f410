package eevdf

import (
	"github.com/schedmodel/fairclass/btree"
	"github.com/schedmodel/fairclass/rbtree"
)

// agg is the subtree aggregate the kernel keeps in every node of its
// timeline (se->min_vruntime, se->min_slice, se->max_slice): the modular
// minimum vruntime, and the plain minimum and maximum slice.
type agg struct {
	minV     uint64
	minSlice uint64
	maxSlice uint64
}

// entityAug orders the timeline and computes agg. The order is the kernel's:
// by deadline (signed difference), an equal deadline going after the
// entities already there, which the insertion sequence expresses.
type entityAug struct{}

func (entityAug) Less(a, b *SchedEntity) bool {
	if d := int64(a.deadline - b.deadline); d != 0 {
		return d < 0
	}
	return a.seq < b.seq
}

func (entityAug) Leaf(se *SchedEntity) agg { return agg{se.vruntime, se.slice, se.slice} }

// Merge is min_vruntime_update's combination step.
func (entityAug) Merge(a, b agg) agg {
	return agg{
		minV:     minVruntime(a.minV, b.minV),
		minSlice: min(a.minSlice, b.minSlice),
		maxSlice: max(a.maxSlice, b.maxSlice),
	}
}

// Fold is Merge over a whole B-tree node (btree.Folder): the kernel's
// aggregate is commutative, so the node's items and children are simply
// all combined, in one call.
func (entityAug) Fold(items, kids []agg) agg {
	var a agg
	switch {
	case len(items) > 0:
		a = items[0]
		items = items[1:]
	case len(kids) > 0:
		a = kids[0]
		kids = kids[1:]
	default:
		return a
	}
	for _, x := range items {
		a = entityAug{}.Merge(a, x)
	}
	for _, x := range kids {
		a = entityAug{}.Merge(a, x)
	}
	return a
}

// eligibleMatcher drives the heap descent of pick_eevdf: a subtree may
// hold an eligible entity iff its minimum vruntime is eligible
// (eligibility is monotone in vruntime).
type eligibleMatcher struct {
	rq      *CfsRq
	test    eligibilityTest // set by the pick before the descent
	visited int
}

func (m *eligibleMatcher) MatchAgg(a agg) bool {
	m.visited++
	return m.test.eligible(a.minV)
}

func (m *eligibleMatcher) Match(se *SchedEntity) bool {
	return m.test.eligible(se.vruntime)
}

// timeline is tasks_timeline: the queued entities except curr, in
// (deadline, insertion) order, with exact subtree aggregates.
type timeline interface {
	insert(se *SchedEntity)
	erase(se *SchedEntity)
	first() *SchedEntity
	// findEligible is the heap descent: the first entity in order whose
	// vruntime is eligible.
	findEligible(m *eligibleMatcher) *SchedEntity
	// root returns the aggregate over the whole timeline.
	root() (agg, bool)
	ascend(fn func(*SchedEntity) bool)
	len() int
	verify() error
}

func newTimeline(b Backend) timeline {
	if b == RBTree {
		t := &rbTimeline{}
		t.t.Init(entityAug{})
		return t
	}
	t := &bTimeline{}
	t.t.Init(entityAug{})
	return t
}

// rbTimeline is the kernel's structure: an intrusive augmented red-black
// tree whose nodes live in the entities.
type rbTimeline struct {
	t rbtree.Tree[*SchedEntity, agg, entityAug]
}

func (t *rbTimeline) insert(se *SchedEntity) {
	se.rb.Item = se
	t.t.Insert(&se.rb)
}

func (t *rbTimeline) erase(se *SchedEntity) { t.t.Erase(&se.rb) }

func (t *rbTimeline) first() *SchedEntity {
	if n := t.t.First(); n != nil {
		return n.Item
	}
	return nil
}

func (t *rbTimeline) findEligible(m *eligibleMatcher) *SchedEntity {
	if n := t.t.Find(m); n != nil {
		return n.Item
	}
	return nil
}

func (t *rbTimeline) root() (agg, bool) {
	if r := t.t.Root(); r != nil {
		return r.Agg(), true
	}
	return agg{}, false
}

func (t *rbTimeline) ascend(fn func(*SchedEntity) bool) {
	t.t.Ascend(func(n *rbtree.Node[*SchedEntity, agg]) bool { return fn(n.Item) })
}

func (t *rbTimeline) len() int      { return t.t.Len() }
func (t *rbTimeline) verify() error { return t.t.Verify() }

// bTimeline is the augmented B-tree backend.
type bTimeline struct {
	t btree.Tree[*SchedEntity, agg, entityAug]
}

func (t *bTimeline) insert(se *SchedEntity) { t.t.Insert(se) }
func (t *bTimeline) erase(se *SchedEntity)  { t.t.Delete(se) }

func (t *bTimeline) first() *SchedEntity {
	se, _ := t.t.First()
	return se
}

func (t *bTimeline) findEligible(m *eligibleMatcher) *SchedEntity {
	se, _ := t.t.Find(m)
	return se
}

func (t *bTimeline) root() (agg, bool)                 { return t.t.Agg() }
func (t *bTimeline) ascend(fn func(*SchedEntity) bool) { t.t.Ascend(fn) }
func (t *bTimeline) len() int                          { return t.t.Len() }
func (t *bTimeline) verify() error                     { return t.t.Verify() }
