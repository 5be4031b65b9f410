package eevdf

import "unsafe"

// The nodes of the B-tree timeline (timeline_btree.go) and the moves of
// entities and children between them. Every function here keeps the two
// pieces of state that point into nodes exact: an entity's handle
// (tlLeaf: the leaf that holds it) and a node's parent pointer.

const (
	// leafMax is the most entities a leaf holds, leafMin the fewest a leaf
	// other than the root holds. A full leaf taking one more entity splits
	// into halves of at least leafMin; a leaf left with leafMin-1 and a
	// sibling that cannot lend merge into at most 2·leafMin-1 ≤ leafMax.
	leafMax = 16
	leafMin = leafMax / 2
	// innerMax and innerMin bound the children of an interior node other
	// than the root (which has at least two), by the same arithmetic.
	innerMax = 16
	innerMin = innerMax / 2
	// tlMaxHeight bounds the levels of a tree: a tree of height h holds at
	// least 2·innerMin^(h-2)·leafMin entities (2^46 for h = 16 at the
	// sizes above).
	tlMaxHeight = 16
)

// Compile-time checks (a negative array length does not compile): a
// node holds at least four entities or children, so that a tree of
// tlMaxHeight levels holds at least 2^31 entities.
var (
	_ [leafMin - 4]struct{}
	_ [innerMin - 4]struct{}
)

// tlNode is the header shared by leaves and interior nodes. Leaves and
// interior nodes are allocated with their own sizes; the leaf flag tells
// which one a *tlNode points to, and asLeaf or asInner recovers that type
// (never a larger one than was allocated).
type tlNode struct {
	parent *tlInner // nil for the root and for free nodes
	next   *tlNode  // free-list link; nil while in the tree
	n      int32    // leaf: entities held; interior: children
	leaf   bool
}

// tlLeaf holds up to leafMax entities in timeline order, as structure of
// arrays: a search for an insertion position reads dl alone (two cache
// lines), the eligibility scan v alone, a refold v and slice. None of them
// loads an entity. Slots past n hold stale keys and nil entity pointers.
//
//	dl    [ d0  d1  d2 ... ]   deadlines, non-decreasing (signed order)
//	v     [ v0  v1  v2 ... ]   vruntimes
//	slice [ s0  s1  s2 ... ]   slices
//	se    [ e0  e1  e2 ... ]   the entities; ei.tlLeaf == this leaf
type tlLeaf struct {
	tlNode
	dl    [leafMax]uint64
	v     [leafMax]uint64
	slice [leafMax]uint64
	se    [leafMax]*SchedEntity
}

// tlInner is an interior node of n children. sep[j] separates kids[j] and
// kids[j+1]: every deadline below kids[j] is at or before it, every one
// below kids[j+1] at or after it. Beside each child its subtree's
// aggregate, as three arrays, so that the eligibility descent reads minV
// alone and tests a child without loading it.
//
//	         sep[0]      sep[1]            sep[n-2]
//	kids[0]        kids[1]      kids[2] ...        kids[n-1]
//	minV[0]        minV[1]      minV[2]            minV[n-1]
//	minS[0]/maxS[0] ...
//
// A separator is the first deadline of its right subtree when it is set
// (split, borrow); removals may leave it older than that, still a bound.
type tlInner struct {
	tlNode
	sep  [innerMax - 1]uint64
	minV [innerMax]uint64
	minS [innerMax]uint64
	maxS [innerMax]uint64
	kids [innerMax]*tlNode
}

// asLeaf returns the leaf view of n, which must have been allocated as a
// tlLeaf (n.leaf).
func (n *tlNode) asLeaf() *tlLeaf { return (*tlLeaf)(unsafe.Pointer(n)) }

// asInner returns the interior view of n, which must have been allocated
// as a tlInner (!n.leaf).
func (n *tlNode) asInner() *tlInner { return (*tlInner)(unsafe.Pointer(n)) }

// count returns the items (leaf) or children (interior) of n.
func (n *tlNode) count() int { return int(n.n) }

// minCount is the fewest items or children n may hold when it is not the
// root.
func (n *tlNode) minCount() int {
	if n.leaf {
		return leafMin
	}
	return innerMin
}

