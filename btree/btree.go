package btree

// Tree is an ordered set of items kept in an augmented B-tree. Every
// interior node stores, beside each child, the aggregate of that child's
// subtree, so that Find can decide whether to enter a child without loading
// it, and Agg answers for the whole tree in constant time.
//
// The zero value is an empty tree whose augmenter is the zero value of G;
// New or Init supply another. A Tree must not be copied after first use and
// is not safe for concurrent use.
type Tree[T any, A comparable, G Augmenter[T, A]] struct {
	aug      G
	folder   Folder[A]   // aug, if it folds whole nodes; else nil
	searcher Searcher[T] // aug, if it searches whole nodes; else nil
	lattice  Lattice[A]  // aug, if its Merge is commutative; else nil
	root     *node[T, A]
	length   int
	height   int // levels; 0 for an empty tree, leaves are at depth height-1
	agg      A   // aggregate of the whole tree; zero when empty
	first    T   // leftmost item; zero when empty
	last     T   // rightmost item; zero when empty
	free     freeList[T, A]
	// path is scratch space for the descents of Insert, Delete,
	// DeleteFirst and Update, kept here rather than on the stack so that it is not zeroed
	// at every call. Entries left over from earlier calls point to nodes
	// that are in the tree or were emptied when they left it, so they
	// keep no item alive.
	path [maxHeight]step[T, A]
}

// New returns an empty tree ordered and augmented by aug.
func New[T any, A comparable, G Augmenter[T, A]](aug G) *Tree[T, A, G] {
	t := new(Tree[T, A, G])
	t.Init(aug)
	return t
}

// Init makes t an empty tree ordered and augmented by aug, discarding
// whatever it held. It initialises a Tree embedded in another structure in
// place.
func (t *Tree[T, A, G]) Init(aug G) {
	*t = Tree[T, A, G]{aug: aug}
	t.folder, _ = any(aug).(Folder[A])
	t.searcher, _ = any(aug).(Searcher[T])
	t.lattice, _ = any(aug).(Lattice[A])
}

// Len returns the number of items in the tree. O(1).
func (t *Tree[T, A, G]) Len() int { return t.length }

// First returns the smallest item, or false if the tree is empty. The item
// is cached: O(1).
func (t *Tree[T, A, G]) First() (T, bool) { return t.first, t.length > 0 }

// Last returns the largest item, or false if the tree is empty. The item is
// cached: O(1).
func (t *Tree[T, A, G]) Last() (T, bool) { return t.last, t.length > 0 }

// Agg returns the aggregate of all items, Leaf(i0) · Leaf(i1) · ... in
// order, or false if the tree is empty. O(1).
func (t *Tree[T, A, G]) Agg() (A, bool) { return t.agg, t.length > 0 }

// Find descends from the root and returns the item at which the descent
// stops, or false. In each node it considers the positions in order: for
// position i, if child i exists and m.MatchAgg reports true for that
// child's aggregate, the descent enters child i and never comes back up;
// otherwise, if m.Match(item i) holds, item i is returned. After the last
// item it enters the last child, and in a leaf with no matching item it
// returns false.
//
// This is the descent of the kernel's augmented red-black tree. When Match
// is a predicate on items and MatchAgg(a) reports whether some item of a
// range with aggregate a satisfies it (for instance "vruntime <= V" with
// the minimum vruntime as aggregate), Find returns the first matching item
// in order. It makes O(degree · log n) calls to m.
//
// Find itself allocates nothing. Because m's methods are called through an
// interface, the compiler lets m escape: a matcher value converted to
// Matcher afresh at each call is boxed on the heap by the caller, while a
// pointer to a long-lived matcher, or a Matcher variable reused across
// calls, costs no allocation.
func (t *Tree[T, A, G]) Find(m Matcher[T, A]) (T, bool) {
	n := t.root
	if n == nil {
		var zero T
		return zero, false
	}
descend:
	for !n.leaf {
		in := n.in()
		c := n.count()
		for i := 0; i < c; i++ {
			if m.MatchAgg(in.kaggs[i]) {
				n = in.kids[i]
				continue descend
			}
			if m.Match(n.items[i]) {
				return n.items[i], true
			}
		}
		n = in.kids[c]
	}
	for i, c := 0, n.count(); i < c; i++ {
		if m.Match(n.items[i]) {
			return n.items[i], true
		}
	}
	var zero T
	return zero, false
}

