package eevdf

// bTimeline is the B-tree backend of the timeline: a B+-tree built for the
// timeline's entities (the generic package btree is its ancestor; see
// btree/design.md for the measurements behind this layout).
//
//   - Entities live in the leaves only, in (deadline, insertion) order;
//     interior nodes hold separators and, beside each child, the child's
//     aggregate (min vruntime, min and max slice).
//   - Nodes are structures of arrays: the deadlines of a leaf, its
//     vruntimes, its slices and its entities are four arrays; an interior
//     node's separators and its children's three aggregates are arrays.
//     A search for an insertion position reads deadlines only, the
//     eligibility descent minimum vruntimes only, and neither loads an
//     entity.
//   - Every entity in the tree records its leaf (SchedEntity.tlLeaf), and
//     every node its parent and its position among the parent's
//     children, so that an erasure starts at the entity's
//     leaf and walks up only as far as the aggregates change, without a
//     search, as the kernel's rb_erase starts at the node embedded in the
//     entity. The handles are kept current by the moves between nodes
//     (split, borrow, merge: timeline_node.go), which touch the entities
//     they move; shifts inside a leaf touch none.
//   - Leaves are rings (timeline_node.go): taking out the first entity
//     moves an offset, and a shift takes the shorter side. The leftmost
//     leaf, which picks drain, has no minimum occupancy (erase); the
//     others hold at least a quarter, so that a full leaf can split at the
//     insertion point (splitLeaf).
//   - On a queue that fits one leaf, an insertion followed by an erasure,
//     as put_prev and set_next are in a switch, is one replacement in the
//     leaf (insert, replace).
//   - The leftmost entity is a field (first), and so are the count and the
//     whole tree's aggregate (agg).
//
// An insertion goes after every entity with the same deadline, as the
// kernel's rb_add puts an equal key to the right; the run queue's
// insertion sequence (seq) says the same, since an entity is inserted with
// a sequence number above every other. The deadline, vruntime and slice
// of an entity are copied into its leaf at insertion and must not change
// while it is in the tree (every rewrite of a queued entity takes it out
// first); verify checks it.
//
// Costs, for n entities: insert O(log n) (one descent of deadline
// searches, then aggregates merged upwards until one does not change);
// erase O(log n) in the worst case, and a scan of one leaf when the
// entity attains none of the extremes of its leaf's aggregate and leaves
// the leaf above its minimum; first, root and len O(1); findEligible
// O(log n).
type bTimeline struct {
	root   *tlNode
	head   *tlLeaf      // the leftmost leaf; nil when empty
	first  *SchedEntity // head's first entity; nil when empty
	count  int
	height int // levels: 1 for a lone leaf, 0 when empty
	agg    agg // the aggregate of every entity; zero when empty
	free   tlFree
	// pending is an entity inserted but not yet placed (see insert).
	pending *SchedEntity
	// hint is the slot, in its leaf, of the entity findEligible last
	// returned: a pick erases that entity next (set_next), and its
	// position is then known without a scan of the leaf (position). It is
	// only a guess, checked against the slot before use, so that nothing
	// that moves entities needs to clear it; a slot index, not a pointer,
	// so that storing it needs no write barrier.
	hint uint8
	// finger remembers, for each class of entity (fingerSlot: its slice
	// and weight), the leaf its last insertion went into. Entities of one
	// class that are inserted one after the other receive nearly the same
	// deadline (the queue's average vruntime, which moves slowly, plus
	// the class's virtual slice), so that the next one usually belongs in
	// the same leaf, and a check of that leaf's bounds (fingerFits)
	// replaces the descent's deadline searches. A finger is only a guess,
	// checked before use: a leaf that was split, merged or freed since
	// fails the check or passes it only where the descent would reach it
	// too.
	finger [fingerSlots]*tlLeaf
}

// fingerSlots is the number of fingers: entity classes (slice, weight)
// hashed into fewer slots share one, a miss then costing the check.
const fingerSlots = 8

// fingerSlot is the finger of se's class: a multiplicative hash of its
// slice and effective weight, the two that make its virtual slice.
func fingerSlot(se *SchedEntity) uint {
	return uint(((se.slice ^ se.hload<<32) * 0x9e3779b97f4a7c15) >> (64 - 3))
}

// descend returns the leaf that an insertion of deadline dl descends to
// from the interior node nd, as insert's own descent does (insert keeps
// its copy for trees of two levels, the common size, where a call would
// cost more than the descent's one search).
func descend(nd *tlNode, dl uint64) *tlNode {
	for !nd.leaf {
		in := nd.asInner()
		i := in.count() - 1
		if int64(dl-in.sep[(i-1)&(innerMax-1)]) < 0 {
			i = upperSep(&in.sep, i-1, dl)
		}
		nd = in.kids[i]
	}
	return nd
}

