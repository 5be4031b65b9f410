package plot

import (
	"errors"
	"io"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/schedmodel/fairclass/sim"
)

// RuntimeShare writes a PNG of each task's share of the machine's CPU time
// in every sampling interval of r.Shares (Config.ShareInterval must have
// been set): Δruntime / (Δt · CPUs), in percent, against the simulated
// time in the unit its length calls for. With byWorkload, the tasks of a
// workload are summed into one line.
func RuntimeShare(w io.Writer, r *sim.Report, byWorkload bool, opt Options) error {
	f, err := shareFigure(r, byWorkload, opt)
	if err != nil {
		return err
	}
	return f.write(w, opt)
}

func shareFigure(r *sim.Report, byWorkload bool, opt Options) (*figure, error) {
	sh := r.Shares
	if sh == nil || len(sh.TimesNs) < 2 {
		return nil, errors.New("plot: the report has no share series (set Config.ShareInterval)")
	}
	f := newFigure(opt.Title)
	p := f.p
	p.Y.Min, p.Y.Max = 0, 105
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
	for i, g := range groups {
		var pts plotter.XYs
		for j := 1; j < len(sh.TimesNs); j++ {
			dt := float64(sh.TimesNs[j]-sh.TimesNs[j-1]) * float64(r.CPUs)
			var d float64
			for _, k := range g.tasks {
				d += float64(sh.Runtime[j][k] - sh.Runtime[j-1][k])
			}
			// share of the interval = Δruntime / (Δt · CPUs)
			pts = append(pts, plotter.XY{X: float64(sh.TimesNs[j]), Y: 100 * d / dt})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = heavyWidth
		p.Add(l)
		f.addLegend(g.name, l)
	}
	f.xLabel = setAxis(&p.X, axis{quantity: "simulated time", nsPer: 1})
	f.yLabel = setAxis(&p.Y, axis{quantity: "share of the CPUs (%)"})
	return f, nil
}
