package rbtree

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/btree"
)

// Operations decoded by FuzzTree: one byte selects the operation, the bytes
// after it give its arguments. A missing byte reads as zero.
const (
	opInsert     = iota // deadline, vruntime, flags (seq, reuse, slice)
	opInsertMany        // count, seed: count%16+1 pseudo-random inserts
	opErase             // index into the linked entities
	opEraseFirst        // erase the leftmost entity, as a pick does
	opFirst             // check First
	opWalk              // check the full order both ways and the root aggregate
	opFind              // limit
	opUpdate            // index, vruntime, slice
	numOps
)

// maxFuzzInput is the number of input bytes FuzzTree decodes. Every step
// verifies the whole tree and minimising a new input runs it a quadratic
// number of times, so inputs are kept short; opInsertMany still grows trees
// to maxFuzzLive entities, deep enough for every rebalancing case.
const (
	maxFuzzInput = 160
	maxFuzzLive  = 96
)

// fuzzReader hands out the bytes of a fuzz input, then zeros.
type fuzzReader struct {
	data []byte
}

func (r *fuzzReader) more() bool { return len(r.data) > 0 }

func (r *fuzzReader) byte() byte {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b
}

// oracleItem is an entity in the oracle together with its insertion number,
// which orders entities that Less cannot tell apart (first in, first out).
type oracleItem struct {
	e   *entity
	ins uint64
}

// fuzzState runs operations on a tree and on the oracle side by side.
type fuzzState struct {
	t      *testing.T
	tree   *entityTree
	oracle *btree.BTreeG[oracleItem]
	ins    map[*entity]uint64 // insertion number of each linked entity
	linked []*entity          // linked entities, in no particular order
	erased []*entity          // entities erased earlier, reusable
	next   uint64             // next insertion number
}

func newFuzzState(t *testing.T) *fuzzState {
	var aug entityAug
	return &fuzzState{
		t:    t,
		tree: newEntityTree(),
		oracle: btree.NewG(4, func(a, b oracleItem) bool {
			switch {
			case aug.Less(a.e, b.e):
				return true
			case aug.Less(b.e, a.e):
				return false
			}
			return a.ins < b.ins
		}),
		ins: make(map[*entity]uint64),
	}
}

// fuzzDeadline maps a byte to a deadline: 256 distinct values spread over a
// range that wraps past 2^64, so equal deadlines are frequent.
func fuzzDeadline(b byte) uint64 { return at(int64(b) * 257) }

// fuzzVruntime maps a byte to a vruntime (or a Find limit) on the same grid,
// so limits often equal vruntimes exactly.
func fuzzVruntime(b byte) uint64 { return at(int64(b) * 257) }

func (s *fuzzState) insert(r *fuzzReader) {
	deadline := r.byte()
	vruntime := r.byte()
	flags := r.byte()
	if len(s.linked) >= maxFuzzLive {
		return
	}
	seq := uint64(flags & 3)
	slice := uint64(flags >> 3)
	var e *entity
	if len(s.erased) > 0 && flags&4 != 0 {
		// Reinsert an entity erased earlier, with new fields.
		i := int(deadline) % len(s.erased)
		e = s.erased[i]
		s.erased[i] = s.erased[len(s.erased)-1]
		s.erased = s.erased[:len(s.erased)-1]
		e.deadline, e.seq, e.vruntime, e.slice = fuzzDeadline(deadline), seq, fuzzVruntime(vruntime), slice
	} else {
		e = newEntity(fuzzDeadline(deadline), seq, fuzzVruntime(vruntime), slice)
	}
	s.link(e)
}

// insertMany inserts a pseudo-random batch, verifying after each insert.
func (s *fuzzState) insertMany(r *fuzzReader, step int) {
	count := int(r.byte()%16) + 1
	seed := r.byte()
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(count)))
	for range count {
		if len(s.linked) >= maxFuzzLive {
			return
		}
		e := newEntity(at(rng.Int64N(1<<16)), rng.Uint64N(4), at(rng.Int64N(1<<16)), rng.Uint64N(64))
		s.link(e)
		s.checkAll(step)
	}
}

func (s *fuzzState) link(e *entity) {
	if e.node.Linked() {
		s.t.Fatalf("entity %v linked before Insert", e)
	}
	s.tree.Insert(&e.node)
	if !e.node.Linked() {
		s.t.Fatalf("entity %v not linked after Insert", e)
	}
	s.ins[e] = s.next
	s.oracle.ReplaceOrInsert(oracleItem{e: e, ins: s.next})
	s.next++
	s.linked = append(s.linked, e)
}