// fingerFits reports whether an insertion of deadline dl, in a tree of
// several levels, descends to leaf l. Every deadline in the subtree of an
// interior node's child j lies between separators j-1 and j, and so does
// every separator inside it: so dl belongs in l when it is not earlier
// than l's first deadline (every separator on l's left is at or before
// that) and earlier than the first separator on l's right, found by
// climbing while the node is its parent's last child. A leaf with no
// separator on its right (the rightmost) takes any later deadline; a leaf
// that has left the tree has no parent and is not the root, so it fails.
func (t *bTimeline) fingerFits(l *tlLeaf, dl uint64) bool {
	if int64(dl-l.dl[l.off%leafMax]) < 0 {
		return false
	}
	nd := &l.tlNode
	for p := nd.parent; p != nil; nd, p = &p.tlNode, p.parent {
		if i := int(nd.pos); i < p.count()-1 {
			return int64(dl-p.sep[i]) < 0
		}
	}
	return nd == t.root
}

// position returns the position of se in its leaf l: 0 when se is first
// (a test that a queue draining from the front, the hogs stream's, passes
// nearly always, so it comes before the hint); otherwise from the slot of
// the last entity found eligible when that slot holds se (slots outside a
// leaf's entities hold nil, so the slot is then in use and the position
// is its distance from the offset); by a scan of the leaf otherwise.
func (t *bTimeline) position(l *tlLeaf, se *SchedEntity) int {
	o := uint(l.off)
	if l.se[o%leafMax] == se {
		return 0
	}
	if k := uint(t.hint) % leafMax; l.se[k] == se {
		return int((k - o) % leafMax)
	}
	return l.indexOf(se)
}

// keeps reports that a subtree of aggregate a that holds an entity of
// aggregate x, and another entity besides, still has aggregate a without
// it: x attains none of a's extremes (each a minimum or a maximum, so
// another entity does), or only slice extremes that every entity
// attains. A subtree whose minimum and maximum slice are equal has one
// slice throughout, which the entities left keep: on a run queue whose
// tasks have the default slice, the usual case, only the minimum
// vruntime can change.
func keeps(a, x agg) bool {
	return x.minV != a.minV && (a.minSlice == a.maxSlice || x.minSlice != a.minSlice && x.maxSlice != a.maxSlice)
}

// len, aggregate and leftmost are field reads: insert keeps the count,
// the tree's aggregate and the leftmost entity current even while an
// insertion is pending.
func (t *bTimeline) len() int               { return t.count }
func (t *bTimeline) aggregate() (agg, bool) { return t.agg, t.count > 0 }
func (t *bTimeline) leftmost() *SchedEntity { return t.first }

