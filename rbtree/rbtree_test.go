package rbtree

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// mustVerify fails the test if t is not a valid tree.
func mustVerify(tb testing.TB, t *entityTree) {
	tb.Helper()
	if err := t.Verify(); err != nil {
		tb.Fatal(err)
	}
}

// checkContents checks order, Len, First, Last, Next/Prev and the root
// aggregate of t against want, the expected entities in order.
func checkContents(tb testing.TB, t *entityTree, want []*entity) {
	tb.Helper()
	mustVerify(tb, t)
	got := collect(t)
	if !slices.Equal(got, want) {
		tb.Fatalf("in-order contents:\n got %v\nwant %v", got, want)
	}
	if t.Len() != len(want) {
		tb.Fatalf("Len = %d, want %d", t.Len(), len(want))
	}
	if len(want) == 0 {
		if t.First() != nil || t.Last() != nil || t.Root() != nil {
			tb.Fatalf("empty tree has First/Last/Root")
		}
		return
	}
	if t.First() != &want[0].node {
		tb.Fatalf("First = %v, want %v", t.First().Item, want[0])
	}
	if t.Last() != &want[len(want)-1].node {
		tb.Fatalf("Last = %v, want %v", t.Last().Item, want[len(want)-1])
	}
	// Walking backwards with Prev visits the same nodes in reverse.
	i := len(want) - 1
	for n := t.Last(); n != nil; n = n.Prev() {
		if i < 0 || n.Item != want[i] {
			tb.Fatalf("Prev walk diverges at position %d", i)
		}
		i--
	}
	if i != -1 {
		tb.Fatalf("Prev walk stopped early at position %d", i)
	}
	wantAgg, _ := aggOf(want)
	if got := t.Root().Agg(); got != wantAgg {
		tb.Fatalf("root aggregate = %+v, want %+v", got, wantAgg)
	}
}

func TestInsertKeepsOrder(t *testing.T) {
	tests := []struct {
		name string
		// deadlines are offsets from wrapBase, inserted in this order;
		// seq is the insertion index unless sameSeq is set.
		deadlines []int64
		sameSeq   bool
		// wantOrder lists insertion indexes in the expected in-order
		// sequence.
		wantOrder []int
	}{
		{
			name:      "empty tree",
			deadlines: nil,
			wantOrder: nil,
		},
		{
			name:      "single item",
			deadlines: []int64{7},
			wantOrder: []int{0},
		},
		{
			name:      "ascending input stays ascending",
			deadlines: []int64{1, 2, 3, 4, 5, 6, 7, 8},
			wantOrder: []int{0, 1, 2, 3, 4, 5, 6, 7},
		},
		{
			name:      "descending input comes out ascending",
			deadlines: []int64{8, 7, 6, 5, 4, 3, 2, 1},
			wantOrder: []int{7, 6, 5, 4, 3, 2, 1, 0},
		},
		{
			name:      "zigzag input",
			deadlines: []int64{50, 10, 90, 30, 70, 20, 80, 40, 60},
			wantOrder: []int{1, 5, 3, 7, 0, 8, 4, 6, 2},
		},
		{
			name:      "equal deadlines order by seq",
			deadlines: []int64{5, 5, 5, 1, 5},
			wantOrder: []int{3, 0, 1, 2, 4},
		},
		{
			name:      "equal keys keep insertion order",
			deadlines: []int64{5, 5, 3, 5, 3},
			sameSeq:   true,
			wantOrder: []int{2, 4, 0, 1, 3},
		},
		{
			name: "deadlines wrapping past 2^64 order by signed difference",
			// at(40000) wraps to a small value, yet sorts after
			// at(30000), which is just below 2^64.
			deadlines: []int64{40000, 30000, 32767, 32768, 0},
			wantOrder: []int{4, 1, 2, 3, 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree := newEntityTree()
			es := make([]*entity, len(tc.deadlines))
			for i, d := range tc.deadlines {
				seq := uint64(i)
				if tc.sameSeq {
					seq = 0
				}
				es[i] = newEntity(at(d), seq, at(int64(100-i)), uint64(10+i))
				tree.Insert(&es[i].node)
				mustVerify(t, tree)
			}
			want := make([]*entity, len(tc.wantOrder))
			for i, idx := range tc.wantOrder {
				want[i] = es[idx]
			}
			checkContents(t, tree, want)
		})
	}
}

