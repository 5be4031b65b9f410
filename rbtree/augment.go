package rbtree

// Augmenter supplies the order of the items and the augmentation kept in
// every node.
//
// The aggregate of a node is Merge(Merge(left.Agg(), Leaf(item)),
// right.Agg()), where an absent child is simply left out; no identity element
// is needed. A is compared with == to detect that a recomputed aggregate did
// not change, which lets aggregate refreshes stop before the root; a value
// that is not equal to itself (a NaN field) only disables that shortcut.
type Augmenter[T any, A comparable] interface {
	// Less reports whether a sorts strictly before b. It must be a strict
	// weak order over the items that are in the tree together.
	Less(a, b T) bool
	// Leaf returns the aggregate of a single item.
	Leaf(item T) A
	// Merge combines the aggregates of two adjacent ranges, a before b.
	// It must be associative.
	Merge(a, b A) A
}

// Matcher drives [Tree.Find], the kernel's "heap descent" over aggregates.
//
// For Find to return the first matching item in order, MatchAgg must be
// exact: it reports true for a subtree aggregate if and only if some item of
// that subtree matches. A predicate that is monotone over the aggregate, such
// as "vruntime <= threshold" with a minimum-vruntime aggregate, has this
// property.
type Matcher[T any, A comparable] interface {
	// MatchAgg reports whether some item of a subtree whose aggregate is a
	// may match.
	MatchAgg(a A) bool
	// Match reports whether item matches.
	Match(item T) bool
}

// compute returns the aggregate of n from its item and the stored aggregates
// of its children.
func (t *Tree[T, A, G]) compute(n *Node[T, A]) A {
	a := t.aug.Leaf(n.Item)
	if l := n.left; l != nil {
		a = t.aug.Merge(l.agg, a)
	}
	if r := n.right; r != nil {
		a = t.aug.Merge(a, r.agg)
	}
	return a
}

// propagate refreshes the aggregates from n towards the root. It stops when
// it reaches stop (which is not refreshed) or as soon as a node's recomputed
// aggregate equals the stored one: the nodes above depend on n's subtree
// only through that value, so they are already exact.
func (t *Tree[T, A, G]) propagate(n, stop *Node[T, A]) {
	for n != stop {
		a := t.compute(n)
		if a == n.agg {
			return
		}
		n.agg = a
		n = n.parent
	}
}

// copyAgg hands the aggregate of old to new, used when new takes old's place
// in the tree and so comes to root the same set of items (until the
// subsequent propagate removes old's own contribution).
func copyAgg[T any, A comparable](old, new *Node[T, A]) {
	new.agg = old.agg
}

// rotateAgg fixes the aggregates after a rotation in which new rose into
// old's place: new now roots exactly the items old used to root, so it takes
// old's aggregate, and old, now one level lower, is recomputed from its new
// children.
func (t *Tree[T, A, G]) rotateAgg(old, new *Node[T, A]) {
	new.agg = old.agg
	old.agg = t.compute(old)
}
