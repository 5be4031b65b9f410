package rbtree

// This file holds the structural half of the tree: rebalancing after an
// insertion, unlinking a node, and rebalancing after an erasure. The case
// analysis is that of the kernel's lib/rbtree.c (__rb_insert,
// __rb_erase_augmented and ____rb_erase_color), including where the augment
// callbacks are invoked, so that the aggregates go through exactly the same
// sequence of updates.
//
// In the diagrams below upper case is a black node, lower case a red one,
// and a name in parentheses is a node of either colour.

// replaceChild makes new take old's place under parent (or as the root when
// parent is nil). It does not touch new's own parent pointer.
func (t *Tree[T, A, G]) replaceChild(old, new, parent *Node[T, A]) {
	switch {
	case parent == nil:
		t.root = new
	case parent.left == old:
		parent.left = new
	default:
		parent.right = new
	}
}

// rotateLinks finishes a rotation in which new rises into old's place: new
// takes old's parent and colour, old hangs below new with colour black (true)
// or red (false), and old's former parent now points at new.
func (t *Tree[T, A, G]) rotateLinks(old, new *Node[T, A], black bool) {
	parent := old.parent
	new.parent = parent
	new.black = old.black
	old.parent = new
	old.black = black
	t.replaceChild(old, new, parent)
}

// insertFixup restores the red-black properties after node was linked as a
// red leaf (the kernel's __rb_insert). The only property that can be broken
// is "a red node has no red child", between node and its parent; the loop
// either fixes it locally or pushes it two levels up.
func (t *Tree[T, A, G]) insertFixup(node *Node[T, A]) {
	parent := node.parent
	for {
		// Invariant: node is red.
		if parent == nil {
			// node is the root, either the first node or reached by
			// recolouring; a black root breaks nothing.
			node.black = true
			return
		}
		if parent.black {
			return
		}
		// parent is red, so it is not the root and gparent exists.
		gparent := parent.parent

		if uncle := gparent.right; parent != uncle {
			// parent is gparent's left child.
			if uncle != nil && !uncle.black {
				// Red uncle: recolour and retry two levels up.
				//
				//       G            g
				//      / \          / \
				//     p   u  -->   P   U
				//    /            /
				//   n            n
				uncle.black = true
				parent.black = true
				node = gparent
				parent = node.parent
				node.black = false
				continue
			}
			if node == parent.right {
				// Black uncle, node on the inside: rotate left at
				// parent to bring node to the outside.
				//
				//      G             G
				//     / \           / \
				//    p   U  -->    n   U
				//     \           /
				//      n         p
				inner := node.left
				parent.right = inner
				node.left = parent
				if inner != nil {
					inner.parent = parent
					inner.black = true
				}
				parent.parent = node
				t.rotateAgg(parent, node)
				parent = node
			}
			// Black uncle, node on the outside: rotate right at
			// gparent; parent takes gparent's place and colour.
			//
			//        G           P
			//       / \         / \
			//      p   U  -->  n   g
			//     /                 \
			//    n                   U
			moved := parent.right
			gparent.left = moved
			parent.right = gparent
			if moved != nil {
				moved.parent = gparent
				moved.black = true
			}
			t.rotateLinks(gparent, parent, false)
			t.rotateAgg(gparent, parent)
			return
		}

		// parent is gparent's right child: the mirror image.
		if uncle := gparent.left; uncle != nil && !uncle.black {
			uncle.black = true
			parent.black = true
			node = gparent
			parent = node.parent
			node.black = false
			continue
		}
		if node == parent.left {
			// Rotate right at parent.
			inner := node.right
			parent.left = inner
			node.right = parent
			if inner != nil {
				inner.parent = parent
				inner.black = true
			}
			parent.parent = node
			t.rotateAgg(parent, node)
			parent = node
		}
		// Rotate left at gparent.
		moved := parent.left
		gparent.right = moved
		parent.left = gparent
		if moved != nil {
			moved.parent = gparent
			moved.black = true
		}
		t.rotateLinks(gparent, parent, false)
		t.rotateAgg(gparent, parent)
		return
	}
}

// eraseNode unlinks node from the tree and refreshes the aggregates (the
// kernel's __rb_erase_augmented). It returns the node below which one path
// has lost a black node and needs rebalancing, or nil when the colours were
// already fixed locally.
func (t *Tree[T, A, G]) eraseNode(node *Node[T, A]) *Node[T, A] {
	child := node.right
	left := node.left
	var rebalance, refresh *Node[T, A]

	switch {
	case left == nil:
		// At most one child, on the right. If it exists it is a red leaf
		// under a black node, so it simply takes node's place and colour.
		parent := node.parent
		t.replaceChild(node, child, parent)
		if child != nil {
			child.parent = parent
			child.black = node.black
		} else if node.black {
			// A black leaf vanished: parent's side is one black short.
			rebalance = parent
		}
		refresh = parent

	case child == nil:
		// Only a left child (necessarily a red leaf): same as above.
		parent := node.parent
		left.parent = parent
		left.black = node.black
		t.replaceChild(node, left, parent)
		refresh = parent

	default:
		// Two children: the in-order successor (leftmost node of the
		// right subtree) takes node's place, position and colour.
		successor := child
		var parent, child2 *Node[T, A]
		if child.left == nil {
			// The successor is node's right child.
			//
			//    (n)          (s)
			//    / \          / \
			//  (x) (s)  ->  (x) (c)
			//        \
			//        (c)
			parent = successor
			child2 = successor.right
			copyAgg(node, successor)
		} else {
			// The successor is deeper: detach it from its parent p
			// (its right child c moves up into its place), then give
			// it node's right subtree.
			//
			//    (n)          (s)
			//    / \          / \
			//  (x) (y)  ->  (x) (y)
			//      /            /
			//    (p)          (p)
			//    /            /
			//  (s)          (c)
			//    \
			//    (c)
			for successor.left != nil {
				parent = successor
				successor = successor.left
			}
			child2 = successor.right
			parent.left = child2
			successor.right = child
			child.parent = successor
			copyAgg(node, successor)
			// Refresh the path from p up to (but not including) the
			// successor, which now sits above y.
			t.propagate(parent, successor)
		}

		successor.left = left
		left.parent = successor
		t.replaceChild(node, successor, node.parent)

		if child2 != nil {
			// c was a red leaf below a black successor: painting it
			// black restores the black count of that path.
			child2.parent = parent
			child2.black = true
		} else if successor.black {
			// The successor's old position held a black leaf.
			rebalance = parent
		}
		successor.parent = node.parent
		successor.black = node.black
		refresh = successor
	}

	t.propagate(refresh, nil)
	return rebalance
}

