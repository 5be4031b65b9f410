// Package plot draws simulator results as PNG images with gonum/plot:
// latency distributions (one CDF or tail per variant), the CPU share of
// tasks or workloads over time, and a figure's per-seed values on both
// sides of an experiment.
package plot

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/schedmodel/fairclass/sim"
)

// Options size and shape a plot.
type Options struct {
	// Title is printed above the plot.
	Title string
	// Width and Height are the image size in points (default 640×400).
	Width, Height vg.Length
	// LogX draws the latency axis logarithmically; samples of 0 are drawn
	// at the smallest positive sample (or 1 ns).
	LogX bool
	// MaxPoints bounds the points drawn per curve (default 2000): a CDF is
	// drawn through that many evenly spaced ranks, always including the
	// largest sample.
	MaxPoints int
}

func (o Options) size() (vg.Length, vg.Length) {
	w, h := o.Width, o.Height
	if w <= 0 {
		w = 640
	}
	if h <= 0 {
		h = 400
	}
	return w, h
}

// Series is one variant's latency samples, in nanoseconds.
type Series struct {
	Name    string   // legend entry
	Samples []uint64 // latencies, ns
}

// LatencyCDF writes a PNG with the cumulative distribution of each
// series' latency: for x in µs, the fraction of samples ≤ x.
func LatencyCDF(w io.Writer, series []Series, opt Options) error {
	if len(series) == 0 {
		return errors.New("plot: no series")
	}
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = "latency (µs)"
	p.Y.Label.Text = "fraction of samples ≤ latency"
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	if opt.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	lines, err := curves(series, opt, false)
	if err != nil {
		return err
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return err
	}
	return write(w, p, opt)
}

// LatencyTail writes a PNG with the tail of each series' latency
// distribution, 1 − CDF on logarithmic axes: for x in µs, the fraction of
// samples ≥ x, down to 1/n at the largest sample. The tail is where the
// seed threads' figures (99.9th percentile, maximum) live, and a log scale
// keeps it from collapsing onto the axis.
func LatencyTail(w io.Writer, series []Series, opt Options) error {
	if len(series) == 0 {
		return errors.New("plot: no series")
	}
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = "latency (µs)"
	p.Y.Label.Text = "fraction of samples ≥ latency"
	p.Add(plotter.NewGrid())
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	opt.LogX = true
	lines, err := curves(series, opt, true)
	if err != nil {
		return err
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return err
	}
	return write(w, p, opt)
}

// curves turns the series into plotutil's name, points arguments: CDFs,
// or survival functions when tail is set. Names must be distinct, or the
// legend could not tell two curves apart.
func curves(series []Series, opt Options, tail bool) ([]any, error) {
	maxPts := opt.MaxPoints
	if maxPts <= 0 {
		maxPts = 2000
	}
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
		pts := cdfPoints(s.Samples, maxPts, opt.LogX)
		if tail {
			// The fraction of samples ≥ the i-th smallest (0-based) is
			// (n−i)/n = 1 − i/n: the CDF point's fraction (i+1)/n less
			// one step, so that the largest sample sits at 1/n, not 0.
			n := float64(len(s.Samples))
			for k := range pts {
				pts[k].Y = 1 - pts[k].Y + 1/n
			}
		}
		lines = append(lines, s.Name, pts)
	}
	return lines, nil
}

// cdfPoints returns the CDF of samples as (µs, fraction) points at up to n
// evenly spaced ranks, the last being the maximum.
func cdfPoints(samples []uint64, n int, logX bool) plotter.XYs {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	floor := 1.0 // ns, for a logarithmic axis
	if i, _ := slices.BinarySearch(sorted, 1); i < len(sorted) {
		floor = float64(sorted[i])
	}
	total := len(sorted)
	step := max(1, total/n)
	var pts plotter.XYs
	for i := step - 1; ; i += step {
		if i >= total-1 {
			i = total - 1
		}
		x := float64(sorted[i])
		if logX && x < floor {
			x = floor
		}
		pts = append(pts, plotter.XY{X: x / 1000, Y: float64(i+1) / float64(total)})
		if i == total-1 {
			break
		}
	}
	return pts
}

