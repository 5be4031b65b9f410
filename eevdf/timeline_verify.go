package eevdf

import (
	"fmt"
	"strconv"
)

// verify checks every invariant of the B-tree timeline and returns an
// error describing the first violation, or nil. It does not panic on a
// corrupted tree. O(n).
//
//   - entities are in strictly increasing (deadline, insertion) order;
//   - every entity's handle names the leaf that holds it, and the
//     deadline, vruntime and slice its leaf holds are the entity's;
//   - every child's aggregate stored in its parent, and the tree's, equal
//     their definition recomputed from the entities;
//   - every separator lies between the deadlines on its two sides;
//   - every node's parent pointer names its parent, and its position is
//     its index among the parent's children; nodes other than the root and
//     the leftmost leaf hold between their minimum and maximum entries,
//     the root at least one entity or two children, the leftmost leaf at
//     least one entity; all leaves are at depth height-1;
//   - slots past a node's entries hold no pointer (the tree keeps nothing
//     alive that left it);
//   - the count, the leftmost leaf, the leftmost entity and the free lists
//     are right.
func (t *bTimeline) verify() error {
	t.settle()
	if t.root == nil {
		switch {
		case t.count != 0 || t.height != 0:
			return fmt.Errorf("btree: empty tree has count %d, height %d", t.count, t.height)
		case t.head != nil || t.first != nil:
			return fmt.Errorf("btree: empty tree has a leftmost leaf or entity")
		case t.agg != agg{}:
			return fmt.Errorf("btree: empty tree has aggregate %v", t.agg)
		}
		return t.free.verify()
	}
	if t.root.parent != nil || t.root.pos != 0 {
		return fmt.Errorf("btree: root has a parent or a position")
	}
	v := tlVerifier{t: t}
	sp, err := v.walk(t.root, 0)
	if err != nil {
		return err
	}
	switch {
	case v.count != t.count:
		return fmt.Errorf("btree: tree holds %d entities, count is %d", v.count, t.count)
	case v.head != t.head:
		return fmt.Errorf("btree: cached leftmost leaf is not the leftmost leaf")
	case t.head.n == 0 || t.first != t.head.firstEntity():
		return fmt.Errorf("btree: cached first entity %v is not the leftmost entity", t.first)
	case sp.a != t.agg:
		return fmt.Errorf("btree: tree aggregate %v, recomputed %v", t.agg, sp.a)
	}
	return t.free.verify()
}

// tlVerifier walks a tree in order.
type tlVerifier struct {
	t     *bTimeline
	count int
	prev  *SchedEntity // the last entity seen
	head  *tlLeaf      // the first leaf seen
	path  [tlMaxHeight]int
}

// where names the node reached by the first depth child indexes of the
// walk, as "root" or "root/2/0".
func (v *tlVerifier) where(depth int) string {
	s := "root"
	for _, i := range v.path[:depth] {
		s += "/" + strconv.Itoa(i)
	}
	return s
}

// span is what walk finds in a subtree: its aggregate, recomputed from
// its entities, and its first and last deadlines.
type span struct {
	a           agg
	first, last uint64
}

// walk checks the subtree nd at depth.
func (v *tlVerifier) walk(nd *tlNode, depth int) (span, error) {
	var sp span
	if depth >= v.t.height || depth >= tlMaxHeight {
		return sp, fmt.Errorf("btree: %s: deeper than the height %d", v.where(min(depth, tlMaxHeight-1)), v.t.height)
	}
	leafLevel := depth == v.t.height-1
	n := nd.count()
	switch {
	case nd.leaf != leafLevel:
		return sp, fmt.Errorf("btree: %s: leaf flag %v at depth %d of %d levels", v.where(depth), nd.leaf, depth, v.t.height)
	case nd.next != nil:
		return sp, fmt.Errorf("btree: %s: node in the tree is linked to the free list", v.where(depth))
	case nd.leaf && (n < 1 || n > leafMax):
		return sp, fmt.Errorf("btree: %s: leaf holds %d entities, outside [1, %d]", v.where(depth), n, leafMax)
	case !nd.leaf && (n < 2 || n > innerMax):
		return sp, fmt.Errorf("btree: %s: interior node has %d children, outside [2, %d]", v.where(depth), n, innerMax)
	case depth > 0 && n < nd.minCount() && !(nd.leaf && v.head == nil):
		// (The leftmost leaf, the first one walked, only needs an entity.)
		return sp, fmt.Errorf("btree: %s: holds %d entries, fewer than %d", v.where(depth), n, nd.minCount())
	}
	if nd.leaf {
		return v.leaf(nd.asLeaf(), depth)
	}
	in := nd.asInner()
	for i := n; i < innerMax; i++ {
		if in.kids[i] != nil {
			return sp, fmt.Errorf("btree: %s: unused child slot %d is not cleared", v.where(depth), i)
		}
	}
	for i := 0; i < n; i++ {
		v.path[depth] = i
		c := in.kids[i]
		switch {
		case c == nil:
			return sp, fmt.Errorf("btree: %s: missing child", v.where(depth+1))
		case c.parent != in:
			return sp, fmt.Errorf("btree: %s: parent pointer does not name its parent", v.where(depth+1))
		case int(c.pos) != i:
			return sp, fmt.Errorf("btree: %s: position %d among its parent's children is recorded as %d", v.where(depth+1), i, c.pos)
		}
		cs, err := v.walk(c, depth+1)
		if err != nil {
			return sp, err
		}
		if got := in.aggOf(i); got != cs.a {
			return sp, fmt.Errorf("btree: %s: stored aggregate %v, recomputed %v", v.where(depth+1), got, cs.a)
		}
		if i == 0 {
			sp = cs
			continue
		}
		if s := in.sep[i-1]; int64(s-sp.last) < 0 || int64(cs.first-s) < 0 {
			return sp, fmt.Errorf("btree: %s: separator %d does not lie between deadlines %d and %d",
				v.where(depth), s, sp.last, cs.first)
		}
		sp.a = entityAug{}.Merge(sp.a, cs.a)
		sp.last = cs.last
	}
	return sp, nil
}

