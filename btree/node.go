package btree

import "unsafe"

// degree is the maximum number of items a node holds, chosen by measuring
// BenchmarkFind and BenchmarkInsertDelete at degrees 8, 12, 16, 32 and 64 on
// trees of 16, 1024 and 65536 items (design.md has the full table and the
// script; the benchmarks alone: go test -run XXX -bench . ./btree). A
// context switch's Find + Delete + Insert on a run-queue-shaped tree cost,
// in ns, minimum of 12 runs:
//
//	items    8     12    16    32    64
//	16      101    97   111   111   110
//	1024    309   307   306   347   389
//	65536   648   639   629   636   727
//
// Degrees 32 and 64 lose at 1024 items, 64 also at 65536, and with them a
// Find that ends at a random position is 2 to 4 times slower. Among 8, 12
// and 16, 12 is the cheapest on small queues, the common case, and within
// 2% of the best elsewhere.
const degree = 12

const (
	// maxItems is the most items a node holds; a node that would hold one
	// more splits in two.
	maxItems = degree
	// minItems is the fewest items a node other than the root holds; a node
	// that would hold one fewer borrows from a sibling or merges with one.
	// Splitting a full node plus one item gives two halves of minItems
	// items and a separator; merging a node of minItems-1 items with a
	// sibling of minItems items and their separator gives maxItems items.
	minItems = maxItems / 2
	// maxHeight bounds the height of a tree. An interior node other than
	// the root has at least minItems+1 >= 5 children and an interior root
	// at least 2, so a tree of height h holds at least 2*5^(h-2) items:
	// 32 levels would take more than 2^70 items.
	maxHeight = 32
	// minFree and itemsPerFree set how many free nodes of each kind (leaf,
	// interior) a tree keeps for reuse: minFree, or one for every
	// itemsPerFree items of a larger tree. Under steady churn a tree's node
	// count wanders up and down; the spares absorb that, so that churn
	// allocates nothing, while an emptied tree keeps little.
	minFree      = 64
	itemsPerFree = 64
)

// Compile-time checks: maxItems is even (so a split divides a full node plus
// one item into two halves of minItems and a separator) and at least 8 (so
// maxHeight holds).
var (
	_ = [1]struct{}{}[maxItems%2]
	_ = [1]struct{}{}[7/maxItems]
)

// node is a leaf, or the leading part of an inode. Leaves and interior
// nodes are allocated with different sizes: a leaf carries only items and
// their aggregates, an interior node (inode) carries in addition the
// children and, for each child, the aggregate of its subtree. The leaf flag
// tells which one a *node points to; in() gives the interior view and may
// only be called on a node that was allocated as an inode.
//
// Every item's own aggregate, Leaf(item), is cached beside it in iaggs, so
// that refolding a node is a run of Merge calls over the node's own memory,
// without calling Leaf or loading the items.
//
// Invariant: slots past the occupied ones (items[n:] and iaggs[n:], and in
// an inode kids[n+1:] and kaggs[n+1:]) hold zero values, so that the tree
// does not keep removed items alive.
type node[T any, A comparable] struct {
	n     int32       // number of items in use
	leaf  bool        // allocated as a leaf (no children)
	next  *node[T, A] // free-list link; nil while the node is in a tree
	items [maxItems]T // items[0:n] in strictly increasing order
	iaggs [maxItems]A // iaggs[i] is Leaf(items[i])
}

// inode is an interior node: items[i] lies between the subtrees kids[i]
// and kids[i+1], and kaggs[i] is the aggregate of the subtree kids[i], so a
// query can test a child without loading it.
//
//	+---------------------------------------------+
//	|   items[0]   items[1]   ...   items[n-1]    |
//	|   iaggs[0]   iaggs[1]   ...   iaggs[n-1]    |
//	+--/---------|----------|-----|------------\--+
//	  /          |          |     |             \
//	kids[0]    kids[1]    kids[2] ...  kids[n-1]  kids[n]
//	kaggs[0]   kaggs[1]   kaggs[2] ... kaggs[n-1] kaggs[n]
//
// The aggregate of the subtree rooted at the node is, in order,
//
//	kaggs[0] · iaggs[0] · kaggs[1] · ... · iaggs[n-1] · kaggs[n]
type inode[T any, A comparable] struct {
	node[T, A]
	kaggs [maxItems + 1]A
	kids  [maxItems + 1]*node[T, A]
}

// in returns the interior view of n. n must have been allocated as an
// inode (n.leaf is false): the conversion then only recovers the type of
// the object the pointer has pointed to from the start, and every field it
// exposes lies inside that object.
func (n *node[T, A]) in() *inode[T, A] {
	return (*inode[T, A])(unsafe.Pointer(n))
}