// FindAgg is Find with every item tested by m.MatchAgg on the item's own
// aggregate, Leaf(item), which each node caches beside the item: for a
// matcher whose Match(x) is MatchAgg(Leaf(x)) — such as "vruntime <= V"
// with the minimum vruntime as aggregate — it returns what Find returns,
// without loading a single item.
//
// If m is also a NodeMatcher, FindAgg calls its MatchNode once per node
// instead of MatchAgg once per aggregate.
func (t *Tree[T, A, G]) FindAgg(m AggMatcher[A]) (T, bool) {
	n := t.root
	if n == nil {
		var zero T
		return zero, false
	}
	if nm, ok := m.(NodeMatcher[A]); ok {
		return findNode(n, nm)
	}
	return findNode(n, aggScan[A]{m})
}

// aggScan scans a node with one MatchAgg call per aggregate: the
// NodeMatcher of a matcher that has none of its own.
type aggScan[A comparable] struct{ m AggMatcher[A] }

func (s aggScan[A]) MatchNode(kids, items []A) int {
	for i := range items {
		if kids != nil && s.m.MatchAgg(kids[i]) {
			return 2 * i
		}
		if s.m.MatchAgg(items[i]) {
			return 2*i + 1
		}
	}
	return -1
}

// findNode is FindAgg below the non-empty subtree n, with a whole node
// scanned in one call. The matcher is a type parameter so that aggScan is
// passed by value, not boxed.
func findNode[T any, A comparable, M NodeMatcher[A]](n *node[T, A], m M) (T, bool) {
	for !n.leaf {
		in := n.in()
		c := n.count()
		k := m.MatchNode(in.kaggs[:c], n.iaggs[:c])
		switch {
		case k < 0:
			n = in.kids[c]
		case k%2 == 0:
			n = in.kids[k/2]
		default:
			return n.items[k/2], true
		}
	}
	if k := m.MatchNode(nil, n.iaggs[:n.n]); k >= 0 {
		return n.items[k/2], true
	}
	var zero T
	return zero, false
}

// Ascend calls fn on every item in increasing order until fn returns
// false. fn must not modify the tree.
func (t *Tree[T, A, G]) Ascend(fn func(item T) bool) {
	if t.root != nil {
		ascend(t.root, fn)
	}
}

// ascend calls fn on the items of the subtree n in order and reports
// whether fn returned true for all of them.
func ascend[T any, A comparable](n *node[T, A], fn func(T) bool) bool {
	c := n.count()
	if n.leaf {
		for i := 0; i < c; i++ {
			if !fn(n.items[i]) {
				return false
			}
		}
		return true
	}
	in := n.in()
	for i := 0; i < c; i++ {
		if !ascend(in.kids[i], fn) || !fn(n.items[i]) {
			return false
		}
	}
	return ascend(in.kids[c], fn)
}

// lowerBound returns the index of the first item of n not less than item,
// and whether that item is equal to item.
func (t *Tree[T, A, G]) lowerBound(n *node[T, A], item T) (int, bool) {
	if t.searcher != nil {
		lo, hi := t.searcher.Search(n.items[:n.n], item)
		return lo, hi > lo
	}
	lo, hi := 0, n.count()
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if t.aug.Less(n.items[h], item) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < n.count() && !t.aug.Less(item, n.items[lo])
}

