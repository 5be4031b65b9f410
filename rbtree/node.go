package rbtree

// Node is one element of a [Tree]. It is embedded in (or owned by) the
// caller's value; the tree only links nodes together and never allocates.
//
// The zero Node is an unlinked node ready to be inserted once Item is set.
// A node may be inserted again after it has been erased.
type Node[T any, A comparable] struct {
	parent, left, right *Node[T, A]
	black               bool // colour: new nodes are red
	linked              bool // currently in a tree
	agg                 A    // aggregate of this node's subtree

	// Item is the caller's value. It is set before Insert; while the node
	// is linked, the fields that decide its order must not change, and a
	// change to the fields that feed the aggregate must be followed by
	// Tree.Update.
	Item T
}

// Agg returns the aggregate of the subtree rooted at n: n's item and all its
// descendants. It returns the zero A for a nil node.
func (n *Node[T, A]) Agg() A {
	if n == nil {
		var zero A
		return zero
	}
	return n.agg
}

// Left returns n's left child, or nil.
func (n *Node[T, A]) Left() *Node[T, A] {
	if n == nil {
		return nil
	}
	return n.left
}

// Right returns n's right child, or nil.
func (n *Node[T, A]) Right() *Node[T, A] {
	if n == nil {
		return nil
	}
	return n.right
}

// Parent returns n's parent, or nil for the root and for unlinked nodes.
func (n *Node[T, A]) Parent() *Node[T, A] {
	if n == nil {
		return nil
	}
	return n.parent
}

// Linked reports whether n is currently in a tree.
func (n *Node[T, A]) Linked() bool {
	return n != nil && n.linked
}

// Next returns the in-order successor of n, or nil if n is the last node or
// is not linked.
func (n *Node[T, A]) Next() *Node[T, A] {
	if n == nil || !n.linked {
		return nil
	}
	// With a right subtree, the successor is its leftmost node.
	if r := n.right; r != nil {
		for r.left != nil {
			r = r.left
		}
		return r
	}
	// Otherwise climb while we are a right child: the first ancestor
	// reached from its left side is the successor.
	p := n.parent
	for p != nil && n == p.right {
		n = p
		p = n.parent
	}
	return p
}

// Prev returns the in-order predecessor of n, or nil if n is the first node
// or is not linked.
func (n *Node[T, A]) Prev() *Node[T, A] {
	if n == nil || !n.linked {
		return nil
	}
	if l := n.left; l != nil {
		for l.right != nil {
			l = l.right
		}
		return l
	}
	p := n.parent
	for p != nil && n == p.left {
		n = p
		p = n.parent
	}
	return p
}

// unlink resets n's tree fields after it left its tree.
func (n *Node[T, A]) unlink() {
	n.parent, n.left, n.right = nil, nil, nil
	n.black = false
	n.linked = false
}