// count returns the number of items in n as an int.
func (n *node[T, A]) count() int { return int(n.n) }

// insertItem puts x, whose aggregate is a, at position i, shifting the
// items from i one slot right. n must not be full.
func (n *node[T, A]) insertItem(i int, x T, a A) {
	c := n.count()
	copy(n.items[i+1:c+1], n.items[i:c])
	copy(n.iaggs[i+1:c+1], n.iaggs[i:c])
	n.items[i], n.iaggs[i] = x, a
	n.n++
}

// removeItem removes and returns the item at position i and its
// aggregate, shifting the items after it one slot left.
func (n *node[T, A]) removeItem(i int) (T, A) {
	c := n.count()
	x, a := n.items[i], n.iaggs[i]
	copy(n.items[i:c-1], n.items[i+1:c])
	copy(n.iaggs[i:c-1], n.iaggs[i+1:c])
	var (
		zt T
		za A
	)
	n.items[c-1], n.iaggs[c-1] = zt, za
	n.n--
	return x, a
}

// insertRight puts x (aggregate xa) at position i and child c (subtree
// aggregate ca) at kids[i+1], shifting what follows one slot right. n must
// not be full.
//
//	before:   ... p  q ...          after:   ... p  x  q ...
//	             / \  \                         / \  \  \
//	            K0  K1 K2                      K0  K1 c  K2
func (n *inode[T, A]) insertRight(i int, x T, xa A, c *node[T, A], ca A) {
	k := n.count()
	copy(n.kids[i+2:k+2], n.kids[i+1:k+1])
	copy(n.kaggs[i+2:k+2], n.kaggs[i+1:k+1])
	n.kids[i+1], n.kaggs[i+1] = c, ca
	n.insertItem(i, x, xa)
}

// removeRight removes the item at position i and the child kids[i+1] to
// its right, shifting what follows one slot left. It returns the item, its
// aggregate and the child.
func (n *inode[T, A]) removeRight(i int) (T, A, *node[T, A]) {
	k := n.count()
	c := n.kids[i+1]
	copy(n.kids[i+1:k], n.kids[i+2:k+1])
	copy(n.kaggs[i+1:k], n.kaggs[i+2:k+1])
	var za A
	n.kids[k], n.kaggs[k] = nil, za
	x, xa := n.removeItem(i)
	return x, xa, c
}

// moveItems moves the items (with their aggregates) src[from:from+k] to
// dst[to:to+k] and clears the vacated source slots. It does not change
// either node's count.
func moveItems[T any, A comparable](dst *node[T, A], to int, src *node[T, A], from, k int) {
	copy(dst.items[to:to+k], src.items[from:from+k])
	copy(dst.iaggs[to:to+k], src.iaggs[from:from+k])
	clear(src.items[from : from+k])
	clear(src.iaggs[from : from+k])
}

// moveKids moves the children (with their aggregates) src.kids[from:from+k]
// to dst.kids[to:to+k] and clears the vacated source slots.
func moveKids[T any, A comparable](dst *inode[T, A], to int, src *inode[T, A], from, k int) {
	copy(dst.kids[to:to+k], src.kids[from:from+k])
	copy(dst.kaggs[to:to+k], src.kaggs[from:from+k])
	clear(src.kids[from : from+k])
	clear(src.kaggs[from : from+k])
}

// splitInsert inserts x (aggregate xa) at position pos into the full leaf
// n and splits the result, of maxItems+1 items, into n (the lower minItems
// items), the returned separator and its aggregate, and r (the upper
// minItems items). r must be an empty leaf.
//
// Before (maxItems = 4, x goes between b and c):
//
//	+-----------+
//	|  a b c d  |  + x
//	+-----------+
//
// After:
//
//	         +-----------+
//	         |     x     |   (returned, to be inserted into the parent)
//	         +----/-\----+
//	             /   \
//	            v     v
//	+-----------+     +-----------+
//	|   a b     |     |   c d     |
//	+-----------+     +-----------+
//	      n                 r
func (n *node[T, A]) splitInsert(pos int, x T, xa A, r *node[T, A]) (T, A) {
	const m = maxItems / 2
	switch {
	case pos < m:
		// x lands in the lower half; the item at m-1 moves up.
		moveItems(r, 0, n, m, m)
		n.n, r.n = m, m
		sep, sa := n.removeItem(m - 1)
		n.insertItem(pos, x, xa)
		return sep, sa
	case pos == m:
		// x itself is the median.
		moveItems(r, 0, n, m, m)
		n.n, r.n = m, m
		return x, xa
	default:
		// x lands in the upper half; the item at m moves up.
		moveItems(r, 0, n, m+1, m-1)
		n.n, r.n = m+1, m-1
		sep, sa := n.removeItem(m)
		r.insertItem(pos-m-1, x, xa)
		return sep, sa
	}
}

