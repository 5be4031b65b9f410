package eevdf

import "testing"

// The slot hint that findEligible leaves for the erasure that follows it
// (bTimeline.position) is a guess: whatever moves entities between the
// descent and the erasure, the erasure takes out the entity it is given
// and no other. Each case finds an entity inside a leaf (not its first),
// then changes the tree before erasing it; the harness verifies the tree
// and compares it with the oracle after every step.
func TestTimelineTreeHintOutlivesMoves(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int                             // entities before the descent
		move func(h *tlHarness, found int64) // between the descent and the erasure
	}{
		{"erased at once, one leaf", 12, func(*tlHarness, int64) {}},
		{"erased at once, several levels", 200, func(*tlHarness, int64) {}},
		{"an earlier deadline shifts it on", 12, func(h *tlHarness, _ int64) {
			h.insert(-5, 1000, 1, -1)
		}},
		{"an erasure before it shifts it back", 12, func(h *tlHarness, _ int64) {
			h.eraseNth(1)
		}},
		{"the first entity leaves, the ring's offset moves", 12, func(h *tlHarness, _ int64) {
			h.eraseFirst()
		}},
		{"its leaf splits", 16, func(h *tlHarness, found int64) {
			for i := range int64(8) {
				h.insert(found-1-i, 1000, 1, -1)
			}
		}},
		{"its leaf refills from a sibling", 200, func(h *tlHarness, found int64) {
			for range 40 {
				h.eraseFirst()
			}
		}},
		{"the descent runs again", 200, func(h *tlHarness, _ int64) {
			h.find(0, 0, 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTLHarness(t)
			// Deadlines 10·i; the vruntimes fall with i until the middle
			// entity, so that only the middle one and those after it are
			// eligible under the bound below (key ≤ 0 from vruntime 0).
			mid := int64(tc.n / 2)
			for i := range int64(tc.n) {
				h.insert(10*i, mid-i, uint64(1+i%3), -1)
			}
			var m eligibleMatcher
			m.set(eligibilityTest{avg: 0, load: 1, zero: tlAt(0)})
			se := h.tr.findEligible(&m)
			if se == nil || se.deadline != tlAt(10*mid) {
				t.Fatalf("findEligible = %v, want the entity of deadline %d", se, 10*mid)
			}
			if i := se.tlLeaf.indexOf(se); i == 0 && tc.n <= leafMax {
				t.Fatalf("the entity found is first in its leaf; the case tests nothing")
			}
			tc.move(h, 10*mid)
			h.erase(se)
			h.checkOrder()
		})
	}
}
