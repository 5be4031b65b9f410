// Package plot draws simulator results as PNG images with gonum/plot:
// latency distributions (one CDF per variant) and the CPU share of tasks
// or workloads over time.
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
	maxPts := opt.MaxPoints
	if maxPts <= 0 {
		maxPts = 2000
	}
	var lines []any
	for _, s := range series {
		if len(s.Samples) == 0 {
			return fmt.Errorf("plot: series %q has no samples", s.Name)
		}
		lines = append(lines, s.Name, cdfPoints(s.Samples, maxPts, opt.LogX))
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return err
	}
	return write(w, p, opt)
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
