package sim

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

func TestLoadConfigExample(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("testdata", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CPUs != 2 || cfg.Duration != 2*time.Second || cfg.WakeupCost != 2*us || cfg.Features == nil || !cfg.Debug {
		t.Fatalf("config %+v", cfg)
	}
	if len(cfg.Workloads) != 8 {
		t.Fatalf("%d workloads", len(cfg.Workloads))
	}
	r, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Features != "NO_RUN_TO_PARITY" {
		t.Errorf("features %q", r.Features)
	}
	byName := map[string]*WorkloadReport{}
	for i := range r.Workloads {
		byName[r.Workloads[i].Name] = &r.Workloads[i]
	}
	// cyclictest -D 1s at 1 ms: at most 1000 samples, fewer if expiries
	// were skipped while it waited for the CPU.
	if w := byName["cyclictest"]; w.Latency == nil || w.Latency.Count > 1000 || w.Latency.Count < 900 || !w.Done {
		t.Errorf("cyclictest latency %+v, done %v", w.Latency, w.Done)
	}
	if w := byName["hb"]; !w.Done {
		t.Errorf("hackbench did not finish")
	}
	if w := byName["pingpong"]; len(w.Marks) != 1 || w.Marks[0].Count != 200 || w.Latency == nil || w.Latency.Count != 200 {
		t.Errorf("pingpong marks %+v latency %+v", w.Marks, w.Latency)
	}
	if w := byName["periodic"]; w.NTasks != 3 || w.Latency == nil {
		t.Errorf("rt-app: %d tasks, latency %+v", w.NTasks, w.Latency)
	}
	if r.Shares == nil || len(r.Shares.TimesNs) != 21 || len(r.Shares.Runtime[20]) != len(r.Tasks) {
		t.Errorf("share series %+v", r.Shares)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"unknown top key", `{"duration": "1s", "cpu": 2}`, "unknown field"},
		{"bad duration", `{"duration": "1 second"}`, "duration"},
		{"bad features", `{"duration": "1s", "features": "NO_SUCH"}`, "NO_SUCH"},
		{"bad timeline", `{"duration": "1s", "timeline": "list"}`, "timeline"},
		{"bad core rule", `{"duration": "1s", "core_rule": "random"}`, "core_rule"},
		{"no kind", `{"duration": "1s", "workloads": [{"n": 1}]}`, "kind"},
		{"unknown kind", `{"duration": "1s", "workloads": [{"kind": "fio"}]}`, "fio"},
		{"typo in workload", `{"duration": "1s", "workloads": [{"kind": "stress", "count": 2}]}`, "count"},
		{"bad policy", `{"duration": "1s", "workloads": [{"kind": "stress", "policy": "fifo"}]}`, "fifo"},
		{"two actions", `{"duration": "1s", "workloads": [{"kind": "tasks", "tasks": [{"name": "a", "program": [{"run": "1ms", "sleep": "1ms"}]}]}]}`, "exactly one"},
		{"unknown channel", `{"duration": "1s", "workloads": [{"kind": "tasks", "tasks": [{"name": "a", "program": [{"recv": "x"}]}]}]}`, "unknown channel"},
		{"trailing data", `{"duration": "1s"} {}`, "trailing"},
		{"missing rt-app file", `{"duration": "1s", "workloads": [{"kind": "rtapp", "file": "nope.json"}]}`, "nope.json"},
		{"unknown machine key", `{"duration": "1s", "machine": {"sockets": 2}}`, "sockets"},
		{"zero cores", `{"duration": "1s", "machine": {"cores_per_llc": 0}}`, "cores per LLC"},
		{"bad numbering", `{"duration": "1s", "machine": {"numbering": "zigzag"}}`, "zigzag"},
		{"bad nohz", `{"duration": "1s", "nohz": "full"}`, "nohz"},
		{"bad preset", `{"duration": "1s", "preset": "hot"}`, "hot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.json), "testdata")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// "groups" and "cgroup_mode" reach the simulated machine. On one CPU a
// root hog competes with group batch (cpu.weight 50: 524288) and the idle
// group bg (3072); batch holds a hog and group sub (cpu.weight.nice 5:
// 335·1024 = 343040) with a hog of its own. Over the run each hog's share
// of the CPU is its fraction of the weights on the way down:
//
//	root   1048576/1575936                          = 0.6654
//	batch  524288/1575936 · 1048576/(1048576+343040) = 0.2507
//	sub    524288/1575936 · 343040/(1048576+343040)  = 0.0820
//	bg     3072/1575936                             = 0.0019
func TestConfigGroups(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"duration": "4s", "debug": true, "cgroup_mode": "up",
		"groups": [{"name": "batch", "weight": 50}, {"name": "sub", "parent": "batch", "nice": 5}, {"name": "bg", "idle": true}],
		"workloads": [{"kind": "stress", "name": "root"},
			{"kind": "stress", "name": "batch", "group": "batch"},
			{"kind": "stress", "name": "sub", "group": "sub"},
			{"kind": "stress", "name": "bg", "group": "bg"}]}`), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if g := cfg.Groups; len(g) != 3 || g[0].Weight != 50 || g[1].Parent != "batch" || g[1].Nice == nil || *g[1].Nice != 5 ||
		g[1].Weight != 0 || !g[2].Idle || cfg.CgroupMode != eevdf.ModeUp {
		t.Fatalf("groups %+v, mode %v", cfg.Groups, cfg.CgroupMode)
	}
	r, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"root": 0.6654, "batch": 0.2507, "sub": 0.0820, "bg": 0.0019}
	for _, w := range r.Workloads {
		got := float64(w.RuntimeNs) / float64(4*time.Second)
		if math.Abs(got-want[w.Name]) > 0.005 {
			t.Errorf("%s: share %.4f, want %.4f", w.Name, got, want[w.Name])
		}
	}
	for _, tc := range []struct{ name, json, want string }{
		{"weight 0", `{"duration": "1s", "groups": [{"name": "g", "weight": 0}]}`, "weight 0 outside 1..10000"},
		{"weight 10001", `{"duration": "1s", "groups": [{"name": "g", "weight": 10001}]}`, "weight 10001 outside"},
		{"bad mode", `{"duration": "1s", "cgroup_mode": "fair"}`, "cgroup_mode"},
	} {
		if _, err := ParseConfig([]byte(tc.json), "testdata"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

// "machine" is a topology.Machine whose missing counts are 1; "cpus" is
// its shorthand; "nohz" and "preset" name smp's modes.
func TestConfigMachine(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"duration": "10ms", "machine": {"packages": 2, "cores_per_llc": 4,
		"threads_per_core": 2, "numbering": "x86"}, "nohz": "idle", "preset": "boot",
		"workloads": [{"kind": "stress", "n": 20}]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	want := topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2, Numbering: topology.X86}
	if cfg.Machine != want || cfg.Nohz != smp.NohzIdle || cfg.Preset == nil || *cfg.Preset != topology.Boot {
		t.Fatalf("machine %+v nohz %v preset %v", cfg.Machine, cfg.Nohz, cfg.Preset)
	}
	r := run(t, cfg)
	if r.CPUs != 16 || r.Machine != "2x1x4x2 x86" || r.Nohz != "idle" || r.Preset != "boot" || r.BaseSliceNs != 2800000 {
		t.Fatalf("report: %d CPUs, machine %q, nohz %q, preset %q, base slice %d", r.CPUs, r.Machine, r.Nohz, r.Preset, r.BaseSliceNs)
	}
	// The shorthand: N single-thread cores in one LLC, warm, every CPU
	// ticking; the base slice is the kernel's for N CPUs.
	cfg, err = ParseConfig([]byte(`{"duration": "10ms", "cpus": 3, "workloads": [{"kind": "stress", "n": 3}]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	r = run(t, cfg)
	if r.Machine != "1x1x3x1 linear" || r.Nohz != "off" || r.Preset != "warm" || r.BaseSliceNs != 1400000 {
		t.Fatalf("report: machine %q, nohz %q, preset %q, base slice %d", r.Machine, r.Nohz, r.Preset, r.BaseSliceNs)
	}
}

// testdata/machine.json, the example of a machine in docs/smp.md: two sockets of
// four SMT cores, cyclictest among hackbench and hogs.
func TestMachineExample(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("testdata", "machine.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Duration = 300 * ms
	r, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.CPUs != 16 || r.Machine != "2x1x4x2 linear" || r.BaseSliceNs != 2800000 {
		t.Fatalf("%d CPUs, machine %q, base slice %d", r.CPUs, r.Machine, r.BaseSliceNs)
	}
	if r.Migrations == 0 || r.Placement.ForkBalance == 0 || !r.Workloads[1].Done {
		t.Fatalf("migrations %d, fork balance %d, hackbench done %v", r.Migrations, r.Placement.ForkBalance, r.Workloads[1].Done)
	}
}

func TestRTAppExample(t *testing.T) {
	w, err := LoadRTApp(filepath.Join("testdata", "rtapp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if w.Duration != 2*time.Second {
		t.Errorf("duration %v", w.Duration)
	}
	specs, _ := w.Tasks()
	if len(specs) != 3 || specs[0].Name != "periodic-0" || specs[2].Name != "phased" {
		t.Fatalf("tasks %+v", specs)
	}
	p := specs[0]
	if p.Nice != -5 || p.Slice != 500*us || len(p.Program) != 1 || p.Program[0].kind != phForever {
		t.Errorf("periodic %+v", p)
	}
	// light: run, sleep, run (the repeated key kept, in order) ×10.
	light := specs[2].Program[0].body[0]
	if light.kind != phLoop || light.n != 10 || len(light.body) != 3 || light.body[2].d != 50*us {
		t.Errorf("light phase %+v", light)
	}
	if specs[2].Start != 10*ms {
		t.Errorf("delay %v", specs[2].Start)
	}
	r := run(t, Config{Duration: w.Duration, Workloads: []Workload{w}})
	// A periodic task runs 800 µs every 4 ms on an absolute grid: 500
	// periods in 2 s, each with a latency sample.
	if got := r.Tasks[0].Latency.Count; got < 495 || got > 500 {
		t.Errorf("periodic-0: %d timer samples in 2 s, want about 500", got)
	}
	if !r.Tasks[2].Exited {
		t.Errorf("phased did not finish its 3 loops")
	}
}

func TestRTAppUnsupported(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"tasks": {"t": {"lock": "m", "run": 10}}}`, "lock event is not supported"},
		{`{"tasks": {"t": {"policy": "SCHED_FIFO", "run": 10}}}`, "SCHED_FIFO"},
		{`{"tasks": {"t": {"taskgroup": "/a", "run": 10}}}`, "taskgroup"},
		{`{"tasks": {"t": {"phases": {"p": {"cpus": [1], "run": 10}}}}}`, "affinity"},
		{`{"tasks": {"t": {"frobnicate": 1}}}`, "frobnicate"},
		{`{"tasks": {"t": {"loop": -1, "yield": ""}}}`, "endless"},
		{`{"tasks": {"t": {"timer": {"ref": "a"}}}}`, "period"},
		{`{"tasks": {"t": {"run": -5}}}`, "range"},
		{`{"global": {"duration": 1}}`, "tasks"},
		{`{"tasks": {"t": {"run": 10}}, "global": {"pi": 1}}`, "pi"},
		{`[1, 2]`, "object"},
		{`{"tasks": {"t": {"run": 10}}`, "EOF"},
	} {
		if _, err := ParseRTApp([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.json, err, tc.want)
		}
	}
}

func TestReportFormats(t *testing.T) {
	cfg := mixedConfig(1)
	cfg.ShareInterval = 500 * ms
	r := run(t, cfg)

	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Total Samples          |", "99.9th Percentile (us) |", "Maximum           (us) |",
		"Time: ", "| Switches |", "TOTAL:"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}

	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.ContextSwitches != r.ContextSwitches || len(back.Tasks) != len(r.Tasks) || *back.Workloads[0].Latency != *r.Workloads[0].Latency {
		t.Error("JSON does not round-trip")
	}
	// Placements by rule: every rule of smp, in its order.
	if len(back.Placement.Rules) != smp.NumRules || back.Placement.Rules[smp.RuleSlowPath].Rule != "slow_path" ||
		back.Placement.Forks != uint64(len(r.Tasks)) || fmt.Sprint(back.MigrationCauses) != fmt.Sprint(r.MigrationCauses) {
		t.Errorf("JSON placement %+v, causes %+v", back.Placement, back.MigrationCauses)
	}

	var c bytes.Buffer
	if err := r.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, row := range rows {
		if len(row) != 4 {
			t.Fatalf("row %v", row)
		}
		if row[0] == "task" && row[1] == "stress-0" && row[2] == "runtime_ns" {
			found = true
		}
	}
	if !found {
		t.Error("CSV lacks stress-0's runtime")
	}

	var tr bytes.Buffer
	if err := r.WriteTrace(&tr); err != nil {
		t.Fatal(err)
	}
	var trace struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Ph   string          `json:"ph"`
			Tid  int             `json:"tid"`
			Ts   float64         `json:"ts"`
			Dur  float64         `json:"dur"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(tr.Bytes(), &trace); err != nil {
		t.Fatal(err)
	}
	var busy float64
	tracks := map[int]string{}
	for _, e := range trace.TraceEvents {
		switch {
		case e.Ph == "X":
			busy += e.Dur
		case e.Ph == "M" && e.Name == "thread_name":
			tracks[e.Tid] = string(e.Args)
		}
	}
	// One track per CPU, named after it.
	if len(tracks) != r.CPUs || !strings.Contains(tracks[1], `"CPU 1"`) {
		t.Errorf("CPU tracks %v", tracks)
	}
	var want uint64
	for _, c := range r.CPUStats {
		want += c.BusyNs
	}
	if d := busy*1000 - float64(want); d > 1 || d < -1 {
		t.Errorf("trace covers %.0f ns of running, CPUs were busy %d ns", busy*1000, want)
	}
	if os.Getenv("SIM_WRITE_TRACE") != "" { // keep the trace to open it in ui.perfetto.dev
		os.WriteFile(os.Getenv("SIM_WRITE_TRACE"), tr.Bytes(), 0o644)
	}
}

// Every configuration error names the key or value it concerns by line
// and column (1-based, in bytes), and keys match exactly: encoding/json
// alone would let "Seed" override "seed", read a short array as zeros and
// run "cpus": 0 on one CPU.
func TestConfigErrorPositions(t *testing.T) {
	const stress = `"workloads": [{"kind": "stress"}]`
	for _, tc := range []struct{ name, json, want string }{
		{"key of the wrong case", `{"seed": 1, "Seed": 2, "duration": "1s", ` + stress + `}`,
			`config:1:13: unknown field "Seed" (keys are case-sensitive: did you mean "seed"?)`},
		{"nested key of the wrong case", `{"duration": "1s", "machine": {"Packages": 2}, ` + stress + `}`,
			`config:1:32: unknown field "Packages" (keys are case-sensitive: did you mean "packages"?)`},
		{"workload key of the wrong case", `{"duration": "1s", "workloads": [{"Kind": "stress"}]}`,
			`config:1:34: workload 0: missing "kind"`},
		{"phase key of the wrong case", `{"duration": "1s", "workloads": [{"kind": "tasks", "tasks": [{"name": "a", "program": [{"RUN": "1ms"}]}]}]}`,
			`config:1:89: workload 0: task "a": phase 0: unknown field "RUN" (keys are case-sensitive: did you mean "run"?)`},
		{"key given twice", `{"seed": 1, "seed": 2, "duration": "1s", ` + stress + `}`, `config:1:13: "seed" given twice`},
		{"cpus 0", `{"duration": "1s", "cpus": 0, ` + stress + `}`, "config:1:28: cpus 0 outside 1..8192 (leave it out for one CPU)"},
		{"hz 0", `{"duration": "1s", "hz": 0, ` + stress + `}`, "config:1:26: hz 0 outside 1..100000 (leave it out for 1000)"},
		{"no workloads", `{"duration": "1s", "workloads": []}`, "config:1:33: no workloads: a configuration needs at least one"},
		{"workloads absent", `{"duration": "1s"}`, "config: no workloads: a configuration needs at least one"},
		{"duration absent", `{` + stress + `}`, `config: no "duration": the stop time must be given`},
		{"negative duration", `{"duration": "-1s", ` + stress + `}`, "config:1:14: duration -1s: the stop time must be positive"},
		{"empty", " \n", "config: empty config"},
		{"syntax error", "{\"duration\": \"1s\",\n  " + stress + ",}", "config:2:37: invalid character '}' looking for beginning of object key string"},
		{"truncated", `{"duration": "1s", ` + stress, "config:1:53: unexpected end of the JSON text"},
		{"trailing data", `{"duration": "1s", ` + stress + `} {}`, "config:1:55: trailing data after the JSON value"},
		{"not an object", `[1]`, "config:1:1: the configuration: want an object, got an array"},
		{"nice not a number", `{"duration": "1s", "workloads": [{"kind": "stress", "nice": "abc"}]}`, `config:1:61: workload 0: nice: "abc" is not a number`},
		{"count not an integer", `{"duration": "1s", "workloads": [{"kind": "stress", "n": 1.5}]}`, "config:1:58: workload 0: n: 1.5 is not an integer"},
		{"negative seed", `{"duration": "1s", "seed": -5, ` + stress + `}`, "config:1:28: seed: -5 outside 0..18446744073709551615"},
		{"core pairs", `{"duration": "1s", "core_pairs": [[0]], ` + stress + `}`, `config:1:34: core_pairs: no longer supported: core scheduling is the kernel's now: give tasks a "cookie" (tasks with the same number share one cookie), and the SMT siblings come from "machine"'s threads_per_core`},
		{"bad duration", `{"duration": "1 second", ` + stress + `}`, `config:1:14: duration: time: unknown unit " second" in duration "1 second"`},
		{"instances 0", `{"duration": "1s", "workloads": [{"kind": "tasks", "tasks": [{"name": "a", "instances": 0, "program": [{"run": "1ms"}]}]}]}`,
			`config:1:89: workload 0: task "a": instances 0 (leave it out for one)`},
		{"workload's own check", `{"duration": "1s", "workloads": [{"kind": "stress"}, {"kind": "stress", "n": -3}]}`,
			"config:1:54: workload 1: stress tasks -3 outside 0..1048576"},
		{"phase in a loop body", "{\"duration\": \"1s\", \"workloads\": [\n {\"kind\": \"tasks\", \"tasks\": [{\"name\": \"a\", \"program\": [{\"run\": \"1ms\"},\n  {\"loop\": 2, \"body\": [{\"recv\": \"nope\"}]}]}]}]}",
			`config:3:33: workload 0: task "a": phase 1: body phase 0: unknown channel "nope"`},
		{"explicit zero read as the default", `{"duration": "1s", "workloads": [{"kind": "hackbench", "loops": 5, "write_cost": 0}]}`,
			"config:1:82: workload 0: write_cost 0 would be read as the default: leave it out for the default, or give a positive value"},
		{"explicit zero stress count", `{"duration": "1s", "workloads": [{"kind": "stress", "n": 0}]}`,
			"config:1:58: workload 0: n 0 would be read as the default: leave it out for the default, or give a positive value"},
		{"features name themselves once", `{"duration": "1s", "features": "NO_X", ` + stress + `}`, `config:1:32: features: unknown feature "NO_X"; valid names`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.json), "testdata")
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error\n\t%v\nwant\n\t%s", err, tc.want)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.File != "config" {
				t.Errorf("%T is not a *ConfigError named config", err)
			}
		})
	}
}

// LoadConfig names the file in its errors, and an explicit "cpus" of 1
// or an absent one is fine.
func TestLoadConfigErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.json", "")
	if _, err := LoadConfig(empty); err == nil || err.Error() != empty+": empty config" {
		t.Errorf("empty file: %v", err)
	}
	bad := write("bad.json", "{\n  \"duration\": \"1s\",\n  \"Workloads\": []\n}\n")
	_, err := LoadConfig(bad)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.File != bad || ce.Line != 3 || ce.Col != 3 ||
		err.Error() != bad+`:3:3: unknown field "Workloads" (keys are case-sensitive: did you mean "workloads"?)` {
		t.Errorf("bad.json: %v", err)
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// A 0 that means what it says (no distance, no limit, no timeout) is
	// fine.
	if _, err := ParseConfig([]byte(`{"duration": "1s", "workloads": [{"kind": "cyclictest", "distance": 0, "duration": 0, "loops": 0},
		{"kind": "stress", "timeout": 0}, {"kind": "yield_loop", "spin_for": 0}, {"kind": "massive_intr", "duration": 0}]}`), ""); err != nil {
		t.Error(err)
	}
	for _, cpus := range []string{``, `"cpus": 1, `} {
		cfg, err := LoadConfig(write("ok.json", `{`+cpus+`"duration": "1s", "workloads": [{"kind": "stress"}]}`))
		if err != nil || cfg.CPUs != len(cpus)/10 {
			t.Errorf("%q: CPUs %d, %v", cpus, cfg.CPUs, err)
		}
	}
}