func TestEraseKeepsOrderAndAggregates(t *testing.T) {
	tests := []struct {
		name      string
		deadlines []int64 // inserted in this order, seq = index
		erase     []int   // insertion indexes erased in this order
	}{
		{"erase the only item", []int64{1}, []int{0}},
		{"erase the leftmost repeatedly", []int64{1, 2, 3, 4, 5, 6, 7}, []int{0, 1, 2, 3, 4, 5, 6}},
		{"erase the rightmost repeatedly", []int64{1, 2, 3, 4, 5, 6, 7}, []int{6, 5, 4, 3, 2, 1, 0}},
		{"erase the root first", []int64{4, 2, 6, 1, 3, 5, 7}, []int{0, 1, 2}},
		{"erase a node whose successor is deep", []int64{10, 5, 20, 15, 25, 12, 17, 30}, []int{0, 2}},
		{"erase from a wrapping range", []int64{32760, 32770, 32765, 40000, 100}, []int{1, 3, 4}},
		{"erase everything in a scrambled order", []int64{9, 3, 7, 1, 5, 8, 2, 6, 4, 0}, []int{4, 0, 9, 2, 7, 1, 8, 3, 6, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree := newEntityTree()
			var live []*entity
			es := make([]*entity, len(tc.deadlines))
			for i, d := range tc.deadlines {
				// vruntime and slice vary independently of the
				// order so the aggregates are not trivially the
				// leftmost item's.
				es[i] = newEntity(at(d), uint64(i), at(int64((i*7919)%97)), uint64(1+(i*31)%13))
				tree.Insert(&es[i].node)
				live = append(live, es[i])
			}
			sortEntities(live)
			checkContents(t, tree, live)
			for _, idx := range tc.erase {
				e := es[idx]
				tree.Erase(&e.node)
				if e.node.Linked() || e.node.Parent() != nil || e.node.Left() != nil || e.node.Right() != nil {
					t.Fatalf("erased node still carries tree links")
				}
				live = slices.DeleteFunc(live, func(x *entity) bool { return x == e })
				checkContents(t, tree, live)
			}
		})
	}
}

// sortEntities sorts es by the tree order (stable, so equal keys keep the
// order they have in es).
func sortEntities(es []*entity) {
	var aug entityAug
	slices.SortStableFunc(es, func(a, b *entity) int {
		switch {
		case aug.Less(a, b):
			return -1
		case aug.Less(b, a):
			return 1
		}
		return 0
	})
}

func TestRandomInsertEraseVerifiesEveryStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tree := newEntityTree()
	pool := make([]*entity, 300)
	for i := range pool {
		pool[i] = newEntity(0, 0, 0, 0)
	}
	var live []*entity // model: the expected in-order contents
	var seq uint64
	steps := 20000
	if testing.Short() {
		steps = 3000
	}
	for step := range steps {
		e := pool[rng.IntN(len(pool))]
		switch {
		case !e.node.Linked():
			// Small key ranges force many equal deadlines and
			// exercise the tie-break; offsets wrap past 2^64.
			e.deadline = at(rng.Int64N(64) * 1024)
			seq++
			e.seq = seq % 8
			e.vruntime = at(rng.Int64N(1 << 16))
			e.slice = rng.Uint64N(1000)
			tree.Insert(&e.node)
			// Equal keys go after the existing ones: insert at the
			// end of the run of equal entities.
			var aug entityAug
			pos, _ := slices.BinarySearchFunc(live, e, func(x, target *entity) int {
				if aug.Less(target, x) {
					return 1
				}
				return -1
			})
			live = slices.Insert(live, pos, e)
		case rng.IntN(4) == 0:
			// Change the aggregated fields only, then Update.
			e.vruntime = at(rng.Int64N(1 << 16))
			e.slice = rng.Uint64N(1000)
			tree.Update(&e.node)
		default:
			tree.Erase(&e.node)
			live = slices.DeleteFunc(live, func(x *entity) bool { return x == e })
		}
		if err := tree.Verify(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if step%64 == 0 {
			checkContents(t, tree, live)
		}
	}
	checkContents(t, tree, live)
}

