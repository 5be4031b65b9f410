package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/sim/plot"
)

// Seed 002 with energy-aware scheduling (--eas). The thread measured on
// an RB5 running arm64's defconfig, which builds schedutil, and the RB5's
// device tree gives its CPUs an energy model: the kernel the thread ran
// most likely had EAS on. With --eas, seed 002 also runs its two
// custom-slice sides with the RB5's energy model attached (EAS on), and
// prices every run, with EAS on or off, by the same model.

// easModel is the energy model of the latency machine: energy.RB5 for
// the RB5 (its voltages assumed, docs/energy.md), and for --quick's two
// CPUs the RB5's little domain on CPU 0 and its prime domain on CPU 1.
func easModel(o options) *energy.Model {
	if !o.quick {
		return energy.RB5()
	}
	s := energy.RB5().Spec()
	little, prime := s.Domains[0], s.Domains[len(s.Domains)-1]
	little.CPUs, prime.CPUs = []int{0}, []int{1}
	m, err := energy.New(energy.Spec{Domains: []energy.DomainSpec{little, prime}})
	if err != nil {
		panic(err) // the preset's own domains
	}
	return m
}

// easSide is one side of the EAS comparison: its reports by seed.
type easSide struct {
	title   string
	reports []*sim.Report
}

// energyJ is a run's estimated energy in joules.
func energyJ(r *sim.Report) float64 { return r.Energy.Meter.TotalUJ / 1e6 }

// printEAS prints the comparison of the custom-slice sides with EAS off
// and on: per side, the median over the seeds (and the 10th–90th
// percentile range) of the latency figures, the estimated energy, the
// EAS placements and the time overutilized.
func printEAS(w io.Writer, o options, d time.Duration, sides []easSide) {
	fmt.Fprintf(w, "with EAS (--eas): the RB5 energy model (energy.RB5, voltages assumed) attached to the fair class, so that these\n")
	fmt.Fprintf(w, "sides model energy-aware placement, beside the runs above priced by the same model; energy estimated at the\n")
	fmt.Fprintf(w, "states schedutil would pick, time at max frequency;\n")
	fmt.Fprintf(w, "median over %s (p10-p90)\n", o.seedsText())
	fmt.Fprintf(w, "%-26s", "")
	for _, s := range sides {
		fmt.Fprintf(w, " %26s", s.title)
	}
	fmt.Fprintln(w)
	row := func(label string, format func(float64) string, stat func(*sim.Report) float64) {
		fmt.Fprintf(w, "%-26s", label)
		for _, s := range sides {
			vals := make([]float64, len(s.reports))
			for i, r := range s.reports {
				vals[i] = stat(r)
			}
			cell := fmt.Sprintf("%s (%s-%s)", format(quantile(vals, 0.5)), format(quantile(vals, 0.1)), format(quantile(vals, 0.9)))
			fmt.Fprintf(w, " %26s", cell)
		}
		fmt.Fprintln(w)
	}
	lat := func(f func(sim.LatencySummary) uint64) func(*sim.Report) float64 {
		return func(r *sim.Report) float64 { return float64(f(*r.Workloads[0].Latency)) / 1000 }
	}
	n0 := func(x float64) string { return fmt.Sprintf("%.0f", x) }
	n2 := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	n1 := func(x float64) string { return fmt.Sprintf("%.1f", x) }
	row("p50 latency (us)", n0, lat(func(s sim.LatencySummary) uint64 { return s.P50 }))
	row("p99.9 latency (us)", n0, lat(p999))
	row("max latency (us)", n0, lat(maxLat))
	row("energy (J)", n2, energyJ)
	for i, name := range []string{"energy little CPUs (J)", "energy gold CPUs (J)", "energy prime CPU (J)"} {
		if o.quick && i == 1 {
			continue // --quick's model has no gold domain
		}
		k := i
		if o.quick && i == 2 {
			k = 1
		}
		row(name, n2, func(r *sim.Report) float64 { return r.Energy.Meter.Domains[k].UJ / 1e6 })
	}
	row("EAS placements / s", n0, func(r *sim.Report) float64 { return float64(r.Energy.Placements) / d.Seconds() })
	row("overutilized (% of time)", n1, func(r *sim.Report) float64 {
		return 100 * float64(r.Energy.OverutilizedNs) / float64(max(r.Energy.Meter.ElapsedNs, 1))
	})
	row("migrations / s", n0, func(r *sim.Report) float64 { return float64(r.Migrations) / d.Seconds() })
	fmt.Fprintln(w)
}

// seed002EAS is seed 002 with --eas: the thread's table and verdicts as
// without it (the runs are the same, only priced), then the EAS
// comparison and the thread's p99.9 direction with EAS on; with --out,
// the plot of energy against p99.9 latency for the four sides.
func seed002EAS(o options, w io.Writer, progress func(float64), d time.Duration, cols []latencyColumn) ([]*figure, error) {
	s, reports, eas, err := runLatencyEAS(o, w, progress, "002", d, cols, easModel(o))
	if err != nil {
		return nil, err
	}
	printBesideThread(w, o, cols, s, thread002)
	sides := []easSide{{title: cols[1].title}, {title: cols[2].title}, {title: cols[1].title + ", EAS"}, {title: cols[2].title + ", EAS"}}
	easSums := make([][]sim.LatencySummary, o.runs)
	for k := range o.seedList() {
		sides[0].reports = append(sides[0].reports, reports[k*len(cols)+1])
		sides[1].reports = append(sides[1].reports, reports[k*len(cols)+2])
		sides[2].reports = append(sides[2].reports, eas[2*k])
		sides[3].reports = append(sides[3].reports, eas[2*k+1])
		easSums[k] = []sim.LatencySummary{{}, *eas[2*k].Workloads[0].Latency, *eas[2*k+1].Workloads[0].Latency}
	}
	printEAS(w, o, d, sides)
	if o.out != "" {
		var pts []plot.EnergySide
		for _, sd := range sides {
			es := plot.EnergySide{Name: sd.title}
			for _, r := range sd.reports {
				es.LatencyNs = append(es.LatencyNs, float64(r.Workloads[0].Latency.P999))
				es.EnergyUJ = append(es.EnergyUJ, r.Energy.Meter.TotalUJ)
			}
			pts = append(pts, es)
		}
		title := fmt.Sprintf("seed 002: estimated energy against p99.9 wakeup latency, EAS off and on, %s", o.seedsText())
		err := writePNG(o, "seed002-energy-latency.png", func(w io.Writer) error {
			return plot.EnergyLatency(w, "p99.9 wakeup latency", pts, plot.Options{Title: title})
		})
		if err != nil {
			return nil, err
		}
	}
	easCols := []latencyColumn{{}, {title: sides[2].title}, {title: sides[3].title}}
	return []*figure{
		lower("99.9th percentile wakeup latency lower with PREEMPT_FLUSH_DELAYED (thread: 2288 -> 727 us)", "p99.9 wakeup latency", cols, s, p999),
		lower("maximum wakeup latency lower with PREEMPT_FLUSH_DELAYED (thread: 9252 -> 7461 us)", "maximum wakeup latency", cols, s, maxLat),
		lower("99.9th percentile wakeup latency lower with PREEMPT_FLUSH_DELAYED, EAS on (thread: 2288 -> 727 us)", "p99.9 wakeup latency", easCols, easSums, p999),
		lower("maximum wakeup latency lower with PREEMPT_FLUSH_DELAYED, EAS on (thread: 9252 -> 7461 us)", "maximum wakeup latency", easCols, easSums, maxLat),
	}, nil
}