// upperBound returns the index of the first item of n greater than item.
func (t *Tree[T, A, G]) upperBound(n *node[T, A], item T) int {
	if t.searcher != nil {
		_, hi := t.searcher.Search(n.items[:n.n], item)
		return hi
	}
	lo, hi := 0, n.count()
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if t.aug.Less(item, n.items[h]) {
			hi = h
		} else {
			lo = h + 1
		}
	}
	return lo
}

// Insert adds item to the tree. An item equal under Less to one already in
// the tree breaks the contract; it is then stored after its equals, and
// Verify reports the violation. O(log n) comparisons; aggregates are
// refolded (merged with the new item's, for a Lattice, when no node
// splits) from the changed leaf upwards until one comes out unchanged.
//
// Insert goes down to the leaf where item belongs. If the leaf has room it
// takes item; otherwise it splits around its median (see
// node.splitInsert), which goes up into the parent as a new separator with
// the new right half as its right child, possibly splitting the parent in
// turn. A split of the root adds a level above it.
func (t *Tree[T, A, G]) Insert(item T) {
	xa := t.aug.Leaf(item)
	if t.root == nil {
		leaf := t.free.newLeaf()
		leaf.insertItem(0, item, xa)
		t.root, t.height, t.length = leaf, 1, 1
		t.agg = xa
		t.first, t.last = item, item
		return
	}
	t.length++

	path := &t.path
	depth := 0
	n := t.root
	// The item becomes the first (last) one if it goes down the leftmost
	// (rightmost) path to the front (end) of the leftmost (rightmost) leaf.
	isFirst, isLast := true, true
	for !n.leaf {
		i := t.upperBound(n, item)
		isFirst = isFirst && i == 0
		isLast = isLast && i == n.count()
		in := n.in()
		path[depth] = step[T, A]{in, i}
		depth++
		n = in.kids[i]
	}
	i := t.upperBound(n, item)
	t.insertInLeaf(depth, n, i, item, xa, isFirst && i == 0, isLast && i == n.count())
}

// insertInLeaf puts item, whose aggregate is xa, at position i of leaf n,
// reached through t.path[:depth], splitting nodes upwards as needed, and
// refreshes aggregates and the cached ends: isFirst (isLast) tells that
// item becomes the tree's first (last).
func (t *Tree[T, A, G]) insertInLeaf(depth int, n *node[T, A], i int, item T, xa A, isFirst, isLast bool) {
	path := &t.path
	if isFirst {
		t.first = item
	}
	if isLast {
		t.last = item
	}
	if n.n < maxItems {
		n.insertItem(i, item, xa)
		if t.lattice != nil {
			t.addAgg(path[:depth], xa)
		} else {
			t.propagate(path[:depth], n)
		}
		return
	}

	r := t.free.newLeaf()
	sep, sa := n.splitInsert(i, item, xa, r)
	left, right := n, r
	for d := depth - 1; d >= 0; d-- {
		p, pi := path[d].n, path[d].i
		// p.kids[pi] is left, now the lower half of a split child.
		p.kaggs[pi] = t.fold(left)
		ra := t.fold(right)
		if p.n < maxItems {
			p.insertRight(pi, sep, sa, right, ra)
			t.propagate(path[:d], &p.node)
			return
		}
		r := t.free.newInner()
		sep, sa = p.splitInsert(pi, sep, sa, right, ra, r)
		left, right = &p.node, &r.node
	}

	// The root split: grow a new root above the two halves.
	//
	//	                         +-----+
	//	                         | sep |
	//	+---------+     =>       +-/-\-+
	//	|  root   |               /   \
	//	+---------+          left       right
	root := t.free.newInner()
	root.insertItem(0, sep, sa)
	root.kids[0], root.kids[1] = left, right
	root.kaggs[0], root.kaggs[1] = t.fold(left), t.fold(right)
	t.root = &root.node
	t.height++
	t.agg = t.fold(t.root)
}

