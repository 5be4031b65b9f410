package eevdf

import (
	"slices"
	"unsafe"
)

// The nodes of the B-tree timeline (timeline_btree.go) and the moves of
// entities and children between them. Every function here keeps the
// three pieces of state that point into nodes exact: an entity's handle
// (tlLeaf: the leaf that holds it), a node's parent pointer and its
// position among its parent's children.

const (
	// leafMax is the most entities a leaf holds, leafMin the fewest a leaf
	// other than the root and the leftmost holds. A full leaf taking one
	// more entity splits into parts of at least leafMin; a leaf left with
	// leafMin-1 merges with its sibling when the two hold at most
	// leafMergeMax ≤ leafMax entities, and borrows from it otherwise
	// (leafMergeMax, below).
	//
	// The minimum is a quarter, not a half, so that a split can be
	// uneven: a run queue inserts near the end of the region of the
	// timeline that entities of one slice and weight return to, and a
	// split at the insertion point leaves the lower part full. With
	// halves, leaves settled at 9 entities of 16 in BenchmarkPick; with
	// quarters, at 12 (B/queued 74 -> 56).
	leafMax = 16
	leafMin = leafMax / 4
	// leafMergeMax is the most entities a leaf one short of its minimum
	// and its sibling are merged into; more, and it borrows from the
	// sibling (refillLeaf). Borrowing from a sibling itself near the
	// minimum, which merging only at 2·leafMin-1 did, left both near it,
	// and the next erasure in either refilled again; a merged leaf takes
	// several erasures first. In BenchmarkSimulator/btree/sleepers, whose
	// picks erase all over the timeline, refills fell from 19 % of
	// erasures to 4.4 % (splits rose by 1 %; btree/design.md, "In a
	// simulation", says how they were counted).
	leafMergeMax = leafMax * 3 / 4
	// innerMax and innerMin bound the children of an interior node other
	// than the root (which has at least two), by the same arithmetic.
	innerMax = 16
	innerMin = innerMax / 2
	// tlMaxHeight bounds the levels of a tree: a tree of height h holds at
	// least 2·innerMin^(h-2)·leafMin entities (2^46 for h = 16 at the
	// sizes above).
	tlMaxHeight = 16
)

// Compile-time checks (a negative array length or a constant index out of
// range does not compile): a node holds at least four entities or
// children, so that a tree of tlMaxHeight levels holds at least 2^31
// entities; a leaf's ring indexes reduce with a mask; refills either
// merge into one leaf or borrow from a sibling that can lend.
var (
	_ [leafMin - 4]struct{}
	_ [innerMin - 4]struct{}
	_ = [1]struct{}{}[leafMax&(leafMax-1)] // leafMax is a power of two (rings)
	// countNotAfter searches leaves' deadlines and interior nodes'
	// separators as arrays of 16.
	_ = [1]struct{}{}[leafMax-16]
	_ = [1]struct{}{}[innerMax-16]
	// A merge fits in a leaf, and a sibling that cannot lend (leafMin)
	// merges.
	_ [leafMax - leafMergeMax]struct{}
	_ [leafMergeMax - (2*leafMin - 1)]struct{}
)

// tlNode is the header shared by leaves and interior nodes. Leaves and
// interior nodes are allocated with their own sizes; the leaf flag tells
// which one a *tlNode points to, and asLeaf or asInner recovers that type
// (never a larger one than was allocated).
//
// pos is the node's position among its parent's children
// (parent.kids[pos] is the node), so that a walk up from a leaf, an
// erasure's or an insertion's, finds each aggregate to update without
// scanning the parent's children, and an insertion needs no record of its
// descent. The moves of children between and within interior nodes keep
// it current.
type tlNode struct {
	parent *tlInner // nil for the root and for free nodes
	next   *tlNode  // free-list link; nil while in the tree
	n      int32    // leaf: entities held; interior: children
	leaf   bool
	pos    uint8 // index in parent.kids; 0 for the root and free nodes
}