// splitInsert inserts x (aggregate xa) at position pos, with child c
// (subtree aggregate ca) at kids[pos+1], into the full interior node n,
// and splits the result, of maxItems+1 items and maxItems+2 children, into
// n (the lower minItems items, minItems+1 children), the returned separator
// and its aggregate, and r (the upper minItems items, minItems+1 children).
// r must be an empty inode.
//
// Before (maxItems = 4, x and c go between b and c):
//
//	+-----------+
//	|  a b c d  |  + x, c
//	+-/-/-|-\-\-+
//	 K0 K1 K2 K3 K4
//
// After:
//
//	            +-----------+
//	            |     x     |
//	            +----/-\----+
//	                /   \
//	               v     v
//	+-----------+           +-----------+
//	|    a b    |           |    c d    |
//	+--/--|--\--+           +--/--|--\--+
//	  K0  K1  K2              c   K3  K4
func (n *inode[T, A]) splitInsert(pos int, x T, xa A, c *node[T, A], ca A, r *inode[T, A]) (T, A) {
	const m = maxItems / 2
	switch {
	case pos < m:
		moveItems(&r.node, 0, &n.node, m, m)
		moveKids(r, 0, n, m, m+1)
		n.n, r.n = m, m
		// n now holds m items and m children: its item m-1 goes up
		// and the lower half gets x and c.
		sep, sa := n.removeItem(m - 1)
		n.insertRight(pos, x, xa, c, ca)
		return sep, sa
	case pos == m:
		moveItems(&r.node, 0, &n.node, m, m)
		moveKids(r, 1, n, m+1, m)
		r.kids[0], r.kaggs[0] = c, ca
		n.n, r.n = m, m
		return x, xa
	default:
		moveItems(&r.node, 0, &n.node, m+1, m-1)
		moveKids(r, 0, n, m+1, m)
		n.n, r.n = m+1, m-1
		sep, sa := n.removeItem(m)
		r.insertRight(pos-m-1, x, xa, c, ca)
		return sep, sa
	}
}

// rotateRight moves k items from the child kids[i] to its right sibling
// kids[i+1] through the separator at position i: the separator and the
// last k-1 items of kids[i] go to the front of kids[i+1], together with
// the last k children of kids[i] if the children are interior nodes, and
// the item before them becomes the separator. The caller refreshes
// kaggs[i] and kaggs[i+1]. For k = 1:
//
// Before:
//
//	          +-----------+
//	          |     y     |
//	          +----/-\----+
//	              /   \
//	             v     v
//	+-----------+     +-----------+
//	|       w x |     | z         |
//	+----------\+     +-----------+
//	            \
//	             g
//
// After:
//
//	          +-----------+
//	          |     x     |
//	          +----/-\----+
//	              /   \
//	             v     v
//	+-----------+     +-----------+
//	|       w   |     | y z       |
//	+-----------+     +/----------+
//	                  /
//	                 g
func (p *inode[T, A]) rotateRight(i, k int) {
	l, r := p.kids[i], p.kids[i+1]
	ln, rn := l.count(), r.count()
	copy(r.items[k:rn+k], r.items[:rn])
	copy(r.iaggs[k:rn+k], r.iaggs[:rn])
	r.items[k-1], r.iaggs[k-1] = p.items[i], p.iaggs[i]
	moveItems(r, 0, l, ln-k+1, k-1)
	p.items[i], p.iaggs[i] = l.items[ln-k], l.iaggs[ln-k]
	clear(l.items[ln-k : ln-k+1])
	clear(l.iaggs[ln-k : ln-k+1])
	if !l.leaf {
		li, ri := l.in(), r.in()
		copy(ri.kids[k:rn+1+k], ri.kids[:rn+1])
		copy(ri.kaggs[k:rn+1+k], ri.kaggs[:rn+1])
		moveKids(ri, 0, li, ln-k+1, k)
	}
	l.n -= int32(k)
	r.n += int32(k)
}

