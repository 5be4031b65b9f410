package sim

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestQueueFormsGiveIdenticalRuns runs each configuration three times —
// the queue in its usual forms, always a heap, always sorted — and
// checks that the three runs write byte-identical reports and ftrace
// logs, and for one CPU byte-identical scenario logs: the form of the
// event queue is no part of the simulation's result. The configurations
// are the benchmark's (one CPU and eight), several CPUs with wakeup and
// switch costs and timer slack, and the configuration files of this
// package's testdata and of examples/configs, cut to a short run.
func TestQueueFormsGiveIdenticalRuns(t *testing.T) {
	runs := identityRuns(t)
	forms := []struct {
		name     string
		max, min int
	}{
		{"usual", sortedMax, sortedMin},
		{"always a heap", -1, -1},
		{"always sorted", 1 << 30, -1},
	}
	t.Cleanup(func() { sortedMax, sortedMin = forms[0].max, forms[0].min })
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			var first string
			for _, f := range forms {
				sortedMax, sortedMin = f.max, f.min
				out, err := queueFormRun(r.cfg(t), r.log)
				if err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				if first == "" {
					first = out
					continue
				}
				if out != first {
					t.Errorf("%s: the run differs from the usual forms' (%d bytes against %d)", f.name, len(out), len(first))
				}
			}
			sortedMax, sortedMin = forms[0].max, forms[0].min
		})
	}
}

// queueFormRun runs cfg and returns its report (JSON and text), its
// ftrace log and, with log, its scenario log.
func queueFormRun(cfg Config, log bool) (string, error) {
	var scen, ft, rep bytes.Buffer
	if log {
		cfg.ScenarioLog = &scen
	}
	s, err := New(cfg)
	if err != nil {
		return "", err
	}
	if err := s.WriteFtrace(&ft); err != nil {
		return "", err
	}
	r, err := s.Run()
	if err != nil {
		return "", err
	}
	if err := r.WriteJSON(&rep); err != nil {
		return "", err
	}
	if err := r.WriteText(&rep); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s\n--- ftrace\n%s\n--- scenario\n%s", rep.String(), ft.String(), scen.String()), nil
}

// identityRun is one configuration of the tests that run the simulator in
// two forms and require identical output.
type identityRun struct {
	name string
	cfg  func(t *testing.T) Config
	log  bool // write the scenario log too (one CPU)
}

// identityRuns are those configurations: the benchmark's (one CPU and
// eight), several CPUs with wakeup and switch costs and timer slack, and
// the configuration files of this package's testdata and of
// examples/configs, cut to a short run.
func identityRuns(t *testing.T) []identityRun {
	var runs []identityRun
	for _, tc := range oneCPUCases {
		runs = append(runs, identityRun{"one CPU " + tc.name, func(*testing.T) Config {
			return benchConfig(100, tc.hogs, 300*time.Millisecond)
		}, true})
		runs = append(runs, identityRun{"8 CPUs " + tc.name, func(*testing.T) Config {
			cfg := benchConfig(32, tc.hogs/4, 100*time.Millisecond)
			cfg.CPUs = 8
			return cfg
		}, false})
	}
	runs = append(runs, identityRun{"4 CPUs, costs and slack", func(*testing.T) Config {
		var specs []TaskSpec
		for i := range 24 {
			specs = append(specs, TaskSpec{Name: fmt.Sprintf("t%d", i), Program: []Phase{
				Forever(RunJitter(50*time.Microsecond, 450*time.Microsecond), SleepJitter(100*time.Microsecond, 1900*time.Microsecond)),
			}})
		}
		return Config{Seed: 3, CPUs: 4, Duration: 100 * time.Millisecond, WakeupCost: 3 * time.Microsecond, TimerSlack: 50 * time.Microsecond,
			SwitchCost: 2 * time.Microsecond, Workloads: []Workload{Custom("slack", specs...)}}
	}, false})
	files, err := filepath.Glob(filepath.Join("..", "examples", "configs", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("testdata", "config.json"), filepath.Join("testdata", "machine.json"))
	for _, f := range files {
		runs = append(runs, identityRun{filepath.Base(f), func(t *testing.T) Config {
			cfg, err := LoadConfig(f)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Duration = min(cfg.Duration, 50*time.Millisecond)
			return cfg
		}, false})
	}
	return runs
}
