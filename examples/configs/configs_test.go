package configs_test

import (
	"os"
	"testing"

	"github.com/schedmodel/fairclass/sim"
)

// containers-8.json: two containers of CPU hogs, cgroups of cpu.weight 200
// and 100, on 8 CPUs for 10 s. Each saturates the machine on its own, so
// the CPU time divides as the weights do, 2:1, within 2 %: the shares of
// groups spread over every CPU, their published loads and the balancer's
// group-aware task_h_load must work together for that.
func TestContainersShareByWeight(t *testing.T) {
	data, err := os.ReadFile("containers-8.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sim.ParseConfig(data, ".")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Workloads) != 2 {
		t.Fatalf("%d workloads, want 2", len(r.Workloads))
	}
	web, batch := float64(r.Workloads[0].RuntimeNs), float64(r.Workloads[1].RuntimeNs)
	share := web / (web + batch)
	t.Logf("web %.0f ns, batch %.0f ns: share %.5f", web, batch, share)
	if d := share/(2.0/3) - 1; d < -0.02 || d > 0.02 {
		t.Errorf("web's share %.4f differs from 2/3 by %.2f %%", share, 100*d)
	}
	if busy := (web + batch) / (8 * 10e9); busy < 0.99 {
		t.Errorf("the CPUs were busy %.3f of the time, want ≥ 0.99", busy)
	}
}
