package configs_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"sort"
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

// rb5-misfit.json: the Qualcomm RB5 preset (CPUs 0–3 of capacity 284,
// 4–6 of 871, 7 of 1024; HZ 250) for 10 s, a CPU hog and a light
// periodic task (1 ms of work every 16 ms), both forked on CPU 0. The hog starts on
// little CPU 0, its PELT utilization (clocked at 284/1024 there) passes
// the fit margin (util·1280 ≥ 284·1024), and an idle big CPU's balancing
// pulls the misfit by active balancing: on gold CPU 4 at 24 ms, then on
// the prime CPU 7 at 80 ms, within the 100 ms the asymmetric model
// promises. The light task's utilization (about 64, capacity-invariant)
// fits a little CPU: fork balancing puts it on CPU 1 and nothing moves it
// off; each of its activations takes ⌈10⁶·1024/284⌉ = 3 605 634 ns there.
func TestRB5MisfitHogMovesLightTaskStays(t *testing.T) {
	cfg, err := sim.LoadConfig("rb5-misfit.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteTrace(&b); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			Tid  int     `json:"tid"`
			Ts   float64 `json:"ts"` // µs
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	type slice struct {
		cpu int
		at  float64 // µs
	}
	var hog, light []slice
	for _, e := range tr.TraceEvents {
		switch {
		case e.Ph != "X":
		case e.Name == "hog":
			hog = append(hog, slice{e.Tid, e.Ts})
		case e.Name == "light":
			light = append(light, slice{e.Tid, e.Ts})
		}
	}
	sort.Slice(hog, func(i, j int) bool { return hog[i].at < hog[j].at })
	want := []slice{{0, 0}, {4, 24000}, {7, 80000}}
	if !slices.Equal(hog, want) {
		t.Errorf("the hog ran %v (CPU, from µs), want %v", hog, want)
	}
	big := -1.0
	for _, s := range hog {
		if s.cpu >= 4 && big < 0 {
			big = s.at
		}
		if big >= 0 && s.cpu < 4 {
			t.Errorf("the hog went back to little CPU %d at %.3f µs", s.cpu, s.at)
		}
	}
	if big < 0 || big > 100000 {
		t.Errorf("the hog reached a big CPU at %.3f µs, want within 100 ms", big)
	}
	if len(light) != 624 {
		t.Errorf("the light task ran %d times, want 624: at each expiry from 16 ms to 9.984 s", len(light))
	}
	for _, s := range light {
		if s.cpu != 1 {
			t.Errorf("the light task ran on CPU %d at %.3f µs, want little CPU 1 throughout", s.cpu, s.at)
			break
		}
	}
	if l := r.Tasks[1]; l.RuntimeNs != uint64(len(light))*3605634 || l.WorkNs != uint64(len(light))*1000000 {
		t.Errorf("light: %d ns of CPU and %d ns of work over %d runs, want 3605634 and 1000000 each", l.RuntimeNs, l.WorkNs, len(light))
	}
	if m := r.Tasks[0].Migrations; m != 2 {
		t.Errorf("the hog migrated %d times, want 2", m)
	}
}