// rotateLeft moves k items from the child kids[i+1] to its left sibling
// kids[i] through the separator at position i: the separator and the
// first k-1 items of kids[i+1] go to the end of kids[i], together with the
// first k children of kids[i+1] if the children are interior nodes, and
// the item after them becomes the separator. The caller refreshes kaggs[i]
// and kaggs[i+1]. For k = 1:
//
// Before:
//
//	          +-----------+
//	          |     y     |
//	          +----/-\----+
//	              /   \
//	             v     v
//	+-----------+     +-----------+
//	|         x |     | z w       |
//	+-----------+     +/----------+
//	                  /
//	                 g
//
// After:
//
//	          +-----------+
//	          |     z     |
//	          +----/-\----+
//	              /   \
//	             v     v
//	+-----------+     +-----------+
//	|       x y |     | w         |
//	+----------\+     +-----------+
//	            \
//	             g
func (p *inode[T, A]) rotateLeft(i, k int) {
	l, r := p.kids[i], p.kids[i+1]
	ln, rn := l.count(), r.count()
	l.items[ln], l.iaggs[ln] = p.items[i], p.iaggs[i]
	moveItems(l, ln+1, r, 0, k-1)
	p.items[i], p.iaggs[i] = r.items[k-1], r.iaggs[k-1]
	copy(r.items[:rn-k], r.items[k:rn])
	copy(r.iaggs[:rn-k], r.iaggs[k:rn])
	clear(r.items[rn-k : rn])
	clear(r.iaggs[rn-k : rn])
	if !l.leaf {
		li, ri := l.in(), r.in()
		moveKids(li, ln+1, ri, 0, k)
		copy(ri.kids[:rn-k+1], ri.kids[k:rn+1])
		copy(ri.kaggs[:rn-k+1], ri.kaggs[k:rn+1])
		clear(ri.kids[rn-k+1 : rn+1])
		clear(ri.kaggs[rn-k+1 : rn+1])
	}
	l.n += int32(k)
	r.n -= int32(k)
}

// merge joins the separator at position i and the child kids[i+1] onto the
// end of the child kids[i], removes both from p and returns the emptied
// right child, which the caller frees. The caller refreshes kaggs[i].
//
// Before:
//
//	          +-----------+
//	          |   u y v   |
//	          +----/-\----+
//	              /   \
//	             v     v
//	+-----------+     +-----------+
//	|       w x |     | z         |
//	+-----------+     +-----------+
//
// After:
//
//	          +-----------+
//	          |    u v    |
//	          +-----|-----+
//	                |
//	                v
//	+-----------------------+
//	|       w x y z         |
//	+-----------------------+
func (p *inode[T, A]) merge(i int) *node[T, A] {
	sep, sa, r := p.removeRight(i)
	l := p.kids[i]
	k, rk := l.count(), r.count()
	l.items[k], l.iaggs[k] = sep, sa
	moveItems(l, k+1, r, 0, rk)
	if !l.leaf {
		moveKids(l.in(), k+1, r.in(), 0, rk+1)
	}
	l.n += int32(1 + rk)
	r.n = 0
	return r
}

// freeList holds nodes removed from the tree for reuse, linked through
// node.next.
type freeList[T any, A comparable] struct {
	leaves, inners   *node[T, A]
	nLeaves, nInners int
}

// freeLimit returns how many free nodes of each kind a tree of length
// items keeps.
func freeLimit(length int) int {
	return max(minFree, length/itemsPerFree)
}

// newLeaf returns an empty leaf, reused if one is free.
func (f *freeList[T, A]) newLeaf() *node[T, A] {
	if n := f.leaves; n != nil {
		f.leaves, n.next = n.next, nil
		f.nLeaves--
		return n
	}
	return &node[T, A]{leaf: true}
}

// newInner returns an empty interior node, reused if one is free.
func (f *freeList[T, A]) newInner() *inode[T, A] {
	if n := f.inners; n != nil {
		f.inners, n.next = n.next, nil
		f.nInners--
		return n.in()
	}
	return &inode[T, A]{}
}

// free clears n, which is no longer in the tree, and keeps it for reuse if
// fewer than limit nodes of its kind are free. If more than limit are (the
// tree shrank), it also lets one of them go, so that the list follows the
// tree down.
func (f *freeList[T, A]) free(n *node[T, A], limit int) {
	c := n.count()
	clear(n.items[:c])
	clear(n.iaggs[:c])
	n.n = 0
	head, count := &f.leaves, &f.nLeaves
	if !n.leaf {
		in := n.in()
		clear(in.kids[:c+1])
		clear(in.kaggs[:c+1])
		head, count = &f.inners, &f.nInners
	}
	if *count < limit {
		n.next, *head = *head, n
		*count++
		return
	}
	if *count > limit {
		drop := *head
		*head, drop.next = drop.next, nil
		*count--
	}
}
