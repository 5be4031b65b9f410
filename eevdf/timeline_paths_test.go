package eevdf

import "testing"

// The B-tree timeline's short paths, each against the oracle of
// timeline_btree_test.go (the harness verifies the tree and compares its
// aggregate, leftmost entity and length after every operation): an
// erasure from a subtree of one slice, which keeps the slices without a
// refold; the descent's test of a node's last separator; an insertion
// into a single leaf that already has one pending.

// With one slice throughout, an erasure refolds only the minimum
// vruntime; the slices come back when the one entity of another slice
// leaves. The entities' vruntimes run against their deadlines, so that
// erasures in deadline order take each leaf's minimum vruntime last.
func TestTimelineOneSliceErasures(t *testing.T) {
	h := newTLHarness(t)
	const n = 200 // several levels
	for i := range n {
		h.insert(int64(10*i), int64(-7*i), 700, -1)
	}
	h.checkOrder()
	// Another slice, at each end of the slices, enters and leaves.
	for _, slice := range []uint64{100, 3000} {
		h.insert(995, 3, slice, -1)
		h.checkOrder()
		h.erase(h.tr.leftmost()) // an entity of the one slice
		var other *SchedEntity
		h.or.Ascend(func(se *SchedEntity) bool {
			if se.slice == slice {
				other = se
			}
			return other == nil
		})
		h.erase(other)
		if a, _ := h.tr.aggregate(); a.minSlice != 700 || a.maxSlice != 700 {
			t.Fatalf("slices %d..%d after the entity of slice %d left, want 700..700", a.minSlice, a.maxSlice, slice)
		}
	}
	// Every third, then all: minimum vruntimes and non-minimums alike.
	for k := 0; h.or.Len() > 0; k += 2 {
		h.eraseNth(k)
	}
	h.checkOrder()
}

// An insertion at, after and just before the last separator of each node
// of its descent: an equal deadline goes after the entities with it, in
// the last child; an earlier one is counted among the other separators.
func TestTimelineInsertAroundLastSeparator(t *testing.T) {
	h := newTLHarness(t)
	for i := range 300 {
		h.insert(int64(4*i), int64(i), 700, -1)
	}
	last := h.nthLast()
	for _, d := range []int64{last, last + 1, last - 1, last + 1000, 0, -5} {
		h.insert(d, 9, 700, -1)
		h.checkOrder()
	}
	// Separators equal to the new deadline at every level: ties all the
	// way down.
	for range 40 {
		h.insert(400, 11, 700, -1)
	}
	h.checkOrder()
	for h.or.Len() > 0 {
		h.eraseNth(h.or.Len() - 1) // from the right, the put_prev side
	}
	h.checkOrder()
}

// Two insertions in a row into a tree of one leaf: the first, pending, is
// placed before the second goes in; when that fills the leaf, the second
// goes into a tree of two levels. Erasing then fuses nothing.
func TestTimelineSecondPendingInsertion(t *testing.T) {
	for size := range leafMax + 1 {
		h := newTLHarness(t)
		for i := range size - 1 {
			h.insert(int64(10*i), int64(i), 700, -1)
		}
		h.insert(35, 100, 300, -1) // pending
		h.insert(36, 101, 900, -1) // places the one before
		h.checkOrder()
		h.swap(5, 102, 700, -1, 1)
		h.checkOrder()
		for h.or.Len() > 0 {
			h.eraseFirst()
		}
	}
}
