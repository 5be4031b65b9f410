package rbtree

// Tree is an augmented red-black tree of [Node] values ordered by G.Less,
// with its leftmost node cached.
//
// The zero Tree is an empty tree using the zero G; [Tree.Init] (or [New])
// sets the augmenter. The read-only methods (Len, Root, First, Last, Find,
// Ascend, Verify) accept a nil *Tree and treat it as empty.
type Tree[T any, A comparable, G Augmenter[T, A]] struct {
	root     *Node[T, A]
	leftmost *Node[T, A]
	count    int
	aug      G
}

// New returns an empty tree that uses aug for order and aggregation.
func New[T any, A comparable, G Augmenter[T, A]](aug G) *Tree[T, A, G] {
	return &Tree[T, A, G]{aug: aug}
}

// Init makes t an empty tree that uses aug, in place. It is meant for a Tree
// embedded in another value. Nodes still linked into t are detached (their
// Linked reports false afterwards), which costs O(n); on an empty tree Init
// is O(1).
func (t *Tree[T, A, G]) Init(aug G) {
	detachAll(t.root)
	*t = Tree[T, A, G]{aug: aug}
}

// detachAll unlinks every node of the subtree rooted at n.
func detachAll[T any, A comparable](n *Node[T, A]) {
	for n != nil {
		detachAll(n.left)
		r := n.right
		n.unlink()
		n = r
	}
}

// Len returns the number of nodes in the tree.
func (t *Tree[T, A, G]) Len() int {
	if t == nil {
		return 0
	}
	return t.count
}

// Root returns the root node, or nil if the tree is empty.
func (t *Tree[T, A, G]) Root() *Node[T, A] {
	if t == nil {
		return nil
	}
	return t.root
}

// First returns the leftmost (smallest) node, or nil if the tree is empty.
// It is O(1): the leftmost node is cached.
func (t *Tree[T, A, G]) First() *Node[T, A] {
	if t == nil {
		return nil
	}
	return t.leftmost
}

// Last returns the rightmost (largest) node, or nil if the tree is empty.
// It is O(log n).
func (t *Tree[T, A, G]) Last() *Node[T, A] {
	if t == nil || t.root == nil {
		return nil
	}
	n := t.root
	for n.right != nil {
		n = n.right
	}
	return n
}

// Insert links n into the tree in O(log n).
//
// The position is found by walking from the root, going left when
// Less(n.Item, node.Item) and right otherwise, so n is placed after any items
// equal to it. n's aggregate is initialised from Leaf(n.Item) and the
// aggregates of its ancestors are refreshed before the tree is rebalanced.
// Inserting a node that is already linked does nothing.
func (t *Tree[T, A, G]) Insert(n *Node[T, A]) {
	if n.linked {
		return
	}
	var parent *Node[T, A]
	cur := t.root
	goLeft := false
	leftmost := true
	for cur != nil {
		parent = cur
		if t.aug.Less(n.Item, cur.Item) {
			cur = cur.left
			goLeft = true
		} else {
			cur = cur.right
			goLeft = false
			leftmost = false
		}
	}

	// Link n as a red leaf carrying its own aggregate.
	n.parent = parent
	n.left, n.right = nil, nil
	n.black = false
	n.linked = true
	n.agg = t.aug.Leaf(n.Item)
	switch {
	case parent == nil:
		t.root = n
	case goLeft:
		parent.left = n
	default:
		parent.right = n
	}
	t.count++

	// Bring the ancestors' aggregates up to date before any rotation, so
	// that the rotations only ever move exact aggregates around.
	t.propagate(parent, nil)
	if leftmost {
		t.leftmost = n
	}
	t.insertFixup(n)
}

// Erase unlinks n from the tree in O(log n). Afterwards n is unlinked and
// may be inserted again. Erasing a node that is not linked does nothing;
// erasing a node linked into another tree corrupts both trees.
func (t *Tree[T, A, G]) Erase(n *Node[T, A]) {
	if !n.linked {
		return
	}
	if t.leftmost == n {
		t.leftmost = n.Next()
	}
	if rebalance := t.eraseNode(n); rebalance != nil {
		t.eraseFixup(rebalance)
	}
	t.count--
	n.unlink()
}

// Update refreshes the aggregates from n up to the root after the caller
// changed fields of n.Item that feed the aggregate (but not its order). It
// stops as soon as a recomputed aggregate equals the stored one, since the
// nodes above depend on the change only through that stored value. When the
// items of several nodes changed, calling Update once for each of them, in
// any order, leaves every aggregate exact. O(log n). Updating a node that is
// not linked does nothing.
func (t *Tree[T, A, G]) Update(n *Node[T, A]) {
	if !n.linked {
		return
	}
	t.propagate(n, nil)
}

// Find performs the kernel's heap descent and returns the node it stops at,
// or nil. Starting at the root, it moves to the left child whenever
// m.MatchAgg accepts that child's aggregate; otherwise it returns the current
// node if m.Match accepts its item, and else moves to the right child.
//
// When MatchAgg is exact for the aggregate (see [Matcher]), the result is the
// first matching node in order. The descent is O(log n) and does not
// allocate, but converting m to the interface does unless m is a pointer to
// a value that already lives on the heap or a struct holding a single
// pointer; [FindWith] takes the matcher by value and never allocates.
func (t *Tree[T, A, G]) Find(m Matcher[T, A]) *Node[T, A] {
	return FindWith(t, m)
}

// FindWith is [Tree.Find] with the matcher passed as a type parameter, so a
// small matcher value such as struct{ limit uint64 } can be built at the call
// site without being boxed: FindWith(tree, eligible{limit: v}). It descends
// exactly as Find does.
func FindWith[T any, A comparable, G Augmenter[T, A], M Matcher[T, A]](t *Tree[T, A, G], m M) *Node[T, A] {
	if t == nil {
		return nil
	}
	n := t.root
	for n != nil {
		if l := n.left; l != nil && m.MatchAgg(l.agg) {
			n = l
			continue
		}
		if m.Match(n.Item) {
			return n
		}
		n = n.right
	}
	return nil
}

// Ascend calls fn for each node in order, from First onwards, until fn
// returns false. fn must not insert or erase nodes of t.
func (t *Tree[T, A, G]) Ascend(fn func(n *Node[T, A]) bool) {
	for n := t.First(); n != nil; n = n.Next() {
		if !fn(n) {
			return
		}
	}
}