// insert adds se, which must not be in a timeline, after every entity
// whose deadline is not later than its own.
//
// Into a tree that is a single leaf, the entity is placed lazily: insert
// counts it, merges its aggregate into the tree's, makes it the leftmost
// entity if its deadline is the earliest, and records it as pending; the
// next operation that reads or changes the nodes places it first
// (settle), except an erasure. In a context switch, put_prev_entity's
// insertion of the previous entity is followed by set_next_entity's
// erasure of the next one, with nothing reading the nodes in between: on
// a queue of up to a leaf of entities, the erasure and the insertion then
// become one replacement in the leaf (replace): entities shift once, and
// the aggregate is updated once. (In a larger tree the two seldom fall in
// one leaf, and the insertion is immediate.)
//
// Into a tree of several levels, insert descends to the leaf where se
// belongs; in a tree of three levels or more it first tries the leaf that the
// last insertion of se's class went into (finger), and descends only when
// se does not belong there. (In a tree of two levels the descent is one
// search of the root, no dearer than the finger's check.) A leaf with
// room takes it, and each aggregate above becomes its
// merge with se's, up to the first one that does not change. A full leaf
// splits first (splitLeaf), which may split the nodes above it in turn
// (grow). (The descent is written out here rather than in a function of
// its own: one call fewer on every insertion.)
func (t *bTimeline) insert(se *SchedEntity) {
	if se.tlLeaf != nil || se == t.pending {
		panic("eevdf: timeline insertion of an entity already in a timeline: " + se.name)
	}
	nd := t.root
	if nd != nil && !nd.leaf {
		// Only a tree of one leaf has a pending insertion: none to settle.
		t.count++
		dl := se.deadline
		if t.height > 2 {
			f := &t.finger[fingerSlot(se)]
			if l := *f; l != nil && t.fingerFits(l, dl) {
				nd = &l.tlNode
			} else {
				nd = descend(nd, dl)
				*f = nd.asLeaf()
			}
		}
		for !nd.leaf {
			// The child an entity of deadline dl goes into: after every
			// separator at or before dl, so that an insertion goes after
			// the entities with its deadline, as the kernel's tree puts an
			// equal key to the right. The last separator is tested first: a
			// deadline at or after it goes into the last child without a
			// count (put_prev_entity inserts an entity that has just
			// received a new deadline, often the latest of the queue), and
			// one before it leaves the others to search: upperSep's
			// bisection, written out (upperSep does not inline, and its
			// call cost some 11 instructions of the 39 a search took in
			// the simulator's streams).
			in := nd.asInner()
			i := uint(in.n) - 1 // at least 1: an interior node has two children
			if int64(dl-in.sep[(i-1)&(innerMax-1)]) < 0 {
				u := i - 1
				i = 0
				if 7 < u && int64(dl-in.sep[7]) >= 0 {
					i = 8
				}
				if i+3 < u && int64(dl-in.sep[(i+3)&(innerMax-1)]) >= 0 {
					i += 4
				}
				if i+1 < u && int64(dl-in.sep[(i+1)&(innerMax-1)]) >= 0 {
					i += 2
				}
				if i < u && int64(dl-in.sep[i&(innerMax-1)]) >= 0 {
					i++
				}
			}
			nd = in.kids[i&(innerMax-1)]
		}
		l := nd.asLeaf()
		x := agg{se.vruntime, se.slice, se.slice}
		if l.n < leafMax {
			if l.insertSorted(se) == 0 && l == t.head {
				t.first = se
			}
			// addAgg's loop, written out: one call fewer an insertion
			// (grow, after a split, calls addAgg).
			for nd = &l.tlNode; nd.parent != nil; nd = &nd.parent.tlNode {
				// (pos masked to the arrays' length, which it is within:
				// no bounds check.)
				in, i := nd.parent, nd.pos&(innerMax-1)
				v, lo, hi := in.minV[i], in.minS[i], in.maxS[i]
				// The merge leaves the aggregate as it is exactly when
				// se's vruntime is not before its minimum and se's slice
				// lies within its slices: tested so, with three
				// comparisons, before any merge is computed (nearly every
				// insertion stops here, at the first level).
				if s := x.minSlice; int64(x.minV-v) >= 0 && lo <= s && s <= hi {
					return
				}
				in.minV[i], in.minS[i], in.maxS[i] = minVruntime(v, x.minV), min(lo, x.minSlice), max(hi, x.maxSlice)
			}
			t.agg = entityAug{}.Merge(t.agg, x)
			return
		}
		t.splitLeaf(l, l.upperFull(dl), se, x)
		if t.height > 2 {
			// The finger follows se into the half it went to.
			t.finger[fingerSlot(se)] = se.tlLeaf
		}
		return
	}
	if t.pending != nil {
		// A second insertion in a row: the first is placed, and
		// se inserted into the tree that results.
		t.insertAfterPending(se)
		return
	}
	// A tree of at most one leaf, nothing pending: the usual put_prev of
	// a small queue. This path makes no call, and none comes before it,
	// so that the registers the descent's calls need saved are saved
	// on the descent's branch only (the compiler saves them where every
	// later use is dominated: with a call before the branch, at entry).
	t.count++
	x := agg{se.vruntime, se.slice, se.slice}
	if t.count == 1 {
		t.agg = x
	} else {
		t.agg = entityAug{}.Merge(t.agg, x)
	}
	if t.first == nil || vBefore(se.deadline, t.first.deadline) {
		t.first = se
	}
	t.pending = se
}

// insertAfterPending places the pending insertion, then inserts se.
func (t *bTimeline) insertAfterPending(se *SchedEntity) {
	t.placePending()
	t.insert(se)
}

// settle places the pending insertion, if any, in the nodes.
func (t *bTimeline) settle() {
	if t.pending != nil {
		t.placePending()
	}
}

// placePending puts the pending entity in the nodes. (Small enough to
// inline, so that the callers' spills around the call stay on its
// branch.)
func (t *bTimeline) placePending() {
	se := t.pending
	t.pending = nil
	t.placeLeaf(se)
}

// placeLeaf puts se, already counted and already in the tree's aggregate
// and leftmost entity, in the tree, which is empty or a single leaf.
func (t *bTimeline) placeLeaf(se *SchedEntity) {
	if t.root == nil {
		l := t.free.newLeaf()
		l.set(0, se)
		l.n = 1
		t.root, t.head, t.height = &l.tlNode, l, 1
		return
	}
	l := t.root.asLeaf()
	if l.n < leafMax {
		l.insertSorted(se)
		return
	}
	t.splitLeaf(l, l.upperFull(se.deadline), se, agg{se.vruntime, se.slice, se.slice})
}

// addAgg merges x into the aggregates of nd and of the nodes above it, as
// their parents hold them, and into the tree's, stopping at the first
// that does not change: every aggregate above it already covers x.
func (t *bTimeline) addAgg(nd *tlNode, x agg) {
	for ; nd.parent != nil; nd = &nd.parent.tlNode {
		in, i := nd.parent, nd.pos&(innerMax-1)
		v, lo, hi := in.minV[i], in.minS[i], in.maxS[i]
		nv, nlo, nhi := minVruntime(v, x.minV), min(lo, x.minSlice), max(hi, x.maxSlice)
		if nv == v && nlo == lo && nhi == hi {
			return
		}
		in.minV[i], in.minS[i], in.maxS[i] = nv, nlo, nhi
	}
	t.agg = entityAug{}.Merge(t.agg, x)
}