func TestEqualKeysAreFIFO(t *testing.T) {
	tree := newEntityTree()
	// All entities share deadline and seq, so Less never tells them
	// apart: the in-order sequence must be the insertion sequence.
	es := make([]*entity, 40)
	for i := range es {
		es[i] = newEntity(at(5), 0, at(int64(i)), 1)
		tree.Insert(&es[i].node)
	}
	checkContents(t, tree, es)

	// Erasing some and reinserting them sends them to the back.
	want := slices.Clone(es)
	for _, i := range []int{0, 13, 39, 7, 20} {
		tree.Erase(&es[i].node)
		want = slices.DeleteFunc(want, func(x *entity) bool { return x == es[i] })
		checkContents(t, tree, want)
	}
	for _, i := range []int{13, 0, 20} {
		tree.Insert(&es[i].node)
		want = append(want, es[i])
		checkContents(t, tree, want)
	}

	// A strictly smaller key goes in front, an equal one at the back.
	front := newEntity(at(4), 0, 0, 1)
	back := newEntity(at(5), 0, 0, 1)
	tree.Insert(&front.node)
	tree.Insert(&back.node)
	want = append(append([]*entity{front}, want...), back)
	checkContents(t, tree, want)
}

func TestFindReturnsFirstMatchInOrder(t *testing.T) {
	// Entities in deadline order 0..n-1 with these vruntime offsets.
	tests := []struct {
		name      string
		vruntimes []int64
		limit     int64
		want      int // index in deadline order, -1 for none
	}{
		{"empty tree", nil, 10, -1},
		{"nothing eligible", []int64{50, 60, 70}, 10, -1},
		{"all eligible picks the leftmost", []int64{1, 2, 3}, 10, 0},
		{"only the last is eligible", []int64{50, 60, 5}, 10, 2},
		{"first eligible in the middle", []int64{50, 9, 60, 1, 70}, 10, 1},
		{"limit is inclusive", []int64{11, 10, 9}, 10, 1},
		{"vruntimes wrapping past 2^64", []int64{40000, 32770, 32760, 40001}, 32766, 2},
		{"limit past the wrap point", []int64{40000, 32770, 32760, 40001}, 40000, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree := newEntityTree()
			es := make([]*entity, len(tc.vruntimes))
			// Insert in a scrambled order so the tree shape does
			// not follow the deadline order.
			perm := rand.New(rand.NewPCG(7, uint64(len(es)))).Perm(len(es))
			for _, i := range perm {
				es[i] = newEntity(at(int64(i)), 0, at(tc.vruntimes[i]), 1)
				tree.Insert(&es[i].node)
			}
			mustVerify(t, tree)
			got := tree.Find(&vruntimeAtMost{limit: at(tc.limit)})
			if with := FindWith(tree, vruntimeAtMost{limit: at(tc.limit)}); with != got {
				t.Fatalf("FindWith = %v, Find = %v", with, got)
			}
			switch {
			case tc.want < 0 && got != nil:
				t.Fatalf("Find = %v, want nil", got.Item)
			case tc.want >= 0 && got == nil:
				t.Fatalf("Find = nil, want %v", es[tc.want])
			case tc.want >= 0 && got.Item != es[tc.want]:
				t.Fatalf("Find = %v, want %v", got.Item, es[tc.want])
			}
		})
	}
}

func TestFindMatchesLinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		tree := newEntityTree()
		var live []*entity
		for i := range rng.IntN(100) {
			e := newEntity(at(rng.Int64N(1<<16)), uint64(i), at(rng.Int64N(1<<16)), 1)
			tree.Insert(&e.node)
			live = append(live, e)
		}
		sortEntities(live)
		for range 20 {
			m := &vruntimeAtMost{limit: at(rng.Int64N(1 << 16))}
			var want *entity
			for _, e := range live {
				if m.Match(e) {
					want = e
					break
				}
			}
			got := tree.Find(m)
			if with := FindWith(tree, *m); with != got {
				t.Fatalf("round %d: FindWith = %v, Find = %v", round, with, got)
			}
			if (got == nil) != (want == nil) || (got != nil && got.Item != want) {
				t.Fatalf("round %d: Find(limit %d) = %v, want %v", round, int64(m.limit), got, want)
			}
		}
	}
}

func TestUpdateRefreshesAggregates(t *testing.T) {
	tree := newEntityTree()
	es := make([]*entity, 64)
	for i := range es {
		es[i] = newEntity(at(int64(i)), 0, at(int64(1000+i)), 10)
		tree.Insert(&es[i].node)
	}
	// Make a deep node the minimum vruntime and the widest slice.
	e := es[41]
	e.vruntime = at(3)
	e.slice = 99
	if err := tree.Verify(); err == nil {
		t.Fatal("Verify accepted a stale aggregate before Update")
	}
	tree.Update(&e.node)
	checkContents(t, tree, es)
	if got := tree.Root().Agg(); got.minV != at(3) || got.maxSlice != 99 || got.minSlice != 10 {
		t.Fatalf("root aggregate after Update = %+v", got)
	}
	if got := tree.Find(&vruntimeAtMost{limit: at(500)}); got != &e.node {
		t.Fatalf("Find after Update = %v, want %v", got.Item, e)
	}
	// Moving it back up raises the minimum again.
	e.vruntime = at(2000)
	e.slice = 10
	tree.Update(&e.node)
	checkContents(t, tree, es)
	if got := tree.Root().Agg(); got.minV != at(1000) || got.maxSlice != 10 {
		t.Fatalf("root aggregate after second Update = %+v", got)
	}
}

func TestMisuseIsIgnored(t *testing.T) {
	tree := newEntityTree()
	a := newEntity(at(1), 0, 0, 1)
	b := newEntity(at(2), 0, 0, 1)
	tree.Insert(&a.node)
	tree.Insert(&a.node) // already linked
	tree.Erase(&b.node)  // never linked
	tree.Update(&b.node) // never linked
	checkContents(t, tree, []*entity{a})
	if b.node.Next() != nil || b.node.Prev() != nil {
		t.Fatal("an unlinked node has neighbours")
	}
}

func TestNilTreeAndNodeAreEmpty(t *testing.T) {
	var tree *entityTree
	if tree.Len() != 0 || tree.Root() != nil || tree.First() != nil || tree.Last() != nil {
		t.Fatal("nil tree is not empty")
	}
	if tree.Find(&vruntimeAtMost{}) != nil || FindWith(tree, vruntimeAtMost{}) != nil {
		t.Fatal("Find on a nil tree found something")
	}
	tree.Ascend(func(*entityNode) bool { t.Fatal("Ascend visited a node of a nil tree"); return false })
	if err := tree.Verify(); err != nil {
		t.Fatal(err)
	}
	var n *entityNode
	if n.Left() != nil || n.Right() != nil || n.Parent() != nil || n.Linked() || n.Next() != nil || n.Prev() != nil || n.Agg() != (entityAgg{}) {
		t.Fatal("nil node is not empty")
	}
}

func TestZeroTreeAndInit(t *testing.T) {
	type holder struct {
		tree entityTree
	}
	var h holder
	// The zero value works with a stateless augmenter.
	es := []*entity{newEntity(at(2), 0, 0, 1), newEntity(at(1), 0, 0, 1)}
	for _, e := range es {
		h.tree.Insert(&e.node)
	}
	checkContents(t, &h.tree, []*entity{es[1], es[0]})

	// Init empties the tree and detaches its nodes, which can then be
	// inserted again.
	h.tree.Init(entityAug{})
	checkContents(t, &h.tree, nil)
	for _, e := range es {
		if e.node.Linked() {
			t.Fatal("Init left a node linked")
		}
		h.tree.Insert(&e.node)
	}
	checkContents(t, &h.tree, []*entity{es[1], es[0]})
}

