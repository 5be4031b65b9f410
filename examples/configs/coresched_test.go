package configs_test

import (
	"os"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/sim"
)

// coresched-8.json: two tenants of six CPU hogs, each tenant with its own
// core-scheduling cookie, and four untagged massive_intr tasks, on four
// cores of two SMT threads for 10 s. Run with Debug, smp's Check holds
// after every event (no settled core runs two cookies); no task waits
// more than 50 ms at a time; and the report accounts for each thread: its
// busy and forced-idle time never exceed the run.
func TestCoreSchedTenants(t *testing.T) {
	data, err := os.ReadFile("coresched-8.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sim.ParseConfig(data, ".")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Debug = true
	r, err := sim.Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !r.CoreScheduling {
		t.Fatal("core scheduling off")
	}
	var fi uint64
	for _, c := range r.CPUStats {
		if c.BusyNs+c.ForcedIdleNs > r.EndNs {
			t.Errorf("CPU %d busy %d ns and forced idle %d ns in a run of %d ns", c.CPU, c.BusyNs, c.ForcedIdleNs, r.EndNs)
		}
		fi += c.ForcedIdleNs
	}
	if fi == 0 {
		t.Error("no forced idle with two tenants and untagged tasks on four cores")
	}
	for _, tk := range r.Tasks {
		if tk.MaxDelayNs > uint64(50*time.Millisecond) {
			t.Errorf("%s waited %v at a time", tk.Name, time.Duration(tk.MaxDelayNs))
		}
	}
	t.Logf("forced idle %v of %v of CPU time", time.Duration(fi), time.Duration(uint64(r.CPUs)*r.EndNs))
}
