package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Paired is one figure measured on two sides of an experiment (the kernel
// before a patch and with it) in each of several seeds.
type Paired struct {
	// Figure is what is measured: the axes' label. With Durations it
	// names no unit (the axes add the one they choose); otherwise it
	// carries its own ("context switches").
	Figure string
	Base   string    // the first side's name: the x axis
	Patch  string    // the second side's name: the y axis
	X, Y   []float64 // per seed: X[i] on the base side, Y[i] with the patch
	// Durations says that X and Y are durations in nanoseconds, drawn in
	// µs, ms or s.
	Durations bool
}

// PerSeed writes a PNG of a paired figure, one point per seed at (base,
// patch), with the diagonal y = x: points below it are seeds in which the
// patch lowered the figure, points above it seeds in which it raised it.
// Both axes cover the same range, logarithmic when the values span two
// decades or more, so that a patch that multiplies a figure by a thousand
// shows as a point far from the diagonal rather than a point on an axis.
func PerSeed(w io.Writer, d Paired, opt Options) error {
	f, err := perSeedFigure(d, opt)
	if err != nil {
		return err
	}
	return f.write(w, opt)
}

func perSeedFigure(d Paired, opt Options) (*figure, error) {
	if len(d.X) == 0 || len(d.X) != len(d.Y) {
		return nil, fmt.Errorf("plot: %d base and %d patch values (want the same number, at least one)", len(d.X), len(d.Y))
	}
	pts := make(plotter.XYs, len(d.X))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range d.X {
		pts[i] = plotter.XY{X: d.X[i], Y: d.Y[i]}
		lo, hi = min(lo, d.X[i], d.Y[i]), max(hi, d.X[i], d.Y[i])
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return nil, fmt.Errorf("plot: %s: values must be finite", d.Figure)
	}
	log := spansDecades(lo, hi)
	lo, hi = pad(lo, hi, log)
	f := newFigure(opt.Title)
	p := f.p
	p.Add(plotter.NewGrid())
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Radius = vg.Points(4)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Color = plotutil.Color(0)
	p.Add(diag, sc)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	f.addLegend(perSeedLegend("one seed", len(pts)), sc)
	f.addLegend("no change (y = x)", diag)
	nsPer := 0.0
	if d.Durations {
		nsPer = 1
	}
	f.xLabel = setAxis(&p.X, axis{quantity: d.Base + ": " + d.Figure, nsPer: nsPer, log: log})
	f.yLabel = setAxis(&p.Y, axis{quantity: d.Patch + ": " + d.Figure, nsPer: nsPer, log: log})
	for _, pt := range pts {
		f.tail = append(f.tail, vg.Point{X: vg.Length(pt.X), Y: vg.Length(pt.Y)})
	}
	return f, nil
}

// perSeedLegend is the legend entry of the points: what one stands for
// and how many there are, since seeds with equal values draw one point.
func perSeedLegend(one string, n int) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%s (%d seeds)", one, n)
}

// pad widens [lo, hi] so that no point sits on the frame: by a twentieth
// of the range on a linear axis, to the enclosing powers of ten (and a
// little beyond an exact one) on a logarithmic one.
func pad(lo, hi float64, log bool) (float64, float64) {
	if log {
		return math.Pow10(int(math.Floor(math.Log10(lo / 1.2)))), math.Pow10(int(math.Ceil(math.Log10(hi * 1.2))))
	}
	if hi == lo {
		hi = lo + max(1, math.Abs(lo))
	}
	p := (hi - lo) / 20
	return lo - p, hi + p
}

// Values is a one-sided figure: a quantity measured on one side of an
// experiment in each of several seeds, and optionally a bound the thread
// expects it to keep.
type Values struct {
	Figure    string    // what is measured, as in Paired
	Side      string    // the side's name
	Seeds     []uint64  // the simulation seeds: the x axis
	Y         []float64 // per seed, the value
	Durations bool      // as in Paired
	// Bound, if BoundName is not empty, is drawn as a horizontal line
	// named BoundName in the legend.
	Bound     float64
	BoundName string
}

// PerSeedValues writes a PNG of a one-sided figure: one point per
// simulation seed, and the bound it is held to.
func PerSeedValues(w io.Writer, d Values, opt Options) error {
	f, err := valuesFigure(d, opt)
	if err != nil {
		return err
	}
	return f.write(w, opt)
}

func valuesFigure(d Values, opt Options) (*figure, error) {
	if len(d.Y) == 0 || len(d.Y) != len(d.Seeds) {
		return nil, fmt.Errorf("plot: %d seeds and %d values (want the same number, at least one)", len(d.Seeds), len(d.Y))
	}
	pts := make(plotter.XYs, len(d.Y))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range d.Y {
		pts[i] = plotter.XY{X: float64(d.Seeds[i]), Y: d.Y[i]}
		lo, hi = min(lo, d.Y[i]), max(hi, d.Y[i])
	}
	if d.BoundName != "" {
		lo, hi = min(lo, d.Bound), max(hi, d.Bound)
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return nil, fmt.Errorf("plot: %s: values must be finite", d.Figure)
	}
	log := spansDecades(lo, hi)
	if !log {
		lo = min(lo, 0) // a linear axis of magnitudes starts at 0
	}
	lo, hi = pad(lo, hi, log)
	f := newFigure(opt.Title)
	p := f.p
	p.Add(plotter.NewGrid())
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Radius = vg.Points(4)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Color = plotutil.Color(0)
	p.Add(sc)
	p.Y.Min, p.Y.Max = lo, hi
	xlo, xhi := p.X.Min-0.5, p.X.Max+0.5
	p.X.Min, p.X.Max = xlo, xhi
	f.addLegend(perSeedLegend(d.Side+", one seed", len(pts)), sc)
	if d.BoundName != "" {
		b, err := plotter.NewLine(plotter.XYs{{X: xlo, Y: d.Bound}, {X: xhi, Y: d.Bound}})
		if err != nil {
			return nil, err
		}
		b.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
		b.Color = color.Gray{Y: 0x40}
		p.Add(b)
		f.addLegend(d.BoundName, b)
	}
	nsPer := 0.0
	if d.Durations {
		nsPer = 1
	}
	f.yLabel = setAxis(&p.Y, axis{quantity: d.Side + ": " + d.Figure, nsPer: nsPer, log: log})
	f.xLabel = "simulation seed"
	if len(d.Seeds) <= 20 {
		var ticks plot.ConstantTicks
		for _, s := range d.Seeds {
			ticks = append(ticks, plot.Tick{Value: float64(s), Label: fmt.Sprint(s)})
		}
		p.X.Tick.Marker = ticks
	} else {
		f.xLabel = setAxis(&p.X, axis{quantity: "simulation seed"})
	}
	for _, pt := range pts {
		f.tail = append(f.tail, vg.Point{X: vg.Length(pt.X), Y: vg.Length(pt.Y)})
	}
	return f, nil
}
