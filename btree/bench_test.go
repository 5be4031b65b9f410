package btree

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchSizes are the tree sizes benchmarked.
var benchSizes = []int{1, 16, 1024, 65536}

// A benchShape says how the entities of a benchmark relate.
type benchShape struct {
	name string
	// runqueue: each deadline is one slice past its vruntime, as in a
	// scheduler's run queue, so the eligible entity with the earliest
	// deadline is usually near the front. random: deadlines and
	// vruntimes are independent, so Find ends anywhere.
	runqueue bool
}

var benchShapes = []benchShape{{"runqueue", true}, {"random", false}}

// place gives e a new vruntime and deadline; the values are offsets from
// wrapBase, so they wrap around 2^64.
func (s benchShape) place(e *entity, vruntime, deadline uint64) {
	e.vruntime = at(int64(vruntime))
	if s.runqueue {
		e.deadline = e.vruntime + e.slice
	} else {
		e.deadline = at(int64(deadline))
	}
}

// benchTree returns a tree of n entities of the given shape, with
// vruntimes and deadlines spread over [0, 2^20).
func benchTree(n int, s benchShape) (*entityTree, []*entity, *rand.Rand) {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	tr := New[*entity, entityAgg](entityAug{})
	ents := make([]*entity, n)
	for i := range ents {
		e := &entity{seq: uint64(i), slice: 1<<16 + uint64(r.IntN(1<<18))}
		s.place(e, r.Uint64N(1<<20), r.Uint64N(1<<20))
		ents[i] = e
		tr.Insert(e)
	}
	return tr, ents, r
}

// BenchmarkInsertDelete measures one Delete and one Insert: an entity
// leaves the tree, runs (its vruntime and deadline change) and comes back,
// as in a scheduler's dequeue/enqueue churn.
func BenchmarkInsertDelete(b *testing.B) {
	for _, s := range benchShapes {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("shape=%s/size=%d", s.name, n), func(b *testing.B) {
				tr, ents, r := benchTree(n, s)
				ran := make([]uint64, 4096)
				for i := range ran {
					ran[i] = r.Uint64N(1 << 20)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					e := ents[(i*7919)%n]
					tr.Delete(e)
					// In the runqueue shape the entity ran: its
					// vruntime advances. In the random shape it gets
					// a fresh random place.
					d := ran[i%len(ran)]
					v := d
					if s.runqueue {
						v = uint64(int64(e.vruntime-wrapBase)) + d>>2
					}
					s.place(e, v, d)
					tr.Insert(e)
				}
			})
		}
	}
}

// BenchmarkFind measures picking the earliest deadline among the entities
// whose vruntime is at most a threshold. In the runqueue shape the
// threshold is drawn from the middle half of the vruntimes, like a
// scheduler's average vruntime, and the pick is usually near the front. In
// the random shape it is drawn so that about four entities on average are
// eligible, so the descent ends anywhere in the tree.
func BenchmarkFind(b *testing.B) {
	for _, s := range benchShapes {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("shape=%s/size=%d", s.name, n), func(b *testing.B) {
				tr, _, r := benchTree(n, s)
				thresholds := make([]uint64, 4096)
				for i := range thresholds {
					if s.runqueue {
						thresholds[i] = at(1<<18 + r.Int64N(1<<19))
					} else {
						thresholds[i] = at(r.Int64N(8 << 20 / int64(n)))
					}
				}
				pick := &eligible{}
				var m Matcher[*entity, entityAgg] = pick
				found := 0
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					pick.threshold = thresholds[i%len(thresholds)]
					if _, ok := tr.Find(m); ok {
						found++
					}
				}
				if n > 16 && b.N >= 1000 && found == 0 {
					b.Fatal("Find never found an entity")
				}
			})
		}
	}
}
