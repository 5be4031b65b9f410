package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/topology"
)

// --quick's EAS model covers both CPUs of the quick machine with the
// RB5's little and prime domains, so EAS is on there as on the RB5.
func TestEASModelFitsTheMachines(t *testing.T) {
	for _, quick := range []bool{false, true} {
		o := options{quick: quick}
		m := easModel(o)
		if m.NumCPUs() != latencyMachine(o).cpus() {
			t.Errorf("quick %v: a model of %d CPUs for %d", quick, m.NumCPUs(), latencyMachine(o).cpus())
		}
	}
	if _, err := topology.LookupMachine(rb5Quick.preset); err != nil {
		t.Fatal(err)
	}
}

// Seed 002 with --eas: pricing the thread's sides changes none of their
// numbers, the EAS runs have EAS on and the others off, and every run
// has an energy estimate over the whole run.
func TestSeed002EASPricesWithoutChanging(t *testing.T) {
	o := options{quick: true, runs: 1, seed: 1, quiet: true}
	d := 300 * time.Millisecond
	cols := seed002Columns()
	plain, err := runLatency(o, io.Discard, nil, "002", d, cols)
	if err != nil {
		t.Fatal(err)
	}
	priced, reports, eas, err := runLatencyEAS(o, io.Discard, nil, "002", d, cols, easModel(o))
	if err != nil {
		t.Fatal(err)
	}
	for c := range cols {
		if plain[0][c] != priced[0][c] {
			t.Errorf("column %q: %+v without a model, %+v priced", cols[c].title, plain[0][c], priced[0][c])
		}
		if e := reports[c].Energy; e == nil || e.Enabled || e.Meter.ElapsedNs != uint64(d) {
			t.Errorf("column %q: energy %+v, want EAS off over %v", cols[c].title, e, d)
		}
	}
	if len(eas) != 2 {
		t.Fatalf("%d EAS runs, want 2", len(eas))
	}
	for _, r := range eas {
		if e := r.Energy; e == nil || !e.Enabled || e.Meter.TotalUJ <= 0 {
			t.Errorf("EAS run: energy %+v, want EAS on and some energy", e)
		}
	}
}

// --eas with --out: seed 002 prints the EAS comparison and its two
// directions with EAS on, saves the EAS runs' reports and draws energy
// against latency.
func TestSeed002EASOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seed 002's quick sides five times")
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"--quick", "--runs", "1", "--seeds", "002", "--eas", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	for _, want := range []string{"with EAS (--eas)", "energy (J)", "overutilized (% of time)", "lower with PREEMPT_FLUSH_DELAYED, EAS on", "of 4 reported directions"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, f := range []string{"seed002-energy-latency.png", "seed002-before-eas-s1.json", "seed002-patched-eas-s1.csv", "seed002-figure4-per-seed.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
