package btree

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seq returns lo, lo+step, ... up to but excluding hi (or down to, for a
// negative step).
func seq(lo, hi, step int) []int {
	var out []int
	for x := lo; (step > 0 && x < hi) || (step < 0 && x > hi); x += step {
		out = append(out, x)
	}
	return out
}

// interleave returns a permutation of 0..n-1 that alternates between the
// two ends: 0, n-1, 1, n-2, ...
func interleave(n int) []int {
	out := make([]int, 0, n)
	for lo, hi := 0, n-1; lo <= hi; lo, hi = lo+1, hi-1 {
		out = append(out, lo)
		if lo != hi {
			out = append(out, hi)
		}
	}
	return out
}

// mustVerify fails the test if t does not verify.
func mustVerify[T any, A comparable, G Augmenter[T, A]](tb testing.TB, t *Tree[T, A, G]) {
	tb.Helper()
	if err := t.Verify(); err != nil {
		tb.Fatal(err)
	}
}

func TestEmptyTree(t *testing.T) {
	tr := newSpanTree()
	mustVerify(t, tr)
	if n := tr.Len(); n != 0 {
		t.Errorf("Len() = %d, want 0", n)
	}
	if x, ok := tr.First(); ok {
		t.Errorf("First() = %d, true; want false", x)
	}
	if x, ok := tr.Last(); ok {
		t.Errorf("Last() = %d, true; want false", x)
	}
	if a, ok := tr.Agg(); ok {
		t.Errorf("Agg() = %v, true; want false", a)
	}
	if x, ok := tr.Find(atLeast(0)); ok {
		t.Errorf("Find() = %d, true; want false", x)
	}
	if tr.Delete(1) {
		t.Error("Delete(1) = true on an empty tree")
	}
	tr.Update(1) // no item: nothing happens
	tr.Ascend(func(x int) bool {
		t.Errorf("Ascend called fn(%d) on an empty tree", x)
		return true
	})
	mustVerify(t, tr)
}

func TestZeroValueTree(t *testing.T) {
	// The zero value is usable when the zero augmenter is.
	var tr Tree[int, span, spanAug]
	for _, x := range []int{3, 1, 2} {
		tr.Insert(x)
	}
	mustVerify(t, &tr)
	if got, want := items(&tr), []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("items = %v, want %v", got, want)
	}
}

func TestInitInitialisesAnEmbeddedTree(t *testing.T) {
	type runQueue struct {
		nr       int
		timeline Tree[*entity, entityAgg, entityAug]
	}
	var rq runQueue
	rq.timeline.Init(entityAug{})
	e := &entity{deadline: at(1), vruntime: at(-1), slice: 3}
	rq.timeline.Insert(e)
	rq.nr++
	mustVerify(t, &rq.timeline)
	if got, ok := rq.timeline.Find(eligible{at(0)}); !ok || got != e {
		t.Errorf("Find() = %v, %v; want %v, true", got, ok, e)
	}
}

func TestInsertKeepsItemsInOrder(t *testing.T) {
	tests := []struct {
		name   string
		insert []int
	}{
		{"one item", []int{7}},
		{"a full root leaf", seq(0, maxItems, 1)},
		{"one past a full root leaf splits the root", seq(0, maxItems+1, 1)},
		{"ascending, many levels", seq(0, 2000, 1)},
		{"descending, many levels", seq(2000, 0, -1)},
		{"from both ends inwards", interleave(2000)},
		{"strided", func() []int {
			var out []int
			for s := range 7 {
				out = append(out, seq(s, 3000, 7)...)
			}
			return out
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newSpanTree()
			for _, x := range tc.insert {
				tr.Insert(x)
				mustVerify(t, tr)
			}
			want := slices.Sorted(slices.Values(tc.insert))
			if diff := cmp.Diff(want, items(tr)); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if tr.Len() != len(want) {
				t.Errorf("Len() = %d, want %d", tr.Len(), len(want))
			}
			if f, _ := tr.First(); f != want[0] {
				t.Errorf("First() = %d, want %d", f, want[0])
			}
			if l, _ := tr.Last(); l != want[len(want)-1] {
				t.Errorf("Last() = %d, want %d", l, want[len(want)-1])
			}
			// The aggregate merges in order: first, last, count.
			wantAgg := span{want[0], want[len(want)-1], len(want)}
			if a, ok := tr.Agg(); !ok || a != wantAgg {
				t.Errorf("Agg() = %v, %v; want %v, true", a, ok, wantAgg)
			}
		})
	}
}

