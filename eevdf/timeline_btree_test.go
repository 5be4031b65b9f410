package eevdf

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	oracle "github.com/google/btree"
)

// The B-tree timeline on its own, against an oracle ordered set
// (github.com/google/btree, the order of entityAug.Less) scanned linearly:
// every answer (first, len, aggregate, ordered walk, eligibility descent)
// is compared with the oracle's and the tree verified after every step.

// tlBase is the origin of the harness's deadlines and vruntimes: offsets
// of either sign from it cross the wrap of u64 at 2^64.
const tlBase = ^uint64(0) - 1<<15 + 1

func tlAt(off int64) uint64 { return tlBase + uint64(off) }

type tlHarness struct {
	tb      testing.TB
	tr      bTimeline
	or      *oracle.BTreeG[*SchedEntity]
	seq     uint64
	made    int
	removed []*SchedEntity // erased entities, reinserted later
}

func newTLHarness(tb testing.TB) *tlHarness {
	return &tlHarness{tb: tb, or: oracle.NewG(4, entityAug{}.Less)}
}

// insert inserts an entity with the given deadline, vruntime and slice,
// reusing an erased one if reuse names one, with the next insertion
// sequence, as enqueueEntity does.
func (h *tlHarness) insert(deadline, vruntime int64, slice uint64, reuse int) {
	var se *SchedEntity
	if len(h.removed) > 0 && reuse >= 0 {
		k := reuse % len(h.removed)
		se = h.removed[k]
		h.removed = append(h.removed[:k], h.removed[k+1:]...)
	} else {
		h.made++
		se = &SchedEntity{name: fmt.Sprintf("e%d", h.made)}
	}
	h.seq++
	se.deadline, se.vruntime, se.slice, se.seq = tlAt(deadline), tlAt(vruntime), slice, h.seq
	want := h.descentLeaf(se.deadline)
	h.tr.insert(se)
	h.or.ReplaceOrInsert(se)
	h.check("insert(%s)", se.name)
	if want != nil && se.tlLeaf != want {
		h.tb.Fatalf("insert(%s): in leaf %p, the descent's is %p (a finger took another leaf)", se.name, se.tlLeaf, want)
	}
}

// descentLeaf returns the leaf that the descent from the root takes for
// an insertion of deadline dl into a tree of more than two levels, where
// insert may start from a finger instead, when that leaf has room (a
// full one splits, and the entity may end in either half); nil
// otherwise. An insertion that a finger places must land in the same
// leaf, so that the tree's shape does not depend on the fingers.
func (h *tlHarness) descentLeaf(dl uint64) *tlLeaf {
	if h.tr.height <= 2 || h.tr.pending != nil {
		return nil
	}
	l := descend(h.tr.root, dl).asLeaf()
	if l.n == leafMax {
		return nil
	}
	return l
}

// swap is a context switch: an insertion immediately followed by the
// erasure of the oracle's k-th entity (k < 0: the first), the pair the
// tree may fuse; the erased entity may be the one just inserted.
func (h *tlHarness) swap(deadline, vruntime int64, slice uint64, reuse, k int) {
	var se *SchedEntity
	if len(h.removed) > 0 && reuse >= 0 {
		i := reuse % len(h.removed)
		se = h.removed[i]
		h.removed = append(h.removed[:i], h.removed[i+1:]...)
	} else {
		h.made++
		se = &SchedEntity{name: fmt.Sprintf("e%d", h.made)}
	}
	h.seq++
	se.deadline, se.vruntime, se.slice, se.seq = tlAt(deadline), tlAt(vruntime), slice, h.seq
	h.tr.insert(se)
	h.or.ReplaceOrInsert(se)
	out, _ := h.or.Min()
	if k >= 0 {
		out = h.nth(k)
	}
	h.erase(out)
}

