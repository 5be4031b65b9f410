package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEventQueuePopsInOrderInBothForms pushes and pops random events,
// the queue's size swept up past sortedMax (the heap) and down below
// sortedMin (sorted again) several times in each round, and checks every
// pop against the least remaining event in the full order: the queue's
// form never changes which event comes next.
func TestEventQueuePopsInOrderInBothForms(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		evs := randomEvents(r, 400)
		var q eventQueue
		var rest []event
		pop := func() {
			got := q.ev[0]
			q.removeTop()
			i := slices.IndexFunc(rest, func(x event) bool { return x.seq == got.seq })
			if i < 0 {
				t.Fatalf("round %d: popped %+v, never pushed or popped twice", round, got)
			}
			for _, x := range rest {
				if x.before(&rest[i]) {
					t.Fatalf("round %d: popped %+v before %+v (heaped %v)", round, rest[i], x, q.heaped)
				}
			}
			rest = slices.Delete(rest, i, i+1)
		}
		sawHeap, sawSorted := false, false
		for len(evs) > 0 {
			// Grow to a size drawn up to twice sortedMax, then shrink to
			// one drawn below sortedMin, with pops and pushes mixed.
			high := 1 + r.IntN(2*sortedMax)
			for len(rest) < high && len(evs) > 0 {
				*q.add() = evs[0]
				q.up()
				rest = append(rest, evs[0])
				evs = evs[1:]
				if r.IntN(4) == 0 {
					pop()
				}
			}
			sawHeap = sawHeap || q.heaped
			low := r.IntN(sortedMin)
			for len(rest) > low {
				pop()
				if r.IntN(4) == 0 && len(evs) > 0 {
					*q.add() = evs[0]
					q.up()
					rest = append(rest, evs[0])
					evs = evs[1:]
				}
			}
			sawSorted = sawSorted || !q.heaped
			if len(q.ev) != len(rest) {
				t.Fatalf("round %d: %d events queued, want %d", round, len(q.ev), len(rest))
			}
		}
		for len(rest) > 0 {
			pop()
		}
		if !sawHeap || !sawSorted {
			t.Fatalf("round %d: heap form seen %v, sorted form seen %v: both should be", round, sawHeap, sawSorted)
		}
	}
}

// TestEventQueueReusesItsArray checks that a queue whose size stays
// bounded stops allocating: popped slots are reclaimed, in both forms.
func TestEventQueueReusesItsArray(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, size := range []int{3, sortedMax + 40} {
		var q eventQueue
		evs := randomEvents(r, 4096)
		next := 0
		push := func() {
			*q.add() = evs[next%len(evs)]
			q.up()
			next++
		}
		for range size {
			push()
		}
		cycle := func() {
			for range 64 {
				q.removeTop()
				push()
			}
		}
		cycle() // warm: the array has its size
		if a := testing.AllocsPerRun(20, cycle); a != 0 {
			t.Errorf("size %d: %.1f allocations per 64 pops and pushes, want 0", size, a)
		}
	}
}