// eraseFixup rebalances after an erasure left every path through parent's
// child "node" one black node short (the kernel's ____rb_erase_color). On
// the first round node is nil (the removed position); afterwards it is a
// black node that was pushed up.
func (t *Tree[T, A, G]) eraseFixup(parent *Node[T, A]) {
	var node *Node[T, A]
	for {
		// Invariants: node is black or nil, parent is not nil, and all
		// paths through node are one black node short.
		sibling := parent.right
		if node != sibling {
			// node is parent's left child. The sibling exists since
			// its side has a black height of at least one.
			if !sibling.black {
				// Red sibling: rotate left at parent so that node
				// gets a black sibling.
				//
				//     P               S
				//    / \             / \
				//   N   s    -->    p   Sr
				//      / \         / \
				//     Sl  Sr      N   Sl
				near := sibling.left
				parent.right = near
				sibling.left = parent
				near.parent = parent
				near.black = true
				t.rotateLinks(parent, sibling, false)
				t.rotateAgg(parent, sibling)
				sibling = near
			}
			far := sibling.right
			if far == nil || far.black {
				near := sibling.left
				if near == nil || near.black {
					// Black sibling with black children: make
					// the sibling red, which shortens its side
					// too, then either absorb the deficit in a
					// red parent or move it up to the parent.
					//
					//    (p)           (p)
					//    / \           / \
					//   N   S    -->  N   s
					//      / \           / \
					//     Sl  Sr        Sl  Sr
					sibling.black = false
					if !parent.black {
						parent.black = true
						return
					}
					node = parent
					parent = node.parent
					if parent == nil {
						return
					}
					continue
				}
				// Red near nephew, black far nephew: rotate right at
				// the sibling so that the red nephew ends up on the
				// far side. The parent links of the two nodes that
				// move are completed by the final rotation below.
				//
				//   (p)           (p)
				//   / \           / \
				//  N   S    -->  N   sl
				//     / \             \
				//    sl  Sr            S
				//                       \
				//                        Sr
				inner := near.right
				sibling.left = inner
				near.right = sibling
				parent.right = near
				if inner != nil {
					inner.parent = sibling
					inner.black = true
				}
				t.rotateAgg(sibling, near)
				far = sibling
				sibling = near
			}
			// Red far nephew: rotate left at parent; the sibling
			// takes parent's colour, parent and the far nephew turn
			// black, which gives node's side its missing black node.
			//
			//      (p)             (s)
			//      / \             / \
			//     N   S     -->   P   Sr
			//        / \         / \
			//      (sl) sr      N  (sl)
			near := sibling.left
			parent.right = near
			sibling.left = parent
			far.parent = sibling
			far.black = true
			if near != nil {
				near.parent = parent
			}
			t.rotateLinks(parent, sibling, true)
			t.rotateAgg(parent, sibling)
			return
		}

		// node is parent's right child: the mirror image.
		sibling = parent.left
		if !sibling.black {
			// Red sibling: rotate right at parent.
			near := sibling.right
			parent.left = near
			sibling.right = parent
			near.parent = parent
			near.black = true
			t.rotateLinks(parent, sibling, false)
			t.rotateAgg(parent, sibling)
			sibling = near
		}
		far := sibling.left
		if far == nil || far.black {
			near := sibling.right
			if near == nil || near.black {
				// Recolour the sibling and move up if needed.
				sibling.black = false
				if !parent.black {
					parent.black = true
					return
				}
				node = parent
				parent = node.parent
				if parent == nil {
					return
				}
				continue
			}
			// Rotate left at the sibling.
			inner := near.left
			sibling.right = inner
			near.left = sibling
			parent.left = near
			if inner != nil {
				inner.parent = sibling
				inner.black = true
			}
			t.rotateAgg(sibling, near)
			far = sibling
			sibling = near
		}
		// Rotate right at parent and recolour.
		near := sibling.right
		parent.left = near
		sibling.right = parent
		far.parent = sibling
		far.black = true
		if near != nil {
			near.parent = parent
		}
		t.rotateLinks(parent, sibling, true)
		t.rotateAgg(parent, sibling)
		return
	}
}
