package btree

import (
	"testing"

	oracle "github.com/google/btree"
)

// harness applies the same operations to a Tree of entities and to an
// oracle ordered set (github.com/google/btree), checks every answer against
// the oracle, scanned linearly, and verifies the Tree after every step.
type harness struct {
	tb      testing.TB
	tr      *entityTree
	or      *oracle.BTreeG[*entity]
	nextSeq uint64
	removed []*entity // entities deleted earlier, to delete again
}

func newHarness(tb testing.TB) *harness {
	return &harness{
		tb: tb,
		tr: New[*entity, entityAgg](entityAug{}),
		or: oracle.NewG(4, entityAug{}.Less),
	}
}

// nth returns the oracle's k-th item (k taken modulo its length) in order.
func (h *harness) nth(k int) *entity {
	k %= h.or.Len()
	var out *entity
	h.or.Ascend(func(e *entity) bool {
		if k == 0 {
			out = e
			return false
		}
		k--
		return true
	})
	return out
}

func (h *harness) insert(deadline, vruntime int64, slice uint64) {
	h.nextSeq++
	e := &entity{deadline: at(deadline), seq: h.nextSeq, vruntime: at(vruntime), slice: slice}
	h.tr.Insert(e)
	h.or.ReplaceOrInsert(e)
	h.verify("Insert(%v)", e)
}

// deleteNth deletes the oracle's k-th item from both.
func (h *harness) deleteNth(k int) {
	if h.or.Len() == 0 {
		h.deleteAbsent(k)
		return
	}
	e := h.nth(k)
	if !h.tr.Delete(e) {
		h.tb.Fatalf("Delete(%v) = false for a present item", e)
	}
	h.or.Delete(e)
	h.removed = append(h.removed, e)
	h.verify("Delete(%v)", e)
}

// deleteFirst deletes the first item of both.
func (h *harness) deleteFirst() {
	got, ok := h.tr.DeleteFirst()
	want, wok := h.or.DeleteMin()
	if got != want || ok != wok {
		h.tb.Fatalf("DeleteFirst() = %v, %v; want %v, %v", got, ok, want, wok)
	}
	if ok {
		h.removed = append(h.removed, got)
	}
	h.verify("DeleteFirst()")
}

// deleteAbsent deletes an item that is not in the tree: one deleted
// before, or a new one.
func (h *harness) deleteAbsent(k int) {
	var e *entity
	if len(h.removed) > 0 && k%2 == 0 {
		e = h.removed[k%len(h.removed)]
	} else {
		e = &entity{deadline: at(int64(k)), seq: 1 << 62}
	}
	if h.tr.Delete(e) {
		h.tb.Fatalf("Delete(%v) = true for an absent item", e)
	}
	h.verify("Delete(absent %v)", e)
}

// update changes the aggregated fields of the oracle's k-th item.
func (h *harness) update(k int, vruntime int64, slice uint64) {
	if h.or.Len() == 0 {
		return
	}
	e := h.nth(k)
	e.vruntime, e.slice = at(vruntime), slice
	h.tr.Update(e)
	h.verify("Update(%v)", e)
}

// find checks Find and FindAgg, with and without MatchNode (vruntime <=
// threshold), against a linear scan.
func (h *harness) find(threshold int64) {
	th := at(threshold)
	var want *entity
	h.or.Ascend(func(e *entity) bool {
		if int64(e.vruntime-th) <= 0 {
			want = e
			return false
		}
		return true
	})
	got, ok := h.tr.Find(eligible{th})
	if ok != (want != nil) || got != want {
		h.tb.Fatalf("Find(vruntime <= %d) = %v, %v; want %v", threshold, got, ok, want)
	}
	got, ok = h.tr.FindAgg(eligible{th})
	if ok != (want != nil) || got != want {
		h.tb.Fatalf("FindAgg(vruntime <= %d) = %v, %v; want %v", threshold, got, ok, want)
	}
	got, ok = h.tr.FindAgg(aggOnly{eligible{th}})
	if ok != (want != nil) || got != want {
		h.tb.Fatalf("FindAgg(vruntime <= %d) without MatchNode = %v, %v; want %v", threshold, got, ok, want)
	}
}

// checkEnds checks Len, First and Last.
func (h *harness) checkEnds() {
	if h.tr.Len() != h.or.Len() {
		h.tb.Fatalf("Len() = %d, want %d", h.tr.Len(), h.or.Len())
	}
	f, fok := h.tr.First()
	wf, wfok := h.or.Min()
	if fok != wfok || f != wf {
		h.tb.Fatalf("First() = %v, %v; want %v, %v", f, fok, wf, wfok)
	}
	l, lok := h.tr.Last()
	wl, wlok := h.or.Max()
	if lok != wlok || l != wl {
		h.tb.Fatalf("Last() = %v, %v; want %v, %v", l, lok, wl, wlok)
	}
}

// checkAll checks the ends, the aggregate and the whole ordered walk.
func (h *harness) checkAll() {
	h.checkEnds()
	var want entityAgg
	var all []*entity
	h.or.Ascend(func(e *entity) bool {
		if len(all) == 0 {
			want = entityAgg{e.vruntime, e.slice, e.slice}
		}
		if int64(e.vruntime-want.minV) < 0 {
			want.minV = e.vruntime
		}
		want.minSlice = min(want.minSlice, e.slice)
		want.maxSlice = max(want.maxSlice, e.slice)
		all = append(all, e)
		return true
	})
	a, ok := h.tr.Agg()
	if ok != (len(all) > 0) || a != want {
		h.tb.Fatalf("Agg() = %+v, %v; want %+v, %v", a, ok, want, len(all) > 0)
	}
	i := 0
	h.tr.Ascend(func(e *entity) bool {
		if i >= len(all) || e != all[i] {
			h.tb.Fatalf("Ascend: item %d is %v, want %v", i, e, all[min(i, len(all)-1)])
		}
		i++
		return true
	})
	if i != len(all) {
		h.tb.Fatalf("Ascend visited %d items, want %d", i, len(all))
	}
}

func (h *harness) verify(format string, args ...any) {
	h.tb.Helper()
	if err := h.tr.Verify(); err != nil {
		h.tb.Fatalf("after "+format+": %v", append(args, err)...)
	}
	h.checkEnds()
}