// splitLeaf inserts se (aggregate x) at position i of the full leaf l by
// splitting l: l keeps the lower
// entities, a new right sibling r takes the others (whose handles move to
// r), and r's first deadline separates them in the parent. Into the lower
// half, se goes with an even split; into the upper half, the split is at
// se's position (se first in r), as far as r's minimum allows, so that the
// fewest entities move and l stays as full as it was. For leafMax = 8
// (leafMin = 2), x going in at i = 2, then at i = 5:
//
//	+-----------------+             +-----------+   +---------+
//	| a b c d e f g h |  + x   =>   | a b x c d |   | e f g h |
//	+-----------------+             +-----------+ ^ +---------+
//	                                       separator: e's deadline
//
//	+-----------------+             +-----------+   +---------+
//	| a b c d e f g h |  + x   =>   | a b c d e |   | x f g h |
//	+-----------------+             +-----------+ ^ +---------+
//	                                       separator: x's deadline
func (t *bTimeline) splitLeaf(l *tlLeaf, i int, se *SchedEntity, x agg) {
	keep := (leafMax + 2) / 2
	if i >= keep {
		// se goes into the upper half: the split is at its position,
		// as far as r's minimum allows.
		keep = min(i, leafMax+1-leafMin)
	}
	r := t.free.newLeaf()
	if i < keep {
		moveLeaf(r, 0, l, keep-1, leafMax-keep+1)
		l.n, r.n = int32(keep-1), int32(leafMax-keep+1)
		l.insertAt(i, se)
	} else {
		moveLeaf(r, 0, l, keep, leafMax-keep)
		l.n, r.n = int32(keep), int32(leafMax-keep)
		r.insertAt(i-keep, se)
	}
	if l == t.head {
		t.first = l.firstEntity()
	}
	t.grow(&l.tlNode, l.fold(), &r.tlNode, r.fold(), r.firstDeadline(), x)
}

// grow puts right, the new right sibling of left (their aggregates la and
// ra, separator sep between them), into the parent of left; a full parent
// splits in turn (splitInsert), and a split root makes a new root above
// the two halves. x is the aggregate
// of the inserted entity: above the last node that changed shape, the
// aggregates only gain x.
//
//	                              +---------+
//	+-----------+                 |   sep   |
//	|   root    |     =>          +--/---\--+
//	+-----------+                   /     \
//	                             left     right
func (t *bTimeline) grow(left *tlNode, la agg, right *tlNode, ra agg, sep uint64, x agg) {
	for left.parent != nil {
		p, pi := left.parent, int(left.pos)
		p.setAgg(pi, la)
		if p.n < innerMax {
			p.insertKid(pi+1, sep, right, ra)
			t.addAgg(&p.tlNode, x)
			return
		}
		pr := t.free.newInner()
		sep = p.splitInsert(pi+1, sep, right, ra, pr)
		left, right = &p.tlNode, &pr.tlNode
		la, ra = p.fold(), pr.fold()
	}
	root := t.free.newInner()
	root.n = 2
	root.kids[0], root.kids[1] = left, right
	root.setAgg(0, la)
	root.setAgg(1, ra)
	root.sep[0] = sep
	root.adopt(0, 2)
	t.root = &root.tlNode
	t.height++
	t.agg = entityAug{}.Merge(la, ra)
}

// splitInsert inserts child c (aggregate ca) at position k ≥ 1, with
// separator s on its left, into the full interior node in, by splitting
// it: in keeps the lower (innerMax+2)/2 children, r (empty) takes the
// others, and the separator between the two halves is returned for the
// parent. For innerMax = 4, c going in at k = 2:
//
//	  s0  s1  s2                     s0  s          s2
//	K0  K1  K2  K3   + (s, c)  =>   K0  K1  c   ^   K2  K3
//	                                         returned: s1
func (in *tlInner) splitInsert(k int, s uint64, c *tlNode, ca agg, r *tlInner) uint64 {
	const keep = (innerMax + 2) / 2
	switch {
	case k < keep:
		// c lands in the lower half.
		up := in.sep[keep-2]
		moveKids(r, 0, in, keep-1, innerMax-keep+1)
		copy(r.sep[:innerMax-keep], in.sep[keep-1:innerMax-1])
		in.n, r.n = keep-1, innerMax-keep+1
		in.insertKid(k, s, c, ca)
		return up
	case k == keep:
		// c is the first child of the upper half; s goes up.
		moveKids(r, 1, in, keep, innerMax-keep)
		copy(r.sep[:innerMax-keep], in.sep[keep-1:innerMax-1])
		r.kids[0] = c
		r.setAgg(0, ca)
		r.adopt(0, 1)
		in.n, r.n = keep, innerMax-keep+1
		return s
	default:
		// c lands in the upper half.
		up := in.sep[keep-1]
		moveKids(r, 0, in, keep, innerMax-keep)
		copy(r.sep[:innerMax-keep-1], in.sep[keep:innerMax-1])
		in.n, r.n = keep, innerMax-keep
		r.insertKid(k-keep, s, c, ca)
		return up
	}
}