func (s *fuzzState) erase(r *fuzzReader) {
	b := r.byte()
	if len(s.linked) == 0 {
		return
	}
	s.eraseEntity(s.linked[int(b)%len(s.linked)])
}

func (s *fuzzState) eraseFirst() {
	if n := s.tree.First(); n != nil {
		s.eraseEntity(n.Item)
	}
}

func (s *fuzzState) eraseEntity(e *entity) {
	i := slices.Index(s.linked, e)
	if i < 0 {
		s.t.Fatalf("entity %v is not linked", e)
	}
	s.linked[i] = s.linked[len(s.linked)-1]
	s.linked = s.linked[:len(s.linked)-1]

	s.tree.Erase(&e.node)
	if e.node.Linked() {
		s.t.Fatalf("entity %v still linked after Erase", e)
	}
	if _, ok := s.oracle.Delete(oracleItem{e: e, ins: s.ins[e]}); !ok {
		s.t.Fatalf("oracle lost entity %v", e)
	}
	delete(s.ins, e)
	s.erased = append(s.erased, e)
}

func (s *fuzzState) checkFirst() {
	want, ok := s.oracle.Min()
	got := s.tree.First()
	switch {
	case !ok && got != nil:
		s.t.Fatalf("First = %v on an empty tree", got.Item)
	case ok && got == nil:
		s.t.Fatalf("First = nil, want %v", want.e)
	case ok && got.Item != want.e:
		s.t.Fatalf("First = %v, want %v", got.Item, want.e)
	}
}

func (s *fuzzState) checkWalk() {
	n := s.tree.First()
	i := 0
	s.oracle.Ascend(func(it oracleItem) bool {
		if n == nil {
			s.t.Fatalf("in-order walk ends at %d, oracle has %d", i, s.oracle.Len())
		}
		if n.Item != it.e {
			s.t.Fatalf("in-order position %d: tree has %v, oracle has %v", i, n.Item, it.e)
		}
		n = n.Next()
		i++
		return true
	})
	if n != nil {
		s.t.Fatalf("in-order walk has extra node %v after %d", n.Item, i)
	}
	// Backwards from Last.
	n = s.tree.Last()
	i = 0
	s.oracle.Descend(func(it oracleItem) bool {
		if n == nil || n.Item != it.e {
			s.t.Fatalf("reverse walk differs at position %d from the end", i)
		}
		n = n.Prev()
		i++
		return true
	})
	if n != nil {
		s.t.Fatalf("reverse walk has extra node %v", n.Item)
	}
	// The root aggregate equals the fold of all items in order.
	var aug entityAug
	var want entityAgg
	first := true
	s.oracle.Ascend(func(it oracleItem) bool {
		if first {
			want, first = aug.Leaf(it.e), false
		} else {
			want = aug.Merge(want, aug.Leaf(it.e))
		}
		return true
	})
	if !first && s.tree.Root().Agg() != want {
		s.t.Fatalf("root aggregate %+v, oracle %+v", s.tree.Root().Agg(), want)
	}
	// Ascend agrees with Next.
	n = s.tree.First()
	s.tree.Ascend(func(m *entityNode) bool {
		if m != n {
			s.t.Fatalf("Ascend and Next disagree")
		}
		n = n.Next()
		return true
	})
}

func (s *fuzzState) find(r *fuzzReader) {
	m := &vruntimeAtMost{limit: fuzzVruntime(r.byte())}
	var want *entity
	s.oracle.Ascend(func(it oracleItem) bool {
		if m.Match(it.e) {
			want = it.e
			return false
		}
		return true
	})
	got := s.tree.Find(m)
	if with := FindWith(s.tree, *m); with != got {
		s.t.Fatalf("FindWith(limit %d) = %v, Find = %v", int64(m.limit), with, got)
	}
	switch {
	case want == nil && got != nil:
		s.t.Fatalf("Find(limit %d) = %v, want nil", int64(m.limit), got.Item)
	case want != nil && got == nil:
		s.t.Fatalf("Find(limit %d) = nil, want %v", int64(m.limit), want)
	case want != nil && got.Item != want:
		s.t.Fatalf("Find(limit %d) = %v, want %v", int64(m.limit), got.Item, want)
	}
}

func (s *fuzzState) update(r *fuzzReader) {
	b := r.byte()
	vruntime := fuzzVruntime(r.byte())
	slice := uint64(r.byte())
	if len(s.linked) == 0 {
		return
	}
	e := s.linked[int(b)%len(s.linked)]
	e.vruntime, e.slice = vruntime, slice
	s.tree.Update(&e.node)
}

