package sim

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzParseConfig: no input makes the configuration reader panic; a
// configuration it accepts with few tasks also simulates without panicking.
func FuzzParseConfig(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "config.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"duration": "5ms", "workloads": [{"kind": "stress", "n": 2}]}`))
	f.Add([]byte(`{"duration": 1000000, "machine": {"threads_per_core": 2}, "workloads": [{"kind": "tasks",
		"channels": [{"name": "c", "capacity": 1}],
		"tasks": [{"name": "a", "cookie": 1, "program": [{"forever": [{"send": "c"}, {"run": "10us"}]}]},
		          {"name": "b", "cookie": 2, "program": [{"forever": [{"recv": "c"}, {"yield": true}, {"run": "5us"}]}]}]}]}`))
	// The RB5 with its energy model; an earlier kernel under the lazy
	// model with kernel-mode time and timer slack; a big.LITTLE machine
	// with groups.
	f.Add([]byte(`{"duration": "20ms", "machine": {"preset": "rb5"}, "energy_model": "rb5", "workloads": [{"kind": "stress", "n": 3}, {"kind": "cyclictest", "threads": 1, "interval": "1ms"}]}`))
	f.Add([]byte(`{"duration": "20ms", "cpus": 2, "kernel": "v6.18", "preempt": "lazy", "timer_slack": "50us", "workloads": [{"kind": "hackbench", "groups": 1, "fds": 2, "loops": 100, "pipe": true}, {"kind": "cyclictest", "threads": 1, "interval": "1ms"}]}`))
	f.Add([]byte(`{"duration": "20ms", "machine": {"preset": "biglittle", "little": 2, "big": 2, "little_capacity": 446, "big_capacity": 1024}, "groups": [{"name": "g", "weight": 50}], "workloads": [{"kind": "stress", "n": 4, "group": "g"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data, "testdata")
		if err != nil {
			return
		}
		n := 0
		for _, w := range cfg.Workloads {
			specs, err := w.Tasks()
			if err != nil {
				return
			}
			n += len(specs)
		}
		if n > 64 || cfg.CPUs > 8 || cfg.Machine.NumCPUs() > 8 {
			return
		}
		cfg.Duration = min(max(cfg.Duration, time.Millisecond), 20*time.Millisecond)
		cfg.Debug = true
		if _, err := Simulate(cfg); err != nil && cfg.Duration > 0 {
			// Errors are fine (livelocks, bad values); panics are not.
			return
		}
	})
}

// FuzzParseRTApp: no input makes the rt-app reader panic.
func FuzzParseRTApp(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "rtapp.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"tasks": {"t": {"run": 10, "sleep": 10}} /* c */ ,}`))
	f.Add([]byte(`{"tasks": {"t": {"phases": {"p": {"loop": 2, "timer": {"ref": "x", "period": 100}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseRTApp(data)
	})
}
