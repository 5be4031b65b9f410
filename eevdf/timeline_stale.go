package eevdf

import "fmt"

// The stale-aggregate timeline of v7.1, v7.0 and v6.18 (KERNEL-SPEC-LTS
// Part II T1, T2; KERNEL-SPEC §3.1's v7.1 note).
//
// Those kernels declared the timeline's augment callbacks for the
// min_vruntime field alone. Propagation recomputes a node whole
// (min_vruntime_update sets all of its aggregates and stops when none
// changed), but the copy callback (a successor taking an erased node's
// place) and the rotate callback (a node rising into its parent's place)
// hand over min_vruntime only: the risen node keeps the min_slice and
// max_slice of its former, smaller subtree until a later propagation
// passes through it. And __enqueue_entity set min_vruntime and min_slice
// of the inserted node but not max_slice, which keeps whatever the entity
// last held (0 for an entity never queued). The heap descent reads only
// min_vruntime, which stays exact; cfs_rq_min_slice (protection) and
// cfs_rq_max_slice (the lag limit) read the root's possibly stale values.
//
// Which nodes are stale depends on the red-black tree's exact shape, so
// this timeline follows lib/rbtree.c's insert, erase and rebalancing case
// by case (the structural code is that of package rbtree, with the two
// callbacks narrowed), whatever Backend the runqueue was given. The
// aggregates live in the entity's node and survive dequeue and enqueue,
// as the kernel's fields in sched_entity do.

// staleNode is an entity's node in a staleTree: its links, colour and the
// aggregates as the kernel stored them, exact or not.
type staleNode struct {
	se                  *SchedEntity
	parent, left, right *staleNode
	black, linked       bool
	agg                 agg
	minDl               uint64 // v6.6's only aggregate, min_deadline (exact)
}

// staleTree is the timeline of a kernel with single-field callbacks.
// noMax selects v6.18 and earlier, which have no max_slice at all. v66
// selects v6.6's tree: ordered by vruntime (equal ones after those
// already there) with min_deadline as its one aggregate, which copy and
// rotate carry, so it is exact.
type staleTree struct {
	root, leftmost *staleNode
	count          int
	noMax, v66     bool
	nodes          map[*SchedEntity]*staleNode
}

// less is the tree's order: entity_before.
func (t *staleTree) less(a, b *SchedEntity) bool {
	if t.v66 {
		return int64(a.vruntime-b.vruntime) < 0
	}
	return (entityAug{}).Less(a, b)
}

func newStaleTree(noMax bool) *staleTree {
	return &staleTree{noMax: noMax, nodes: make(map[*SchedEntity]*staleNode)}
}

// node returns se's node, creating it on se's first insertion with every
// stored aggregate 0.
func (t *staleTree) node(se *SchedEntity) *staleNode {
	n := t.nodes[se]
	if n == nil {
		n = &staleNode{se: se}
		t.nodes[se] = n
	}
	return n
}

// compute is min_vruntime_update: the node's aggregates from its own
// entity and its children's stored ones. It reports whether nothing
// changed, which ends a propagation.
func (t *staleTree) compute(n *staleNode) (unchanged bool) {
	if t.v66 { // min_deadline_update
		old, m := n.minDl, n.se.deadline
		for _, c := range [2]*staleNode{n.right, n.left} {
			if c != nil && int64(m-c.minDl) > 0 {
				m = c.minDl
			}
		}
		n.minDl = m
		return m == old
	}
	old := n.agg
	a := agg{n.se.vruntime, n.se.slice, n.se.slice}
	for _, c := range [2]*staleNode{n.right, n.left} {
		if c != nil {
			a.minV = minVruntime(a.minV, c.agg.minV)
			a.minSlice = min(a.minSlice, c.agg.minSlice)
			a.maxSlice = max(a.maxSlice, c.agg.maxSlice)
		}
	}
	if t.noMax {
		a.maxSlice = old.maxSlice
	}
	n.agg = a
	return a == old
}

