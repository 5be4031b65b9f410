package rbtree

import "fmt"

// entity mirrors a scheduling entity: it is ordered by deadline (compared by
// signed difference, so values may wrap around 2^64), ties broken by seq, and
// its subtree aggregate tracks the smallest vruntime (also wrapping) and the
// smallest and largest slice.
type entity struct {
	node     Node[*entity, entityAgg]
	deadline uint64
	seq      uint64
	vruntime uint64
	slice    uint64
}

func (e *entity) String() string {
	return fmt.Sprintf("{d=%d s=%d v=%d sl=%d}", int64(e.deadline), e.seq, int64(e.vruntime), e.slice)
}

// newEntity returns an entity whose node carries the entity itself.
func newEntity(deadline, seq, vruntime, slice uint64) *entity {
	e := &entity{deadline: deadline, seq: seq, vruntime: vruntime, slice: slice}
	e.node.Item = e
	return e
}

type entityAgg struct {
	minV, minSlice, maxSlice uint64
}

type entityAug struct{}

func (entityAug) Less(a, b *entity) bool {
	if d := int64(a.deadline - b.deadline); d != 0 {
		return d < 0
	}
	return a.seq < b.seq
}

func (entityAug) Leaf(e *entity) entityAgg {
	return entityAgg{minV: e.vruntime, minSlice: e.slice, maxSlice: e.slice}
}

func (entityAug) Merge(a, b entityAgg) entityAgg {
	r := a
	if int64(b.minV-a.minV) < 0 {
		r.minV = b.minV
	}
	r.minSlice = min(a.minSlice, b.minSlice)
	r.maxSlice = max(a.maxSlice, b.maxSlice)
	return r
}

type (
	entityNode = Node[*entity, entityAgg]
	entityTree = Tree[*entity, entityAgg, entityAug]
)

func newEntityTree() *entityTree { return New[*entity, entityAgg](entityAug{}) }

// vruntimeAtMost matches the entities whose vruntime is at or before limit,
// comparing by signed difference; over the min-vruntime aggregate it is exact.
type vruntimeAtMost struct{ limit uint64 }

func (m vruntimeAtMost) MatchAgg(a entityAgg) bool { return int64(a.minV-m.limit) <= 0 }
func (m vruntimeAtMost) Match(e *entity) bool      { return int64(e.vruntime-m.limit) <= 0 }

// wrapBase sits just below 2^64, so base+offset wraps for larger offsets.
const wrapBase = ^uint64(0) - 1<<15

// at returns wrapBase+off, wrapping past 2^64 when off is large enough.
func at(off int64) uint64 { return wrapBase + uint64(off) }

// collect returns the entities of t in order.
func collect(t *entityTree) []*entity {
	var out []*entity
	t.Ascend(func(n *entityNode) bool {
		out = append(out, n.Item)
		return true
	})
	return out
}

// aggOf folds the aggregate of es the slow way, for comparisons.
func aggOf(es []*entity) (entityAgg, bool) {
	if len(es) == 0 {
		return entityAgg{}, false
	}
	var aug entityAug
	a := aug.Leaf(es[0])
	for _, e := range es[1:] {
		a = aug.Merge(a, aug.Leaf(e))
	}
	return a, true
}
