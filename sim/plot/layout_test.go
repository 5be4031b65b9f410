package plot

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedmodel/fairclass/sim"
)

// heavyTail is n latencies shaped like seed 000's cyclictest: most at
// 2 µs, a percent spread evenly up to max ns.
func heavyTail(n int, max uint64) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = 2000
		if i%100 == 0 {
			s[i] = 2000 + max*uint64(i)/uint64(n)
		}
	}
	s[n-1] = max
	return s
}

// figures builds one figure of every kind the package draws, on data
// with the shapes of the seed experiments: tails that end around 20 ms,
// a per-seed figure with one side at 1 ms and the other at 8 s.
func figures(t *testing.T) map[string]*figure {
	t.Helper()
	tails := []Series{
		{Name: "before, defaults", Samples: heavyTail(20000, 15_000_000), Others: [][]uint64{heavyTail(20000, 30_000_000)}},
		{Name: "before", Samples: heavyTail(20000, 21_000_000)},
		{Name: "+DELAY_LAG_FLOOR", Samples: heavyTail(20000, 3_500_000)},
	}
	share := &sim.Report{CPUs: 1, Tasks: []sim.TaskReport{{Name: "yield_loop"}, {Name: "stress-0"}},
		Shares: &sim.ShareSeries{TimesNs: []uint64{0, 1e9, 2e9}, Runtime: [][]uint64{{0, 0}, {5e8, 5e8}, {2e9, 0}}}}
	figs := map[string]*figure{}
	for name, build := range map[string]func() (*figure, error){
		"cdf":  func() (*figure, error) { return cdfFigure(tails, Options{}) },
		"tail": func() (*figure, error) { return tailFigure(tails, Options{Title: "tail"}) },
		"per-seed, orders apart": func() (*figure, error) {
			return perSeedFigure(Paired{Figure: "the hog's maximum delay", Base: "merged", Patch: "v6.6 bump",
				X: []float64{1e6, 1.1e6, 0.9e6}, Y: []float64{8e9, 7.9e9, 8e9}, Durations: true}, Options{})
		},
		"per-seed, close": func() (*figure, error) {
			return perSeedFigure(Paired{Figure: "p99.9 wakeup latency", Base: "before", Patch: "after",
				X: []float64{17.5e6, 15.3e6, 8.3e6}, Y: []float64{1.9e6, 1.6e6, 3e6}, Durations: true}, Options{})
		},
		"per-seed, counts": func() (*figure, error) {
			return perSeedFigure(Paired{Figure: "context switches", Base: "base", Patch: "patch",
				X: []float64{90424, 87178, 95488}, Y: []float64{36612, 38000, 37000}}, Options{})
		},
		"one side": func() (*figure, error) {
			return valuesFigure(Values{Figure: "the hog's maximum delay", Side: "merged", Seeds: []uint64{1, 2, 3},
				Y: []float64{1e6, 1e6, 1.2e6}, Durations: true, Bound: 2.4e6, BoundName: "bound"}, Options{})
		},
		"share": func() (*figure, error) { return shareFigure(share, false, Options{}) },
	} {
		f, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		figs[name] = f
	}
	return figs
}