func TestDeleteRemovesExactlyThePresentItems(t *testing.T) {
	type del struct {
		item int
		want bool
	}
	deletes := func(want bool, xs ...int) []del {
		out := make([]del, len(xs))
		for i, x := range xs {
			out[i] = del{x, want}
		}
		return out
	}
	tests := []struct {
		name   string
		insert []int
		delete []del
	}{
		{"absent from an empty tree", nil, deletes(false, 1)},
		{"absent item below, between and above", []int{10, 20, 30}, deletes(false, 5, 15, 35)},
		{"the only item", []int{1}, deletes(true, 1)},
		{"the same item twice", []int{1, 2}, []del{{1, true}, {1, false}}},
		{"first item repeatedly", seq(0, 500, 1), deletes(true, seq(0, 500, 1)...)},
		{"last item repeatedly", seq(0, 500, 1), deletes(true, seq(499, -1, -1)...)},
		{"from the middle outwards", seq(0, 500, 1), deletes(true, seq(250, 500, 1)...)},
		{"every other item", seq(0, 1000, 1), deletes(true, seq(0, 1000, 2)...)},
		{"everything from both ends", seq(0, 1000, 1), deletes(true, interleave(1000)...)},
		{"absent items among present ones", seq(0, 1000, 2), deletes(false, seq(1, 1000, 2)...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newSpanTree()
			present := map[int]bool{}
			for _, x := range tc.insert {
				tr.Insert(x)
				present[x] = true
			}
			for _, d := range tc.delete {
				if got := tr.Delete(d.item); got != d.want {
					t.Fatalf("Delete(%d) = %v, want %v", d.item, got, d.want)
				}
				delete(present, d.item)
				mustVerify(t, tr)
			}
			var want []int
			for x := range present {
				want = append(want, x)
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, items(tr)); diff != "" {
				t.Errorf("items after deletes (-want +got):\n%s", diff)
			}
			if len(want) == 0 {
				if _, ok := tr.First(); ok {
					t.Error("First() reports an item in an empty tree")
				}
				if _, ok := tr.Agg(); ok {
					t.Error("Agg() reports an aggregate for an empty tree")
				}
				return
			}
			if f, _ := tr.First(); f != want[0] {
				t.Errorf("First() = %d, want %d", f, want[0])
			}
			if l, _ := tr.Last(); l != want[len(want)-1] {
				t.Errorf("Last() = %d, want %d", l, want[len(want)-1])
			}
		})
	}
}

// atLeast matches the first int >= x; the span aggregate keeps the
// greatest element as hi.
type atLeast int

func (m atLeast) MatchAgg(a span) bool { return a.hi >= int(m) }
func (m atLeast) Match(x int) bool     { return x >= int(m) }

