package rbtree

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var benchSizes = []int{16, 256, 4096, 65536}

// benchTree returns a tree of n entities with scattered deadlines and
// vruntimes, in the style of a busy run queue.
func benchTree(n int) (*entityTree, []*entity) {
	rng := rand.New(rand.NewPCG(11, uint64(n)))
	tree := newEntityTree()
	es := make([]*entity, n)
	for i := range es {
		es[i] = newEntity(at(rng.Int64N(1<<20)), uint64(i), at(rng.Int64N(1<<20)), 1+rng.Uint64N(4000))
		tree.Insert(&es[i].node)
	}
	return tree, es
}

// BenchmarkInsertErase measures one Erase plus one Insert of the same entity
// with a later deadline, the churn of a run queue as entities run and are
// requeued.
func BenchmarkInsertErase(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			tree, es := benchTree(n)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				e := es[i]
				if i++; i == len(es) {
					i = 0
				}
				tree.Erase(&e.node)
				e.deadline += e.slice
				e.vruntime += e.slice
				tree.Insert(&e.node)
			}
			if err := tree.Verify(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkFind measures the heap descent for the first entity whose
// vruntime is at or before a limit, with limits spread over the vruntimes.
func BenchmarkFind(b *testing.B) {
	m := &vruntimeAtMost{}
	benchFind(b, func(tree *entityTree, limit uint64) {
		m.limit = limit
		tree.Find(m)
	})
}

// BenchmarkFindWith is BenchmarkFind through FindWith, with the matcher
// built by value at each call.
func BenchmarkFindWith(b *testing.B) {
	benchFind(b, func(tree *entityTree, limit uint64) {
		FindWith(tree, vruntimeAtMost{limit: limit})
	})
}

// benchFind runs find on trees of every benchmark size with limits
// spread over the vruntimes.
func benchFind(b *testing.B, find func(tree *entityTree, limit uint64)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			tree, _ := benchTree(n)
			rng := rand.New(rand.NewPCG(12, 13))
			limits := make([]uint64, 1024)
			for i := range limits {
				limits[i] = at(rng.Int64N(1 << 20))
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				find(tree, limits[i&1023])
				i++
			}
		})
	}
}

// BenchmarkFirst measures the cached leftmost lookup.
func BenchmarkFirst(b *testing.B) {
	tree, _ := benchTree(4096)
	b.ReportAllocs()
	for b.Loop() {
		if tree.First() == nil {
			b.Fatal("empty tree")
		}
	}
}
