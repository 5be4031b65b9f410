package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/sim"
)

// configSides are the "fairclass sim" configurations of configs/: each is
// one side of an experiment above, on the experiment's machine, in
// simulation seed 1, with the full run's duration.
var configSides = map[string]struct {
	duration time.Duration
	cfg      func() sim.Config
}{
	"seed000-rb5.json": {60 * time.Second, func() sim.Config {
		return latencyConfig(rb5, 1, 60*time.Second, seed000Columns()[2])
	}},
	"seed002-rb5.json": {63 * time.Second, func() sim.Config {
		return latencyConfig(rb5, 1, 63*time.Second, seed002Columns()[2])
	}},
	"seed003-hackbench.json": {100 * time.Second, func() sim.Config {
		return hackbenchConfig(assumed8, 1, 10, false, false, "PLACE_JOIN_LAG")
	}},
	"seed004-yield.json": {30 * time.Second, func() sim.Config {
		return yieldConfig(1, 30*time.Second, 5*time.Second, "")
	}},
	"seed004-core.json": {30 * time.Second, func() sim.Config {
		return coreConfig(1, 30*time.Second, 5*time.Second, "")
	}},
}

// Every file of configs/ parses, runs, and is the experiment's own run:
// over a short simulated time its report is byte for byte the report of
// the configuration the experiment builds.
func TestConfigsAreTheExperiments(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("configs", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for name := range configSides {
		if !slices.Contains(names, name) {
			t.Errorf("configs/%s is missing", name)
		}
	}
	short := 300 * time.Millisecond
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			side, ok := configSides[name]
			if !ok {
				t.Fatalf("configs/%s is no experiment's side: add it to configSides", name)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sim.ParseConfig(data, "configs")
			if err != nil {
				t.Fatal(err)
			}
			if got.Duration != side.duration {
				t.Errorf("duration %v, want the experiment's %v", got.Duration, side.duration)
			}
			want := side.cfg()
			got.Duration, want.Duration = short, short
			gr, err := sim.Simulate(got)
			if err != nil {
				t.Fatal(err)
			}
			wr, err := sim.Simulate(want)
			if err != nil {
				t.Fatal(err)
			}
			var gb, wb bytes.Buffer
			if err := gr.WriteJSON(&gb); err != nil {
				t.Fatal(err)
			}
			if err := wr.WriteJSON(&wb); err != nil {
				t.Fatal(err)
			}
			if gr.Events == 0 {
				t.Error("the run processed no events")
			}
			if !bytes.Equal(gb.Bytes(), wb.Bytes()) {
				t.Errorf("the report differs from the experiment's:\n%s", firstDiff(gb.String(), wb.String()))
			}
		})
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  file:       %s\n  experiment: %s", i+1, al[i], bl[i])
		}
	}
	return "one report is longer"
}
