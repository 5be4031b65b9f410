package plot

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// EnergySide is one side of an experiment priced by an energy model: per
// seed, a wakeup latency figure and the run's estimated energy.
type EnergySide struct {
	Name string // legend entry
	// LatencyNs[i] and EnergyUJ[i] are seed i's latency figure (ns) and
	// estimated energy (µJ).
	LatencyNs []float64
	EnergyUJ  []float64
}

// EnergyLatency writes a PNG of energy against wakeup latency: one point
// per side and seed at (latency, energy), each side in its own colour and
// shape, so that a side that trades latency for energy shows as a cloud
// up and to the left of another. Latency (what figure names, "p99.9
// wakeup latency") is drawn in µs, ms or s on a logarithmic axis (a
// linear one if some latency is 0), energy in joules, logarithmic when
// its values span two decades or more. Every side
// needs as many latencies as energies, at least one, all finite.
func EnergyLatency(w io.Writer, figure string, sides []EnergySide, opt Options) error {
	f, err := energyFigure(figure, sides, opt)
	if err != nil {
		return err
	}
	return f.write(w, opt)
}

func energyFigure(figure string, sides []EnergySide, opt Options) (*figure, error) {
	if len(sides) == 0 {
		return nil, fmt.Errorf("plot: no sides to draw")
	}
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, s := range sides {
		if len(s.LatencyNs) == 0 || len(s.LatencyNs) != len(s.EnergyUJ) {
			return nil, fmt.Errorf("plot: side %q: %d latencies and %d energies (want the same number, at least one)", s.Name, len(s.LatencyNs), len(s.EnergyUJ))
		}
		for i := range s.LatencyNs {
			x, y := s.LatencyNs[i], s.EnergyUJ[i]/1e6
			if math.IsInf(x, 0) || math.IsNaN(x) || math.IsInf(y, 0) || math.IsNaN(y) {
				return nil, fmt.Errorf("plot: side %q: values must be finite", s.Name)
			}
			xlo, xhi = min(xlo, x), max(xhi, x)
			ylo, yhi = min(ylo, y), max(yhi, y)
		}
	}
	// Latency is drawn on a log axis, as in the tail plots: its ticks
	// then fall on round durations (1, 2, 3 ms …) whatever the range.
	logX, logY := xlo > 0, spansDecades(ylo, yhi)
	xlo, xhi = pad(xlo, xhi, logX)
	ylo, yhi = pad(ylo, yhi, logY)
	f := newFigure(opt.Title)
	p := f.p
	p.Add(plotter.NewGrid())
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.PlusGlyph{}}
	for k, s := range sides {
		pts := make(plotter.XYs, len(s.LatencyNs))
		for i := range pts {
			pts[i] = plotter.XY{X: s.LatencyNs[i], Y: s.EnergyUJ[i] / 1e6}
			f.tail = append(f.tail, vg.Point{X: vg.Length(pts[i].X), Y: vg.Length(pts[i].Y)})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Radius = vg.Points(4)
		sc.GlyphStyle.Shape = shapes[k%len(shapes)]
		sc.GlyphStyle.Color = plotutil.Color(k)
		p.Add(sc)
		f.addLegend(perSeedLegend(s.Name, len(pts)), sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xlo, xhi, ylo, yhi
	f.xLabel = setAxis(&p.X, axis{quantity: figure, nsPer: 1, log: logX})
	f.yLabel = setAxis(&p.Y, axis{quantity: "estimated energy (J)", log: logY})
	return f, nil
}