// erase takes se, which must be in this tree (or pending), out of it.
// After an insertion, it replaces rather than erases (see insert).
// Otherwise it takes se out of the leaf its handle names, then walks up
// from the leaf, restoring occupancy and aggregates. A node that keeps
// enough entries stops the walk as soon as its aggregate in its parent
// survives the loss of se's aggregate x (keeps) or comes out of a refold
// of the extremes x attained (without) unchanged; a short one borrows
// from a sibling or merges with one (refill), and its parent is looked
// at next. At the root, shrinkRoot finishes.
//
// The leftmost leaf is exempt from the minimum: picks drain it from the
// front, so refilling it from its sibling would only move entities (and
// write their handles) for the next picks to take out again. It holds at
// least one entity, and when its last one goes it leaves the tree, its
// sibling becoming the leftmost leaf.
//
// The removal from the leaf and the walk are written out here rather than
// in functions of their own: two calls fewer on every erasure.
func (t *bTimeline) erase(se *SchedEntity) {
	if in := t.pending; in != nil {
		t.pending = nil
		if in == se {
			t.unpend()
		} else {
			t.replace(se, in)
		}
		return
	}
	l := se.tlLeaf
	if l == nil {
		panic("eevdf: timeline erasure of an entity not in a timeline: " + se.name)
	}
	i := t.position(l, se)
	// se's aggregate, read from se rather than from the leaf's copies,
	// which equal it (see bTimeline): no slot to compute.
	x := agg{se.vruntime, se.slice, se.slice}
	// Out of the leaf: the entities before it shift one slot on or those
	// after it one slot back, whichever are fewer, and its handle is
	// cleared; taking out the first entity moves none. (Written out
	// here rather than in a function of the leaf: one call fewer on
	// every erasure.)
	n, o, u := uint(l.n), uint(l.off), uint(i)
	se.tlLeaf = nil // through se: no slot to compute and load
	if u < n-1-u {
		for j := u; j > 0; j-- {
			l.slide(o+j, o+j-1)
		}
		l.se[o%leafMax] = nil
		l.off = uint32((o + 1) % leafMax)
	} else {
		for j := u; j < n-1; j++ {
			l.slide(o+j, o+j+1)
		}
		l.se[(o+n-1)%leafMax] = nil
	}
	l.n--
	t.count--
	// The walk up; where it stops early (goto done), every aggregate
	// above, the tree's included, is unchanged. The leaf's level comes
	// first, on its own, and the interior levels after it: each level
	// then tests only its own kind's minimum and calls its own kind's
	// without (the leftmost leaf's exemption, below, concerns the leaf
	// alone), where one loop for both tested the kind twice a level.
	nd := &l.tlNode
	if p := l.parent; p != nil {
		switch {
		case l.n >= leafMin || l.n > 0 && l == t.head:
			i := int(l.pos & (innerMax - 1)) // no bounds check (insert)
			a := p.aggOf(i)
			if keeps(a, x) {
				goto done
			}
			na := l.without(a, x)
			if na == a {
				goto done
			}
			p.setAgg(i, na)
		case l == t.head:
			// The emptied leftmost leaf, child 0 of p.
			p.removeKid(0)
			t.free.free(nd, t.count)
			t.head = nil
		default:
			t.refill(p, int(l.pos))
		}
		for nd, p = &p.tlNode, p.parent; p != nil; nd, p = &p.tlNode, p.parent {
			if nd.n < innerMin {
				t.refill(p, int(nd.pos))
				continue
			}
			i := int(nd.pos & (innerMax - 1))
			a := p.aggOf(i)
			if keeps(a, x) {
				goto done
			}
			na := nd.asInner().without(a, x)
			if na == a {
				goto done
			}
			p.setAgg(i, na)
		}
	}
	// At the root: an interior root that keeps two children or more, what
	// nearly every erasure in a tree of several levels reaches, is
	// handled here rather than in shrinkRoot.
	switch {
	case nd.leaf || nd.n == 1:
		t.shrinkRoot(nd, x)
	case !keeps(t.agg, x):
		t.agg = nd.asInner().without(t.agg, x)
	}
done:
	// The leftmost entity.
	switch {
	case t.head != nil: // one test in the usual case
		t.first = t.head.firstEntity()
	case t.root != nil: // the leftmost leaf emptied and left the tree
		t.head = t.leftmostLeaf()
		t.first = t.head.firstEntity()
	default:
		t.first = nil
	}
}

// unpend undoes the counting of a pending insertion erased before it was
// placed (in an empty tree or a single leaf).
func (t *bTimeline) unpend() {
	t.count--
	if t.root == nil {
		t.agg, t.first = agg{}, nil
		return
	}
	l := t.root.asLeaf()
	t.agg, t.first = l.fold(), l.firstEntity()
}

