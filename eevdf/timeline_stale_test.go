package eevdf

import (
	"math/rand/v2"
	"testing"

	"github.com/schedmodel/fairclass/rbtree"
)

// The stale timeline has exactly the shape of the exact red-black tree
// (the same lib/rbtree.c cases), the same order, leftmost and count, and
// an exact min_vruntime in every node; only its min/max slice may differ,
// and with max_slice present they do within a few thousand operations.
func TestStaleTimelineShapeAndMinVruntime(t *testing.T) {
	for _, noMax := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(7, 18))
		exact := &rbTimeline{}
		exact.t.Init(entityAug{})
		stale := newStaleTree(noMax)
		var in []*SchedEntity
		var seq uint64
		sawStale := false
		for step := range 4000 {
			if len(in) == 0 || rng.IntN(5) < 3 {
				seq++
				se := &SchedEntity{
					vruntime: uint64(rng.IntN(1 << 20)),
					deadline: uint64(rng.IntN(1 << 20)),
					slice:    uint64(100000 + rng.IntN(4)*300000),
					seq:      seq,
				}
				exact.insert(se)
				stale.insert(se)
				in = append(in, se)
			} else {
				i := rng.IntN(len(in))
				se := in[i]
				in = append(in[:i], in[i+1:]...)
				exact.erase(se)
				stale.erase(se)
			}
			if err := stale.verify(); err != nil {
				t.Fatalf("noMax=%v step %d: %v", noMax, step, err)
			}
			if stale.len() != exact.len() || stale.first() != exact.first() {
				t.Fatalf("noMax=%v step %d: len or first differ", noMax, step)
			}
			var walk func(e *rbtree.Node[*SchedEntity, agg], s *staleNode)
			walk = func(e *rbtree.Node[*SchedEntity, agg], s *staleNode) {
				if (e == nil) != (s == nil) {
					t.Fatalf("noMax=%v step %d: shapes differ", noMax, step)
				}
				if e == nil {
					return
				}
				if e.Item != s.se || e.Agg().minV != s.agg.minV {
					t.Fatalf("noMax=%v step %d: node %p differs", noMax, step, s.se)
				}
				if e.Agg() != s.agg && !noMax {
					sawStale = true
				}
				walk(e.Left(), s.left)
				walk(e.Right(), s.right)
			}
			walk(exact.t.Root(), stale.root)
		}
		if !noMax && !sawStale {
			t.Error("no stale aggregate in 4000 steps: the narrowed callbacks are not in effect")
		}
	}
}
