package sim

import (
	"testing"
	"time"
)

// TestCompletionKeptApartIsAlwaysLive runs one-CPU configurations with
// the debug check on, which after every step verifies that a pending
// completion kept apart is live (step takes it without testing it):
// the benchmark's three cases, with timer slack and a wakeup cost, and
// with a switch cost (whose resumes are queued events).
func TestCompletionKeptApartIsAlwaysLive(t *testing.T) {
	for _, tc := range oneCPUCases {
		for _, v := range []struct {
			name string
			set  func(*Config)
		}{
			{"plain", func(*Config) {}},
			{"slack and wakeup cost", func(c *Config) {
				c.TimerSlack, c.WakeupCost = 50*time.Microsecond, 3*time.Microsecond
			}},
			{"switch cost", func(c *Config) { c.SwitchCost = 2 * time.Microsecond }},
		} {
			t.Run(tc.name+"/"+v.name, func(t *testing.T) {
				cfg := benchConfig(100, tc.hogs, 200*time.Millisecond)
				cfg.Debug = true
				v.set(&cfg)
				if _, err := Simulate(cfg); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
