package btree

import (
	"fmt"
	"math"
)

// entity mirrors a scheduling entity: ordered by deadline (compared by
// signed difference, so deadlines may wrap around 2^64), ties broken by
// seq; aggregated by vruntime and slice.
type entity struct {
	deadline, seq, vruntime, slice uint64
}

func (e *entity) String() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{d=%d s=%d v=%d sl=%d}", int64(e.deadline-wrapBase), e.seq, int64(e.vruntime-wrapBase), e.slice)
}

// entityAgg is the aggregate of a range of entities: the least vruntime
// (modular: b is smaller than a iff int64(b-a) < 0) and the least and
// greatest slice.
type entityAgg struct {
	minV, minSlice, maxSlice uint64
}

// entityAug orders and aggregates entities.
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
	if int64(b.minV-a.minV) < 0 {
		a.minV = b.minV
	}
	a.minSlice = min(a.minSlice, b.minSlice)
	a.maxSlice = max(a.maxSlice, b.maxSlice)
	return a
}

// Fold folds a node in one call (Folder): the same Merge chain, inlined.
func (a entityAug) Fold(items, kids []entityAgg) entityAgg {
	var acc entityAgg
	if len(kids) > 0 {
		acc = kids[0]
		for i, x := range items {
			acc = a.Merge(acc, x)
			acc = a.Merge(acc, kids[i+1])
		}
		return acc
	}
	acc = items[0]
	for _, x := range items[1:] {
		acc = a.Merge(acc, x)
	}
	return acc
}

// Search places x in a node in one call (Searcher).
func (a entityAug) Search(items []*entity, x *entity) (lo, hi int) {
	for lo < len(items) && a.Less(items[lo], x) {
		lo++
	}
	hi = lo
	for hi < len(items) && !a.Less(x, items[hi]) {
		hi++
	}
	return lo, hi
}

// Keeps reports that an item whose aggregate is x attains none of a's
// three extremes (Lattice): another item attains each of them.
func (entityAug) Keeps(a, x entityAgg) bool {
	return x.minV != a.minV && x.minSlice != a.minSlice && x.maxSlice != a.maxSlice
}

// mergeOnlyAug is entityAug with none of the optional interfaces (Folder,
// Searcher, Lattice): trees built with it search with Less and refold one
// Merge at a time.
type mergeOnlyAug struct{}

func (mergeOnlyAug) Less(a, b *entity) bool         { return entityAug{}.Less(a, b) }
func (mergeOnlyAug) Leaf(e *entity) entityAgg       { return entityAug{}.Leaf(e) }
func (mergeOnlyAug) Merge(a, b entityAgg) entityAgg { return entityAug{}.Merge(a, b) }

type entityTree = Tree[*entity, entityAgg, entityAug]

// wrapBase is close to 2^64, so that small offsets from it wrap around.
const wrapBase = math.MaxUint64 - 1<<15

// at returns wrapBase+off, wrapping.
func at(off int64) uint64 { return wrapBase + uint64(off) }

// eligible matches the first entity in order whose vruntime is at most
// threshold (modular comparison): the pick of an EEVDF scheduler.
type eligible struct {
	threshold uint64
}

func (m eligible) MatchAgg(a entityAgg) bool { return int64(a.minV-m.threshold) <= 0 }
func (m eligible) Match(e *entity) bool      { return int64(e.vruntime-m.threshold) <= 0 }

// MatchNode scans a node in one call (NodeMatcher).
func (m eligible) MatchNode(kids, items []entityAgg) int {
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

// aggOnly hides every method of a matcher but MatchAgg.
type aggOnly struct{ m AggMatcher[entityAgg] }

func (a aggOnly) MatchAgg(x entityAgg) bool { return a.m.MatchAgg(x) }

// countingMatcher wraps a Matcher and counts the calls made to it.
type countingMatcher[T any, A comparable] struct {
	Matcher[T, A]
	aggCalls, itemCalls int
}

func (m *countingMatcher[T, A]) MatchAgg(a A) bool {
	m.aggCalls++
	return m.Matcher.MatchAgg(a)
}

func (m *countingMatcher[T, A]) Match(item T) bool {
	m.itemCalls++
	return m.Matcher.Match(item)
}

// span is a non-commutative aggregate of a range of ints: its first and
// last elements and its length. Merging in the wrong order shows.
type span struct {
	lo, hi, n int
}

// spanAug orders ints and aggregates them into spans.
type spanAug struct{}

func (spanAug) Less(a, b int) bool           { return a < b }
func (spanAug) Leaf(x int) span              { return span{x, x, 1} }
func (spanAug) Merge(a, b span) span         { return span{a.lo, b.hi, a.n + b.n} }
func newSpanTree() *Tree[int, span, spanAug] { return New[int, span](spanAug{}) }

// items returns the tree's items in order.
func items[T any, A comparable, G Augmenter[T, A]](t *Tree[T, A, G]) []T {
	var out []T
	t.Ascend(func(x T) bool {
		out = append(out, x)
		return true
	})
	return out
}
