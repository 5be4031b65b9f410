package btree

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A tree whose augmenter folds whole nodes (Folder), searches them
// (Searcher) and updates aggregates incrementally (Lattice) keeps exactly
// the items and aggregates of one that compares, merges and refolds
// element by element, through splits, borrows and merges; both verify
// every 7 steps.
func TestOptionalInterfacesMatchPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	folded := New[*entity, entityAgg](entityAug{})
	chained := New[*entity, entityAgg](mergeOnlyAug{})
	if folded.folder == nil || folded.searcher == nil || folded.lattice == nil ||
		chained.folder != nil || chained.searcher != nil || chained.lattice != nil {
		t.Fatal("Init did not detect the optional interfaces")
	}
	var live []*entity
	for step := 0; step < 20000; step++ {
		if len(live) > 0 && rng.IntN(8) == 0 {
			e, ok := folded.DeleteFirst()
			if c, cok := chained.DeleteFirst(); !ok || !cok || c != e {
				t.Fatalf("step %d: DeleteFirst = %v, %v and %v, %v", step, e, ok, c, cok)
			}
			k := slices.Index(live, e)
			live[k] = live[len(live)-1]
			live = live[:len(live)-1]
		} else if len(live) > 0 && (len(live) > 2000 || rng.IntN(3) == 0) {
			k := rng.IntN(len(live))
			e := live[k]
			live[k] = live[len(live)-1]
			live = live[:len(live)-1]
			if !folded.Delete(e) || !chained.Delete(e) {
				t.Fatalf("step %d: delete failed", step)
			}
		} else {
			e := &entity{deadline: at(int64(rng.IntN(4000) - 2000)), seq: uint64(step),
				vruntime: at(int64(rng.IntN(4000) - 2000)), slice: uint64(rng.IntN(100))}
			live = append(live, e)
			folded.Insert(e)
			chained.Insert(e)
		}
		if ff, _ := folded.First(); ff != func() *entity { c, _ := chained.First(); return c }() {
			t.Fatalf("step %d: first items differ", step)
		}
		fa, fok := folded.Agg()
		ca, cok := chained.Agg()
		if fa != ca || fok != cok {
			t.Fatalf("step %d: folded %+v, chained %+v", step, fa, ca)
		}
		if step%7 == 0 {
			if err := folded.Verify(); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if err := chained.Verify(); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
	}
}