// checkAll verifies the tree and compares its size with the oracle.
func (s *fuzzState) checkAll(step int) {
	if err := s.tree.Verify(); err != nil {
		s.t.Fatalf("step %d: %v", step, err)
	}
	if s.tree.Len() != s.oracle.Len() {
		s.t.Fatalf("step %d: Len = %d, oracle has %d", step, s.tree.Len(), s.oracle.Len())
	}
}

// fuzzArgs is the number of argument bytes each operation reads.
var fuzzArgs = [numOps]int{
	opInsert:     3,
	opInsertMany: 2,
	opErase:      1,
	opEraseFirst: 0,
	opFirst:      0,
	opWalk:       0,
	opFind:       1,
	opUpdate:     3,
}

// fuzzSeed returns a pseudo-random operation stream of about n bytes in
// which the operations are drawn with the given weights.
func fuzzSeed(seed uint64, n int, weights [numOps]int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	total := 0
	for _, w := range weights {
		total += w
	}
	var out []byte
	for len(out) < n {
		pick := rng.IntN(total)
		op := 0
		for pick >= weights[op] {
			pick -= weights[op]
			op++
		}
		out = append(out, byte(op))
		for range fuzzArgs[op] {
			out = append(out, byte(rng.Uint32()))
		}
	}
	return out[:min(len(out), n)]
}

func FuzzTree(f *testing.F) {
	// Hand-written streams.
	f.Add([]byte{})
	f.Add([]byte{opInsert, 1, 0, 0, opFirst, opWalk, opFind, 0, opErase, 0, opFirst, opWalk})
	f.Add([]byte{ // equal keys in a row (same deadline and seq), erase, reinsert
		opInsert, 7, 1, 0, opInsert, 7, 2, 0, opInsert, 7, 3, 0, opInsert, 7, 4, 0,
		opWalk, opErase, 1, opWalk, opInsert, 7, 9, 4, opWalk,
		opFind, 2, opFind, 0, opFind, 3, opFirst, opEraseFirst, opWalk,
	})
	f.Add([]byte{ // deadlines and vruntimes on both sides of the wrap point
		opInsert, 200, 255, 1, opInsert, 150, 128, 2, opInsert, 128, 127, 3,
		opInsert, 127, 1, 0, opInsert, 20, 0, 9, opInsert, 129, 130, 10,
		opWalk, opFind, 128, opFind, 127, opFind, 126, opUpdate, 2, 0, 9,
		opFind, 0, opErase, 0, opErase, 0, opErase, 0, opWalk, opFirst,
	})
	f.Add([]byte{ // a large tree drained from the left, as a run queue is
		opInsertMany, 31, 1, opInsertMany, 31, 2, opInsertMany, 31, 3, opWalk,
		opEraseFirst, opEraseFirst, opEraseFirst, opFind, 100, opEraseFirst,
		opEraseFirst, opFind, 200, opWalk, opUpdate, 5, 0, 0, opFind, 0,
	})
	// Generated streams with different mixes of operations, weighted in
	// the order of the op constants.
	var (
		mostlyInsert = [numOps]int{6, 1, 2, 1, 1, 1, 1, 2}
		balanced     = [numOps]int{4, 1, 3, 2, 1, 1, 2, 2}
		eraseHeavy   = [numOps]int{2, 2, 4, 4, 1, 1, 1, 1}
		findHeavy    = [numOps]int{3, 1, 2, 2, 1, 1, 6, 3}
	)
	for i, w := range [][numOps]int{mostlyInsert, balanced, eraseHeavy, findHeavy} {
		f.Add(fuzzSeed(uint64(i), 64, w))
		f.Add(fuzzSeed(uint64(i+100), maxFuzzInput, w))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		// Bytes past the cap are ignored (see maxFuzzInput).
		data = data[:min(len(data), maxFuzzInput)]
		s := newFuzzState(t)
		r := &fuzzReader{data: data}
		step := 0
		for ; r.more(); step++ {
			switch r.byte() % numOps {
			case opInsert:
				s.insert(r)
			case opInsertMany:
				s.insertMany(r, step)
			case opErase:
				s.erase(r)
			case opEraseFirst:
				s.eraseFirst()
			case opFirst:
				s.checkFirst()
			case opWalk:
				s.checkWalk()
			case opFind:
				s.find(r)
			case opUpdate:
				s.update(r)
			}
			s.checkAll(step)
		}
		// Finally drain the tree, checking every step.
		s.checkFirst()
		s.checkWalk()
		for ; len(s.linked) > 0; step++ {
			s.erase(&fuzzReader{data: []byte{byte(step * 7)}})
			s.checkFirst()
			s.checkAll(step)
		}
	})
}
