package eevdf

import (
	"fmt"

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
//
// A descent tests many vruntimes against the same sums, so set turns
// vruntime_eligible's product test into a bound on the key: for load > 0,
// avg ≥ key·load (in exact, 128-bit arithmetic) holds iff key ≤ ⌊avg/load⌋,
// key being an integer. One division per descent then replaces a 128-bit
// product per test, with the same answers.
type eligibleMatcher struct {
	test    eligibilityTest
	bounded bool  // load > 0: use limit
	limit   int64 // ⌊avg/load⌋
	visited int
}

// set prepares m for a descent with the sums e.
func (m *eligibleMatcher) set(e eligibilityTest) {
	m.test, m.visited = e, 0
	m.bounded = e.load > 0
	if m.bounded {
		m.limit = floorDiv(e.avg, e.load)
	}
}

func (m *eligibleMatcher) eligible(v uint64) bool {
	if m.bounded {
		return int64(v-m.test.zero) <= m.limit
	}
	return m.test.eligible(v)
}

func (m *eligibleMatcher) MatchAgg(a agg) bool {
	m.visited++
	return m.eligible(a.minV)
}

func (m *eligibleMatcher) Match(se *SchedEntity) bool { return m.eligible(se.vruntime) }

// MatchNode scans a B-tree node in one call (btree.NodeMatcher): the
// first of kids[0], items[0], kids[1], ... whose minimum vruntime is
// eligible. Every aggregate it tests counts as visited.
func (m *eligibleMatcher) MatchNode(kids, items []agg) int {
	if !m.bounded {
		for i := range items {
			if kids != nil && m.MatchAgg(kids[i]) {
				return 2 * i
			}
			if m.MatchAgg(items[i]) {
				return 2*i + 1
			}
		}
		return -1
	}
	zero, limit := m.test.zero, m.limit
	for i := range items {
		if kids != nil {
			m.visited++
			if int64(kids[i].minV-zero) <= limit {
				return 2 * i
			}
		}
		m.visited++
		if int64(items[i].minV-zero) <= limit {
			return 2*i + 1
		}
	}
	return -1
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
	t.t.Init(bItemAug{})
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

// bTimeline is the augmented B-tree backend. Its items carry the entity's
// deadline inline, so that the node searches of an insertion or an
// erasure compare words in the node instead of loading one entity per
// comparison (at thousands of entities, a cache miss each); only equal
// deadlines, rare, load the two entities to compare their insertion
// sequence. The deadline is the entity's when it was inserted, unchanged
// while it is in the timeline (every rewrite of a queued entity's
// deadline takes it out first), which verify checks.
type bTimeline struct {
	t btree.Tree[bItem, agg, bItemAug]
}

// bItem is one B-tree item: the entity's deadline and the entity.
type bItem struct {
	deadline uint64
	se       *SchedEntity
}

func itemOf(se *SchedEntity) bItem { return bItem{se.deadline, se} }

// bItemAug is entityAug on inline deadlines: the same order and aggregate.
type bItemAug struct{}

func (bItemAug) Less(a, b bItem) bool {
	if d := int64(a.deadline - b.deadline); d != 0 {
		return d < 0
	}
	return a.se.seq < b.se.seq
}

// Search places x in a B-tree node (btree.Searcher). It counts the items
// whose deadline is before x's, from the sign bits of the differences: no
// branch depends on the data, and no load on the one before it. (A
// bisection makes each load wait for the comparison before it, a chain
// through a node that is often not in the L1 cache; measured, the count is
// 5 to 8% faster per pick at 4096 and 65536 entities.) Entities with x's
// deadline, rare, are then passed by their insertion sequence.
func (bItemAug) Search(items []bItem, x bItem) (lo, hi int) {
	for i := range items {
		lo += int((items[i].deadline - x.deadline) >> 63) // int64(d) < 0
	}
	for lo < len(items) && items[lo].deadline == x.deadline && items[lo].se.seq < x.se.seq {
		lo++
	}
	// Sequence numbers are unique, so the one item equal to x, if any,
	// is x's entity.
	hi = lo
	if hi < len(items) && items[hi].se == x.se {
		hi++
	}
	return lo, hi
}

// Keeps is btree.Lattice: the aggregate is a product of minima and a
// maximum, so an entity that attains none of a's three extremes leaves
// them to the others when it goes. (Merge is commutative: modular minimum
// is, for vruntimes less than 2^63 apart, as the kernel's always are.)
func (bItemAug) Keeps(a, x agg) bool {
	return x.minV != a.minV && x.minSlice != a.minSlice && x.maxSlice != a.maxSlice
}

func (bItemAug) Leaf(it bItem) agg          { return entityAug{}.Leaf(it.se) }
func (bItemAug) Merge(a, b agg) agg         { return entityAug{}.Merge(a, b) }
func (bItemAug) Fold(items, kids []agg) agg { return entityAug{}.Fold(items, kids) }
func (t *bTimeline) insert(se *SchedEntity) { t.t.Insert(itemOf(se)) }
func (t *bTimeline) root() (agg, bool)      { return t.t.Agg() }
func (t *bTimeline) len() int               { return t.t.Len() }
func (t *bTimeline) ascend(fn func(*SchedEntity) bool) {
	t.t.Ascend(func(it bItem) bool { return fn(it.se) })
}

// erase takes the leftmost entity, the usual pick, off the leftmost path
// without a search.
func (t *bTimeline) erase(se *SchedEntity) {
	if it, _ := t.t.First(); it.se == se {
		t.t.DeleteFirst()
		return
	}
	t.t.Delete(itemOf(se))
}

func (t *bTimeline) first() *SchedEntity {
	it, _ := t.t.First()
	return it.se
}

// findEligible tests items by their cached aggregates (btree.FindAgg):
// an entity's own aggregate holds its vruntime, and MatchAgg on it is
// Match, so no entity is loaded during the descent.
func (t *bTimeline) findEligible(m *eligibleMatcher) *SchedEntity {
	it, _ := t.t.FindAgg(m)
	return it.se
}

func (t *bTimeline) verify() error {
	if err := t.t.Verify(); err != nil {
		return err
	}
	var err error
	t.t.Ascend(func(it bItem) bool {
		if it.deadline != it.se.deadline {
			err = fmt.Errorf("timeline key of %s is deadline %d, entity has %d",
				it.se.name, it.deadline, it.se.deadline)
		}
		return err == nil
	})
	return err
}
