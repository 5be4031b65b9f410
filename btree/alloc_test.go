package btree

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// churnTree returns a tree of n entities with random deadlines and
// vruntimes, and the entities.
func churnTree(n int, r *rand.Rand) (*entityTree, []*entity) {
	tr := New[*entity, entityAgg](entityAug{})
	ents := make([]*entity, n)
	for i := range ents {
		ents[i] = &entity{deadline: at(r.Int64N(1 << 30)), seq: uint64(i), vruntime: at(r.Int64N(1 << 20)), slice: uint64(r.IntN(1000))}
		tr.Insert(ents[i])
	}
	return tr, ents
}

func TestSteadyChurnDoesNotAllocate(t *testing.T) {
	for _, n := range []int{1, 16, 1024, 65536} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if testing.Short() && n > 1024 {
				t.Skip("large tree")
			}
			r := rand.New(rand.NewPCG(uint64(n), 3))
			tr, ents := churnTree(n, r)
			deadlines := make([]uint64, 4096)
			for i := range deadlines {
				deadlines[i] = at(r.Int64N(1 << 30))
			}

			// Queue churn: take the first entity out and put it back
			// after the last, as a scheduler does with the entity it
			// ran. Once the tree has settled into this pattern, a
			// whole batch of it allocates nothing at all.
			queue := func() {
				e, _ := tr.First()
				l, _ := tr.Last()
				tr.Delete(e)
				e.deadline = l.deadline + 1
				tr.Insert(e)
			}
			for range 2*n + 20000 {
				queue()
			}
			batch := func() {
				for range 20000 {
					queue()
				}
			}
			if a := testing.AllocsPerRun(1, batch); a != 0 {
				t.Errorf("queue churn: %v allocations in 20000 Delete+Insert, want 0", a)
			}

			// Random churn: take a random entity out, give it a new
			// deadline and put it back. The tree allocates only when it
			// needs more nodes than it has ever had, which grows rarer
			// and rarer: no allocation per operation.
			i := 0
			random := func() {
				e := ents[(i*7919)%n]
				if !tr.Delete(e) {
					panic("entity missing")
				}
				e.deadline = deadlines[i%len(deadlines)]
				tr.Insert(e)
				i++
			}
			for range 2*n + 20000 {
				random()
			}
			if a := testing.AllocsPerRun(5000, random); a != 0 {
				t.Errorf("random churn: %v allocations per Delete+Insert, want 0", a)
			}
			mustVerify(t, tr)
		})
	}
}

func TestShrinkingTreeReleasesFreeNodes(t *testing.T) {
	// A tree that grows large and shrinks keeps no more spare nodes than
	// its current size warrants.
	tr := newSpanTree()
	const n = 200000
	for i := range n {
		tr.Insert(i)
	}
	for i := range n - 100 {
		tr.Delete(i)
	}
	mustVerify(t, tr)
	if limit := freeLimit(tr.Len()); tr.free.nLeaves > limit || tr.free.nInners > limit {
		t.Errorf("tree of %d items keeps %d free leaves and %d free interior nodes, want at most %d each",
			tr.Len(), tr.free.nLeaves, tr.free.nInners, limit)
	}
}

func TestQueriesDoNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tr, _ := churnTree(5000, r)
	var sink int
	// A long-lived matcher, as a run queue keeps one: Find itself
	// allocates nothing (converting a fresh matcher value to the Matcher
	// interface at every call would, as for any interface call that lets
	// its argument escape).
	pick := &eligible{}
	var m Matcher[*entity, entityAgg] = pick
	queries := map[string]func(){
		"Find": func() {
			pick.threshold = at(int64(sink % (1 << 20)))
			if e, ok := tr.Find(m); ok {
				sink += int(e.seq)
			}
		},
		"Find through a pointer": func() {
			if e, ok := tr.Find(pick); ok {
				sink += int(e.seq)
			}
		},
		"First": func() {
			e, _ := tr.First()
			sink += int(e.seq)
		},
		"Last": func() {
			e, _ := tr.Last()
			sink += int(e.seq)
		},
		"Agg": func() {
			a, _ := tr.Agg()
			sink += int(a.minSlice)
		},
		"Len": func() { sink += tr.Len() },
	}
	for name, q := range queries {
		if a := testing.AllocsPerRun(1000, q); a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, a)
		}
	}
}