// upper returns the number of deadlines of ds at or before dl, in the
// signed order: the position after every entity whose deadline is not
// later than dl. It counts the sign bits of the differences instead of
// bisecting: no branch depends on the data and no load waits for the
// comparison before it.
func upper(ds []uint64, dl uint64) int {
	c := 0
	for _, d := range ds {
		c += int((dl-d)>>63) ^ 1 // 1 iff int64(dl−d) ≥ 0
	}
	return c
}

// agg returns the aggregate of the entity in slot i.
func (l *tlLeaf) agg(i int) agg { return agg{l.v[i], l.slice[i], l.slice[i]} }

// fold is the aggregate of a non-empty leaf: min_vruntime_update over its
// entities.
func (l *tlLeaf) fold() agg {
	n := l.count()
	a := agg{l.v[0], l.slice[0], l.slice[0]}
	for i := 1; i < n; i++ {
		a.minV = minVruntime(a.minV, l.v[i])
		a.minSlice = min(a.minSlice, l.slice[i])
		a.maxSlice = max(a.maxSlice, l.slice[i])
	}
	return a
}

// set puts se in slot i (its handle included) without shifting.
func (l *tlLeaf) set(i int, se *SchedEntity) {
	l.dl[i], l.v[i], l.slice[i], l.se[i] = se.deadline, se.vruntime, se.slice, se
	se.tlLeaf = l
}

// insertAt puts se at position i, shifting the entities from i one slot
// right. The leaf must not be full. Entities that shift stay in the leaf:
// their handles are unchanged.
func (l *tlLeaf) insertAt(i int, se *SchedEntity) {
	n := l.count()
	copy(l.dl[i+1:n+1], l.dl[i:n])
	copy(l.v[i+1:n+1], l.v[i:n])
	copy(l.slice[i+1:n+1], l.slice[i:n])
	copy(l.se[i+1:n+1], l.se[i:n])
	l.set(i, se)
	l.n++
}

// removeAt takes out the entity at position i, shifting the ones after it
// one slot left, and clears its handle.
func (l *tlLeaf) removeAt(i int) {
	n := l.count()
	l.se[i].tlLeaf = nil
	copy(l.dl[i:n-1], l.dl[i+1:n])
	copy(l.v[i:n-1], l.v[i+1:n])
	copy(l.slice[i:n-1], l.slice[i+1:n])
	copy(l.se[i:n-1], l.se[i+1:n])
	l.se[n-1] = nil
	l.n--
}

// indexOf returns the slot of se, which the leaf holds.
func (l *tlLeaf) indexOf(se *SchedEntity) int {
	for i, x := range l.se[:l.n] {
		if x == se {
			return i
		}
	}
	panic("eevdf: timeline handle points to a leaf without the entity")
}

// moveLeaf moves the k entities src[from:from+k] to dst[to:to+k], making
// dst their handle, and clears the vacated entity slots of src. Counts are
// the caller's.
func moveLeaf(dst *tlLeaf, to int, src *tlLeaf, from, k int) {
	copy(dst.dl[to:to+k], src.dl[from:from+k])
	copy(dst.v[to:to+k], src.v[from:from+k])
	copy(dst.slice[to:to+k], src.slice[from:from+k])
	copy(dst.se[to:to+k], src.se[from:from+k])
	clear(src.se[from : from+k])
	for _, se := range dst.se[to : to+k] {
		se.tlLeaf = dst
	}
}

// shiftLeaf moves the entities l[from:n] by d slots (d may be negative),
// within the leaf. Counts and the clearing of vacated slots are the
// caller's.
func shiftLeaf(l *tlLeaf, from, d int) {
	n := l.count()
	copy(l.dl[from+d:n+d], l.dl[from:n])
	copy(l.v[from+d:n+d], l.v[from:n])
	copy(l.slice[from+d:n+d], l.slice[from:n])
	copy(l.se[from+d:n+d], l.se[from:n])
}

// aggOf returns the aggregate of the subtree kids[i].
func (in *tlInner) aggOf(i int) agg { return agg{in.minV[i], in.minS[i], in.maxS[i]} }