func TestAscendStops(t *testing.T) {
	tree := newEntityTree()
	for i := range 10 {
		e := newEntity(at(int64(i)), 0, 0, 1)
		tree.Insert(&e.node)
	}
	visited := 0
	tree.Ascend(func(*entityNode) bool {
		visited++
		return visited < 4
	})
	if visited != 4 {
		t.Fatalf("Ascend visited %d nodes after fn returned false at 4", visited)
	}
}

func TestOperationsDoNotAllocate(t *testing.T) {
	tree := newEntityTree()
	es := make([]*entity, 1024)
	for i := range es {
		es[i] = newEntity(at(int64(i*7919%1024)), uint64(i), at(int64(i*31%1000)), uint64(i%17))
		tree.Insert(&es[i].node)
	}
	m := &vruntimeAtMost{limit: at(500)}
	i := 0
	ops := map[string]func(){
		"Insert+Erase": func() {
			e := es[i%len(es)]
			i++
			tree.Erase(&e.node)
			e.deadline += 977
			tree.Insert(&e.node)
		},
		"Find": func() {
			if tree.Find(m) == nil {
				t.Fatal("Find found nothing")
			}
		},
		"FindWith": func() {
			// A matcher value built at the call site is not boxed.
			if FindWith(tree, vruntimeAtMost{limit: at(int64(400 + i%100))}) == nil {
				t.Fatal("FindWith found nothing")
			}
		},
		"First": func() {
			if tree.First() == nil {
				t.Fatal("First is nil")
			}
		},
		"Update": func() {
			e := es[i%len(es)]
			i++
			e.vruntime++
			tree.Update(&e.node)
		},
		"Verify": func() {
			if err := tree.Verify(); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, op := range ops {
		if allocs := testing.AllocsPerRun(200, op); allocs != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, allocs)
		}
	}
	mustVerify(t, tree)
}

