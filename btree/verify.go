package btree

import (
	"fmt"
	"strconv"
)

// Verify checks the tree's invariants and returns an error describing the
// first violation found, or nil. It recomputes every aggregate from the
// items alone and compares it with the stored one, and checks that items
// are in strictly increasing order, that every node other than the root
// holds between minItems and maxItems items (the root at least one), that
// all leaves are at the same depth, that the item count and height match,
// and that the cached first and last items and the whole-tree aggregate
// are right. It does not panic on a corrupted tree. O(n).
func (t *Tree[T, A, G]) Verify() error {
	var zeroA A
	if t.root == nil {
		switch {
		case t.length != 0:
			return fmt.Errorf("btree: empty tree has Len %d", t.length)
		case t.height != 0:
			return fmt.Errorf("btree: empty tree has height %d", t.height)
		case t.agg != zeroA:
			return fmt.Errorf("btree: empty tree has aggregate %v, want the zero value", t.agg)
		}
		return t.verifyFree()
	}
	v := verifier[T, A, G]{t: t, leafDepth: -1}
	agg, err := v.walk(t.root, 0)
	if err != nil {
		return err
	}
	switch {
	case v.count != t.length:
		return fmt.Errorf("btree: tree holds %d items, Len is %d", v.count, t.length)
	case v.leafDepth+1 != t.height:
		return fmt.Errorf("btree: leaves are at depth %d, height is %d", v.leafDepth, t.height)
	case agg != t.agg:
		return fmt.Errorf("btree: tree aggregate is %v, recomputed %v", t.agg, agg)
	case !t.equal(v.first, t.first):
		return fmt.Errorf("btree: cached first item %v is not the leftmost item %v", t.first, v.first)
	case !t.equal(v.prev, t.last):
		return fmt.Errorf("btree: cached last item %v is not the rightmost item %v", t.last, v.prev)
	}
	return t.verifyFree()
}

// equal reports whether a and b are equal under the tree's order.
func (t *Tree[T, A, G]) equal(a, b T) bool {
	return !t.aug.Less(a, b) && !t.aug.Less(b, a)
}

// verifyFree checks the free lists: their lengths and the kind of node on
// each.
func (t *Tree[T, A, G]) verifyFree() error {
	f := &t.free
	for _, l := range []struct {
		head *node[T, A]
		n    int
		leaf bool
		name string
	}{{f.leaves, f.nLeaves, true, "leaf"}, {f.inners, f.nInners, false, "interior"}} {
		c := 0
		for n := l.head; n != nil; n = n.next {
			if c++; c > l.n {
				return fmt.Errorf("btree: %s free list holds more than its count, %d, of nodes", l.name, l.n)
			}
			if n.leaf != l.leaf || n.n != 0 {
				return fmt.Errorf("btree: %s free list holds a node with leaf=%v and %d items", l.name, n.leaf, n.n)
			}
		}
		if c != l.n {
			return fmt.Errorf("btree: %s free list holds %d nodes, its count is %d", l.name, c, l.n)
		}
	}
	return nil
}

// verifier walks a tree in order, recomputing aggregates.
type verifier[T any, A comparable, G Augmenter[T, A]] struct {
	t         *Tree[T, A, G]
	count     int // items seen so far
	first     T   // first item seen
	prev      T   // last item seen
	leafDepth int // depth of the first leaf seen; -1 before
	path      [maxHeight]int
}

// where describes the node reached by the first depth child indexes of
// v.path, as "root" or "root/2/0" (child 2 of the root, then its child 0).
func (v *verifier[T, A, G]) where(depth int) string {
	s := "root"
	for _, i := range v.path[:depth] {
		s += "/" + strconv.Itoa(i)
	}
	return s
}

// walk checks the subtree n at the given depth and returns its aggregate
// recomputed from its items.
func (v *verifier[T, A, G]) walk(n *node[T, A], depth int) (A, error) {
	var agg, zeroA A
	if depth >= maxHeight {
		return agg, fmt.Errorf("btree: %s: deeper than %d levels", v.where(maxHeight), maxHeight)
	}
	c := n.count()
	switch {
	case c < 0 || c > maxItems:
		return agg, fmt.Errorf("btree: %s: holds %d items, outside [0, %d]", v.where(depth), c, maxItems)
	case depth == 0 && c < 1:
		return agg, fmt.Errorf("btree: root holds no items in a non-empty tree")
	case depth > 0 && c < minItems:
		return agg, fmt.Errorf("btree: %s: holds %d items, fewer than %d", v.where(depth), c, minItems)
	case n.next != nil:
		return agg, fmt.Errorf("btree: %s: node in the tree is linked to the free list", v.where(depth))
	}
	have := false
	add := func(a A) {
		if have {
			agg = v.t.aug.Merge(agg, a)
		} else {
			agg, have = a, true
		}
	}
	item := func(i int) error {
		x := n.items[i]
		if v.count > 0 && !v.t.aug.Less(v.prev, x) {
			return fmt.Errorf("btree: %s: item %d (%v) does not sort after its predecessor %v", v.where(depth), i, x, v.prev)
		}
		if v.count == 0 {
			v.first = x
		}
		v.prev = x
		v.count++
		xa := v.t.aug.Leaf(x)
		if xa != n.iaggs[i] {
			return fmt.Errorf("btree: %s: item %d (%v) has cached aggregate %v, recomputed %v", v.where(depth), i, x, n.iaggs[i], xa)
		}
		add(xa)
		return nil
	}

	for i := c; i < maxItems; i++ {
		if n.iaggs[i] != zeroA {
			return agg, fmt.Errorf("btree: %s: unused item slot %d is not cleared", v.where(depth), i)
		}
	}
	if n.leaf {
		if v.leafDepth < 0 {
			v.leafDepth = depth
		} else if depth != v.leafDepth {
			return agg, fmt.Errorf("btree: %s: leaf at depth %d, another leaf is at depth %d", v.where(depth), depth, v.leafDepth)
		}
		for i := 0; i < c; i++ {
			if err := item(i); err != nil {
				return agg, err
			}
		}
		return agg, nil
	}

	in := n.in()
	for i := c + 1; i <= maxItems; i++ {
		if in.kids[i] != nil || in.kaggs[i] != zeroA {
			return agg, fmt.Errorf("btree: %s: unused child slot %d is not cleared", v.where(depth), i)
		}
	}
	for i := 0; i <= c; i++ {
		v.path[depth] = i
		k := in.kids[i]
		if k == nil {
			return agg, fmt.Errorf("btree: %s: missing child", v.where(depth+1))
		}
		ka, err := v.walk(k, depth+1)
		if err != nil {
			return agg, err
		}
		if ka != in.kaggs[i] {
			return agg, fmt.Errorf("btree: %s: stored aggregate %v, recomputed %v", v.where(depth+1), in.kaggs[i], ka)
		}
		add(ka)
		if i < c {
			if err := item(i); err != nil {
				return agg, err
			}
		}
	}
	return agg, nil
}