// nth returns the oracle's k-th entity, k taken modulo its length.
func (h *tlHarness) nth(k int) *SchedEntity {
	k %= h.or.Len()
	var out *SchedEntity
	h.or.Ascend(func(se *SchedEntity) bool {
		if k == 0 {
			out = se
			return false
		}
		k--
		return true
	})
	return out
}

func (h *tlHarness) erase(se *SchedEntity) {
	h.tr.erase(se)
	h.or.Delete(se)
	if se.tlLeaf != nil {
		h.tb.Fatalf("erase(%s) left its handle set", se.name)
	}
	h.removed = append(h.removed, se)
	h.check("erase(%s)", se.name)
}

func (h *tlHarness) eraseNth(k int) {
	if h.or.Len() > 0 {
		h.erase(h.nth(k))
	}
}

func (h *tlHarness) eraseFirst() {
	if h.or.Len() > 0 {
		h.erase(h.tr.leftmost())
	}
}

// find checks the descent for "key ≤ limit" relative to zero (the bound
// form) and for sums without load (the product form), against a scan.
func (h *tlHarness) find(zero, limit int64, avg int64) {
	var m eligibleMatcher
	m.set(eligibilityTest{avg: limit, load: 1, zero: tlAt(zero)})
	var want *SchedEntity
	h.or.Ascend(func(se *SchedEntity) bool {
		if int64(se.vruntime-tlAt(zero)) <= limit {
			want = se
			return false
		}
		return true
	})
	if got := h.tr.findEligible(&m); got != want {
		h.tb.Fatalf("findEligible(key ≤ %d from %d) = %v, want %v", limit, zero, got, want)
	}
	m.set(eligibilityTest{avg: avg, load: 0, zero: tlAt(zero)})
	want = nil
	if avg >= 0 {
		want, _ = h.or.Min()
	}
	if got := h.tr.findEligible(&m); got != want {
		h.tb.Fatalf("findEligible(no load, avg %d) = %v, want %v", avg, got, want)
	}
}

// check verifies the tree and compares its cached answers with the
// oracle's.
func (h *tlHarness) check(format string, args ...any) {
	h.tb.Helper()
	if err := h.tr.verify(); err != nil {
		h.tb.Fatalf("after %s: %v", fmt.Sprintf(format, args...), err)
	}
	if h.tr.len() != h.or.Len() {
		h.tb.Fatalf("len %d, oracle %d", h.tr.len(), h.or.Len())
	}
	want, _ := h.or.Min()
	if h.tr.leftmost() != want {
		h.tb.Fatalf("first %v, oracle %v", h.tr.leftmost(), want)
	}
	var wa agg
	h.or.Ascend(func(se *SchedEntity) bool {
		if se == want {
			wa = entityAug{}.Leaf(se)
		} else {
			wa = entityAug{}.Merge(wa, entityAug{}.Leaf(se))
		}
		return true
	})
	if a, ok := h.tr.aggregate(); a != wa || ok != (want != nil) {
		h.tb.Fatalf("aggregate %v, %v; oracle %v", a, ok, wa)
	}
}

// checkOrder compares the ordered walk with the oracle's.
func (h *tlHarness) checkOrder() {
	var got, want []*SchedEntity
	h.tr.ascend(func(se *SchedEntity) bool { got = append(got, se); return true })
	h.or.Ascend(func(se *SchedEntity) bool { want = append(want, se); return true })
	if len(got) != len(want) {
		h.tb.Fatalf("ascend gives %d entities, oracle %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			h.tb.Fatalf("ascend: entity %d is %v, oracle %v", i, got[i], want[i])
		}
	}
}

// opReader reads an operation stream; past its end it yields zeros.
type tlOps struct{ b []byte }

func (r *tlOps) more() bool { return len(r.b) > 0 }
func (r *tlOps) u8() byte {
	if len(r.b) == 0 {
		return 0
	}
	x := r.b[0]
	r.b = r.b[1:]
	return x
}
func (r *tlOps) u16() uint16 { return uint16(r.u8()) | uint16(r.u8())<<8 }
func (r *tlOps) i16() int64  { return int64(int16(r.u16())) }