func TestFindFirstEligibleEntity(t *testing.T) {
	type ent struct{ deadline, vruntime int64 }
	tests := []struct {
		name      string
		ents      []ent
		threshold int64
		want      int64 // deadline of the entity found
		wantOK    bool
	}{
		{"empty", nil, 0, 0, false},
		{"one eligible", []ent{{5, -1}}, 0, 5, true},
		{"vruntime equal to the threshold is eligible", []ent{{5, 0}}, 0, 5, true},
		{"one not eligible", []ent{{5, 1}}, 0, 0, false},
		{"earliest deadline wins among eligible", []ent{{1, 10}, {2, -3}, {3, -5}}, 0, 2, true},
		{"none eligible", []ent{{1, 10}, {2, 3}, {3, 5}}, 0, 0, false},
		{"last is the only eligible", []ent{{1, 10}, {2, 3}, {3, -5}}, 0, 3, true},
		{"deadlines wrap around 2^64", []ent{{40000, 9}, {-40000, 9}, {-30000, -2}, {100, -9}}, 0, -30000, true},
		{"vruntimes wrap around 2^64", []ent{{1, 40000}, {2, 1 << 20}, {3, -40000}}, 35000, 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := New[*entity, entityAgg](entityAug{})
			for i, e := range tc.ents {
				tr.Insert(&entity{deadline: at(e.deadline), seq: uint64(i), vruntime: at(e.vruntime), slice: 1})
			}
			mustVerify(t, tr)
			got, ok := tr.Find(eligible{at(tc.threshold)})
			if ok != tc.wantOK || (ok && got.deadline != at(tc.want)) {
				t.Errorf("Find() = %v, %v; want deadline %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestFindMatchesLinearScan(t *testing.T) {
	// Items 0, 3, 6, ...; every threshold from below the first to above
	// the last finds the first item >= threshold.
	for _, n := range []int{1, maxItems, maxItems + 1, 200, 3000} {
		tr := newSpanTree()
		for i := range n {
			tr.Insert(3 * i)
		}
		for th := -2; th <= 3*n+1; th++ {
			want, wantOK := 3*((th+2)/3), th <= 3*(n-1)
			if th < 0 {
				want = 0
			}
			got, ok := tr.Find(atLeast(th))
			if ok != wantOK || (ok && got != want) {
				t.Fatalf("n=%d: Find(>= %d) = %d, %v; want %d, %v", n, th, got, ok, want, wantOK)
			}
		}
	}
}

func TestFindFollowsTheDescentContract(t *testing.T) {
	// A matcher whose MatchAgg always holds but Match never does walks
	// down the leftmost path and gives up in the leftmost leaf: it never
	// comes back up to try other children.
	tr := newSpanTree()
	for i := range 1000 {
		tr.Insert(i)
	}
	m := &countingMatcher[int, span]{Matcher: fixedMatcher{agg: true, item: false}}
	if x, ok := tr.Find(m); ok {
		t.Errorf("Find() = %d, true; want false", x)
	}
	if want := tr.height - 1; m.aggCalls != want {
		t.Errorf("MatchAgg called %d times, want %d (once per interior level)", m.aggCalls, want)
	}
	leftmostLeaf := tr.root
	for !leftmostLeaf.leaf {
		leftmostLeaf = leftmostLeaf.in().kids[0]
	}
	if want := leftmostLeaf.count(); m.itemCalls != want {
		t.Errorf("Match called %d times, want %d (the leftmost leaf's items)", m.itemCalls, want)
	}

	// MatchAgg never holds, Match never holds: every item on the
	// rightmost path is tried, nothing else.
	m = &countingMatcher[int, span]{Matcher: fixedMatcher{agg: false, item: false}}
	if x, ok := tr.Find(m); ok {
		t.Errorf("Find() = %d, true; want false", x)
	}
	if bound := tr.height * maxItems; m.itemCalls > bound || m.aggCalls > bound {
		t.Errorf("Find made %d Match and %d MatchAgg calls, more than %d", m.itemCalls, m.aggCalls, bound)
	}
}

// fixedMatcher answers the same for every aggregate and every item.
type fixedMatcher struct{ agg, item bool }

func (m fixedMatcher) MatchAgg(span) bool { return m.agg }
func (m fixedMatcher) Match(int) bool     { return m.item }

func TestUpdateRefreshesAggregates(t *testing.T) {
	tr := New[*entity, entityAgg](entityAug{})
	var ents []*entity
	for i := range 500 {
		e := &entity{deadline: at(int64(i)), seq: uint64(i), vruntime: at(100), slice: 3}
		ents = append(ents, e)
		tr.Insert(e)
	}
	steps := []struct {
		name     string
		ent      int
		vruntime int64
		slice    uint64
		wantAgg  entityAgg
		wantFind int // index of the entity Find(vruntime <= 0) returns, or -1
	}{
		{"lower one vruntime below the threshold", 321, -5, 3, entityAgg{at(-5), 3, 3}, 321},
		{"an earlier one becomes eligible too", 17, -1, 3, entityAgg{at(-5), 3, 3}, 17},
		{"the first loses eligibility", 17, 100, 3, entityAgg{at(-5), 3, 3}, 321},
		{"grow one slice", 499, 100, 9, entityAgg{at(-5), 3, 9}, 321},
		{"shrink another slice", 0, 100, 1, entityAgg{at(-5), 1, 9}, 321},
		{"restore", 321, 100, 3, entityAgg{at(100), 1, 9}, -1},
	}
	for _, s := range steps {
		ents[s.ent].vruntime, ents[s.ent].slice = at(s.vruntime), s.slice
		tr.Update(ents[s.ent])
		if err := tr.Verify(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if a, _ := tr.Agg(); a != s.wantAgg {
			t.Errorf("%s: Agg() = %+v, want %+v", s.name, a, s.wantAgg)
		}
		got, ok := tr.Find(eligible{at(0)})
		switch {
		case s.wantFind < 0 && ok:
			t.Errorf("%s: Find() = %v, want none", s.name, got)
		case s.wantFind >= 0 && got != ents[s.wantFind]:
			t.Errorf("%s: Find() = %v, want %v", s.name, got, ents[s.wantFind])
		}
	}
	// An item that is not in the tree is ignored.
	tr.Update(&entity{deadline: at(1000)})
	mustVerify(t, tr)
}

func TestAscendStopsWhenFnReturnsFalse(t *testing.T) {
	tr := newSpanTree()
	for i := range 1000 {
		tr.Insert(i)
	}
	for _, stop := range []int{0, 1, maxItems, 500, 999} {
		var got []int
		tr.Ascend(func(x int) bool {
			got = append(got, x)
			return x < stop
		})
		if want := seq(0, stop+1, 1); !slices.Equal(got, want) {
			t.Errorf("Ascend stopping after %d visited %v", stop, got)
		}
	}
}

func TestInitEmptiesTheTree(t *testing.T) {
	tr := newSpanTree()
	for i := range 100 {
		tr.Insert(i)
	}
	tr.Init(spanAug{})
	mustVerify(t, tr)
	if tr.Len() != 0 || len(items(tr)) != 0 {
		t.Errorf("after Init: Len() = %d, items %v", tr.Len(), items(tr))
	}
	tr.Insert(5)
	mustVerify(t, tr)
	if got := items(tr); !slices.Equal(got, []int{5}) {
		t.Errorf("after Init and Insert(5): items %v", got)
	}
}

func TestEqualItemsDoNotBreakTheTree(t *testing.T) {
	// Equal items break the contract; the tree keeps working and Verify
	// reports the violation.
	tr := newSpanTree()
	for i := range 100 {
		tr.Insert(i)
	}
	tr.Insert(50)
	if tr.Len() != 101 {
		t.Errorf("Len() = %d, want 101", tr.Len())
	}
	if err := tr.Verify(); err == nil {
		t.Error("Verify() accepted two equal items")
	}
	first, second, third := tr.Delete(50), tr.Delete(50), tr.Delete(50)
	if !first || !second || third {
		t.Error("deleting the two equal items did not succeed exactly twice")
	}
	mustVerify(t, tr)
}

func TestHeightGrowsAndShrinks(t *testing.T) {
	tr := newSpanTree()
	heights := map[int]bool{}
	n := 2 * (maxItems + 1) * (maxItems + 1) * (maxItems + 1)
	for i := range n {
		tr.Insert(i)
		heights[tr.height] = true
	}
	if len(heights) < 4 {
		t.Fatalf("inserting %d items reached heights %v only", n, heights)
	}
	mustVerify(t, tr)
	for i := range n {
		tr.Delete(i)
	}
	mustVerify(t, tr)
	if tr.height != 0 || tr.root != nil {
		t.Errorf("emptied tree has height %d, root %p", tr.height, tr.root)
	}
}