// replace takes out (in the tree) out and puts in (counted, not placed)
// in, in a tree that is a single leaf: in takes out's slot and moves to
// its place in one pass (replaceAt), and the aggregate loses out's and
// gains in's in one update.
func (t *bTimeline) replace(out, in *SchedEntity) {
	l := out.tlLeaf
	if l == nil {
		panic("eevdf: timeline erasure of an entity not in a timeline: " + out.name)
	}
	if l.parent != nil {
		panic("eevdf: timeline replacement in a tree of several levels")
	}
	t.count--
	j := t.position(l, out)
	xo := agg{out.vruntime, out.slice, out.slice} // as in erase
	out.tlLeaf = nil
	l.replaceAt(j, in)
	// The tree's aggregate loses xo and gains in's, which insert already
	// merged: only the extremes xo attained are refolded. The test is
	// keeps's without its case of one slice throughout, which without
	// tests instead: measured in the pick loop of 16 tasks (three
	// slices), the extra test here cost 2 to 3 instructions a schedule.
	// (Written out here rather than in a function of its own: one call
	// fewer a switch.)
	if a := t.agg; xo.minV == a.minV || xo.minSlice == a.minSlice || xo.maxSlice == a.maxSlice {
		t.agg = entityAug{}.Merge(l.without(a, xo), agg{in.vruntime, in.slice, in.slice})
	}
	t.first = l.firstEntity()
}

// leftmostLeaf is the first leaf of a non-empty tree.
func (t *bTimeline) leftmostLeaf() *tlLeaf {
	nd := t.root
	for !nd.leaf {
		nd = nd.asInner().kids[0]
	}
	return nd.asLeaf()
}

// shrinkRoot finishes an erasure at the root nd: an emptied leaf empties
// the tree, an interior root left with one child (its two children
// merged) gives way to that child, and otherwise the tree's aggregate is
// refolded unless it survives the loss of x.
//
//	    +---+
//	    |   |              +-----------+
//	    +-|-+      =>      |  a b c d  |
//	      |                +-----------+
//	+-----------+
//	|  a b c d  |
//	+-----------+
func (t *bTimeline) shrinkRoot(nd *tlNode, x agg) {
	switch {
	case nd.n == 0:
		t.free.free(nd, t.count)
		t.root, t.head, t.height, t.agg = nil, nil, 0, agg{}
	case !nd.leaf && nd.n == 1:
		in := nd.asInner()
		c := in.kids[0]
		t.agg = in.aggOf(0)
		c.parent, c.pos = nil, 0
		in.kids[0], in.n = nil, 0
		t.root = c
		t.height--
		t.free.free(nd, t.count)
	case !keeps(t.agg, x):
		t.agg = withoutNode(nd, t.agg, x)
	}
}

// refill brings p's child i, one entry short, back to its minimum by
// borrowing from a sibling (evening the two out: when the front of a run
// queue drains, as picks make it, the leftmost leaf would otherwise borrow
// again at every erasure) or by merging it into a sibling: an interior
// node borrows from a sibling that can lend and merges otherwise; a leaf
// merges whenever the two fit in leafMergeMax entities and borrows
// otherwise.
// The aggregates of the children involved are refolded.
func (t *bTimeline) refill(p *tlInner, i int) {
	if p.kids[i].leaf {
		t.refillLeaf(p, i)
	} else {
		t.refillInner(p, i)
	}
}

// refillLeaf is refill for a leaf c = p.kids[i], which is not the
// leftmost leaf (erase exempts that one). Its sibling is the left one,
// for i = 0 the right one. When the two hold at most leafMergeMax
// entities, c's entities move into the sibling and c is freed (usually the fewer;
// not always when the sibling is the leftmost leaf, which has no
// minimum); otherwise c borrows. For leafMax = 8 (leafMin = 2, leafMergeMax = 6):
//
// Borrowing k = 4 from the left sibling (the right one is the mirror
// image):
//
//	          +---+                          +---+
//	          | s |                          | e |
//	          +---+            =>            +---+
//	+-----------------+ +---+     +---------+     +-----------+
//	| a b c d e f g h | | i |     | a b c d |     | e f g h i |
//	+-----------------+ +---+     +---------+     +-----------+
//	                                       (sep: e's deadline)
//
// Merging into the left sibling:
//
//	   +---------+                +-------+
//	   | s  t  u |                | s   u |
//	   +---------+      =>        +-------+
//	+-----+  +---+              +---------+
//	| a b |  | c |              |  a b c  |
//	+-----+  +---+              +---------+
func (t *bTimeline) refillLeaf(p *tlInner, i int) {
	c := p.kids[i].asLeaf()
	if i > 0 {
		if l := p.kids[i-1].asLeaf(); l.n+c.n > leafMergeMax {
			k := (l.count() - c.count() + 1) / 2
			c.moveOff(-k)
			moveLeaf(c, 0, l, l.count()-k, k)
			l.n -= int32(k)
			c.n += int32(k)
			p.sep[i-1] = c.firstDeadline()
			p.setAgg(i-1, l.fold())
			p.setAgg(i, c.fold())
			return
		}
	}
	if i == 0 {
		if r := p.kids[i+1].asLeaf(); r.n+c.n > leafMergeMax {
			k := (r.count() - c.count() + 1) / 2
			moveLeaf(c, c.count(), r, 0, k)
			r.moveOff(k)
			r.n -= int32(k)
			c.n += int32(k)
			p.sep[i] = r.firstDeadline()
			p.setAgg(i, c.fold())
			p.setAgg(i+1, r.fold())
			return
		}
	}
	cn := c.count()
	if i > 0 {
		l := p.kids[i-1].asLeaf()
		moveLeaf(l, l.count(), c, 0, cn)
		l.n += int32(cn)
		p.setAgg(i-1, l.fold())
	} else {
		r := p.kids[1].asLeaf()
		r.moveOff(-cn)
		moveLeaf(r, 0, c, 0, cn)
		r.n += int32(cn)
		p.setAgg(1, r.fold())
	}
	c.n = 0
	p.removeKid(i)
	t.free.free(&c.tlNode, t.count)
}

