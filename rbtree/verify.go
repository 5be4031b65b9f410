package rbtree

import (
	"fmt"
	"strings"
)

// Verify checks every invariant of the tree and returns an error describing
// the first violation found, or nil. It checks that:
//
//   - the root has no parent and is black;
//   - every child's parent pointer points back at its parent, and every
//     node is marked as linked;
//   - no red node has a red child;
//   - every path from the root to a leaf has the same number of black nodes;
//   - the in-order sequence is consistent with Less: no item sorts before its
//     predecessor;
//   - every node's aggregate equals Merge(Merge(left, Leaf(item)), right)
//     recomputed from scratch;
//   - the cached leftmost node is the first node in order;
//   - Len equals the number of nodes.
//
// Verify runs in O(n) and terminates even on a corrupted tree, because it
// only descends into a child whose parent pointer names the current node.
// A nil tree is a valid empty tree.
func (t *Tree[T, A, G]) Verify() error {
	if t == nil {
		return nil
	}
	if t.root == nil {
		if t.count != 0 {
			return fmt.Errorf("rbtree: empty tree but Len is %d", t.count)
		}
		if t.leftmost != nil {
			return fmt.Errorf("rbtree: empty tree but the cached leftmost node is set")
		}
		return nil
	}
	if t.root.parent != nil {
		return fmt.Errorf("rbtree: the root has a parent")
	}
	if !t.root.black {
		return fmt.Errorf("rbtree: the root is red")
	}
	v := verifier[T, A, G]{t: t}
	if _, _, err := v.walk(t.root); err != nil {
		return err
	}
	if v.count != t.count {
		return fmt.Errorf("rbtree: Len is %d but the tree holds %d nodes", t.count, v.count)
	}
	if t.leftmost != v.first {
		return fmt.Errorf("rbtree: the cached leftmost node is not the first node in order")
	}
	return nil
}

// verifier carries the state of one Verify walk.
type verifier[T any, A comparable, G Augmenter[T, A]] struct {
	t     *Tree[T, A, G]
	path  [128]byte   // L/R steps from the root to the current node
	depth int         // length of the path; steps past len(path) are not kept
	prev  *Node[T, A] // previous node in order
	first *Node[T, A] // first node in order
	count int         // nodes visited
}

// where names the current node by its path from the root.
func (v *verifier[T, A, G]) where() string {
	var b strings.Builder
	b.WriteString("root")
	for _, s := range v.path[:min(v.depth, len(v.path))] {
		b.WriteByte('.')
		b.WriteByte(s)
	}
	if v.depth > len(v.path) {
		fmt.Fprintf(&b, " (depth %d)", v.depth)
	}
	return b.String()
}

// step records a move to the left ('L') or right ('R') child.
func (v *verifier[T, A, G]) step(side byte) {
	if v.depth < len(v.path) {
		v.path[v.depth] = side
	}
	v.depth++
}

func (v *verifier[T, A, G]) fail(n *Node[T, A], format string, args ...any) error {
	return fmt.Errorf("rbtree: node at %s (item %v): %s", v.where(), n.Item, fmt.Sprintf(format, args...))
}

// walk checks the subtree rooted at n (not nil) in order and returns its
// aggregate recomputed from scratch and its black height (counting n).
func (v *verifier[T, A, G]) walk(n *Node[T, A]) (agg A, blackHeight int, err error) {
	aug := v.t.aug
	if !n.linked {
		return agg, 0, v.fail(n, "node is in the tree but not marked as linked")
	}
	if n.left != nil && n.left == n.right {
		return agg, 0, v.fail(n, "left and right child are the same node")
	}
	if !n.black && (isRed(n.left) || isRed(n.right)) {
		return agg, 0, v.fail(n, "red node has a red child")
	}

	var leftAgg A
	leftHeight := 0
	if l := n.left; l != nil {
		if l.parent != n {
			return agg, 0, v.fail(n, "left child's parent pointer does not point back")
		}
		v.step('L')
		leftAgg, leftHeight, err = v.walk(l)
		v.depth--
		if err != nil {
			return agg, 0, err
		}
	}

	// Visit n in order.
	if v.prev != nil && aug.Less(n.Item, v.prev.Item) {
		return agg, 0, v.fail(n, "item sorts before its in-order predecessor (item %v)", v.prev.Item)
	}
	if v.first == nil {
		v.first = n
	}
	v.prev = n
	v.count++

	var rightAgg A
	rightHeight := 0
	if r := n.right; r != nil {
		if r.parent != n {
			return agg, 0, v.fail(n, "right child's parent pointer does not point back")
		}
		v.step('R')
		rightAgg, rightHeight, err = v.walk(r)
		v.depth--
		if err != nil {
			return agg, 0, err
		}
	}

	if leftHeight != rightHeight {
		return agg, 0, v.fail(n, "black height %d on the left but %d on the right", leftHeight, rightHeight)
	}

	agg = aug.Leaf(n.Item)
	if n.left != nil {
		agg = aug.Merge(leftAgg, agg)
	}
	if n.right != nil {
		agg = aug.Merge(agg, rightAgg)
	}
	if agg != n.agg {
		return agg, 0, v.fail(n, "stored aggregate %+v, recomputed %+v", n.agg, agg)
	}

	blackHeight = leftHeight
	if n.black {
		blackHeight++
	}
	return agg, blackHeight, nil
}

// isRed reports whether n is a red node; absent nodes count as black.
func isRed[T any, A comparable](n *Node[T, A]) bool {
	return n != nil && !n.black
}
