// Package plot draws simulator results as PNG images with gonum/plot:
// latency distributions (one CDF or tail per variant), the CPU share of
// tasks or workloads over time, a figure's per-seed values on both sides
// of an experiment, and a trace replay's pick agreement over time and
// latencies (PinnedReplay, FreeReplay).
//
// Every plot is drawn to be read without its data at hand: the legend sits
// outside the plotting area (to its right, or below it when its entries
// are long), so that it never hides a curve or a point; durations are
// shown in µs, ms or s, the unit chosen from the data and named in the
// axis label, never in raw nanoseconds; an axis whose values span two
// decades or more is logarithmic, with every power of ten labelled; tick
// labels never use exponents.
package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Options size and shape a plot.
type Options struct {
	// Title is printed above the plot.
	Title string
	// Width and Height are the image size in points (default 720×400),
	// legend included.
	Width, Height vg.Length
	// LogX draws the latency axis of a CDF logarithmically even when its
	// samples span less than two decades (from two decades on, it is
	// logarithmic anyway); samples of 0 are drawn at the smallest positive
	// sample of all the series (or 1 ns).
	LogX bool
	// MaxPoints bounds the points drawn per curve (default 2000): a CDF is
	// drawn through that many evenly spaced ranks, always including the
	// largest sample.
	MaxPoints int
	// OthersLabel is the legend entry of the thin curves of
	// Series.Others (default "thin lines: other runs").
	OthersLabel string
}

func (o Options) size() (vg.Length, vg.Length) {
	w, h := o.Width, o.Height
	if w <= 0 {
		w = 720
	}
	if h <= 0 {
		h = 400
	}
	return w, h
}

// Series is one variant's latency samples, in nanoseconds.
type Series struct {
	Name    string   // legend entry
	Samples []uint64 // latencies, ns: the run drawn in full
	// Others are further runs of the same variant (other simulation
	// seeds, say), each drawn as a thin, light curve in the series'
	// colour behind the full one; the legend gives them one entry for all
	// series. Optional.
	Others [][]uint64
}

// Colours and strokes of the curves.
const (
	heavyWidth = vg.Length(2)
	lightWidth = vg.Length(0.75)
	lightAlpha = 0x50
)

// light is c, translucent.
func light(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: lightAlpha}
}

// p999Fraction is where the 99.9th percentile lies on a tail plot: one
// sample in a thousand is at or above it.
const p999Fraction = 1e-3

// LatencyCDF writes a PNG with the cumulative distribution of each
// series' latency: for each latency x, the fraction of samples ≤ x. The
// latency axis is logarithmic when the samples span two decades or more,
// or when opt.LogX asks for it.
func LatencyCDF(w io.Writer, series []Series, opt Options) error {
	f, err := cdfFigure(series, opt)
	if err != nil {
		return err
	}
	return f.write(w, opt)
}

func cdfFigure(series []Series, opt Options) (*figure, error) {
	lo, hi, err := sampleRange(series)
	if err != nil {
		return nil, err
	}
	opt.LogX = opt.LogX || spansDecades(lo, hi)
	f := newFigure(opt.Title)
	p := f.p
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	if err := f.addCurves(series, opt, false); err != nil {
		return nil, err
	}
	f.xLabel = setAxis(&p.X, axis{quantity: "latency", nsPer: 1000, log: opt.LogX})
	f.yLabel = setAxis(&p.Y, axis{quantity: "fraction of samples ≤ latency"})
	return f, nil
}

// LatencyTail writes a PNG with the tail of each series' latency
// distribution, 1 − CDF on logarithmic axes: for each latency x, the
// fraction of samples ≥ x, down to 1/n at the largest sample. The tail is
// where the seed threads' figures (99.9th percentile, maximum) live, and
// a log scale keeps it from collapsing onto the axis. A dashed line marks
// 1 − CDF = 0.001: a curve crosses it at its 99.9th percentile.
func LatencyTail(w io.Writer, series []Series, opt Options) error {
	f, err := tailFigure(series, opt)
	if err != nil {
		return err
	}
	return f.write(w, opt)
}

func tailFigure(series []Series, opt Options) (*figure, error) {
	if _, _, err := sampleRange(series); err != nil {
		return nil, err
	}
	opt.LogX = true
	f := newFigure(opt.Title)
	p := f.p
	p.Add(plotter.NewGrid())
	if err := f.addCurves(series, opt, true); err != nil {
		return nil, err
	}
	// The y axis runs from 1 down to the power of ten below both the
	// smallest fraction drawn and the p99.9 line, so that the line is
	// always inside.
	p.Y.Max = 1
	p.Y.Min = math.Pow10(int(math.Floor(math.Log10(min(p.Y.Min, p999Fraction) * 0.99))))
	ref, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: p999Fraction}, {X: p.X.Max, Y: p999Fraction}})
	if err != nil {
		return nil, err
	}
	ref.Color = color.Gray{Y: 0x40}
	ref.Width = 1
	ref.Dashes = []vg.Length{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}
	p.Add(ref)
	f.addLegend("p99.9: 1 − CDF = 0.001", ref)
	f.xLabel = setAxis(&p.X, axis{quantity: "latency", nsPer: 1000, log: true})
	f.yLabel = setAxis(&p.Y, axis{quantity: "fraction of samples ≥ latency", log: true})
	return f, nil
}