// propagate recomputes from n towards the root until a node is unchanged
// or stop is reached.
func (t *staleTree) propagate(n, stop *staleNode) {
	for n != stop {
		if t.compute(n) {
			return
		}
		n = n.parent
	}
}

// copy is the copy callback: only min_vruntime moves to new.
func (t *staleTree) copy(old, new *staleNode) {
	new.agg.minV = old.agg.minV
	new.minDl = old.minDl
}

// rotate is the rotate callback: new, risen into old's place, takes old's
// min_vruntime only; old is recomputed from its new children.
func (t *staleTree) rotate(old, new *staleNode) {
	new.agg.minV = old.agg.minV
	new.minDl = old.minDl
	t.compute(old)
}

// insert is __enqueue_entity's tree part with rb_add_augmented_cached: the
// node's min_vruntime and min_slice from its entity (max_slice left as it
// was), linked as a red leaf after the entities that do not follow it,
// propagation from its parent, then the rebalancing.
func (t *staleTree) insert(se *SchedEntity) {
	n := t.node(se)
	if n.linked {
		return
	}
	n.agg.minV, n.agg.minSlice = se.vruntime, se.slice
	n.minDl = se.deadline
	var parent *staleNode
	cur := t.root
	goLeft, leftmost := false, true
	for cur != nil {
		parent = cur
		if t.less(se, cur.se) {
			cur, goLeft = cur.left, true
		} else {
			cur, goLeft, leftmost = cur.right, false, false
		}
	}
	n.parent, n.left, n.right = parent, nil, nil
	n.black, n.linked = false, true
	switch {
	case parent == nil:
		t.root = n
	case goLeft:
		parent.left = n
	default:
		parent.right = n
	}
	t.count++
	t.propagate(parent, nil)
	if leftmost {
		t.leftmost = n
	}
	t.insertFixup(n)
}

// erase is rb_erase_augmented_cached.
func (t *staleTree) erase(se *SchedEntity) {
	n := t.nodes[se]
	if n == nil || !n.linked {
		return
	}
	if t.leftmost == n {
		t.leftmost = n.next()
	}
	if rebalance := t.eraseNode(n); rebalance != nil {
		t.eraseFixup(rebalance)
	}
	t.count--
	n.parent, n.left, n.right = nil, nil, nil
	n.black, n.linked = false, false
}

func (t *staleTree) first() *SchedEntity {
	if t.leftmost != nil {
		return t.leftmost.se
	}
	return nil
}

func (t *staleTree) rootAgg() (agg, bool) {
	if t.v66 && t.root != nil {
		// Only the minimum vruntime is asked of v6.6's tree (by
		// update_min_vruntime): its leftmost entity's.
		return agg{minV: t.leftmost.se.vruntime}, true
	}
	if t.root != nil {
		return t.root.agg, true
	}
	return agg{}, false
}

// findEligible is pick_eevdf's heap descent (min_vruntime is exact here).
func (t *staleTree) findEligible(m *eligibleMatcher) *SchedEntity {
	n := t.root
	for n != nil {
		if l := n.left; l != nil && m.MatchAgg(l.agg) {
			n = l
			continue
		}
		if m.Match(n.se) {
			return n.se
		}
		n = n.right
	}
	return nil
}

func (t *staleTree) ascend(fn func(*SchedEntity) bool) {
	for n := t.leftmost; n != nil; n = n.next() {
		if !fn(n.se) {
			return
		}
	}
}

func (t *staleTree) len() int { return t.count }

// next is the in-order successor.
func (n *staleNode) next() *staleNode {
	if r := n.right; r != nil {
		for r.left != nil {
			r = r.left
		}
		return r
	}
	p := n.parent
	for p != nil && n == p.right {
		n, p = p, p.parent
	}
	return p
}