// tlLeaf holds up to leafMax entities in timeline order, as structure of
// arrays: a search for an insertion position reads dl alone (two cache
// lines), the eligibility scan v alone, a refold v and slice. None of them
// loads an entity.
//
// The arrays are rings: logical position i is slot (off+i) mod leafMax.
// Taking out the first entity, what nearly every pick does, is then an
// increment of off, and an insertion or an erasure shifts the shorter side
// of its position; entities move to the front or the back of a sibling
// without shifting it. Slots outside the n in use hold stale keys and nil
// entity pointers.
//
//	        off
//	         v
//	dl    [ ..  d0  d1  d2  d3 ... ]   deadlines, non-decreasing (signed)
//	v     [ ..  v0  v1  v2  v3 ... ]   vruntimes
//	slice [ ..  s0  s1  s2  s3 ... ]   slices
//	se    [ nil e0  e1  e2  e3 ... ]   the entities; ei.tlLeaf is the leaf
type tlLeaf struct {
	tlNode
	off   uint32 // the slot of the first entity
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
	sep  [innerMax]uint64 // the last slot is never read (removeKid may write it)
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

// at returns the slot of logical position i.
func (l *tlLeaf) at(i int) uint { return (uint(l.off) + uint(i)) % leafMax }

// upperFull returns the position in the full leaf after every entity
// whose deadline is not later than dl, in the signed order: every slot of
// a full ring is in use, so the count runs over the whole array whatever
// the offset. (A leaf with room is searched by insertSorted.)
func (l *tlLeaf) upperFull(dl uint64) int { return countNotAfter(&l.dl, leafMax, dl) }

// upperSep returns the number of the first n < 16 separators of an
// interior node at or before dl, in the signed order: the child an entity
// of deadline dl goes into.
//
// The separators are in order, so those at or before dl are a prefix, and
// its length is found by bisection: four tests, each of whether the prefix
// reaches 8, 4, 2 and 1 further (a position at or past n counting as
// after dl). In the simulator's streams (a root of about ten separators
// over a hundred entities) a search took 69 instructions counted four at a
// time (countNotAfter, which needs no order and still counts a full leaf's
// ring) and takes 39 by bisection.
func upperSep(ds *[innerMax]uint64, n int, dl uint64) int {
	c, u := uint(0), uint(n)
	if 7 < u && int64(dl-ds[7]) >= 0 {
		c = 8
	}
	if c+3 < u && int64(dl-ds[(c+3)&(innerMax-1)]) >= 0 {
		c += 4
	}
	if c+1 < u && int64(dl-ds[(c+1)&(innerMax-1)]) >= 0 {
		c += 2
	}
	if c < u && int64(dl-ds[c&(innerMax-1)]) >= 0 {
		c++
	}
	return int(c)
}

// countNotAfter returns the number of the first n ≤ 16 deadlines of ds
// not later than dl, in the signed order (int64(dl−d) ≥ 0). It counts the
// sign bits of the differences d−dl−1 (d + ^dl), negative exactly for
// those deadlines (a deadline 2^63 after dl, which the order puts later,
// included), four at a time: no branch depends on the data, and no load
// waits for a comparison, so that a node not in the cache costs one round
// of misses. (A bisection chains its loads, each waiting for the
// comparison before it; a search by quarters, two rounds, executed as many
// instructions for a node of 16 and measured no faster.) Adding ^dl to the
// loaded deadline spares the copy of dl that a subtraction from it takes
// for each. The index runs over the array itself, masked to its length,
// rather than over a slice cut four further at each round: a cut updates a
// pointer, a length and a capacity, a mask is one instruction and lets the
// compiler drop the bounds checks.
func countNotAfter(ds *[16]uint64, n int, dl uint64) int {
	m := ^dl
	c := uint64(0)
	u := uint(n)
	i := uint(0)
	for ; i+4 <= u; i += 4 {
		b := i & 12
		c += (ds[b]+m)>>63 + (ds[b+1]+m)>>63 + (ds[b+2]+m)>>63 + (ds[b+3]+m)>>63
	}
	for ; i < u; i++ {
		c += (ds[i&15] + m) >> 63
	}
	return int(c)
}

// agg returns the aggregate of the entity at position i.
func (l *tlLeaf) agg(i int) agg {
	k := l.at(i)
	return agg{l.v[k], l.slice[k], l.slice[k]}
}

// fold is the aggregate of a non-empty leaf: min_vruntime_update over its
// entities.
//
// The leaf's scans run over the slots o+1 .. o+n-1 (each reduced mod
// leafMax) with the offset o read once: the compiler does not hoist a
// field's load out of a loop, and l.at(i) read the offset again for each
// entity.
func (l *tlLeaf) fold() agg {
	o := uint(l.off)
	k := o % leafMax
	a := agg{l.v[k], l.slice[k], l.slice[k]}
	for j, end := o+1, o+uint(l.n); j < end; j++ {
		k := j % leafMax
		a.minV = minVruntime(a.minV, l.v[k])
		a.minSlice = min(a.minSlice, l.slice[k])
		a.maxSlice = max(a.maxSlice, l.slice[k])
	}
	return a
}

// without returns the aggregate of the non-empty leaf, whose aggregate
// was a while it also held an entity of aggregate x that has left it.
// Only the extremes x attained are recomputed, and a slice extreme that
// another entity shares is kept without looking further: queues usually
// have a few distinct slices, often one.
func (l *tlLeaf) without(a, x agg) agg {
	n := uint(l.n)
	if n <= 2 {
		return l.fold() // cheaper than looking
	}
	o := uint(l.off)
	end := o + n
	if x.minV == a.minV {
		// Four entities a round: one test of the bound for four, in the
		// order of a one-by-one fold (min_vruntime's modular minimum
		// depends on the order of its operands when they are 2^63
		// apart, so the order is kept).
		v := l.v[o%leafMax]
		j := o + 1
		for ; j+3 < end; j += 4 {
			v = minVruntime(v, l.v[j%leafMax])
			v = minVruntime(v, l.v[(j+1)%leafMax])
			v = minVruntime(v, l.v[(j+2)%leafMax])
			v = minVruntime(v, l.v[(j+3)%leafMax])
		}
		for ; j < end; j++ {
			v = minVruntime(v, l.v[j%leafMax])
		}
		a.minV = v
	}
	// One slice throughout (minimum = maximum) stays one slice.
	if s := x.minSlice; a.minSlice != a.maxSlice && (s == a.minSlice || s == a.maxSlice) {
		for j := o; j < end; j++ {
			if l.slice[j%leafMax] == s {
				return a
			}
		}
		k := o % leafMax
		a.minSlice, a.maxSlice = l.slice[k], l.slice[k]
		for j := o + 1; j < end; j++ {
			k := j % leafMax
			a.minSlice = min(a.minSlice, l.slice[k])
			a.maxSlice = max(a.maxSlice, l.slice[k])
		}
	}
	return a
}

// firstDeadline is the deadline at position 0 of a non-empty leaf.
func (l *tlLeaf) firstDeadline() uint64 { return l.dl[l.off%leafMax] }

// firstEntity is the entity at position 0, nil for an empty leaf.
func (l *tlLeaf) firstEntity() *SchedEntity { return l.se[l.off%leafMax] }

// set puts se at position i (its handle included) without shifting.
func (l *tlLeaf) set(i int, se *SchedEntity) {
	k := l.at(i)
	l.dl[k], l.v[k], l.slice[k], l.se[k] = se.deadline, se.vruntime, se.slice, se
	se.tlLeaf = l
}

// setSlot puts se in slot k mod leafMax (its handle included) without
// shifting.
func (l *tlLeaf) setSlot(k uint, se *SchedEntity) {
	k %= leafMax
	l.dl[k], l.v[k], l.slice[k], l.se[k] = se.deadline, se.vruntime, se.slice, se
	se.tlLeaf = l
}

// slide moves the entity in slot s to slot d, within the leaf.
func (l *tlLeaf) slide(d, s uint) {
	d, s = d%leafMax, s%leafMax
	l.dl[d], l.v[d], l.slice[d], l.se[d] = l.dl[s], l.v[s], l.slice[s], l.se[s]
}

// insertAt puts se at position i, shifting the entities before i one slot
// back or those from i one slot on, whichever are fewer. The leaf must not
// be full (so that the ring has a free slot on either side). Entities that
// shift stay in the leaf: their handles are unchanged.
//
// The shifts are loops rather than copy: a shift moves a few words in
// each of four arrays, and four calls of memmove (one with write
// barriers) cost more than the moves.
func (l *tlLeaf) insertAt(i int, se *SchedEntity) {
	n, o := uint(l.n), uint(l.off)
	if u := uint(i); u < n-u {
		for j := uint(0); j < u; j++ {
			l.slide(o+j-1, o+j)
		}
		l.off = uint32((o - 1) % leafMax)
	} else {
		for j := n; j > u; j-- {
			l.slide(o+j, o+j-1)
		}
	}
	l.set(i, se)
	l.n++
}

// insertSorted puts se into the leaf, which must not be full, after every
// entity whose deadline is not later than its own, and returns its
// position. The search and the shift are one pass, from the end of the
// leaf that se is nearer (its deadline is compared with the middle one):
// each entity on that side is compared, and moved one slot, until se's
// place is found, as in an insertion sort; the pass moves what insertAt
// would move.
func (l *tlLeaf) insertSorted(se *SchedEntity) int {
	n, o, dl := uint(l.n), uint(l.off), se.deadline
	mid := n / 2
	// (An empty leaf needs no test of its own: either branch puts se at
	// position 0 without a move, whatever the stale key compared.)
	if int64(dl-l.dl[(o+mid)%leafMax]) >= 0 {
		// After the middle entity: move the later ones one slot on.
		j := n
		for j > mid+1 && int64(dl-l.dl[(o+j-1)%leafMax]) < 0 {
			l.slide(o+j, o+j-1)
			j--
		}
		l.set(int(j), se)
		l.n++
		return int(j)
	}
	// Before the middle entity: move the ones at or before se one slot
	// back.
	j := uint(0)
	for j < mid && int64(dl-l.dl[(o+j)%leafMax]) >= 0 {
		l.slide(o+j-1, o+j)
		j++
	}
	l.off = uint32((o - 1) % leafMax)
	l.set(int(j), se)
	l.n++
	return int(j)
}

// replaceAt takes out the entity at position i (its handle is the
// caller's to clear: replace has the entity at hand) and puts se where
// insertSorted would put it in the leaf without that entity: after every
// entity whose deadline is not later than its own.
// It is one pass of an insertion sort that starts from the vacated slot,
// towards the side se's deadline lies on, each entity passed moving one
// slot into the gap: the entities between the two positions move, and
// those outside them do not. (Counted over the pick loop of 16 tasks, a
// removal and an insertion, each shifting its shorter side, move as many
// entities on average, 4.2 against 4.2, in two passes instead of one.)
func (l *tlLeaf) replaceAt(i int, se *SchedEntity) {
	// The pass carries the slot from one entity to the next (each
	// entity's source slot is the next one's destination): one add and
	// one mask an entity, where positions reduced to slots took two of
	// each, and the last move is in the loop rather than after it.
	n, o, dl := uint(l.n), uint(l.off), se.deadline
	u := uint(i)
	d := (o + u) % leafMax
	switch {
	case u+1 < n && int64(dl-l.dl[(d+1)%leafMax]) >= 0:
		// Later than the next entity: the ones up to se's place move
		// one slot back.
		s := (d + 1) % leafMax
		for {
			l.slide(d, s)
			d, s = s, (s+1)%leafMax
			u++
			if u+1 >= n || int64(dl-l.dl[s]) < 0 {
				break
			}
		}
	case u > 0 && int64(dl-l.dl[(d-1)%leafMax]) < 0:
		// Earlier than the previous entity: the ones after se's place
		// move one slot on.
		s := (d - 1) % leafMax
		for {
			l.slide(d, s)
			d, s = s, (s-1)%leafMax
			u--
			if u == 0 || int64(dl-l.dl[s]) >= 0 {
				break
			}
		}
	}
	l.setSlot(d, se)
}

// indexOf returns the position of se, which the leaf holds.
func (l *tlLeaf) indexOf(se *SchedEntity) int {
	for i := range l.count() {
		if l.se[l.at(i)] == se {
			return i
		}
	}
	panic("eevdf: timeline handle points to a leaf without the entity")
}

// moveLeaf moves the k entities at positions from..from+k-1 of src to
// positions to..to+k-1 of dst (another leaf), making dst their handle, and
// clears their slots in src. Counts and offsets are the caller's: to move
// entities to the front of dst, the caller lowers dst.off first.
func moveLeaf(dst *tlLeaf, to int, src *tlLeaf, from, k int) {
	for j := range k {
		d, s := dst.at(to+j), src.at(from+j)
		se := src.se[s]
		dst.dl[d], dst.v[d], dst.slice[d], dst.se[d] = src.dl[s], src.v[s], src.slice[s], se
		src.se[s] = nil
		se.tlLeaf = dst
	}
}

// moveOff adds d (which may be negative) to the leaf's offset: the first
// position moves d slots on.
func (l *tlLeaf) moveOff(d int) { l.off = uint32((uint(l.off) + uint(d)) % leafMax) }

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

// without is tlLeaf.without for an interior node whose subtree lost an
// entity of aggregate x, its children's aggregates being up to date.
func (in *tlInner) without(a, x agg) agg {
	n := in.count()
	if x.minV == a.minV {
		// Four children a round, over the array masked to its length
		// (as in findEligible's descent), from the first child again:
		// its minimum with itself is itself, and the order of a
		// one-by-one fold is kept.
		v := in.minV[0]
		i, u := uint(0), uint(n)
		for ; i+4 <= u; i += 4 {
			b := i & (innerMax - 4)
			v = minVruntime(v, in.minV[b])
			v = minVruntime(v, in.minV[b+1])
			v = minVruntime(v, in.minV[b+2])
			v = minVruntime(v, in.minV[b+3])
		}
		for ; i < u; i++ {
			v = minVruntime(v, in.minV[i&(innerMax-1)])
		}
		a.minV = v
	}
	if a.minSlice == a.maxSlice {
		return a // one slice throughout stays one slice
	}
	if x.minSlice == a.minSlice && !slices.Contains(in.minS[:n], a.minSlice) {
		a.minSlice = slices.Min(in.minS[:n])
	}
	if x.maxSlice == a.maxSlice && !slices.Contains(in.maxS[:n], a.maxSlice) {
		a.maxSlice = slices.Max(in.maxS[:n])
	}
	return a
}

// withoutNode is without for a non-empty node of either kind.
func withoutNode(n *tlNode, a, x agg) agg {
	if n.leaf {
		return n.asLeaf().without(a, x)
	}
	return n.asInner().without(a, x)
}

// adopt makes in the parent of its children from..to-1, at their
// positions.
func (in *tlInner) adopt(from, to int) {
	for i := from; i < to; i++ {
		c := in.kids[i]
		c.parent, c.pos = in, uint8(i)
	}
}

// insertKid puts child c (subtree aggregate ca) at position i ≥ 1, with
// separator s between kids[i-1] and c, shifting what follows one slot
// right. The node must not be full.
//
//	before:   s0    s1              after:   s0    s      s1
//	        K0   K1    K2                  K0   K1    c      K2
//
// The shift is one loop, which renumbers each child it moves, rather than
// five calls of memmove (one with write barriers), which cost more than
// the few words they move. Its indexes are masked to the arrays' length,
// as countNotAfter's are, so that no access is bounds-checked: the
// checks cost two instructions each, several for each child moved.
func (in *tlInner) insertKid(i int, s uint64, c *tlNode, ca agg) {
	const m = innerMax - 1
	for j, u := uint(in.n), uint(i); j > u; j-- {
		k := in.kids[(j-1)&m]
		in.kids[j&m], k.pos = k, uint8(j)
		in.minV[j&m], in.minS[j&m], in.maxS[j&m] = in.minV[(j-1)&m], in.minS[(j-1)&m], in.maxS[(j-1)&m]
		in.sep[(j-1)&m] = in.sep[(j-2)&m]
	}
	in.sep[i-1] = s
	in.kids[i] = c
	in.setAgg(i, ca)
	c.parent, c.pos = in, uint8(i)
	in.n++
}

// removeKid takes out child i and one separator next to it: the one on
// its left (sep[i-1]), or for i = 0 the one on its right (sep[0]). The
// shift is one loop, as in insertKid (indexes masked), which moves each
// child with the separator on its left: sep[j-1] takes sep[j] as child j
// takes child j+1. For i = 0 its first round writes sep[0] into sep[15]
// (j-1 masked), the slot that is never read, and the rounds after it
// shift sep[1:] down: the separator on child 0's right leaves.
func (in *tlInner) removeKid(i int) {
	const m = innerMax - 1
	n := uint(in.n)
	for j := uint(i); j+1 < n; j++ {
		k := in.kids[(j+1)&m]
		in.kids[j&m], k.pos = k, uint8(j)
		in.minV[j&m], in.minS[j&m], in.maxS[j&m] = in.minV[(j+1)&m], in.minS[(j+1)&m], in.maxS[(j+1)&m]
		in.sep[(j-1)&m] = in.sep[j&m]
	}
	in.kids[(n-1)&m] = nil
	in.n--
}

// moveKids moves the k children src[from:from+k] (with their aggregates)
// to dst[to:to+k], making dst their parent, and clears the vacated child
// slots of src. Separators and counts are the caller's, and so are the
// positions of src's children after the vacated slots.
func moveKids(dst *tlInner, to int, src *tlInner, from, k int) {
	copy(dst.minV[to:to+k], src.minV[from:from+k])
	copy(dst.minS[to:to+k], src.minS[from:from+k])
	copy(dst.maxS[to:to+k], src.maxS[from:from+k])
	copy(dst.kids[to:to+k], src.kids[from:from+k])
	clear(src.kids[from : from+k])
	dst.adopt(to, to+k)
}

// shiftKids moves the children in[from:n] and the separators
// sep[from:n-1] by d slots (d may be negative), within the node, and
// renumbers the children moved.
func shiftKids(in *tlInner, from, d int) {
	n := in.count()
	if from < n-1 {
		copy(in.sep[from+d:n-1+d], in.sep[from:n-1])
	}
	copy(in.minV[from+d:n+d], in.minV[from:n])
	copy(in.minS[from+d:n+d], in.minS[from:n])
	copy(in.maxS[from+d:n+d], in.maxS[from:n])
	copy(in.kids[from+d:n+d], in.kids[from:n])
	for j := from + d; j < n+d; j++ {
		in.kids[j].pos = uint8(j)
	}
}