// sampleRange checks the series and returns their smallest positive and
// their largest sample.
func sampleRange(series []Series) (lo, hi float64, err error) {
	if len(series) == 0 {
		return 0, 0, errors.New("plot: no series")
	}
	lo = math.Inf(1)
	for _, s := range series {
		for _, run := range append([][]uint64{s.Samples}, s.Others...) {
			if len(run) == 0 {
				return 0, 0, fmt.Errorf("plot: series %q has a run with no samples", s.Name)
			}
			for _, x := range run {
				if x > 0 {
					lo = min(lo, float64(x))
				}
				hi = max(hi, float64(x))
			}
		}
	}
	return lo, hi, nil
}

// addCurves draws the series: each one's other runs thin and light, then
// its full run in a heavy line of the same colour, with one legend entry
// per series and one for all the thin curves.
func (f *figure) addCurves(series []Series, opt Options, tail bool) error {
	lines, err := curves(series, opt, tail)
	if err != nil {
		return err
	}
	maxPts := opt.MaxPoints
	if maxPts <= 0 {
		maxPts = 2000
	}
	floor := logFloor(series, opt.LogX)
	var heavy []*plotter.Line
	var lightLine *plotter.Line
	for i, s := range series {
		for _, run := range s.Others {
			pts := cdfPoints(run, maxPts, floor)
			if tail {
				survival(pts, len(run))
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return err
			}
			l.Color = light(plotutil.Color(i))
			l.Width = lightWidth
			f.p.Add(l)
			f.noteTail(pts, tail)
			lightLine = l
		}
		pts := lines[2*i+1].(plotter.XYs)
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = heavyWidth
		f.noteTail(pts, tail)
		heavy = append(heavy, l)
	}
	for i, l := range heavy {
		f.p.Add(l)
		f.addLegend(series[i].Name, l)
	}
	if lightLine != nil {
		thumb := *lightLine
		thumb.Color = color.Gray{Y: 0x90}
		thumb.Width = lightWidth
		label := opt.OthersLabel
		if label == "" {
			label = "thin lines: other runs"
		}
		f.addLegend(label, &thumb)
	}
	return nil
}

// noteTail keeps the points of a tail curve from the 99th percentile on,
// the region the tests keep free of the legend.
func (f *figure) noteTail(pts plotter.XYs, tail bool) {
	if !tail {
		return
	}
	for _, pt := range pts {
		if pt.Y <= 0.01 {
			f.tail = append(f.tail, vg.Point{X: vg.Length(pt.X), Y: vg.Length(pt.Y)})
		}
	}
}

// curves turns the series into plotutil's name, points arguments: CDFs,
// or survival functions when tail is set. Names must be distinct, or the
// legend could not tell two curves apart.
func curves(series []Series, opt Options, tail bool) ([]any, error) {
	maxPts := opt.MaxPoints
	if maxPts <= 0 {
		maxPts = 2000
	}
	floor := logFloor(series, opt.LogX)
	seen := make(map[string]bool, len(series))
	var lines []any
	for _, s := range series {
		if len(s.Samples) == 0 {
			return nil, fmt.Errorf("plot: series %q has no samples", s.Name)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("plot: two series are both called %q", s.Name)
		}
		seen[s.Name] = true
		pts := cdfPoints(s.Samples, maxPts, floor)
		if tail {
			survival(pts, len(s.Samples))
		}
		lines = append(lines, s.Name, pts)
	}
	return lines, nil
}

// survival turns the CDF points of n samples into the fractions at or
// above each point. The fraction of samples ≥ the i-th smallest (0-based)
// is (n−i)/n = 1 − i/n: the CDF point's fraction (i+1)/n less one step,
// so that the largest sample sits at 1/n, not 0.
func survival(pts plotter.XYs, n int) {
	for k := range pts {
		pts[k].Y = 1 - pts[k].Y + 1/float64(n)
	}
}

// logFloor is where a logarithmic latency axis draws samples of 0: at the
// smallest positive sample of all the series, or at 1 ns if there is
// none. It is 0, no floor, on a linear axis.
func logFloor(series []Series, logX bool) float64 {
	if !logX {
		return 0
	}
	floor := math.Inf(1)
	for _, s := range series {
		for _, run := range append([][]uint64{s.Samples}, s.Others...) {
			for _, x := range run {
				if x > 0 {
					floor = min(floor, float64(x))
				}
			}
		}
	}
	if math.IsInf(floor, 1) {
		return 1
	}
	return floor
}

// cdfPoints returns the CDF of samples as (µs, fraction) points at up to n
// evenly spaced ranks, the last being the maximum; samples below floor
// (ns) are drawn at floor.
func cdfPoints(samples []uint64, n int, floor float64) plotter.XYs {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	total := len(sorted)
	step := max(1, total/n)
	var pts plotter.XYs
	for i := step - 1; ; i += step {
		if i >= total-1 {
			i = total - 1
		}
		x := max(float64(sorted[i]), floor)
		pts = append(pts, plotter.XY{X: x / 1000, Y: float64(i+1) / float64(total)})
		if i == total-1 {
			break
		}
	}
	return pts
}
