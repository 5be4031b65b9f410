package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/schedmodel/fairclass/sim/plot"
)

// figure is one quantity a thread reported, measured in every seed on the
// two sides of its experiment: the kernel the thread compares against
// (base) and the one it argues for (patch). A one-sided figure (a bound
// the patched kernel keeps) has no base label and no base values.
type figure struct {
	claim string // the thread's statement, with its own numbers
	// name is the quantity for plots: "p99.9 wakeup latency" for a
	// duration (in ns, with durations set; the plot chooses the unit),
	// with its unit for anything else.
	name      string
	durations bool
	base      string // the sides' names as the tables print them
	patch     string
	format    func(float64) string // a value as the tables print it
	// bound, if boundName is not empty, is the limit a one-sided figure
	// is held to, drawn on its plot.
	bound     float64
	boundName string
	// Per seed, in seed order.
	baseVals, patchVals []float64
	holds               []bool // the thread's direction holds in this seed
}

// add records one seed's measurement.
func (f *figure) add(base, patch float64, holds bool) {
	f.baseVals = append(f.baseVals, base)
	f.patchVals = append(f.patchVals, patch)
	f.holds = append(f.holds, holds)
}

// count is the number of seeds in which the direction holds.
func (f *figure) count() int {
	n := 0
	for _, h := range f.holds {
		if h {
			n++
		}
	}
	return n
}

// reproduced is the verdict over seeds: the direction holds in at least
// 80 % of them (8 of 10). A direction that holds in most seeds but not
// that many is a coin the simulation cannot call.
func (f *figure) reproduced() bool { return 10*f.count() >= 8*len(f.holds) }

// quantile is the q-quantile of xs by linear interpolation between the
// order statistics (the "type 7" estimator of R and NumPy): the sorted
// values at ranks ⌊h⌋ and ⌈h⌉ for h = (n−1)·q.
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	h := float64(len(s)-1) * q
	lo := int(math.Floor(h))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (h-float64(lo))*(s[hi]-s[lo])
}

// spread prints a side's median and its 10th–90th percentile range.
func (f *figure) spread(vals []float64) string {
	return fmt.Sprintf("median %s (p10–p90 %s – %s)", f.format(quantile(vals, 0.5)),
		f.format(quantile(vals, 0.1)), f.format(quantile(vals, 0.9)))
}

// print writes the verdict line and the distribution of each side.
func (f *figure) print(w io.Writer) {
	fmt.Fprintf(w, "  %s %s\n", mark(f.reproduced()), f.claim)
	if f.base != "" {
		fmt.Fprintf(w, "      %-18s %s\n", f.base+":", f.spread(f.baseVals))
	}
	fmt.Fprintf(w, "      %-18s %s\n", f.patch+":", f.spread(f.patchVals))
	fmt.Fprintf(w, "      holds in %d of %d seeds\n", f.count(), len(f.holds))
}

// plot writes the per-seed values into --out: base against patch, or for
// a one-sided figure the values by seed against their bound.
func (f *figure) plot(o options, file string) error {
	if o.out == "" {
		return nil
	}
	opt := plot.Options{Title: f.claim}
	return writePNG(o, file, func(w io.Writer) error {
		if f.base == "" {
			return plot.PerSeedValues(w, plot.Values{Figure: f.name, Side: f.patch, Seeds: o.seedList(), Y: f.patchVals,
				Durations: f.durations, Bound: f.bound, BoundName: f.boundName}, opt)
		}
		return plot.PerSeed(w, plot.Paired{Figure: f.name, Base: f.base, Patch: f.patch, X: f.baseVals, Y: f.patchVals,
			Durations: f.durations}, opt)
	})
}

// writePNG creates a file in --out and draws into it.
func writePNG(o options, name string, draw func(io.Writer) error) error {
	file, err := os.Create(filepath.Join(o.out, name))
	if err != nil {
		return err
	}
	err = draw(file)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}

func usf(ns float64) string   { return fmt.Sprintf("%.0f us", ns/1000) }
func msf(ns float64) string   { return fmt.Sprintf("%.3f ms", ns/1e6) }
func secsf(ns float64) string { return fmt.Sprintf("%.4f s", ns/1e9) }
func countf(x float64) string { return fmt.Sprintf("%.0f", x) }
