package replay

import (
	"slices"
	"testing"
)

// The default window: a 1-2-5 width that makes 200 windows or fewer, the
// smallest such, from 1 µs up.
func TestTimelineWidth(t *testing.T) {
	for _, tc := range []struct {
		span, want int64
	}{
		{0, 1000},             // one window of the smallest width
		{199_999, 1000},       // 200 windows of 1 µs
		{200_000, 2000},       // 200 windows of 1 µs would leave the end out: 101 of 2 µs
		{4_478_000, 50_000},   // the panopticon excerpt: 4.478 ms in 90 windows of 50 µs
		{43_101_000, 500_000}, // the whole panopticon capture: 87 windows of 500 µs
		{999_000_000, 5_000_000},
		{8_981_736_900, 50_000_000}, // the Perfetto capture: 180 windows of 50 ms
		{60_000_000_000, 500_000_000},
	} {
		r := &Report{Start: 7, End: 7 + tc.span}
		if got := r.TimelineWidth(); got != tc.want {
			t.Errorf("span %d ns: width %d, want %d", tc.span, got, tc.want)
		}
		if n := tc.span/tc.want + 1; n > 200 {
			t.Errorf("span %d ns: %d windows", tc.span, n)
		}
	}
}

// The timeline counts every scored pick once, in the window of its time:
// its windows sum to the overall agreement and, CPU by CPU, to each CPU's;
// and the latency samples are those the distributions summarise.
func TestTimelineSumsToTheReport(t *testing.T) {
	r, err := Pinned(roundTripEvents(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Picks) != r.Overall.Scored || r.Overall.Scored == 0 {
		t.Fatalf("%d picks kept, %d scored", len(r.Picks), r.Overall.Scored)
	}
	width := r.TimelineWidth()
	sum := func(ws []Window) (a Agreement) {
		for i, w := range ws {
			if w.Start != r.Start+int64(i)*width {
				t.Errorf("window %d starts at %d, want %d", i, w.Start, r.Start+int64(i)*width)
			}
			a.Scored += w.Scored
			a.Agreed += w.Agreed
		}
		return a
	}
	all := r.Timeline(-1, 0)
	if got := sum(all); got != r.Overall {
		t.Errorf("timeline: %+v, overall %+v", got, r.Overall)
	}
	if want := (r.End-r.Start)/width + 1; int64(len(all)) != want {
		t.Errorf("%d windows, want %d", len(all), want)
	}
	for _, c := range r.PerCPU {
		if got := sum(r.Timeline(c.CPU, 0)); got != c.Agreement {
			t.Errorf("CPU %d: timeline %+v, report %+v", c.CPU, got, c.Agreement)
		}
	}
	// One window holds everything.
	if one := r.Timeline(-1, r.End-r.Start+1); len(one) != 1 || one[0].Agreement != r.Overall || one[0].Start != r.Start {
		t.Errorf("one window: %+v", one)
	}
	for _, l := range r.Latency {
		if len(l.WakeupSamples) != l.Wakeup.Count || len(l.RunDelaySamples) != l.RunDelay.Count ||
			!slices.IsSorted(l.WakeupSamples) || !slices.IsSorted(l.RunDelaySamples) {
			t.Fatalf("%s-%d: %d and %d samples for %+v and %+v", l.Comm, l.Pid, len(l.WakeupSamples), len(l.RunDelaySamples), l.Wakeup, l.RunDelay)
		}
		if n := l.RunDelay.Count; n > 0 && l.RunDelaySamples[n-1] != l.RunDelay.Max {
			t.Errorf("%s-%d: largest run delay %d, max %d", l.Comm, l.Pid, l.RunDelaySamples[n-1], l.RunDelay.Max)
		}
	}
}

// Mode B keeps the wakeup latencies it summarises: as many as each
// side's count, the largest its maximum.
func TestFreeSamples(t *testing.T) {
	r, err := Free(roundTripEvents(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		name string
		xs   []int64
		d    Dist
	}{{"trace", r.Samples.Trace, r.Trace.Wakeup}, {"model", r.Samples.Model, r.Model.Wakeup}} {
		if len(s.xs) != s.d.Count || s.d.Count == 0 || s.xs[len(s.xs)-1] != s.d.Max {
			t.Errorf("%s: %d samples for %+v", s.name, len(s.xs), s.d)
		}
	}
	if r.Samples.Toggled != nil {
		t.Error("toggled samples without Options.Compare")
	}
}