const (
	tlFuzzMaxLen   = 1500
	tlFuzzMaxSteps = 4000
	tlFuzzMaxInput = 256
)

// runTLOps applies an operation stream to a harness: inserts (deadlines
// from a narrow range, so that ties are common, or a wide one), erasures
// of any entity or of the first, descents, bulk inserts and erasures
// (which build and empty trees of several levels from a few bytes) and
// run-queue churn (the first entity out, back in at a later deadline).
func runTLOps(tb testing.TB, data []byte) {
	data = data[:min(len(data), tlFuzzMaxInput)]
	h := newTLHarness(tb)
	r := &tlOps{data}
	for steps := 0; r.more() && steps < tlFuzzMaxSteps; steps++ {
		switch op := r.u8() % 12; op {
		case 0, 1:
			if h.tr.len() < tlFuzzMaxLen {
				h.insert(r.i16(), r.i16(), uint64(r.u8()), int(int8(r.u8())))
			}
		case 2:
			if h.tr.len() < tlFuzzMaxLen {
				h.insert(int64(r.u8()%8), r.i16(), uint64(r.u8()%4), -1)
			}
		case 3, 4:
			h.eraseNth(int(r.u16()))
		case 5:
			h.eraseFirst()
		case 6:
			h.find(r.i16(), r.i16(), int64(int8(r.u8())))
		case 7:
			n, seed := int(r.u8()), r.u16()
			g := rand.New(rand.NewPCG(uint64(seed), 0))
			narrow := seed%2 == 0
			for range n {
				if h.tr.len() >= tlFuzzMaxLen {
					break
				}
				steps++
				d := int64(int16(g.Uint32()))
				if narrow {
					d %= 64
				}
				h.insert(d, int64(int16(g.Uint32())), uint64(g.IntN(256)), g.IntN(4)-3)
			}
		case 8:
			n, seed := int(r.u8()), r.u16()
			g := rand.New(rand.NewPCG(uint64(seed), 1))
			for range n {
				if h.tr.len() == 0 {
					break
				}
				steps++
				if g.IntN(2) == 0 {
					h.eraseFirst()
				} else {
					h.eraseNth(g.IntN(h.tr.len()))
				}
			}
		case 10:
			k := int(r.u16())
			if k%3 == 0 {
				k = -1
			}
			h.swap(r.i16(), r.i16(), uint64(r.u8()%8), int(int8(r.u8())), k)
		case 11:
			// Switches on the run queue's pattern: the previous entity
			// back in a slice later, the first one out.
			n, step := int(r.u8()), int64(r.u8())
			for range n {
				if h.tr.len() == 0 || h.tr.len() >= tlFuzzMaxLen {
					break
				}
				steps++
				last := h.nthLast()
				h.swap(last-step, int64(r.u8())+step, uint64(step%3), -1, -1)
			}
		case 9:
			n, step := int(r.u8()), int64(r.u8())
			for range n {
				if h.tr.len() == 0 {
					break
				}
				steps++
				se := h.tr.leftmost()
				h.erase(se)
				last := h.nthLast()
				h.insert(last+step-int64(step/2), int64(se.vruntime-tlBase)+step, se.slice, 0)
			}
		}
	}
	h.checkOrder()
}

// nthLast returns the offset of the last deadline, or 0.
func (h *tlHarness) nthLast() int64 {
	if se, ok := h.or.Max(); ok {
		return int64(se.deadline - tlBase)
	}
	return 0
}