// RuntimeShare writes a PNG of each task's share of the machine's CPU time
// in every sampling interval of r.Shares (Config.ShareInterval must have
// been set): Δruntime / (Δt · CPUs), in percent. With byWorkload, the tasks
// of a workload are summed into one line.
func RuntimeShare(w io.Writer, r *sim.Report, byWorkload bool, opt Options) error {
	sh := r.Shares
	if sh == nil || len(sh.TimesNs) < 2 {
		return errors.New("plot: the report has no share series (set Config.ShareInterval)")
	}
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "share of the CPUs (%)"
	p.Y.Min, p.Y.Max = 0, 105
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	type group struct {
		name  string
		tasks []int
	}
	var groups []group
	if byWorkload {
		for _, wr := range r.Workloads {
			g := group{name: wr.Name}
			for k := wr.FirstTask; k < wr.FirstTask+wr.NTasks; k++ {
				g.tasks = append(g.tasks, k)
			}
			groups = append(groups, g)
		}
	} else {
		for k, t := range r.Tasks {
			groups = append(groups, group{name: t.Name, tasks: []int{k}})
		}
	}
	var lines []any
	for _, g := range groups {
		var pts plotter.XYs
		for i := 1; i < len(sh.TimesNs); i++ {
			dt := float64(sh.TimesNs[i]-sh.TimesNs[i-1]) * float64(r.CPUs)
			var d float64
			for _, k := range g.tasks {
				d += float64(sh.Runtime[i][k] - sh.Runtime[i-1][k])
			}
			// share of the interval = Δruntime / (Δt · CPUs)
			pts = append(pts, plotter.XY{X: float64(sh.TimesNs[i]) / 1e9, Y: 100 * d / dt})
		}
		lines = append(lines, g.name, pts)
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return err
	}
	return write(w, p, opt)
}

func write(w io.Writer, p *plot.Plot, opt Options) error {
	wd, ht := opt.size()
	wt, err := p.WriterTo(wd, ht, "png")
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// Paired is one figure measured on two sides of an experiment (the kernel
// before a patch and with it) in each of several seeds.
type Paired struct {
	Figure string    // what is measured, with its unit: the axes' label
	Base   string    // the first side's name: the x axis
	Patch  string    // the second side's name: the y axis
	X, Y   []float64 // per seed: X[i] on the base side, Y[i] with the patch
}

// PerSeed writes a PNG of a paired figure, one point per seed at (base,
// patch), with the diagonal y = x: points below it are seeds in which the
// patch lowered the figure, points above it seeds in which it raised it.
func PerSeed(w io.Writer, d Paired, opt Options) error {
	if len(d.X) == 0 || len(d.X) != len(d.Y) {
		return fmt.Errorf("plot: %d base and %d patch values (want the same number, at least one)", len(d.X), len(d.Y))
	}
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = d.Base + ": " + d.Figure
	p.Y.Label.Text = d.Patch + ": " + d.Figure
	p.Add(plotter.NewGrid())
	pts := make(plotter.XYs, len(d.X))
	lo, hi := d.X[0], d.X[0]
	for i := range d.X {
		pts[i] = plotter.XY{X: d.X[i], Y: d.Y[i]}
		lo, hi = min(lo, d.X[i], d.Y[i]), max(hi, d.X[i], d.Y[i])
	}
	if hi == lo {
		hi = lo + 1
	}
	pad := (hi - lo) / 20
	lo, hi = lo-pad, hi+pad
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return err
	}
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Radius = vg.Points(3)
	p.Add(diag, sc)
	p.Legend.Add("one seed", sc)
	p.Legend.Add("no change (y = x)", diag)
	p.Legend.Top = true
	p.Legend.Left = true
	return write(w, p, opt)
}