// leaf checks a leaf.
func (v *tlVerifier) leaf(l *tlLeaf, depth int) (span, error) {
	var sp span
	if v.head == nil {
		v.head = l
	}
	n := l.count()
	if l.off >= leafMax {
		return sp, fmt.Errorf("btree: %s: ring offset %d outside [0, %d)", v.where(depth), l.off, leafMax)
	}
	for i := n; i < leafMax; i++ {
		if l.se[l.at(i)] != nil {
			return sp, fmt.Errorf("btree: %s: unused entity slot %d is not cleared", v.where(depth), l.at(i))
		}
	}
	for i := 0; i < n; i++ {
		k := l.at(i)
		se := l.se[k]
		switch {
		case se == nil:
			return sp, fmt.Errorf("btree: %s: slot %d holds no entity", v.where(depth), i)
		case se.tlLeaf != l:
			return sp, fmt.Errorf("btree: %s: handle of %s does not name the leaf that holds it", v.where(depth), se.name)
		case l.dl[k] != se.deadline || l.v[k] != se.vruntime || l.slice[k] != se.slice:
			return sp, fmt.Errorf("btree: %s: leaf holds deadline %d, vruntime %d, slice %d for %s, which has %d, %d, %d",
				v.where(depth), l.dl[k], l.v[k], l.slice[k], se.name, se.deadline, se.vruntime, se.slice)
		case v.prev != nil && !(entityAug{}).Less(v.prev, se):
			return sp, fmt.Errorf("btree: %s: %s (deadline %d, seq %d) does not sort after %s (deadline %d, seq %d)",
				v.where(depth), se.name, se.deadline, se.seq, v.prev.name, v.prev.deadline, v.prev.seq)
		}
		v.prev = se
		v.count++
		if i == 0 {
			sp.a = l.agg(0)
		} else {
			sp.a = entityAug{}.Merge(sp.a, l.agg(i))
		}
	}
	sp.first, sp.last = l.dl[l.at(0)], l.dl[l.at(n-1)]
	return sp, nil
}

// verify checks the free lists: their lengths, and that each holds empty,
// detached nodes of its kind.
func (f *tlFree) verify() error {
	for _, l := range []struct {
		head *tlNode
		n    int
		leaf bool
		name string
	}{{f.leaves, f.nLeaves, true, "leaf"}, {f.inners, f.nInners, false, "interior"}} {
		c := 0
		for n := l.head; n != nil; n = n.next {
			if c++; c > l.n {
				return fmt.Errorf("btree: %s free list holds more than its count, %d, of nodes", l.name, l.n)
			}
			if n.leaf != l.leaf || n.n != 0 || n.parent != nil || n.pos != 0 {
				return fmt.Errorf("btree: %s free list holds a node with leaf=%v, %d entries, parent %p, position %d", l.name, n.leaf, n.n, n.parent, n.pos)
			}
			if err := clearedNode(n); err != nil {
				return fmt.Errorf("btree: %s free list: %w", l.name, err)
			}
		}
		if c != l.n {
			return fmt.Errorf("btree: %s free list holds %d nodes, its count is %d", l.name, c, l.n)
		}
	}
	return nil
}

// clearedNode reports a pointer left in a free node.
func clearedNode(n *tlNode) error {
	if n.leaf {
		for i, se := range n.asLeaf().se {
			if se != nil {
				return fmt.Errorf("free leaf keeps entity %s in slot %d", se.name, i)
			}
		}
		return nil
	}
	for i, c := range n.asInner().kids {
		if c != nil {
			return fmt.Errorf("free interior node keeps child %d", i)
		}
	}
	return nil
}
