package btree

import (
	"strings"
	"testing"
)

// TestVerifyDetectsCorruption corrupts one invariant of a valid tree at a
// time and checks that Verify reports it, without panicking.
func TestVerifyDetectsCorruption(t *testing.T) {
	// build returns a valid tree at least three levels high.
	build := func() *entityTree {
		tr := New[*entity, entityAgg](entityAug{})
		n := 4 * (maxItems + 1) * (maxItems + 1)
		for i := range n {
			tr.Insert(&entity{deadline: at(int64(i)), seq: uint64(i), vruntime: at(int64(i % 97)), slice: uint64(i % 13)})
		}
		for i := 0; i < n; i += 3 {
			tr.Delete(&entity{deadline: at(int64(i)), seq: uint64(i)})
		}
		if tr.height < 3 {
			t.Fatalf("tree of height %d; want at least 3", tr.height)
		}
		mustVerify(t, tr)
		return tr
	}
	// Nodes reached by child indexes from the root.
	nodeAt := func(tr *entityTree, path ...int) *node[*entity, entityAgg] {
		n := tr.root
		for _, i := range path {
			n = n.in().kids[i]
		}
		return n
	}
	leafOf := func(tr *entityTree) *node[*entity, entityAgg] {
		n := tr.root
		for !n.leaf {
			n = n.in().kids[1]
		}
		return n
	}

	tests := []struct {
		name    string
		corrupt func(tr *entityTree)
		want    string // part of the error message
	}{
		{"child aggregate in the root", func(tr *entityTree) {
			tr.root.in().kaggs[1].minV++
		}, "aggregate"},
		{"child aggregate one level down", func(tr *entityTree) {
			nodeAt(tr, 0).in().kaggs[2].maxSlice = 1000
		}, "aggregate"},
		{"aggregated field changed without Update", func(tr *entityTree) {
			leafOf(tr).items[0].vruntime = at(-7)
		}, "cached aggregate"},
		{"aggregated field of a separator changed without Update", func(tr *entityTree) {
			tr.root.items[0].slice = 1 << 40
		}, "cached aggregate"},
		{"cached item aggregate", func(tr *entityTree) {
			leafOf(tr).iaggs[3].minSlice = 1 << 40
		}, "cached aggregate"},
		{"stale item slot", func(tr *entityTree) {
			l := leafOf(tr)
			if l.n == maxItems {
				t.Skip("leaf is full")
			}
			l.iaggs[l.n] = l.iaggs[0]
		}, "not cleared"},
		{"whole-tree aggregate", func(tr *entityTree) {
			tr.agg.minSlice = 99
		}, "aggregate"},
		{"two items swapped in a leaf", func(tr *entityTree) {
			l := leafOf(tr)
			l.items[0], l.items[1] = l.items[1], l.items[0]
			l.iaggs[0], l.iaggs[1] = l.iaggs[1], l.iaggs[0]
		}, "does not sort after"},
		{"separators out of order", func(tr *entityTree) {
			p := nodeAt(tr, 0)
			p.items[0], p.items[1] = p.items[1], p.items[0]
			p.iaggs[0], p.iaggs[1] = p.iaggs[1], p.iaggs[0]
		}, "does not sort after"},
		{"separator below its left subtree", func(tr *entityTree) {
			tr.root.items[0] = tr.first
			tr.root.iaggs[0] = entityAug{}.Leaf(tr.first)
		}, "does not sort after"},
		{"order field changed in the tree", func(tr *entityTree) {
			leafOf(tr).items[2].deadline = at(-100)
		}, "does not sort after"},
		{"item count too high", func(tr *entityTree) {
			tr.length++
		}, "Len"},
		{"height wrong", func(tr *entityTree) {
			tr.height++
		}, "height"},
		{"cached first item", func(tr *entityTree) {
			tr.first = tr.last
		}, "first"},
		{"cached last item", func(tr *entityTree) {
			tr.last = tr.first
		}, "last"},
		{"underfull node", func(tr *entityTree) {
			l := leafOf(tr)
			l.n = minItems - 1
		}, "fewer than"},
		{"node count out of range", func(tr *entityTree) {
			leafOf(tr).n = maxItems + 5
		}, "outside"},
		{"negative node count", func(tr *entityTree) {
			leafOf(tr).n = -1
		}, "outside"},
		{"missing child", func(tr *entityTree) {
			tr.root.in().kids[0] = nil
		}, "missing child"},
		{"leaves at different depths", func(tr *entityTree) {
			// Hang a leaf where an interior node belongs.
			r := tr.root.in()
			l := nodeAt(tr, 0, 0)
			r.kids[0], r.kaggs[0] = l, tr.fold(l)
		}, "depth"},
		{"empty root", func(tr *entityTree) {
			tr.root = tr.free.newLeaf()
		}, "root holds no items"},
		{"stale child slot", func(tr *entityTree) {
			r := tr.root.in()
			if r.n == maxItems {
				t.Skip("root is full")
			}
			r.kids[r.n+1] = r.kids[0]
		}, "not cleared"},
		{"node linked to the free list", func(tr *entityTree) {
			leafOf(tr).next = leafOf(tr)
		}, "free list"},
		{"free list count", func(tr *entityTree) {
			tr.free.nLeaves += 2
		}, "free list"},
		{"cycle", func(tr *entityTree) {
			n := nodeAt(tr, 0)
			n.in().kids[0] = n
		}, "deeper"},
		{"empty tree with items counted", func(tr *entityTree) {
			tr.root, tr.height = nil, 0
		}, "empty tree"},
		{"empty tree with a height", func(tr *entityTree) {
			tr.root, tr.length = nil, 0
		}, "empty tree"},
		{"empty tree with an aggregate", func(tr *entityTree) {
			tr.root, tr.length, tr.height = nil, 0, 0
		}, "empty tree"},
		{"interior node on the leaf free list", func(tr *entityTree) {
			n := tr.free.newInner()
			n.next, tr.free.leaves = tr.free.leaves, &n.node
			tr.free.nLeaves++
		}, "free list"},
		{"free list cycle", func(tr *entityTree) {
			n := tr.free.newLeaf()
			n.next, tr.free.leaves = n, n
		}, "free list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := build()
			tc.corrupt(tr)
			err := tr.Verify()
			if err == nil {
				t.Fatal("Verify() = nil after corruption")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Verify() = %q, want it to mention %q", err, tc.want)
			}
		})
	}
}
