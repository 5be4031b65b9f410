package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomEvents draws events that collide as often as the queue allows:
// few distinct times, every class, timers armed at few instants (short
// and long spans, the same task twice), reschedules of few CPUs.
func randomEvents(r *rand.Rand, n int) []event {
	evs := make([]event, n)
	for i := range evs {
		k := evKind(r.IntN(int(evSample) + 1))
		e := event{
			at:   1<<40 + uint64(r.IntN(4))*1000,
			seq:  uint64(i + 1),
			task: int32(r.IntN(3)),
			cpu:  int32(r.IntN(3)),
			kind: k,
			cls:  classOf[k],
		}
		if e.cls == clsTimer {
			e.cpu = -1
			// Spans of 0, just below and above 2^31 ns, and longer.
			spans := []uint64{0, 1000, 1<<keySpanBits - 1, 1 << keySpanBits, 1<<keySpanBits + 1, 1 << 39}
			e.ord = e.at - spans[r.IntN(len(spans))]
		}
		e.key = e.orderKey()
		evs[i] = e
	}
	return evs
}

// TestOrderKeyAgreesWithTheFullOrder checks the one-word keys against the
// order written out field by field: wherever two events of the same
// time have different keys, the keys order them as within does.
func TestOrderKeyAgreesWithTheFullOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		evs := randomEvents(r, 64)
		for i := range evs {
			for j := range evs {
				a, b := &evs[i], &evs[j]
				lt, tie := ltKey(a, b)
				if tie {
					lt = tieBit(a, b)
				}
				if want := a.before(b); (lt == 1) != want {
					t.Fatalf("events %+v and %+v: key order %d, full order %v", *a, *b, lt, want)
				}
			}
		}
	}
}

// push queues e, as the simulator's post does.
func (h *eventHeap) push(e event) {
	*h.add() = e
	h.up()
}

// pop removes and returns the least event, as the simulator's step does.
func (h *eventHeap) pop() event {
	e := (*h)[0]
	h.removeTop()
	return e
}

// TestEventHeapPopsInOrder pushes and pops random events, interleaved,
// and checks every pop against the least remaining event in the full
// order.
func TestEventHeapPopsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		evs := randomEvents(r, 1+r.IntN(300))
		var h eventHeap
		var rest []event
		for _, e := range evs {
			h.push(e)
			rest = append(rest, e)
			if r.IntN(3) > 0 {
				continue
			}
			got := h.pop()
			i := slices.IndexFunc(rest, func(x event) bool { return x.seq == got.seq })
			for _, x := range rest {
				if x.before(&rest[i]) {
					t.Fatalf("round %d: popped %+v before %+v", round, rest[i], x)
				}
			}
			rest = slices.Delete(rest, i, i+1)
		}
		slices.SortFunc(rest, func(a, b event) int {
			if a.before(&b) {
				return -1
			}
			return 1
		})
		for _, want := range rest {
			if got := h.pop(); got != want {
				t.Fatalf("round %d: popped %+v, want %+v", round, got, want)
			}
		}
		if len(h) != 0 {
			t.Fatalf("round %d: %d events left", round, len(h))
		}
	}
}