// Delete removes the item equal to item under Less and reports whether
// there was one. O(log n) comparisons; aggregates are refolded from the
// changed nodes upwards until one comes out unchanged.
//
// An item found in an interior node is replaced by its predecessor, the
// last item of the rightmost leaf of its left subtree, so that removal
// always happens in a leaf. A node left with fewer than minItems items then
// borrows from a sibling through their separator (inode.rotateLeft,
// inode.rotateRight) or, if neither sibling can spare one, merges with a
// sibling and their separator (inode.merge), which removes an item from
// the parent and may leave the parent short in turn. A root left without
// items is replaced by its only child.
func (t *Tree[T, A, G]) Delete(item T) bool {
	n := t.root
	if n == nil {
		return false
	}
	path := &t.path
	depth := 0
	isFirst, isLast := true, true
	var i int
	for {
		var found bool
		i, found = t.lowerBound(n, item)
		if found {
			break
		}
		if n.leaf {
			return false
		}
		in := n.in()
		isFirst = isFirst && i == 0
		isLast = isLast && i == n.count()
		path[depth] = step[T, A]{in, i}
		depth++
		n = in.kids[i]
	}

	if n.leaf {
		t.deleteInLeaf(depth, n, i, isFirst && i == 0, isLast && i == n.count()-1)
		return true
	}

	// The item is in the interior node n, which is neither first nor
	// last: replace it by its predecessor, the last item of the
	// rightmost leaf of its left subtree, and remove that one from its
	// leaf. dn is n's depth: the node changed besides the leaf below it.
	dn := depth
	in := n.in()
	path[depth] = step[T, A]{in, i}
	depth++
	leaf := in.kids[i]
	for !leaf.leaf {
		li := leaf.in()
		j := leaf.count()
		path[depth] = step[T, A]{li, j}
		depth++
		leaf = li.kids[j]
	}
	n.items[i], n.iaggs[i] = leaf.removeItem(leaf.count() - 1)
	t.length--
	t.fixAfterDelete(path[:depth], leaf, dn)
	return true
}

// DeleteFirst removes the smallest item and returns it, or returns false
// if the tree is empty. It goes down the leftmost path without comparing
// items: O(log n), no call to Less.
func (t *Tree[T, A, G]) DeleteFirst() (T, bool) {
	n := t.root
	if n == nil {
		var zero T
		return zero, false
	}
	first := t.first
	depth := 0
	for !n.leaf {
		in := n.in()
		t.path[depth] = step[T, A]{in, 0}
		depth++
		n = in.kids[0]
	}
	t.deleteInLeaf(depth, n, 0, true, t.length == 1)
	return first, true
}

// deleteInLeaf removes the item at position i of leaf, reached through
// t.path[:depth], and restores occupancy, aggregates and the cached ends;
// isFirst (isLast) tells that the item is the tree's first (last).
func (t *Tree[T, A, G]) deleteInLeaf(depth int, leaf *node[T, A], i int, isFirst, isLast bool) {
	_, xa := leaf.removeItem(i)
	t.length--
	if t.lattice != nil && (leaf.n >= minItems || depth == 0 && leaf.n > 0) {
		t.dropAgg(t.path[:depth], leaf, xa)
	} else {
		t.fixAfterDelete(t.path[:depth], leaf, -1)
	}
	t.fixEnds(isFirst, isLast)
}

// fixEnds refreshes the cached first and last items after a deletion that
// removed the first (isFirst) or the last (isLast) item.
func (t *Tree[T, A, G]) fixEnds(isFirst, isLast bool) {
	if t.root == nil {
		var zero T
		t.first, t.last = zero, zero
		return
	}
	if isFirst {
		t.first = t.leftmost()
	}
	if isLast {
		t.last = t.rightmost()
	}
}