// setAgg stores the aggregate of the subtree kids[i].
func (in *tlInner) setAgg(i int, a agg) {
	in.minV[i], in.minS[i], in.maxS[i] = a.minV, a.minSlice, a.maxSlice
}

// fold is the aggregate of the interior node's subtree, from its
// children's.
func (in *tlInner) fold() agg {
	n := in.count()
	a := agg{in.minV[0], in.minS[0], in.maxS[0]}
	for i := 1; i < n; i++ {
		a.minV = minVruntime(a.minV, in.minV[i])
		a.minSlice = min(a.minSlice, in.minS[i])
		a.maxSlice = max(a.maxSlice, in.maxS[i])
	}
	return a
}

// childFor returns the child whose subtree an entity of deadline dl goes
// into: after every separator at or before dl, so that an insertion goes
// after the entities with its deadline, as the kernel's tree puts an equal
// key to the right.
func (in *tlInner) childFor(dl uint64) int { return upper(in.sep[:in.n-1], dl) }

// indexOf returns the position of the child c.
func (in *tlInner) indexOf(c *tlNode) int {
	for i, x := range in.kids[:in.n] {
		if x == c {
			return i
		}
	}
	panic("eevdf: timeline node is not among its parent's children")
}

// foldNode is the aggregate of a non-empty node.
func foldNode(n *tlNode) agg {
	if n.leaf {
		return n.asLeaf().fold()
	}
	return n.asInner().fold()
}

// insertKid puts child c (subtree aggregate ca) at position i ≥ 1, with
// separator s between kids[i-1] and c, shifting what follows one slot
// right. The node must not be full.
//
//	before:   s0    s1              after:   s0    s      s1
//	        K0   K1    K2                  K0   K1    c      K2
func (in *tlInner) insertKid(i int, s uint64, c *tlNode, ca agg) {
	n := in.count()
	copy(in.sep[i:n], in.sep[i-1:n-1])
	copy(in.minV[i+1:n+1], in.minV[i:n])
	copy(in.minS[i+1:n+1], in.minS[i:n])
	copy(in.maxS[i+1:n+1], in.maxS[i:n])
	copy(in.kids[i+1:n+1], in.kids[i:n])
	in.sep[i-1] = s
	in.kids[i] = c
	in.setAgg(i, ca)
	c.parent = in
	in.n++
}

// removeKid takes out child i and one separator next to it: the one on
// its left (sep[i-1]), or for i = 0 the one on its right (sep[0]).
func (in *tlInner) removeKid(i int) {
	n := in.count()
	s := max(i-1, 0)
	copy(in.sep[s:n-2], in.sep[s+1:n-1])
	copy(in.minV[i:n-1], in.minV[i+1:n])
	copy(in.minS[i:n-1], in.minS[i+1:n])
	copy(in.maxS[i:n-1], in.maxS[i+1:n])
	copy(in.kids[i:n-1], in.kids[i+1:n])
	in.kids[n-1] = nil
	in.n--
}

// moveKids moves the k children src[from:from+k] (with their aggregates)
// to dst[to:to+k], making dst their parent, and clears the vacated child
// slots of src. Separators and counts are the caller's.
func moveKids(dst *tlInner, to int, src *tlInner, from, k int) {
	copy(dst.minV[to:to+k], src.minV[from:from+k])
	copy(dst.minS[to:to+k], src.minS[from:from+k])
	copy(dst.maxS[to:to+k], src.maxS[from:from+k])
	copy(dst.kids[to:to+k], src.kids[from:from+k])
	clear(src.kids[from : from+k])
	for _, c := range dst.kids[to : to+k] {
		c.parent = dst
	}
}

// shiftKids moves the children in[from:n] and the separators
// sep[from:n-1] by d slots (d may be negative), within the node.
func shiftKids(in *tlInner, from, d int) {
	n := in.count()
	if from < n-1 {
		copy(in.sep[from+d:n-1+d], in.sep[from:n-1])
	}
	copy(in.minV[from+d:n+d], in.minV[from:n])
	copy(in.minS[from+d:n+d], in.minS[from:n])
	copy(in.maxS[from+d:n+d], in.maxS[from:n])
	copy(in.kids[from+d:n+d], in.kids[from:n])
}
