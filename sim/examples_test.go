package sim

import (
	"path/filepath"
	"testing"
	"time"
)

// TestExampleConfigsRun loads every configuration of examples/configs and
// runs it for a few simulated milliseconds, so that none of them rots.
func TestExampleConfigsRun(t *testing.T) {
	files, err := filepath.Glob("../examples/configs/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configurations found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			cfg, err := LoadConfig(f)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Duration != 10*time.Second {
				t.Errorf("duration %v; docs/benchmarks.md's figures are for 10 s", cfg.Duration)
			}
			cfg.Duration = 20 * time.Millisecond
			r, err := Simulate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Events == 0 || r.Conservation == nil {
				t.Errorf("%d events, conservation %v", r.Events, r.Conservation)
			}
		})
	}
}