// refillInner is refill for an interior node c = p.kids[i]: children move
// through the parent's separator, as in a B-tree's rotation.
//
// Borrowing k = 1 from the left sibling (children K, C; separators s, t):
//
//	               +---+                               +----+
//	               | s |                               | t2 |
//	               +---+                 =>            +----+
//	+----------------------+ +----+       +----------------+ +---------+
//	| K0 t0 K1 t1 K2 t2 K3 | | C0 |       | K0 t0 K1 t1 K2 | | K3 s C0 |
//	+----------------------+ +----+       +----------------+ +---------+
//
// Merging into the left sibling, the separator coming down between them:
//
//	       +-------+                        +-----+
//	       | r s u |                        | r u |
//	       +-------+          =>            +-----+
//	+----------+ +----+             +---------------+
//	| K0 t0 K1 | | C0 |             | K0 t0 K1 s C0 |
//	+----------+ +----+             +---------------+
func (t *bTimeline) refillInner(p *tlInner, i int) {
	c := p.kids[i].asInner()
	if i > 0 {
		if l := p.kids[i-1].asInner(); l.n > innerMin {
			ln := l.count()
			k := (ln - c.count() + 1) / 2
			shiftKids(c, 0, k)
			moveKids(c, 0, l, ln-k, k)
			copy(c.sep[:k-1], l.sep[ln-k:ln-1])
			c.sep[k-1] = p.sep[i-1]
			p.sep[i-1] = l.sep[ln-k-1]
			l.n -= int32(k)
			c.n += int32(k)
			p.setAgg(i-1, l.fold())
			p.setAgg(i, c.fold())
			return
		}
	}
	if i+1 < p.count() {
		if r := p.kids[i+1].asInner(); r.n > innerMin {
			cn, rn := c.count(), r.count()
			k := (rn - cn + 1) / 2
			moveKids(c, cn, r, 0, k)
			c.sep[cn-1] = p.sep[i]
			copy(c.sep[cn:cn+k-1], r.sep[:k-1])
			p.sep[i] = r.sep[k-1]
			shiftKids(r, k, -k)
			clear(r.kids[rn-k : rn])
			r.n -= int32(k)
			c.n += int32(k)
			p.setAgg(i, c.fold())
			p.setAgg(i+1, r.fold())
			return
		}
	}
	cn := c.count()
	if i > 0 {
		l := p.kids[i-1].asInner()
		ln := l.count()
		l.sep[ln-1] = p.sep[i-1]
		copy(l.sep[ln:ln+cn-1], c.sep[:cn-1])
		moveKids(l, ln, c, 0, cn)
		l.n += int32(cn)
		p.setAgg(i-1, l.fold())
	} else {
		r := p.kids[1].asInner()
		shiftKids(r, 0, cn)
		moveKids(r, 0, c, 0, cn)
		copy(r.sep[:cn-1], c.sep[:cn-1])
		r.sep[cn-1] = p.sep[0]
		r.n += int32(cn)
		p.setAgg(1, r.fold())
	}
	c.n = 0
	p.removeKid(i)
	t.free.free(&c.tlNode, t.count)
}