// dataBox is the bounding box of the figure's data points (for a tail,
// the points from the 99th percentile on) in the canvas coordinates of a
// drawing laid out as lay.
func dataBox(f *figure, lay layout) vg.Rectangle {
	dc := draw.Canvas{Rectangle: lay.data}
	tx, ty := f.p.Transforms(&dc)
	var r vg.Rectangle
	for i, pt := range f.tail {
		p := vg.Point{X: tx(float64(pt.X)), Y: ty(float64(pt.Y))}
		if i == 0 {
			r = vg.Rectangle{Min: p, Max: p}
		}
		r.Min.X, r.Min.Y = min(r.Min.X, p.X), min(r.Min.Y, p.Y)
		r.Max.X, r.Max.Y = max(r.Max.X, p.X), max(r.Max.Y, p.Y)
	}
	return r
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func inside(a, b vg.Rectangle) bool {
	return a.Min.X >= b.Min.X && a.Max.X <= b.Max.X && a.Min.Y >= b.Min.Y && a.Max.Y <= b.Max.Y
}

// The legend of every plot lies in the image, outside the plotting area,
// so it can hide no curve, no point, and in particular no part of a
// tail's p99-to-maximum region.
func TestLegendIsOutsideTheData(t *testing.T) {
	for name, f := range figures(t) {
		_, lay := f.render(Options{}, outside)
		if lay.legend.Size().X <= 0 || lay.legend.Size().Y <= 0 {
			t.Errorf("%s: no legend drawn: %+v", name, lay.legend)
			continue
		}
		if !inside(lay.legend, lay.image) {
			t.Errorf("%s: legend %+v is not inside the image %+v", name, lay.legend, lay.image)
		}
		if overlaps(lay.legend, lay.data) {
			t.Errorf("%s: legend %+v overlaps the plotting area %+v", name, lay.legend, lay.data)
		}
		if len(f.tail) > 0 && overlaps(lay.legend, dataBox(f, lay)) {
			t.Errorf("%s: legend %+v overlaps the data %+v", name, lay.legend, dataBox(f, lay))
		}
	}
}

// The check above can fail: with gonum's placement, inside the plotting
// area at the bottom right, the legend covers the tail from p99 to the
// maximum; in the top left corner, on the linear axes the per-seed plots
// had, it covers the point that the patch raised from 1 ms to 8 s. These
// were the figures' placements.
func TestOldLegendPlacementCoversTheData(t *testing.T) {
	figs := figures(t)
	for _, tt := range []struct {
		fig    string
		pl     placement
		linear bool
	}{{"tail", insideBottomRight, false}, {"per-seed, orders apart", insideTopLeft, true}} {
		f := figs[tt.fig]
		if tt.linear {
			// The old range: the values' own, padded by a twentieth.
			lo, hi := 0.9e6, 8e9
			pad := (hi - lo) / 20
			f.p.X.Scale, f.p.Y.Scale = plot.LinearScale{}, plot.LinearScale{}
			f.p.X.Min, f.p.X.Max, f.p.Y.Min, f.p.Y.Max = lo-pad, hi+pad, lo-pad, hi+pad
		}
		_, lay := f.render(Options{}, tt.pl)
		if !overlaps(lay.legend, dataBox(f, lay)) {
			t.Errorf("%s: the legend inside the plotting area, %+v, misses the data %+v", tt.fig, lay.legend, dataBox(f, lay))
		}
	}
}

// unitLabel is an axis label that names a unit of time: "latency (ms)",
// or "latency (log scale; µs, ms)".
var unitLabel = regexp.MustCompile(`\((log scale; )?((ns|µs|ms|s)(, )?)+\)$`)

// durationTick is a tick label of a log axis: a number and its unit.
var durationTick = regexp.MustCompile(`^[0-9.]+ (ns|µs|ms|s)$`)

// checkTicks reports the first tick label that is not readable: one with
// an exponent, or (on a duration axis) one that is not a number below
// 10 000 in the axis' unit, such as a raw count of nanoseconds.
func checkTicks(ticks []plot.Tick, durations, log bool) error {
	labelled := 0
	for _, tk := range ticks {
		l := tk.Label
		if l == "" {
			continue
		}
		labelled++
		if strings.ContainsAny(l, "eE") && !strings.HasSuffix(l, "s") {
			return fmt.Errorf("tick %q has an exponent", l)
		}
		if !durations {
			continue
		}
		num := l
		if log {
			if !durationTick.MatchString(l) {
				return fmt.Errorf("log tick %q does not name its unit", l)
			}
			num, _, _ = strings.Cut(l, " ")
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return fmt.Errorf("tick %q is not a number: %v", l, err)
		}
		if v >= 10000 {
			return fmt.Errorf("tick %q is too large a number for its unit: raw nanoseconds?", l)
		}
	}
	if labelled < 2 {
		return fmt.Errorf("%d labelled ticks, want at least 2", labelled)
	}
	return nil
}

// Every duration axis names its unit, and every tick label is a number a
// reader can take in: no exponent, no nanoseconds by the million.
func TestAxesShowUnitsAndReadableTicks(t *testing.T) {
	durations := map[string][2]bool{ // x, y: is it an axis of durations
		"cdf": {true, false}, "tail": {true, false}, "per-seed, orders apart": {true, true},
		"per-seed, close": {true, true}, "per-seed, counts": {false, false}, "one side": {false, true},
		"share": {true, false},
	}
	for name, f := range figures(t) {
		for i, a := range []struct {
			ax    *plot.Axis
			label string
		}{{&f.p.X, f.xLabel}, {&f.p.Y, f.yLabel}} {
			_, log := a.ax.Scale.(plot.LogScale)
			dur := durations[name][i]
			if dur && !unitLabel.MatchString(a.label) {
				t.Errorf("%s: axis label %q names no unit", name, a.label)
			}
			if a.label == "" {
				t.Errorf("%s: an axis has no label", name)
			}
			if err := checkTicks(a.ax.Tick.Marker.Ticks(a.ax.Min, a.ax.Max), dur, log); err != nil {
				t.Errorf("%s, axis label %q: %v", name, a.label, err)
			}
		}
	}
	// The check catches what gonum's own ticks print for nanoseconds.
	if err := checkTicks(plot.DefaultTicks{}.Ticks(0, 8e9), true, false); err == nil {
		t.Error("gonum's default ticks over 0–8 s in ns pass the check")
	}
	if err := checkTicks(plot.DefaultTicks{}.Ticks(0, 17.5e6), true, false); err == nil {
		t.Error("gonum's default ticks over 0–17.5 ms in ns pass the check")
	}
}

// Values spanning two decades or more get log axes; the tail is always
// logarithmic, and its p99.9 line lies inside the y range.
func TestLogScaleFromTwoDecades(t *testing.T) {
	figs := figures(t)
	for _, tt := range []struct {
		name string
		x, y bool
	}{
		{"tail", true, true}, {"cdf", true, false}, {"per-seed, orders apart", true, true},
		{"per-seed, close", false, false}, {"one side", false, false}, {"share", false, false},
	} {
		f := figs[tt.name]
		_, x := f.p.X.Scale.(plot.LogScale)
		_, y := f.p.Y.Scale.(plot.LogScale)
		if x != tt.x || y != tt.y {
			t.Errorf("%s: log x %v, log y %v; want %v, %v", tt.name, x, y, tt.x, tt.y)
		}
	}
	if tail := figs["tail"]; !(tail.p.Y.Min < p999Fraction && p999Fraction < tail.p.Y.Max) {
		t.Errorf("tail: y range %v–%v does not hold the p99.9 line", tail.p.Y.Min, tail.p.Y.Max)
	}
}

// Units follow the data: the largest unit in which the largest value is
// at least 1.
func TestUnitFor(t *testing.T) {
	for _, tt := range []struct {
		ns   float64
		want string
	}{{0, "ns"}, {999, "ns"}, {1000, "µs"}, {17.5e6, "ms"}, {8e9, "s"}, {3600e9, "s"}} {
		if got := unitFor(tt.ns).name; got != tt.want {
			t.Errorf("unitFor(%v) = %s, want %s", tt.ns, got, tt.want)
		}
	}
	// Decades of a log axis in µs, each in its own unit.
	var got []string
	for _, tk := range (ticker{nsPer: 1000, log: true}).Ticks(2, 21000) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := []string{"10 µs", "100 µs", "1 ms", "10 ms"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("decade labels from 2 µs to 21 ms: %q, want %q", got, want)
	}
}

// Degenerate data draws without a panic: one repeated sub-microsecond
// latency (a log axis with a single value below 1 µs), samples all 0, a
// single seed, equal values on both sides.
func TestDegenerateDataDraws(t *testing.T) {
	var b bytes.Buffer
	for name, draw := range map[string]func() error{
		"tail of one value": func() error { return LatencyTail(&b, []Series{{Name: "a", Samples: []uint64{500, 500}}}, Options{}) },
		"tail of zeros":     func() error { return LatencyTail(&b, []Series{{Name: "a", Samples: []uint64{0, 0}}}, Options{}) },
		"cdf of one value": func() error {
			return LatencyCDF(&b, []Series{{Name: "a", Samples: []uint64{500}}}, Options{LogX: true})
		},
		"one seed": func() error { return PerSeed(&b, Paired{Figure: "x", X: []float64{3}, Y: []float64{3}}, Options{}) },
		"zeros on one side": func() error {
			return PerSeed(&b, Paired{Figure: "x", X: []float64{0, 0}, Y: []float64{0, 0}, Durations: true}, Options{})
		},
		"one value, one seed": func() error {
			return PerSeedValues(&b, Values{Figure: "x", Seeds: []uint64{7}, Y: []float64{0}}, Options{})
		},
	} {
		b.Reset()
		if err := draw(); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if b.Len() == 0 {
			t.Errorf("%s: nothing written", name)
		}
	}
	if err := PerSeed(&b, Paired{Figure: "x", X: []float64{math.NaN()}, Y: []float64{1}}, Options{}); err == nil {
		t.Error("no error for a NaN value")
	}
	if err := PerSeedValues(&b, Values{Figure: "x", Seeds: []uint64{1, 2}, Y: []float64{1}}, Options{}); err == nil {
		t.Error("no error for seeds and values of different counts")
	}
}

// Ticks that are not multiples of their step keep the decimals their
// values need: 1.5, 2.5 and 3.5 ms a step of 1 apart are labelled so, not
// "2", "2" and "4".
func TestTickLabelsAreTheValues(t *testing.T) {
	for _, r := range [][2]float64{{1.2, 3.9}, {1.5e6, 3.5e6}, {0.15, 0.35}, {0, 8e9}} {
		seen := map[string]bool{}
		for _, tk := range (ticker{nsPer: 1}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			if seen[tk.Label] {
				t.Errorf("range %v: label %q twice", r, tk.Label)
			}
			seen[tk.Label] = true
		}
	}
	var got []string
	for _, tk := range (ticker{nsPer: 1}).Ticks(1.5, 3.5) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if strings.Join(got, " ") != "1.5 2.5 3.5" {
		t.Errorf("labels %q, want 1.5 2.5 3.5", got)
	}
}
