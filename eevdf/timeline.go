package eevdf

import "github.com/schedmodel/fairclass/rbtree"

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
func (m *eligibleMatcher) set(e eligibilityTest) { m.setLimit(e, e.keyLimit()) }

// setLimit is set for a caller that has already divided: limit must be
// e.keyLimit() (⌊avg/load⌋ for load > 0), so that the descent costs no
// second division.
func (m *eligibleMatcher) setLimit(e eligibilityTest, limit int64) {
	m.test, m.visited = e, 0
	m.bounded = e.load > 0
	m.limit = limit
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

// timeline is tasks_timeline: the queued entities except curr, in
// (deadline, insertion) order, with exact subtree aggregates. It is one of
// two structures, chosen when the run queue is made: the B-tree (b, the
// default) or the red-black tree (rb, non-nil). A concrete type rather than
// an interface, so that the pick path's calls are direct and the field
// reads (first, root, len) inline.
type timeline struct {
	b  bTimeline
	rb *rbTimeline
}

func newTimeline(b Backend) timeline {
	if b == RBTree {
		t := &rbTimeline{}
		t.t.Init(entityAug{})
		return timeline{rb: t}
	}
	return timeline{}
}

// root returns the aggregate over the whole timeline.
func (t *timeline) root() (agg, bool) {
	if t.rb != nil {
		return t.rb.root()
	}
	return t.b.aggregate()
}

func (t *timeline) ascend(fn func(*SchedEntity) bool) {
	if t.rb != nil {
		t.rb.ascend(fn)
		return
	}
	t.b.ascend(fn)
}

func (t *timeline) len() int {
	if t.rb != nil {
		return t.rb.len()
	}
	return t.b.len()
}

func (t *timeline) verify() error {
	if t.rb != nil {
		return t.rb.verify()
	}
	return t.b.verify()
}

// rbTimeline is the kernel's structure: an intrusive augmented red-black
// tree whose nodes live in the entities.
type rbTimeline struct {
	t  rbtree.Tree[*SchedEntity, agg, entityAug]
	st *staleTree // set for the kernels whose callbacks left stale aggregates; t is then unused
}

func (t *rbTimeline) insert(se *SchedEntity) {
	if t.st != nil {
		t.st.insert(se)
		return
	}
	se.rb.Item = se
	t.t.Insert(&se.rb)
}

func (t *rbTimeline) erase(se *SchedEntity) {
	if t.st != nil {
		t.st.erase(se)
		return
	}
	t.t.Erase(&se.rb)
}

func (t *rbTimeline) first() *SchedEntity {
	if t.st != nil {
		return t.st.first()
	}
	if n := t.t.First(); n != nil {
		return n.Item
	}
	return nil
}

func (t *rbTimeline) findEligible(m *eligibleMatcher) *SchedEntity {
	if t.st != nil {
		return t.st.findEligible(m)
	}
	if n := t.t.Find(m); n != nil {
		return n.Item
	}
	return nil
}

func (t *rbTimeline) root() (agg, bool) {
	if t.st != nil {
		return t.st.rootAgg()
	}
	if r := t.t.Root(); r != nil {
		return r.Agg(), true
	}
	return agg{}, false
}

func (t *rbTimeline) ascend(fn func(*SchedEntity) bool) {
	if t.st != nil {
		t.st.ascend(fn)
		return
	}
	t.t.Ascend(func(n *rbtree.Node[*SchedEntity, agg]) bool { return fn(n.Item) })
}

func (t *rbTimeline) len() int {
	if t.st != nil {
		return t.st.len()
	}
	return t.t.Len()
}

func (t *rbTimeline) verify() error {
	if t.st != nil {
		return t.st.verify()
	}
	return t.t.Verify()
}
