package plot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotutil"
)

// pinnedData is a replay of 50 ms on two CPUs in 10 ms windows: CPU 1
// scored nothing in its third window, and the latencies of two tasks.
func pinnedData() Pinned {
	nan := math.NaN()
	ts := []int64{5e6, 15e6, 25e6, 35e6, 45e6}
	return Pinned{
		AgreementTitle: "pick agreement, 10 ms windows",
		Overall:        Agreement{Name: "all CPUs", TimesNs: ts, Percent: []float64{100, 90, 95, 80, 100}},
		PerCPU: []Agreement{
			{Name: "CPU 0", TimesNs: ts, Percent: []float64{100, 80, 95, 70, 100}},
			{Name: "CPU 1", TimesNs: ts, Percent: []float64{100, 100, nan, 90, 100}},
		},
		LatencyTitle: "the trace's latencies",
		Latency: []Series{
			{Name: "wakeup latency", Samples: []uint64{2e3, 5e3, 40e3, 900e3}, Others: [][]uint64{{2e3, 5e3}, {40e3, 900e3}}},
			{Name: "run delay", Samples: []uint64{0, 3e3, 60e3, 2e6}, Others: [][]uint64{{0, 3e3}, {60e3, 2e6}}},
		},
	}
}

// The two panels make one PNG of the options' size (points at 96 dpi:
// 720 × 640 pt is 960 × 853 px), 640 pt high by default; with one panel
// it is 400 pt high, as every other plot.
func TestPinnedReplayDraws(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("PLOT_DIR"); d != "" { // keep the images to look at them
		dir = d
	}
	one := pinnedData()
	one.Latency = nil
	for _, tc := range []struct {
		name string
		p    Pinned
		opt  Options
		w, h int
	}{
		{"replay.png", pinnedData(), Options{Title: "trace.txt: mode A"}, 960, 853},
		{"replay-small.png", pinnedData(), Options{Width: 480, Height: 480}, 640, 640},
		{"replay-agreement.png", one, Options{}, 960, 533},
	} {
		var b bytes.Buffer
		if err := PinnedReplay(&b, tc.p, tc.opt); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		img, err := png.Decode(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := img.Bounds().Size(); got.X != tc.w || got.Y != tc.h {
			t.Errorf("%s: %v px, want %d×%d", tc.name, got, tc.w, tc.h)
		}
		os.WriteFile(filepath.Join(dir, tc.name), b.Bytes(), 0o644)
	}
}

// A trace without a scored switch and without latencies has nothing to
// draw: an error, and not a byte written; one with latencies but no
// switch draws the latencies alone.
func TestPinnedReplayDegenerate(t *testing.T) {
	empty := Pinned{Overall: Agreement{Name: "all CPUs"}, PerCPU: []Agreement{{Name: "CPU 0", TimesNs: []int64{5}, Percent: []float64{math.NaN()}}}}
	var b bytes.Buffer
	err := PinnedReplay(&b, empty, Options{})
	if err == nil || !strings.Contains(err.Error(), "nothing to draw") || b.Len() != 0 {
		t.Errorf("no picks, no latencies: err %v, %d bytes", err, b.Len())
	}
	empty.Latency = pinnedData().Latency
	if err := PinnedReplay(&b, empty, Options{}); err != nil {
		t.Fatalf("latencies alone: %v", err)
	}
	if img, err := png.Decode(&b); err != nil || img.Bounds().Dy() != 533 {
		t.Errorf("latencies alone: %v", err)
	}
	for name, p := range map[string]Pinned{
		"lengths":   {Overall: Agreement{Name: "a", TimesNs: []int64{1, 2}, Percent: []float64{50}}},
		"order":     {Overall: Agreement{Name: "a", TimesNs: []int64{2, 1}, Percent: []float64{50, 60}}},
		"share":     {Overall: Agreement{Name: "a", TimesNs: []int64{1}, Percent: []float64{150}}},
		"no sample": {Latency: []Series{{Name: "run delay"}}},
	} {
		if err := PinnedReplay(&bytes.Buffer{}, p, Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A line breaks at a window without scored picks.
func TestAgreementRunsBreakAtNaN(t *testing.T) {
	r := runs(Agreement{TimesNs: []int64{1, 2, 3, 4, 5}, Percent: []float64{math.NaN(), 10, math.NaN(), 30, 40}})
	if len(r) != 2 || len(r[0]) != 1 || r[0][0].X != 2 || len(r[1]) != 2 || r[1][1].Y != 40 {
		t.Errorf("runs: %v, want [(2,10)] [(4,30) (5,40)]", r)
	}
}

// Mode B's plot is LatencyCDF's figure; like PinnedReplay's, it is written
// with a palette that holds the curves' colours exactly, so that a heavy
// curve keeps its colour.
func TestFreeReplayPalette(t *testing.T) {
	var b bytes.Buffer
	series := []Series{{Name: "trace", Samples: []uint64{1e3, 5e3, 30e3}}, {Name: "model", Samples: []uint64{0, 2e3, 90e3}}}
	if err := FreeReplay(&b, series, Options{Title: "mode B"}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	pal, ok := img.(*image.Paletted)
	if !ok || img.Bounds().Dx() != 960 || img.Bounds().Dy() != 533 {
		t.Fatalf("%T of %v: want a paletted 960×533 image", img, img.Bounds())
	}
	if len(pal.Palette) > 256 {
		t.Errorf("%d colours", len(pal.Palette))
	}
	for i := range 2 {
		want := color.RGBAModel.Convert(plotutil.Color(i))
		if !slices.ContainsFunc(pal.Palette, func(c color.Color) bool { return color.RGBAModel.Convert(c) == want }) {
			t.Errorf("curve colour %v not in the palette", want)
		}
	}
	if err := FreeReplay(&bytes.Buffer{}, []Series{{Name: "trace"}}, Options{}); err == nil {
		t.Error("no error for a series without samples")
	}
}