// verify checks the structure (order, colours, links, count, leftmost)
// and the one aggregate that must stay exact, min_vruntime; min_slice and
// max_slice may be stale by design.
func (t *staleTree) verify() error {
	if t.root == nil {
		if t.count != 0 || t.leftmost != nil {
			return fmt.Errorf("stale timeline: empty root with count %d", t.count)
		}
		return nil
	}
	if t.root.parent != nil || !t.root.black {
		return fmt.Errorf("stale timeline: the root has a parent or is red")
	}
	n := 0
	var prev *staleNode
	var walk func(x *staleNode) (int, error)
	walk = func(x *staleNode) (int, error) {
		if x == nil {
			return 1, nil
		}
		for _, c := range [2]*staleNode{x.left, x.right} {
			if c != nil && c.parent != x {
				return 0, fmt.Errorf("stale timeline: %s's child has a wrong parent link", x.se.name)
			}
			if c != nil && !x.black && !c.black {
				return 0, fmt.Errorf("stale timeline: red %s has a red child", x.se.name)
			}
		}
		hl, err := walk(x.left)
		if err != nil {
			return 0, err
		}
		if prev == nil && t.leftmost != x {
			return 0, fmt.Errorf("stale timeline: leftmost is not the first node")
		}
		if prev != nil && t.less(x.se, prev.se) {
			return 0, fmt.Errorf("stale timeline: %s is out of order", x.se.name)
		}
		prev = x
		n++
		hr, err := walk(x.right)
		if err != nil {
			return 0, err
		}
		if hl != hr {
			return 0, fmt.Errorf("stale timeline: black heights differ below %s", x.se.name)
		}
		mv, md := x.se.vruntime, x.se.deadline
		for _, c := range [2]*staleNode{x.left, x.right} {
			if c != nil {
				mv = minVruntime(mv, c.agg.minV)
				if int64(md-c.minDl) > 0 {
					md = c.minDl
				}
			}
		}
		if t.v66 && md != x.minDl {
			return 0, fmt.Errorf("stale timeline: min_deadline of %s is %d, want %d", x.se.name, x.minDl, md)
		}
		if !t.v66 && mv != x.agg.minV {
			return 0, fmt.Errorf("stale timeline: min_vruntime of %s is %d, want %d", x.se.name, x.agg.minV, mv)
		}
		if x.black {
			hl++
		}
		return hl, nil
	}
	if _, err := walk(t.root); err != nil {
		return err
	}
	if n != t.count {
		return fmt.Errorf("stale timeline: %d nodes, count %d", n, t.count)
	}
	return nil
}

// replaceChild makes new take old's place under parent (or as the root when
// parent is nil). It does not touch new's own parent pointer.
func (t *staleTree) replaceChild(old, new, parent *staleNode) {
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
func (t *staleTree) rotateLinks(old, new *staleNode, black bool) {
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
func (t *staleTree) insertFixup(node *staleNode) {
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
				t.rotate(parent, node)
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
			t.rotate(gparent, parent)
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
			t.rotate(parent, node)
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
		t.rotate(gparent, parent)
		return
	}
}

// eraseNode unlinks node from the tree and refreshes the aggregates (the
// kernel's __rb_erase_augmented). It returns the node below which one path
// has lost a black node and needs rebalancing, or nil when the colours were
// already fixed locally.
func (t *staleTree) eraseNode(node *staleNode) *staleNode {
	child := node.right
	left := node.left
	var rebalance, refresh *staleNode

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
		var parent, child2 *staleNode
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
			t.copy(node, successor)
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
			t.copy(node, successor)
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
func (t *staleTree) eraseFixup(parent *staleNode) {
	var node *staleNode
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
				t.rotate(parent, sibling)
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
				t.rotate(sibling, near)
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
			t.rotate(parent, sibling)
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
			t.rotate(parent, sibling)
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
			t.rotate(sibling, near)
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
		t.rotate(parent, sibling)
		return
	}
}
