package btree

// Augmenter supplies the order of a tree's items and the augmentation
// kept for every subtree. It is the same interface as package rbtree's.
type Augmenter[T any, A comparable] interface {
	// Less reports whether a sorts before b. It must be a strict order,
	// and the items in one tree must be totally ordered by it: no two
	// items in a tree compare equal.
	Less(a, b T) bool
	// Leaf returns the aggregate of the single item.
	Leaf(item T) A
	// Merge combines the aggregates of two adjacent ranges, a before b.
	// It must be associative; it need not be commutative.
	Merge(a, b A) A
}

// Folder is an optional interface of an Augmenter: it folds a whole node
// in one call,
//
//	Fold(items, kids) = kids[0] · items[0] · kids[1] · ... · items[n-1] · kids[n]
//
// (items alone for a leaf, whose kids is nil), with · its Merge. A tree
// calls it instead of one Merge per element when it refolds a node: one
// dynamic call per node instead of two per item, and a loop the compiler
// can inline into. The result must equal the Merge chain exactly.
type Folder[A comparable] interface {
	Fold(items, kids []A) A
}

// Searcher is an optional interface of an Augmenter: it places an item
// among the items of a node in one call,
//
//	Search(items, x) = (number of items i with Less(i, x),
//	                    number of items i with !Less(x, i))
//
// for items in increasing order. A tree calls it instead of calling Less
// in a binary search: one dynamic call per node instead of one per
// comparison, and a search loop the compiler can inline Less into. The
// result must equal what Less gives.
type Searcher[T any] interface {
	Search(items []T, x T) (lo, hi int)
}

// Lattice is an optional interface of an Augmenter whose Merge is
// commutative (besides associative), as a minimum or a maximum is, and
// which can tell when removing an item leaves an aggregate unchanged:
//
//	Keeps(a, x) reports that a range whose aggregate is a, and which
//	holds an item whose aggregate is x, still has aggregate a once that
//	item is gone.
//
// Keeps may report false whenever it cannot tell; reporting true wrongly
// corrupts the tree. For a minimum, Keeps(a, x) is x != a: another item
// attains the minimum.
//
// With it, a tree updates aggregates without refolding every node: an
// insertion that splits no node turns each aggregate above the new item
// into Merge(old, Leaf(item)), up to the first that does not change, and
// the deletion of an item from a leaf that keeps at least the minimum
// occupancy (or from a root leaf) stops at the first aggregate that Keeps
// holds for, refolding only the nodes below it. Other deletions (a leaf
// that borrows or merges, an item in an interior node) refold as without
// it.
type Lattice[A comparable] interface {
	Keeps(a, x A) bool
}

// AggMatcher drives Tree.FindAgg.
type AggMatcher[A comparable] interface {
	// MatchAgg reports whether some item of a range whose aggregate is a
	// may match.
	MatchAgg(a A) bool
}

// NodeMatcher is an optional interface of an AggMatcher: it scans a node
// in one call. Of the sequence
//
//	kids[0], items[0], kids[1], items[1], ..., kids[n-1], items[n-1]
//
// (items alone for a leaf, whose kids is nil), it returns the position of
// the first aggregate that MatchAgg would accept, 2i for kids[i] and 2i+1
// for items[i], or -1 if it would accept none. FindAgg calls it instead
// of MatchAgg once per aggregate: one dynamic call per node, and a loop
// the compiler can inline the test into. The result must equal what
// MatchAgg gives.
type NodeMatcher[A comparable] interface {
	MatchNode(kids, items []A) int
}

// Matcher drives Tree.Find.
type Matcher[T any, A comparable] interface {
	// MatchAgg reports whether some item of a range whose aggregate is a
	// may match.
	MatchAgg(a A) bool
	// Match reports whether item matches.
	Match(item T) bool
}

// step records one level of a descent: the interior node and the index of
// the child that was taken.
type step[T any, A comparable] struct {
	n *inode[T, A]
	i int
}

// fold recomputes the aggregate of n's subtree from the cached aggregates
// of n's items and, in an interior node, of its children, in order:
//
//	kaggs[0] · iaggs[0] · kaggs[1] · ... · iaggs[n-1] · kaggs[n]
//
// n must hold at least one item, or be an interior node.
func (t *Tree[T, A, G]) fold(n *node[T, A]) A {
	c := n.count()
	if t.folder != nil {
		if n.leaf {
			return t.folder.Fold(n.iaggs[:c], nil)
		}
		return t.folder.Fold(n.iaggs[:c], n.in().kaggs[:c+1])
	}
	if n.leaf {
		a := n.iaggs[0]
		for i := 1; i < c; i++ {
			a = t.aug.Merge(a, n.iaggs[i])
		}
		return a
	}
	in := n.in()
	a := in.kaggs[0]
	for i := 0; i < c; i++ {
		a = t.aug.Merge(a, n.iaggs[i])
		a = t.aug.Merge(a, in.kaggs[i+1])
	}
	return a
}

// addAgg brings the aggregates above cur up to date after an item whose
// aggregate is xa was added to cur's subtree, splitting no node, in a tree
// whose augmenter is a Lattice: path leads from the root to cur's parent.
func (t *Tree[T, A, G]) addAgg(path []step[T, A], xa A) {
	for k := len(path) - 1; k >= 0; k-- {
		p := path[k]
		a := t.aug.Merge(p.n.kaggs[p.i], xa)
		if a == p.n.kaggs[p.i] {
			return
		}
		p.n.kaggs[p.i] = a
	}
	t.agg = t.aug.Merge(t.agg, xa)
}

// dropAgg brings the aggregates above cur up to date after an item whose
// aggregate is xa left cur's subtree, emptying no node and leaving cur
// with at least minItems items (or cur is the root), in a tree whose
// augmenter is a Lattice: path leads from the root to cur's parent.
func (t *Tree[T, A, G]) dropAgg(path []step[T, A], cur *node[T, A], xa A) {
	for k := len(path) - 1; k >= 0; k-- {
		p := path[k]
		if t.lattice.Keeps(p.n.kaggs[p.i], xa) {
			return
		}
		a := t.fold(cur)
		if a == p.n.kaggs[p.i] {
			return
		}
		p.n.kaggs[p.i] = a
		cur = &p.n.node
	}
	if !t.lattice.Keeps(t.agg, xa) {
		t.agg = t.fold(cur)
	}
}

// propagate brings the aggregates above cur up to date after cur's subtree
// changed. path leads from the root to cur's parent. Going up, each parent
// refolds its child; as soon as a child's aggregate equals the one already
// stored, nothing above can have changed and propagation stops. The root's
// aggregate is kept in t.agg.
func (t *Tree[T, A, G]) propagate(path []step[T, A], cur *node[T, A]) {
	for k := len(path) - 1; k >= 0; k-- {
		p := path[k]
		a := t.fold(cur)
		if a == p.n.kaggs[p.i] {
			return
		}
		p.n.kaggs[p.i] = a
		cur = &p.n.node
	}
	t.agg = t.fold(cur)
}
