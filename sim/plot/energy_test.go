package plot

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
)

// An energy–latency plot draws one point per side and seed, in joules
// against a duration axis, and refuses sides it cannot draw.
func TestEnergyLatency(t *testing.T) {
	sides := []EnergySide{
		{Name: "EAS off", LatencyNs: []float64{5.2e6, 5.4e6, 7.6e6}, EnergyUJ: []float64{1.54e7, 1.55e7, 1.53e7}},
		{Name: "EAS on", LatencyNs: []float64{4.2e6, 4.7e6, 4.8e6}, EnergyUJ: []float64{1.2e7, 1.3e7, 1.25e7}},
	}
	f, err := energyFigure("p99.9 wakeup latency", sides, Options{Title: "energy against latency"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.tail) != 6 {
		t.Errorf("%d points, want 6", len(f.tail))
	}
	if !strings.Contains(f.xLabel, "ms") || !strings.Contains(f.yLabel, "J") {
		t.Errorf("axes %q and %q, want ms and J", f.xLabel, f.yLabel)
	}
	var b bytes.Buffer
	if err := EnergyLatency(&b, "p99.9 wakeup latency", sides, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&b); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	for _, bad := range [][]EnergySide{
		nil,
		{{Name: "uneven", LatencyNs: []float64{1}, EnergyUJ: nil}},
		{{Name: "empty"}},
		{{Name: "nan", LatencyNs: []float64{math.NaN()}, EnergyUJ: []float64{1}}},
	} {
		if err := EnergyLatency(&b, "latency", bad, Options{}); err == nil {
			t.Errorf("sides %+v drawn, want an error", bad)
		}
	}
}
