package plot

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// A unit of time for axis labels.
type unit struct {
	name string
	ns   float64 // nanoseconds per unit
}

// units are the units an axis of durations may use, smallest first.
var units = []unit{{"ns", 1}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}

// unitFor is the largest unit in which ns is at least 1: 17 500 000 ns is
// 17.5 ms, 8e9 ns is 8 s, 999 ns stays 999 ns.
func unitFor(ns float64) unit {
	u := units[0]
	for _, c := range units[1:] {
		if math.Abs(ns) >= c.ns {
			u = c
		}
	}
	return u
}

// spansDecades reports whether positive values from lo to hi cover two
// decades or more, the range at which an axis is drawn logarithmically.
func spansDecades(lo, hi float64) bool {
	return lo > 0 && hi/lo >= 100
}

// axis is what an axis shows: a quantity, in durations or in plain numbers,
// on a linear or logarithmic scale. Its ticks and its label come from the
// range the data gave the plot's axis, so setAxis runs after every plotter
// has been added.
type axis struct {
	quantity string  // "latency": the label without its unit
	nsPer    float64 // nanoseconds per data unit for durations; 0 for plain numbers
	log      bool
}

// setAxis gives a plot axis its scale and tick marks and returns its
// label. A duration axis names its unit in the label: "latency (ms)" on a
// linear scale, with ticks in that unit, chosen from the largest value; on
// a log scale each decade is labelled with its own unit ("100 µs", "1 ms")
// and the label names the units it uses, "latency (log scale; µs, ms)".
//
// The figure draws the label itself (see figure.draw), so the axis keeps
// none: gonum centres a vertical axis' label on the arithmetic middle of
// its range, which on a log scale is near the top, and shrinks the
// plotting area to make room for it there.
func setAxis(a *plot.Axis, ax axis) string {
	if ax.log && a.Min <= 0 {
		ax.log = false // no logarithm of 0: keep the linear scale
	}
	if ax.log && a.Min >= a.Max {
		// One value: gonum would widen the range by ±1, below 0 for a
		// value under 1; widen it by a factor of 2 instead.
		a.Min, a.Max = a.Min/2, a.Max*2
	}
	t := ticker{nsPer: ax.nsPer, log: ax.log}
	if ax.log {
		a.Scale = plot.LogScale{}
	}
	a.Tick.Marker = t
	a.Label.Text = ""
	return t.label(ax.quantity, a.Min, a.Max)
}

// ticker labels an axis in readable numbers: never an exponent, never a
// duration in raw nanoseconds.
type ticker struct {
	nsPer float64 // as in axis
	log   bool
}

// label is the axis label of the quantity over [lo, hi].
func (t ticker) label(quantity string, lo, hi float64) string {
	if t.nsPer == 0 {
		if t.log {
			return quantity + " (log scale)"
		}
		return quantity
	}
	if !t.log {
		return quantity + " (" + unitFor(hi*t.nsPer).name + ")"
	}
	var names []string
	for _, tk := range t.Ticks(lo, hi) {
		if tk.Label == "" {
			continue
		}
		_, name, _ := strings.Cut(tk.Label, " ")
		if len(names) == 0 || names[len(names)-1] != name {
			names = append(names, name)
		}
	}
	return quantity + " (log scale; " + strings.Join(names, ", ") + ")"
}

// Ticks implements plot.Ticker.
func (t ticker) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) { // also NaN
		hi = lo + 1
	}
	if t.log && lo > 0 {
		return t.decades(lo, hi)
	}
	scale := 1.0 // data units per tick unit
	u := unit{ns: 1}
	if t.nsPer != 0 {
		u = unitFor(hi * t.nsPer)
		scale = u.ns / t.nsPer
	}
	ticks := plot.DefaultTicks{}.Ticks(lo/scale, hi/scale)
	// The labelled ticks are evenly spaced: their step sets the decimals.
	step := 0.0
	var prev float64
	n := 0
	for _, tk := range ticks {
		if tk.Label == "" {
			continue
		}
		if n > 0 && step == 0 {
			step = tk.Value - prev
		}
		prev = tk.Value
		n++
	}
	prec := 0
	if step > 0 {
		prec = max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	}
	// Ticks need not be multiples of their step (1.5, 2.5, 3.5 by 1):
	// every labelled value gets the decimals it needs, or two labels
	// would round to one number.
	for _, tk := range ticks {
		if tk.Label == "" {
			continue
		}
		if _, frac, ok := strings.Cut(plain(tk.Value), "."); ok {
			prec = max(prec, len(frac))
		}
	}
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', prec, 64)
		}
		ticks[i].Value *= scale
	}
	return ticks
}

// decades are the ticks of a log axis: a labelled tick at every power of
// ten in [lo, hi], unlabelled ones at its multiples 2 to 9. A range
// holding fewer than two powers of ten has its multiples labelled too.
func (t ticker) decades(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	labelled := 0
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow10(e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 {
				tk.Label = t.format(v)
				labelled++
			}
			ticks = append(ticks, tk)
		}
	}
	if labelled < 2 {
		for i := range ticks {
			ticks[i].Label = t.format(ticks[i].Value)
		}
	}
	return ticks
}

// format is one value of a log axis: a plain number, or a duration in the
// largest unit that keeps it at least 1 ("100 µs", "1 ms", "10 s").
func (t ticker) format(v float64) string {
	if t.nsPer == 0 {
		return plain(v)
	}
	ns := v * t.nsPer
	u := unitFor(ns)
	return plain(ns/u.ns) + " " + u.name
}

// plain writes a value without an exponent and without the noise of
// binary fractions (0.30000000000000004 is 0.3).
func plain(v float64) string {
	s := strconv.FormatFloat(v, 'g', 10, 64)
	f, _ := strconv.ParseFloat(s, 64)
	return strconv.FormatFloat(f, 'f', -1, 64)
}