// fixAfterDelete restores occupancy and aggregates after an item was
// removed from the leaf cur, reached through path. If dn >= 0, the node at
// depth dn (path[dn].n) also changed, as its item was replaced.
func (t *Tree[T, A, G]) fixAfterDelete(path []step[T, A], cur *node[T, A], dn int) {
	for k := len(path) - 1; k >= 0; k-- {
		p, i := path[k].n, path[k].i
		if cur.n >= minItems {
			a := t.fold(cur)
			if a == p.kaggs[i] {
				if dn < 0 || dn > k {
					return
				}
				// Nothing changed between here and the node at depth
				// dn, but that node did: resume from it.
				k = dn
				cur = &path[dn].n.node
				continue
			}
			p.kaggs[i] = a
			cur = &p.node
			continue
		}
		t.refill(p, i)
		cur = &p.node
	}

	// cur is the root.
	if cur.n > 0 {
		t.agg = t.fold(cur)
		return
	}
	if cur.leaf {
		t.free.free(cur, freeLimit(t.length))
		t.root, t.height = nil, 0
		var zero A
		t.agg = zero
		return
	}
	// The root gave its last item to a merge of its two children: the
	// merged child becomes the root.
	//
	//	     +---+
	//	     |   |                 +---------+
	//	     +-|-+       =>        | x y z w |
	//	       |                   +---------+
	//	 +---------+
	//	 | x y z w |
	//	 +---------+
	in := cur.in()
	t.root, t.agg = in.kids[0], in.kaggs[0]
	t.height--
	t.free.free(cur, freeLimit(t.length))
}

// refill brings p's child kids[i], which holds minItems-1 items, back to at
// least minItems by borrowing from a sibling that can spare items or by
// merging with a sibling, and refreshes the aggregates of the children
// involved.
//
// A borrow evens the two siblings out rather than taking one item: when
// items leave a run queue's tree from the front, as picks do, the leftmost
// leaf would otherwise borrow again at every deletion, each time shifting
// its sibling and refolding both.
func (t *Tree[T, A, G]) refill(p *inode[T, A], i int) {
	c := p.kids[i].count()
	if i > 0 && p.kids[i-1].n > minItems {
		p.rotateRight(i-1, (p.kids[i-1].count()-c+1)/2)
		p.kaggs[i-1] = t.fold(p.kids[i-1])
		p.kaggs[i] = t.fold(p.kids[i])
		return
	}
	if i < p.count() && p.kids[i+1].n > minItems {
		p.rotateLeft(i, (p.kids[i+1].count()-c+1)/2)
		p.kaggs[i] = t.fold(p.kids[i])
		p.kaggs[i+1] = t.fold(p.kids[i+1])
		return
	}
	if i > 0 {
		i--
	}
	r := p.merge(i)
	p.kaggs[i] = t.fold(p.kids[i])
	t.free.free(r, freeLimit(t.length))
}

// leftmost returns the first item of a non-empty tree.
func (t *Tree[T, A, G]) leftmost() T {
	n := t.root
	for !n.leaf {
		n = n.in().kids[0]
	}
	return n.items[0]
}

// rightmost returns the last item of a non-empty tree.
func (t *Tree[T, A, G]) rightmost() T {
	n := t.root
	for !n.leaf {
		n = n.in().kids[n.n]
	}
	return n.items[n.n-1]
}

// Update refreshes the aggregates above the item equal to item under Less
// after the caller changed the fields its aggregate depends on (never those
// its order depends on). It does nothing if there is no such item. O(log n)
// comparisons; aggregates are refolded upwards until one comes out
// unchanged.
func (t *Tree[T, A, G]) Update(item T) {
	n := t.root
	if n == nil {
		return
	}
	path := &t.path
	depth := 0
	for {
		i, found := t.lowerBound(n, item)
		if found {
			n.iaggs[i] = t.aug.Leaf(n.items[i])
			break
		}
		if n.leaf {
			return
		}
		in := n.in()
		path[depth] = step[T, A]{in, i}
		depth++
		n = in.kids[i]
	}
	t.propagate(path[:depth], n)
}
