package sim

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/topology"
)

// pinnedWork is one task pinned to cpu of the RB5 doing work ns of Run,
// then exiting; others more tasks pinned there, each with the same work.
func pinnedWork(cpu, tasks int, work time.Duration) Config {
	var specs []TaskSpec
	for i := 0; i < tasks; i++ {
		specs = append(specs, TaskSpec{Name: "w" + string(rune('0'+i)), TaskOptions: TaskOptions{CPUs: []int{cpu}}, Program: []Phase{Run(work)}})
	}
	return Config{MachinePreset: "rb5", Duration: time.Second, Debug: true, Workloads: []Workload{Custom("work", specs...)}}
}

// A Run phase is work at capacity 1024: alone on a CPU of capacity C, 1 ms
// of it takes ⌈10⁶·1024/C⌉ ns — 3 605 634 ns on a little CPU of the RB5
// (284), 1 175 661 ns on a gold one (871, since 871·1 175 660 =
// 1 023 999 860 < 1 024·10⁶), 1 ms on the prime CPU — and the kernel
// charges all of it as CPU time.
func TestRunIsWorkAtCapacity1024(t *testing.T) {
	for _, tc := range []struct {
		cpu  int
		want uint64
	}{{0, 3605634}, {3, 3605634}, {4, 1175661}, {6, 1175661}, {7, 1000000}} {
		r, err := Simulate(pinnedWork(tc.cpu, 1, time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		tr := r.Tasks[0]
		if !tr.Exited || tr.ExitNs != tc.want || tr.RuntimeNs != tc.want || tr.WorkNs != 1000000 {
			t.Errorf("cpu %d: exit %v at %d ns, runtime %d ns, work %d ns; want exit at %d, runtime %d, work 1000000",
				tc.cpu, tr.Exited, tr.ExitNs, tr.RuntimeNs, tr.WorkNs, tc.want, tc.want)
		}
		if w := r.Workloads[0].WorkNs; w != 1000000 {
			t.Errorf("cpu %d: the workload's work %d ns, want 1000000", tc.cpu, w)
		}
	}
}

// Cut into slices by a competitor, a phase still does exactly its work;
// each segment rounds its work down, so the CPU time is the uninterrupted
// time plus less than 1 ns per extra segment.
func TestInterruptedWorkRoundsDown(t *testing.T) {
	const alone = 36056338 // ⌈10⁷·1024/284⌉
	r, err := Simulate(pinnedWork(1, 3, 10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range r.Tasks {
		if !tr.Exited || tr.WorkNs != 10000000 {
			t.Errorf("%s: exited %v, work %d ns, want 10000000", tr.Name, tr.Exited, tr.WorkNs)
		}
		if tr.Switches < 2 {
			t.Errorf("%s: %d switches, want the phase cut into several segments", tr.Name, tr.Switches)
		}
		if tr.RuntimeNs < alone || tr.RuntimeNs > alone+tr.Switches-1 {
			t.Errorf("%s: runtime %d ns over %d segments, want %d to %d", tr.Name, tr.RuntimeNs, tr.Switches, alone, alone+tr.Switches-1)
		}
	}
}

// The rounding maps: ⌊⌈w·1024/C⌉·C/1024⌋ ≥ w (a phase ends on time), both
// the identity at 1024, and no overflow near the largest durations.
func TestWallForWorkIn(t *testing.T) {
	for _, capacity := range []uint64{1, 261, 284, 801, 871, 1023, 1024} {
		c := &cpu{capacity: capacity}
		for _, w := range []uint64{0, 1, 2, 283, 284, 999, 1000000, 1 << 40} {
			wall := wallFor(c, w)
			if got := workIn(c, wall); got < w {
				t.Errorf("C=%d: work %d takes %d ns, which do only %d", capacity, w, wall, got)
			}
			if wall > 0 && workIn(c, wall-1) >= w && w > 0 {
				t.Errorf("C=%d: work %d done 1 ns before %d", capacity, w, wall)
			}
		}
		if got := wallFor(c, ^uint64(0)); capacity < 1024 && got != ^uint64(0) {
			t.Errorf("C=%d: the largest work takes %d ns, want saturation", capacity, got)
		}
		if got := workIn(c, ^uint64(0)); got != (^uint64(0))/1024*capacity+(^uint64(0))%1024*capacity/1024 {
			t.Errorf("C=%d: workIn of the largest time %d", capacity, got)
		}
	}
}

// "machine": {"preset": ...} gives the preset's shape, capacities and HZ
// (250 for the RB5 and biglittle) unless "hz" is given; the report names
// the capacities.
func TestMachinePresetConfig(t *testing.T) {
	for _, tc := range []struct {
		json string
		tick uint64
		caps []uint64
	}{
		{`{"machine": {"preset": "rb5"}}`, 4000000, []uint64{284, 284, 284, 284, 871, 871, 871, 1024}},
		{`{"machine": {"preset": "rb5"}, "hz": 1000}`, 1000000, []uint64{284, 284, 284, 284, 871, 871, 871, 1024}},
		{`{"machine": {"preset": "rb5-3091"}}`, 4000000, []uint64{261, 261, 261, 261, 801, 801, 801, 1024}},
		{`{"machine": {"preset": "biglittle", "little": 2, "big": 1, "little_capacity": 446, "big_capacity": 1024}}`, 4000000, []uint64{446, 446, 1024}},
		{`{"machine": {"cores_per_llc": 2, "capacities": [512, 1024]}}`, 1000000, []uint64{512, 1024}},
		{`{"machine": {"cores_per_llc": 2, "capacities": [1024, 1024]}}`, 1000000, nil},
	} {
		cfg, err := ParseConfig([]byte(strings.TrimSuffix(tc.json, "}")+`, "duration": "10ms", "workloads": [{"kind": "stress", "n": 1}]}`), ".")
		if err != nil {
			t.Errorf("%s: %v", tc.json, err)
			continue
		}
		r, err := Simulate(cfg)
		if err != nil {
			t.Errorf("%s: %v", tc.json, err)
			continue
		}
		if r.TickNs != tc.tick || !equalCaps(r.Capacities, tc.caps) || r.CPUs != max(len(tc.caps), 2) {
			t.Errorf("%s: tick %d, capacities %v on %d CPUs; want %d, %v", tc.json, r.TickNs, r.Capacities, r.CPUs, tc.tick, tc.caps)
		}
	}
}

func equalCaps(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A preset is a whole machine, and biglittle's keys belong to it.
func TestMachinePresetConfigErrors(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"preset": "rb5", "cores_per_llc": 8}`, "whole machine"},
		{`{"preset": "rb5", "capacities": [1024]}`, "whole machine"},
		{`{"preset": "rb6"}`, "unknown machine preset"},
		{`{"preset": "biglittle", "little": 2}`, `needs "little", "big"`},
		{`{"preset": "rb5", "little": 2}`, `belong to "preset": "biglittle"`},
		{`{"little": 2}`, `need "preset": "biglittle"`},
		{`{"preset": "biglittle", "little": 2, "big": 2, "little_capacity": 512, "big_capacity": 900}`, "largest capacity"},
		{`{"cores_per_llc": 2, "capacities": [512]}`, "1 capacities for 2 CPUs"},
		{`{"cores_per_llc": 2, "threads_per_core": 2, "capacities": [512, 512, 1024, 1024]}`, "one thread per core"},
	} {
		_, err := ParseConfig([]byte(`{"machine": `+tc.json+`, "duration": "1s", "workloads": [{"kind": "stress"}]}`), ".")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "1:13") {
			t.Errorf("%s: error %v, want one at the machine (1:13) saying %q", tc.json, err, tc.want)
		}
	}
	for _, cfg := range []Config{
		{MachinePreset: "rb5", CPUs: 4},
		{MachinePreset: "rb5", Machine: topology.Machine{Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 4, ThreadsPerCore: 1}},
		{MachinePreset: "rb5", Capacities: []uint64{1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024}},
		{CPUs: 2, Capacities: []uint64{512, 512}},
	} {
		cfg.Duration, cfg.Workloads = time.Second, []Workload{Stress(1, TaskOptions{})}
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// On a symmetric machine, capacities of 1024 everywhere are no capacities:
// the same report byte for byte, with no capacities and no work in any
// form. On an asymmetric one every form has both.
func TestWorkOnlyInAsymmetricReports(t *testing.T) {
	run := func(cfg Config) (string, string, string) {
		t.Helper()
		cfg.Duration = 50 * time.Millisecond
		cfg.Workloads = []Workload{Stress(3, TaskOptions{}), Cyclictest(1, time.Millisecond, TaskOptions{})}
		r, err := Simulate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var j, c, x bytes.Buffer
		if err := r.WriteJSON(&j); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteCSV(&c); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteText(&x); err != nil {
			t.Fatal(err)
		}
		return j.String(), c.String(), x.String()
	}
	j1, c1, x1 := run(Config{CPUs: 2})
	j2, c2, x2 := run(Config{CPUs: 2, Capacities: []uint64{1024, 1024}})
	if j1 != j2 || c1 != c2 || x1 != x2 {
		t.Error("capacities of 1024 change the report")
	}
	for _, s := range []string{j1, c1, x1} {
		if strings.Contains(s, "capacities") || strings.Contains(s, "work_ns") || strings.Contains(s, "of work") {
			t.Errorf("a symmetric report names capacities or work:\n%.300s", s)
		}
	}
	j, c, x := run(Config{CPUs: 2, Capacities: []uint64{512, 1024}})
	var r struct {
		Capacities []uint64 `json:"capacities"`
		Tasks      []struct {
			Name    string `json:"name"`
			Runtime uint64 `json:"runtime_ns"`
			Work    uint64 `json:"work_ns"`
			CPU     int    `json:"cpu"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(j), &r); err != nil {
		t.Fatal(err)
	}
	if !equalCaps(r.Capacities, []uint64{512, 1024}) {
		t.Errorf("JSON capacities %v", r.Capacities)
	}
	less := 0
	for _, tr := range r.Tasks {
		if tr.Work == 0 || tr.Work > tr.Runtime {
			t.Errorf("%s: work %d ns against %d ns of CPU time", tr.Name, tr.Work, tr.Runtime)
		}
		if tr.Work < tr.Runtime {
			less++
		}
	}
	if less == 0 {
		t.Error("no task ran on the CPU of capacity 512")
	}
	if !strings.Contains(c, "run,,capacities,512 1024\n") || !strings.Contains(c, ",work_ns,") {
		t.Errorf("CSV without capacities or work:\n%.400s", c)
	}
	if !strings.Contains(x, "capacities 512 1024\n") || !strings.Contains(x, "ms of work") {
		t.Errorf("text without capacities or work:\n%.400s", x)
	}
}

// The capacities line groups runs of equal capacities.
func TestCapacitiesText(t *testing.T) {
	for _, tc := range []struct {
		caps []uint64
		want string
	}{
		{[]uint64{284, 284, 284, 284, 871, 871, 871, 1024}, "284x4 871x3 1024"},
		{[]uint64{512, 1024}, "512 1024"},
		{[]uint64{1024, 512, 512, 1024}, "1024 512x2 1024"},
	} {
		if got := capacitiesText(tc.caps); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.caps, got, tc.want)
		}
	}
}