// FuzzTimelineTree drives the B-tree timeline against the oracle with a
// decoded stream of operations.
//
//	go test -run '^$' -fuzz '^FuzzTimelineTree$' ./eevdf
func FuzzTimelineTree(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 2, 0, 5, 0, 9, 0, 0, 3, 8, 0, 6, 0, 0, 9})
	// Bulk inserts (narrow and wide), descents, bulk erasures.
	f.Add([]byte{7, 255, 2, 0, 7, 255, 3, 0, 6, 0, 0, 40, 0, 0, 8, 200, 5, 0, 7, 255, 4, 0, 8, 255, 6, 0})
	// Run-queue churn on a tree of three levels.
	f.Add([]byte{7, 255, 1, 0, 7, 255, 3, 0, 7, 255, 5, 0, 7, 255, 7, 0, 9, 255, 40, 9, 255, 3, 8, 255, 9, 0})
	// Switches on one leaf and on a tree of several levels.
	f.Add([]byte{0, 1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 11, 40, 3, 10, 0, 0, 5, 0, 1, 0, 0, 7, 255, 9, 0, 11, 255, 7, 10, 1, 0, 2, 0, 3, 0, 0})
	// Ties: many equal deadlines.
	f.Add([]byte{2, 1, 0, 0, 0, 2, 1, 0, 0, 1, 2, 1, 0, 0, 2, 3, 1, 0, 5, 2, 1, 0, 0, 3, 4, 0, 6, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) { runTLOps(t, data) })
}

// TestTimelineTreeOps runs the fuzz target's decoder on pseudo-random
// streams, with long bulk phases so that trees of four levels are built,
// churned and emptied.
func TestTimelineTreeOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for i := range 60 {
		b := make([]byte, tlFuzzMaxInput)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { runTLOps(t, b) })
	}
}

// TestTimelineTreeReplace takes every entity out of single-leaf trees of
// every size, each time just after inserting one at every position (ties
// included), as a context switch does, and checks the fused replacement
// against the oracle; then it erases the entity just inserted, which is
// not placed yet.
func TestTimelineTreeReplace(t *testing.T) {
	for n := 1; n <= leafMax; n++ {
		for out := range n {
			for at := int64(-1); at <= 2*int64(n); at++ {
				h := newTLHarness(t)
				for i := range n {
					h.insert(20*int64(i), int64(i%5), uint64(i%3), -1)
				}
				k := out
				if out == 0 {
					k = -1 // the first, as the run queue takes it
				}
				h.swap(10*at, int64(at%7), uint64(at%4), -1, k)
				h.checkOrder()
			}
		}
		h := newTLHarness(t)
		for i := range n {
			h.insert(20*int64(i), int64(i), 1, -1)
		}
		h.made++
		se := &SchedEntity{name: "late", deadline: tlAt(5), vruntime: tlAt(-3), slice: 9, seq: 1 << 40}
		h.tr.insert(se)
		h.tr.erase(se)
		h.check("insert and erase of %s", se.name)
	}
	h := newTLHarness(t)
	se := &SchedEntity{name: "lone", seq: 1}
	h.tr.insert(se)
	h.tr.erase(se)
	h.check("insert and erase of %s in an empty tree", se.name)
}

