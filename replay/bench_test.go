package replay

import (
	"testing"
	"time"
)

// BenchmarkPinned replays simulated runs of growing length (4 CPUs, the
// round trip's workload); ns/event is the cost of one trace event.
func BenchmarkPinned(b *testing.B) {
	for _, d := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond} {
		cfg := roundTripConfig()
		cfg.Duration = d
		evs := simulate(b, cfg)
		b.Run(d.String(), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := Pinned(evs, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
		})
	}
}
