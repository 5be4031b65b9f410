package sim

import "testing"

// TestRingIsFIFOAcrossGrowthAndWrap interleaves pushes and pops so that
// the ring wraps around and grows while wrapped, and checks the FIFO order
// against a plain slice.
func TestRingIsFIFOAcrossGrowthAndWrap(t *testing.T) {
	var r ring[int]
	var want []int
	next := 0
	for step := range 2000 {
		if step%3 != 2 || len(want) == 0 {
			r.push(next)
			want = append(want, next)
			next++
		} else {
			got, ok := r.pop()
			if !ok || got != want[0] {
				t.Fatalf("step %d: pop %d %v, want %d", step, got, ok, want[0])
			}
			want = want[1:]
		}
		if r.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, r.len(), len(want))
		}
		if v, ok := r.peek(); len(want) > 0 && (!ok || v != want[0]) {
			t.Fatalf("step %d: peek %d %v, want %d", step, v, ok, want[0])
		}
	}
	for len(want) > 0 {
		got, _ := r.pop()
		if got != want[0] {
			t.Fatalf("drain: pop %d, want %d", got, want[0])
		}
		want = want[1:]
	}
	if _, ok := r.pop(); ok {
		t.Fatal("pop from an empty ring succeeded")
	}
}