// TestTimelineTreeLarge grows a tree well past three levels with random
// and tied deadlines, churns it the run queue's way and at random, and
// empties it, verifying at intervals and comparing with the oracle.
func TestTimelineTreeLarge(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 4000
	}
	rng := rand.New(rand.NewPCG(5, 5))
	tr := &bTimeline{}
	or := oracle.NewG(16, entityAug{}.Less)
	var seq uint64
	put := func(se *SchedEntity, dl uint64) {
		seq++
		se.deadline, se.seq = dl, seq
		tr.insert(se)
		or.ReplaceOrInsert(se)
	}
	ents := make([]*SchedEntity, n)
	for i := range ents {
		ents[i] = &SchedEntity{name: fmt.Sprint(i), vruntime: tlAt(rng.Int64N(1 << 14)), slice: uint64(rng.IntN(64))}
		dl := tlAt(rng.Int64N(1 << 20))
		if i%3 == 0 {
			dl = tlAt(int64(i % 50)) // ties
		}
		put(ents[i], dl)
	}
	check := func(what string) {
		t.Helper()
		if err := tr.verify(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if tr.len() != or.Len() {
			t.Fatalf("%s: len %d, oracle %d", what, tr.len(), or.Len())
		}
		if want, _ := or.Min(); tr.leftmost() != want {
			t.Fatalf("%s: first %v, oracle %v", what, tr.leftmost(), want)
		}
	}
	check("build")
	if tr.height < 4 {
		t.Fatalf("height %d after %d insertions; want at least 4", tr.height, n)
	}
	for i := range 3 * n {
		var se *SchedEntity
		if i%2 == 0 {
			se = tr.leftmost()
		} else {
			se = ents[rng.IntN(n)]
		}
		tr.erase(se)
		or.Delete(se)
		last, _ := or.Max()
		put(se, last.deadline+uint64(rng.IntN(3)))
		if i%997 == 0 {
			check(fmt.Sprintf("churn %d", i))
		}
	}
	check("churn")
	rng.Shuffle(n, func(i, j int) { ents[i], ents[j] = ents[j], ents[i] })
	for i, se := range ents {
		tr.erase(se)
		or.Delete(se)
		if i%499 == 0 {
			check(fmt.Sprintf("erase %d", i))
		}
	}
	check("empty")
}

