package plot

import (
	"testing"

	"gonum.org/v1/plot/plotter"
)

// The tail of four samples: every sample is ≥ the smallest, one is ≥ the
// largest; the CDF is the same ranks counted from below.
func TestTailIsTheFractionAtOrAbove(t *testing.T) {
	s := []Series{{Name: "a", Samples: []uint64{4000, 1000, 3000, 2000}}}
	for _, tt := range []struct {
		tail bool
		want plotter.XYs
	}{
		{false, plotter.XYs{{X: 1, Y: 0.25}, {X: 2, Y: 0.5}, {X: 3, Y: 0.75}, {X: 4, Y: 1}}},
		{true, plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 0.75}, {X: 3, Y: 0.5}, {X: 4, Y: 0.25}}},
	} {
		lines, err := curves(s, Options{}, tt.tail)
		if err != nil {
			t.Fatal(err)
		}
		got := lines[1].(plotter.XYs)
		if len(got) != len(tt.want) {
			t.Fatalf("tail=%v: %v, want %v", tt.tail, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("tail=%v: point %d = %v, want %v", tt.tail, i, got[i], tt.want[i])
			}
		}
	}
}