func TestVerifyDetectsCorruption(t *testing.T) {
	// build returns a valid tree of 32 entities (in order) with at least
	// one red node.
	build := func(t *testing.T) (*entityTree, []*entity) {
		tree := newEntityTree()
		es := make([]*entity, 32)
		for i := range es {
			es[i] = newEntity(at(int64(i)), 0, at(int64(100-i)), uint64(1+i%5))
		}
		for _, i := range rand.New(rand.NewPCG(5, 6)).Perm(len(es)) {
			tree.Insert(&es[i].node)
		}
		mustVerify(t, tree)
		return tree, es
	}
	// firstRed returns some red node.
	firstRed := func(tree *entityTree) *entityNode {
		for n := tree.First(); n != nil; n = n.Next() {
			if !n.black {
				return n
			}
		}
		return nil
	}
	tests := []struct {
		name    string
		corrupt func(tree *entityTree, es []*entity)
		want    string // substring of the error
	}{
		{"root aggregate", func(tree *entityTree, _ []*entity) { tree.root.agg.minV++ }, "aggregate"},
		{"leaf aggregate", func(_ *entityTree, es []*entity) { es[0].node.agg.maxSlice = 1000 }, "aggregate"},
		{"item changed without Update", func(_ *entityTree, es []*entity) { es[17].slice = 1000 }, "aggregate"},
		{"red root", func(tree *entityTree, _ []*entity) { tree.root.black = false }, "root is red"},
		{"red node turned black", func(tree *entityTree, _ []*entity) { firstRed(tree).black = true }, "black height"},
		{"red child under a red node", func(tree *entityTree, _ []*entity) {
			n := firstRed(tree)
			if n.left != nil {
				n.left.black = false
			} else {
				n.parent.black = false
			}
		}, "red"},
		{"two items swapped", func(_ *entityTree, es []*entity) {
			es[3].node.Item, es[20].node.Item = es[20].node.Item, es[3].node.Item
		}, "sorts before"},
		{"deadline changed while linked", func(_ *entityTree, es []*entity) { es[10].deadline = at(-5) }, "sorts before"},
		{"parent pointer", func(tree *entityTree, _ []*entity) { tree.root.left.parent = tree.root.right }, "parent pointer"},
		{"root with a parent", func(tree *entityTree, _ []*entity) { tree.root.parent = tree.root.left }, "root has a parent"},
		{"child pointing at an ancestor", func(_ *entityTree, es []*entity) {
			leaf := &es[0].node // the first node has no left child
			leaf.left = leaf.parent
		}, "parent pointer"},
		{"Len too large", func(tree *entityTree, _ []*entity) { tree.count++ }, "Len"},
		{"Len too small", func(tree *entityTree, _ []*entity) { tree.count-- }, "Len"},
		{"stale leftmost", func(tree *entityTree, es []*entity) { tree.leftmost = &es[1].node }, "leftmost"},
		{"node not marked linked", func(_ *entityTree, es []*entity) { es[9].node.linked = false }, "linked"},
		{"empty tree with a count", func(tree *entityTree, _ []*entity) { tree.root, tree.leftmost = nil, nil }, "Len"},
		{"empty tree with a leftmost", func(tree *entityTree, es []*entity) { tree.root, tree.count = nil, 0 }, "leftmost"},
		{"both children the same node", func(tree *entityTree, _ []*entity) { tree.root.right = tree.root.left }, "same node"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree, es := build(t)
			tc.corrupt(tree, es)
			err := tree.Verify()
			if err == nil {
				t.Fatal("Verify accepted a corrupted tree")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// seqHash aggregates a polynomial hash of the in-order sequence of values:
// Merge is associative but not commutative, so an aggregate assembled with
// children swapped, or from a stale child, is caught.
type seqHash struct{ hash, pow uint64 }

type hashAug struct{}

const hashBase = 1_000_003

func (hashAug) Less(a, b *hashItem) bool  { return a.key < b.key }
func (hashAug) Leaf(it *hashItem) seqHash { return seqHash{hash: it.val, pow: hashBase} }
func (hashAug) Merge(a, b seqHash) seqHash {
	return seqHash{hash: a.hash*b.pow + b.hash, pow: a.pow * b.pow}
}

type hashItem struct {
	key, val uint64
	node     Node[*hashItem, seqHash]
}

func TestOrderSensitiveAggregate(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	tree := New[*hashItem, seqHash](hashAug{})
	items := make([]*hashItem, 200)
	for i := range items {
		items[i] = &hashItem{}
		items[i].node.Item = items[i]
	}
	for step := range 10000 {
		it := items[rng.IntN(len(items))]
		switch {
		case !it.node.Linked():
			it.key = rng.Uint64N(50) // many equal keys
			it.val = rng.Uint64()
			tree.Insert(&it.node)
		case rng.IntN(3) == 0:
			it.val = rng.Uint64()
			tree.Update(&it.node)
		default:
			tree.Erase(&it.node)
		}
		if err := tree.Verify(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		var want seqHash
		first := true
		tree.Ascend(func(n *Node[*hashItem, seqHash]) bool {
			leaf := hashAug{}.Leaf(n.Item)
			if first {
				want, first = leaf, false
			} else {
				want = hashAug{}.Merge(want, leaf)
			}
			return true
		})
		if got := tree.Root().Agg(); got != want {
			t.Fatalf("step %d: root aggregate %+v, want %+v", step, got, want)
		}
	}
}

func TestBatchedUpdatesInAnyOrder(t *testing.T) {
	tree := newEntityTree()
	es := make([]*entity, 128)
	for i := range es {
		es[i] = newEntity(at(int64(i)), 0, at(int64(1000+i)), 10)
		tree.Insert(&es[i].node)
	}
	rng := rand.New(rand.NewPCG(10, 11))
	for round := range 200 {
		// Change several items, some of them ancestors of others,
		// before any Update.
		changed := rng.Perm(len(es))[:1+rng.IntN(12)]
		for _, i := range changed {
			es[i].vruntime = at(rng.Int64N(2000))
			es[i].slice = rng.Uint64N(50)
		}
		for _, i := range changed {
			tree.Update(&es[i].node)
		}
		if err := tree.Verify(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
