package plot_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/sim/plot"
)

func TestPlots(t *testing.T) {
	var series []plot.Series
	var last *sim.Report
	for _, tokens := range []string{"NO_PREEMPT_SHORT", ""} {
		fs, err := features.Parse(tokens)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.Simulate(sim.Config{
			Duration:      time.Second,
			Features:      &fs,
			ShareInterval: 50 * time.Millisecond,
			Workloads: []sim.Workload{
				sim.Cyclictest(1, time.Millisecond, sim.TaskOptions{Slice: 300 * time.Microsecond}),
				sim.Stress(2, sim.TaskOptions{Slice: 3 * time.Millisecond}),
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		series = append(series, plot.Series{Name: "features: " + tokens, Samples: r.Workloads[0].Samples})
		last = r
	}
	dir := t.TempDir()
	if d := os.Getenv("PLOT_DIR"); d != "" { // keep the images to look at them
		dir = d
	}
	for name, draw := range map[string]func(*bytes.Buffer) error{
		"cdf.png":     func(b *bytes.Buffer) error { return plot.LatencyCDF(b, series, plot.Options{Title: "cyclictest"}) },
		"cdf-log.png": func(b *bytes.Buffer) error { return plot.LatencyCDF(b, series, plot.Options{LogX: true}) },
		"tail.png": func(b *bytes.Buffer) error {
			return plot.LatencyTail(b, series, plot.Options{Title: "cyclictest tail"})
		},
		"per-seed.png": func(b *bytes.Buffer) error {
			return plot.PerSeed(b, plot.Paired{Figure: "p99.9 (µs)", Base: "before", Patch: "patch", X: []float64{5, 7, 9}, Y: []float64{4, 8, 3}}, plot.Options{})
		},
		"share.png":   func(b *bytes.Buffer) error { return plot.RuntimeShare(b, last, false, plot.Options{}) },
		"share-w.png": func(b *bytes.Buffer) error { return plot.RuntimeShare(b, last, true, plot.Options{}) },
	} {
		var b bytes.Buffer
		if err := draw(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		img, err := png.Decode(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if img.Bounds().Dx() == 0 {
			t.Fatalf("%s: empty image", name)
		}
		os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644)
	}
	if err := plot.RuntimeShare(&bytes.Buffer{}, &sim.Report{}, false, plot.Options{}); err == nil {
		t.Error("no error without a share series")
	}
	if err := plot.LatencyCDF(&bytes.Buffer{}, []plot.Series{{Name: "empty"}}, plot.Options{}); err == nil {
		t.Error("no error for an empty series")
	}
	twin := []plot.Series{{Name: "before", Samples: []uint64{1, 2}}, {Name: "before", Samples: []uint64{3}}}
	if err := plot.LatencyTail(&bytes.Buffer{}, twin, plot.Options{}); err == nil {
		t.Error("no error for two series of the same name")
	}
	if err := plot.PerSeed(&bytes.Buffer{}, plot.Paired{X: []float64{1}}, plot.Options{}); err == nil {
		t.Error("no error for unpaired values")
	}
}