// findEligible is pick_eevdf's heap descent: the first entity in timeline
// order whose vruntime is eligible under m, or nil. In each node it takes
// the first child (or, in a leaf, entity) whose minimum vruntime is
// eligible; eligibility being monotone in vruntime, that subtree holds the
// answer. Every minimum it tests counts as visited.
func (t *bTimeline) findEligible(m *eligibleMatcher) *SchedEntity {
	t.settle()
	nd := t.root
	if nd == nil {
		return nil
	}
	if !m.bounded {
		return t.findEligibleTest(m)
	}
	zero, limit := m.test.zero, m.limit
	for !nd.leaf {
		// The first child whose minimum vruntime is eligible, four a
		// round: one test of the bound and one increment for four, where
		// a loop over a slice took both for each child (the descent
		// scans several children of a node before an eligible one). The
		// index runs over the arrays masked to their length, as in
		// countNotAfter, so that no access is bounds-checked. (Written
		// out here: as a function it exceeds the inlining budget.)
		in := nd.asInner()
		i, u := uint(0), uint(in.n)
		for ; i+4 <= u; i += 4 {
			b := i & (innerMax - 4)
			switch {
			case int64(in.minV[b]-zero) <= limit:
				goto found
			case int64(in.minV[b+1]-zero) <= limit:
				i++
				goto found
			case int64(in.minV[b+2]-zero) <= limit:
				i += 2
				goto found
			case int64(in.minV[b+3]-zero) <= limit:
				i += 3
				goto found
			}
		}
		for ; i < u; i++ {
			if int64(in.minV[i&(innerMax-1)]-zero) <= limit {
				goto found
			}
		}
		m.visited += in.count()
		return nil
	found:
		m.visited += int(i) + 1
		nd = in.kids[i&(innerMax-1)]
	}
	l := nd.asLeaf()
	k, n := uint(l.off)%leafMax, uint(l.n) // read once, as in tlLeaf.fold
	if int64(l.v[k]-zero) <= limit {
		// The first entity, tested before the loop and its bound.
		m.visited++
		t.hint = uint8(k)
		return l.se[k]
	}
	// The others, the slot carried and the entities left counted down:
	// one instruction an entity fewer than a position compared with the
	// end and reduced to a slot.
	for c := n - 1; c > 0; c-- {
		k = (k + 1) % leafMax
		if int64(l.v[k]-zero) <= limit {
			m.visited += int(n-c) + 1
			t.hint = uint8(k)
			return l.se[k]
		}
	}
	m.visited += int(n)
	return nil
}

// findEligibleTest is findEligible with eligibility tested through m, for
// sums without a bound (no load).
func (t *bTimeline) findEligibleTest(m *eligibleMatcher) *SchedEntity {
	nd := t.root
	for !nd.leaf {
		in := nd.asInner()
		i := 0
		for i < in.count() && !m.MatchAgg(in.aggOf(i)) {
			i++
		}
		if i == in.count() {
			return nil
		}
		nd = in.kids[i]
	}
	l := nd.asLeaf()
	for i := range l.count() {
		m.visited++
		if k := l.at(i); m.eligible(l.v[k]) {
			return l.se[k]
		}
	}
	return nil
}

// ascend calls fn on every entity in timeline order until fn returns
// false. fn must not change the tree.
func (t *bTimeline) ascend(fn func(*SchedEntity) bool) {
	t.settle()
	if t.root != nil {
		ascendNode(t.root, fn)
	}
}

func ascendNode(nd *tlNode, fn func(*SchedEntity) bool) bool {
	if nd.leaf {
		l := nd.asLeaf()
		for i := range l.count() {
			if !fn(l.se[l.at(i)]) {
				return false
			}
		}
		return true
	}
	in := nd.asInner()
	for _, c := range in.kids[:in.n] {
		if !ascendNode(c, fn) {
			return false
		}
	}
	return true
}

// tlFree keeps nodes that left a tree for reuse, linked through next: up
// to max(tlMinFree, n/tlItemsPerFree) of each kind for a tree of n
// entities, so that steady churn allocates nothing while a tree that
// shrank lets its spares go, one for each node freed beyond the limit.
type tlFree struct {
	leaves, inners   *tlNode
	nLeaves, nInners int
}

const (
	tlMinFree      = 64
	tlItemsPerFree = 64
)

// newLeaf returns an empty leaf, reused if one is free.
func (f *tlFree) newLeaf() *tlLeaf {
	if n := f.leaves; n != nil {
		f.leaves, n.next = n.next, nil
		f.nLeaves--
		return n.asLeaf()
	}
	return &tlLeaf{tlNode: tlNode{leaf: true}}
}

// newInner returns an empty interior node, reused if one is free.
func (f *tlFree) newInner() *tlInner {
	if n := f.inners; n != nil {
		f.inners, n.next = n.next, nil
		f.nInners--
		return n.asInner()
	}
	return &tlInner{}
}

// free takes n, empty and out of a tree of count entities, for reuse or
// lets it go.
func (f *tlFree) free(n *tlNode, count int) {
	n.parent, n.n, n.pos = nil, 0, 0
	head, c := &f.leaves, &f.nLeaves
	if !n.leaf {
		head, c = &f.inners, &f.nInners
	}
	limit := max(tlMinFree, count/tlItemsPerFree)
	if *c < limit {
		n.next, *head = *head, n
		*c++
		return
	}
	if *c > limit {
		drop := *head
		*head, drop.next = drop.next, nil
		*c--
	}
}