// TestTimelineTreeChurnDoesNotAllocate: once a tree has settled into
// queue churn (the first entity out, back in after the last), a batch of
// it allocates nothing at all; under random churn (the first entity out,
// back in at a random later deadline, as a run queue does) the tree
// allocates only when its node count reaches a new peak, ever more rarely.
func TestTimelineTreeChurnDoesNotAllocate(t *testing.T) {
	for _, n := range []int{1, 16, 1024, 65536} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if testing.Short() && n > 1024 {
				t.Skip("large tree")
			}
			rng := rand.New(rand.NewPCG(uint64(n), 9))
			tr := &bTimeline{}
			var seq, last uint64
			put := func(se *SchedEntity, dl uint64) {
				seq++
				se.deadline, se.seq = dl, seq
				if int64(dl-last) > 0 {
					last = dl
				}
				tr.insert(se)
			}
			for i := range n {
				put(&SchedEntity{vruntime: tlAt(rng.Int64N(1 << 20)), slice: uint64(i % 7)}, tlAt(rng.Int64N(1<<30)))
			}
			queue := func() {
				se := tr.leftmost()
				tr.erase(se)
				put(se, last+1)
			}
			random := func() {
				se := tr.leftmost()
				tr.erase(se)
				put(se, se.deadline+uint64(rng.Int64N(1<<24)))
			}
			for range 2*n + 20000 {
				queue()
			}
			if a := testing.AllocsPerRun(1, func() {
				for range 20000 {
					queue()
				}
			}); a != 0 {
				t.Errorf("queue churn: %v allocations in 20000 erase+insert, want 0", a)
			}
			for range 2*n + 100000 {
				random()
			}
			// The peaks grow rarer: over half a million operations,
			// fewer than one allocation in ten thousand.
			if a := testing.AllocsPerRun(1, func() {
				for range 500000 {
					random()
				}
			}); a >= 50 {
				t.Errorf("random churn: %v allocations in 500000 erase+insert, want fewer than 50", a)
			}
			if err := tr.verify(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTimelineTreeVerifyDetectsCorruption corrupts one invariant of a
// valid tree at a time and checks that verify reports it, without
// panicking.
func TestTimelineTreeVerifyDetectsCorruption(t *testing.T) {
	build := func() *bTimeline {
		tr := &bTimeline{}
		n := 3 * leafMax * innerMax
		for i := range n {
			tr.insert(&SchedEntity{name: fmt.Sprint(i), deadline: tlAt(int64(i)), seq: uint64(i + 1), vruntime: tlAt(int64(i % 97)), slice: uint64(i % 13)})
		}
		if tr.height < 3 {
			t.Fatalf("tree of height %d; want at least 3", tr.height)
		}
		if err := tr.verify(); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	inner := func(tr *bTimeline, path ...int) *tlInner {
		nd := tr.root
		for _, i := range path {
			nd = nd.asInner().kids[i]
		}
		return nd.asInner()
	}
	leaf := func(tr *bTimeline) *tlLeaf {
		nd := tr.root
		for !nd.leaf {
			nd = nd.asInner().kids[1]
		}
		return nd.asLeaf()
	}
	tests := []struct {
		name    string
		corrupt func(tr *bTimeline)
		want    string
	}{
		{"child aggregate in the root", func(tr *bTimeline) { inner(tr).minV[1]++ }, "aggregate"},
		{"child aggregate one level down", func(tr *bTimeline) { inner(tr, 0).maxS[2] = 1000 }, "aggregate"},
		{"tree aggregate", func(tr *bTimeline) { tr.agg.minSlice = 99 }, "aggregate"},
		{"entity changed in the tree", func(tr *bTimeline) { l := leaf(tr); l.se[l.at(0)].vruntime++ }, "leaf holds"},
		{"stale key in a leaf", func(tr *bTimeline) { l := leaf(tr); l.dl[l.at(2)]-- }, "leaf holds"},
		{"handle names another leaf", func(tr *bTimeline) { l := leaf(tr); l.se[l.at(1)].tlLeaf = tr.head }, "handle"},
		{"cleared handle", func(tr *bTimeline) { l := leaf(tr); l.se[l.at(1)].tlLeaf = nil }, "handle"},
		{"two entities swapped", func(tr *bTimeline) {
			l := leaf(tr)
			a, b := l.at(0), l.at(1)
			l.se[a], l.se[b] = l.se[b], l.se[a]
			l.dl[a], l.dl[b] = l.dl[b], l.dl[a]
			l.v[a], l.v[b] = l.v[b], l.v[a]
			l.slice[a], l.slice[b] = l.slice[b], l.slice[a]
		}, "does not sort after"},
		{"separator too low", func(tr *bTimeline) { inner(tr, 0).sep[0] = tlAt(-5) }, "separator"},
		{"separator too high", func(tr *bTimeline) { inner(tr).sep[0] += 1 << 20 }, "separator"},
		{"parent pointer", func(tr *bTimeline) { inner(tr, 1).parent = inner(tr, 0) }, "parent"},
		{"position in the parent", func(tr *bTimeline) { inner(tr, 1).pos = 0 }, "position"},
		{"position of a leaf", func(tr *bTimeline) { leaf(tr).pos++ }, "position"},
		{"stale entity slot", func(tr *bTimeline) {
			l := leaf(tr)
			if l.n == leafMax {
				t.Skip("leaf is full")
			}
			l.se[l.at(l.count())] = l.se[l.at(0)]
		}, "not cleared"},
		{"stale child slot", func(tr *bTimeline) {
			in := inner(tr)
			in.kids[in.n] = in.kids[0]
		}, "not cleared"},
		{"underfull leaf", func(tr *bTimeline) {
			l := leaf(tr)
			for l.n >= leafMin {
				l.n--
				l.se[l.at(l.count())] = nil
			}
		}, "fewer than"},
		{"count", func(tr *bTimeline) { tr.count++ }, "count"},
		{"first entity", func(tr *bTimeline) { tr.first = leaf(tr).firstEntity() }, "first"},
		{"ring offset", func(tr *bTimeline) { leaf(tr).off = leafMax }, "ring offset"},
		{"leftmost leaf", func(tr *bTimeline) { tr.head = leaf(tr) }, "leftmost leaf"},
		{"free node in the tree", func(tr *bTimeline) { leaf(tr).next = &tr.head.tlNode }, "free list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := build()
			tt.corrupt(tr)
			err := tr.verify()
			if err == nil {
				t.Fatal("verify found nothing")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("verify: %v; want a message about %q", err, tt.want)
			}
		})
	}
}
