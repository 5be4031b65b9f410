package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// smtCores is a machine of n cores of two SMT threads in one LLC.
func smtCores(n int) topology.Machine {
	return topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: n, ThreadsPerCore: 2}
}

// KERNEL-SPEC-CORESCHED §9 example 1: two hogs of cookies 1 and 2 on one
// SMT core share it half and half — the core alternates between the
// cookies, the other thread forced idle, task_tick_core handing the core
// over after half a slice. Debug mode runs smp's Check (the core
// invariants among them) after every event.
func TestCoreSchedTwoCookiesHalveOneCore(t *testing.T) {
	r := run(t, Config{Machine: smtCores(1), Duration: time.Second, Workloads: []Workload{
		&StressWorkload{Label: "a", Options: TaskOptions{Cookie: 1}},
		&StressWorkload{Label: "b", Options: TaskOptions{Cookie: 2}},
	}})
	if !r.CoreScheduling {
		t.Fatal("core scheduling off with two cookies on an SMT core")
	}
	var ran, fi uint64
	for _, tk := range r.Tasks {
		if d := int64(tk.RuntimeNs) - int64(500*ms); d < -int64(10*ms) || d > int64(10*ms) {
			t.Errorf("%s ran %v, want 500 ± 10 ms", tk.Name, time.Duration(tk.RuntimeNs))
		}
		ran += tk.RuntimeNs
		if tk.Core == nil || tk.Core.ForcedIdleCausedNs == 0 {
			t.Errorf("%s: core report %+v, want forced idle caused", tk.Name, tk.Core)
		}
	}
	for _, c := range r.CPUStats {
		fi += c.ForcedIdleNs
	}
	// One thread runs, the other is forced idle: together the whole
	// second on each of the two threads, less the start.
	if total := ran + fi; total > uint64(2*time.Second) || total < uint64(2*time.Second-20*ms) {
		t.Errorf("ran %v + forced idle %v = %v, want about 2 s", time.Duration(ran), time.Duration(fi), time.Duration(total))
	}
	if r.ForcedIdles == 0 {
		t.Error("no forced-idle period counted")
	}
}

// §9 example 1 exactly as the spec sets it up, through the simulator: A
// pinned to CPU 0 from 0, B pinned to CPU 1 from 0.2 ms. The simulator
// drives smp's core scheduling to the spec's numbers at 1 s: A 500.2 ms,
// B 499.8 ms, CPU 0 forced idle 499.8 ms and CPU 1 500 ms, and the
// forced idle charged to each while it ran (core_forceidle_sum) the
// other's.
func TestCoreSchedExample1Exact(t *testing.T) {
	r := run(t, Config{Machine: smtCores(1), Duration: time.Second, Workloads: []Workload{
		&StressWorkload{Label: "a", Options: TaskOptions{Cookie: 1, CPUs: []int{0}}},
		&StressWorkload{Label: "b", Options: TaskOptions{Cookie: 2, CPUs: []int{1}, Start: 200 * us}},
	}})
	a, b := r.Tasks[0], r.Tasks[1]
	for _, c := range []struct {
		what      string
		got, want uint64
	}{
		{"A's runtime", a.RuntimeNs, 500_200_000},
		{"B's runtime", b.RuntimeNs, 499_800_000},
		{"CPU 0's forced idle", r.CPUStats[0].ForcedIdleNs, 499_800_000},
		{"CPU 1's forced idle", r.CPUStats[1].ForcedIdleNs, 500_000_000},
		{"A's forced idle caused", a.Core.ForcedIdleCausedNs, 500_000_000},
		{"B's forced idle caused", b.Core.ForcedIdleCausedNs, 499_800_000},
		// Each waits on its own CPU while the other runs: what it
		// suffers is its CPU's forced idle.
		{"A's forced idle suffered", a.Core.ForcedIdleSufferedNs, 499_800_000},
		{"B's forced idle suffered", b.Core.ForcedIdleSufferedNs, 500_000_000},
		{"task_tick_core reschedules on CPU 0", r.CPUStats[0].Core.TickCore, 500},
		{"migrations", r.Migrations, 0},
		// A handover at 0.2 ms and at each of the 1000 ticks: the thread
		// that loses the core starts a forced idle, the one that gains it
		// takes the pick its sibling made for it.
		{"forced-idle periods", r.ForcedIdles, 1001},
		{"picks taken from a sibling", r.ForcedPicks, 1001},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
}

// Three hogs of cookie 1 and one of cookie 2 on two SMT cores: nobody
// starves — each task runs in every 100 ms window (the share samples).
func TestCoreSchedThreeAndOneNoStarvation(t *testing.T) {
	const d, w = 2 * time.Second, 100 * ms
	r := run(t, Config{Machine: smtCores(2), Duration: d, ShareInterval: w, Workloads: []Workload{
		&StressWorkload{N: 3, Label: "one", Options: TaskOptions{Cookie: 1}},
		&StressWorkload{Label: "two", Options: TaskOptions{Cookie: 2}},
	}})
	sh := r.Shares
	if sh == nil || len(sh.TimesNs) < int(d/w) {
		t.Fatalf("share series %+v", sh)
	}
	for i := 1; i < len(sh.TimesNs); i++ {
		for k := range r.Tasks {
			if sh.Runtime[i][k] == sh.Runtime[i-1][k] {
				t.Errorf("%s did not run in [%v, %v)", r.Tasks[k].Name, time.Duration(sh.TimesNs[i-1]), time.Duration(sh.TimesNs[i]))
			}
		}
	}
}

// The cookie numbers of a configuration: equal numbers share one smp
// cookie (the tasks may share a core), different ones do not, and 0 is
// untagged.
func TestCoreSchedCookieNumbersShare(t *testing.T) {
	s, err := New(Config{Machine: smtCores(1), Duration: ms, Workloads: []Workload{
		&StressWorkload{N: 2, Label: "a", Options: TaskOptions{Cookie: 7}},
		&StressWorkload{Label: "b", Options: TaskOptions{Cookie: 3}},
		&StressWorkload{Label: "c"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := func(i int) smp.Cookie { return s.tasks[i].st.Cookie() }
	if c(0) == 0 || c(0) != c(1) || c(2) == 0 || c(2) == c(0) || c(3) != 0 {
		t.Errorf("smp cookies %d %d %d %d: want a = a' ≠ b, c untagged", c(0), c(1), c(2), c(3))
	}
	if !s.sys.CoreScheduling() {
		t.Error("smp's core scheduling is off")
	}
}

// A cookie needs SMT threads, as prctl needs them; the error says so and
// wraps smp.ErrNoSMT.
func TestCoreSchedCookieNeedsSMT(t *testing.T) {
	_, err := New(Config{CPUs: 2, Duration: ms, Workloads: []Workload{Stress(1, TaskOptions{Cookie: 1})}})
	if !errors.Is(err, smp.ErrNoSMT) || !strings.Contains(err.Error(), "threads_per_core") {
		t.Fatalf("error %v, want one wrapping smp.ErrNoSMT that names threads_per_core", err)
	}
}

// A configuration that still has the removed keys is refused with what
// replaced them.
func TestCoreSchedRemovedKeys(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"core_pairs", `{"duration": "1s", "core_pairs": [[0, 1]], "workloads": [{"kind": "stress"}]}`,
			`config:1:34: core_pairs: no longer supported: core scheduling is the kernel's now: give tasks a "cookie"`},
		{"core_rule", `{"duration": "1s", "core_rule": "leader", "workloads": [{"kind": "stress"}]}`,
			`config:1:33: core_rule: no longer supported`},
		{"empty core_pairs", `{"duration": "1s", "core_pairs": [], "workloads": [{"kind": "stress"}]}`,
			`threads_per_core`},
	} {
		_, err := ParseConfig([]byte(tc.json), "")
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a *ConfigError containing %q", tc.name, err, tc.want)
		}
	}
}

// Without a cookie nothing of core scheduling shows: no section in the
// text report, no core parts in the JSON.
func TestCoreSchedAbsentWithoutCookies(t *testing.T) {
	r := run(t, Config{Machine: smtCores(1), Duration: 50 * ms, Workloads: []Workload{Stress(2, TaskOptions{})}})
	var txt, js bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := json.NewEncoder(&js).Encode(r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(txt.String(), "core scheduling") || strings.Contains(js.String(), `"core`) {
		t.Errorf("core scheduling reported without a cookie:\n%s\n%s", txt.String(), js.String())
	}
}

// With cookies the reports carry core scheduling: the text section, the
// JSON parts, the CSV rows, and forced idle as its own slice kind in the
// trace, the slices of each CPU adding up to its forced-idle time.
func TestCoreSchedReports(t *testing.T) {
	r := run(t, Config{Machine: smtCores(1), Duration: 200 * ms, Trace: true, Workloads: []Workload{
		&StressWorkload{Label: "a", Options: TaskOptions{Cookie: 1}},
		&StressWorkload{Label: "b", Options: TaskOptions{Cookie: 2}},
	}})
	var txt, js, csv, tr bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := json.NewEncoder(&js).Encode(r); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteTrace(&tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"core scheduling (", "fi suffered ms"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, txt.String())
		}
	}
	for _, want := range []string{`"core_scheduling":true`, `"forced_idle_suffered_ns"`, `"forced_idle_caused_ns"`, `"steals"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if !strings.Contains(csv.String(), ",forced_idle_suffered_ns,") {
		t.Error("CSV lacks the per-task forced idle")
	}
	var trace struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Cat  string  `json:"cat"`
			Tid  int     `json:"tid"`
			Dur  float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(tr.Bytes(), &trace); err != nil {
		t.Fatal(err)
	}
	fi := make([]float64, r.CPUs)
	for _, e := range trace.TraceEvents {
		if e.Cat == "forced_idle" {
			fi[e.Tid] += e.Dur * 1000
		}
	}
	for i, c := range r.CPUStats {
		if d := fi[i] - float64(c.ForcedIdleNs); d > 1 || d < -1 {
			t.Errorf("CPU %d: forced-idle slices %.0f ns, forced idle %d ns", i, fi[i], c.ForcedIdleNs)
		}
	}
	// Each hog waits through the other's turns: the forced idle it
	// suffered is its sibling's forced idle while it was queued there.
	var suffered, forced uint64
	for _, tk := range r.Tasks {
		suffered += tk.Core.ForcedIdleSufferedNs
	}
	for _, c := range r.CPUStats {
		forced += c.ForcedIdleNs
	}
	if suffered == 0 || suffered > forced {
		t.Errorf("suffered %d ns in all, CPUs forced idle %d ns", suffered, forced)
	}
}

// Randomised cookies over several SMT machines and workloads run with
// Debug on: smp's Check (core invariants included) and the simulator's
// own checks after every event.
func TestCoreSchedMixedWorkloadsChecked(t *testing.T) {
	for _, m := range []topology.Machine{smtCores(1), smtCores(2), {Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 2, ThreadsPerCore: 2}} {
		for seed := uint64(1); seed <= 3; seed++ {
			run(t, Config{Machine: m, Seed: seed, Duration: 100 * ms, StartJitter: ms, Workloads: []Workload{
				&StressWorkload{N: 2, Label: "hog", Options: TaskOptions{Cookie: seed % 3}},
				YieldLoop(30*ms, TaskOptions{Cookie: 1}),
				&MassiveIntrWorkload{N: 3, Runtime: 2 * ms, Sleeptime: 1 * ms, Options: TaskOptions{Cookie: 2}},
				&HackbenchWorkload{Groups: 1, Fds: 2, Loops: 20, Options: TaskOptions{Cookie: 1 + seed%2}},
			}})
		}
	}
}

// The simulator's former rule is gone from the module.
func TestCoreSchedOldRuleGone(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("no grep")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("not in the module tree")
	}
	out, _ := exec.Command("grep", "-rln", "--include=*.go", "Core"+"Rule", root).Output()
	if len(out) > 0 {
		t.Errorf("the former rule's type is still named in:\n%s", out)
	}
}

// Following smp's core scheduling allocates nothing per event in steady
// state: the forced-idle watch and its per-task charge included.
func TestCoreSchedZeroAllocationsPerEvent(t *testing.T) {
	s, err := New(Config{Machine: smtCores(2), Duration: time.Hour, Workloads: []Workload{
		&StressWorkload{N: 3, Label: "one", Options: TaskOptions{Cookie: 1}},
		&StressWorkload{Label: "two", Options: TaskOptions{Cookie: 2}},
		&MassiveIntrWorkload{N: 3, Runtime: 2 * ms, Sleeptime: ms, Options: TaskOptions{Cookie: 3}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for s.Now() < 500*ms {
		s.Step()
	}
	if a := testing.AllocsPerRun(20000, func() { s.Step() }); a != 0 {
		t.Fatalf("%v allocations per event in steady state", a)
	}
	if r := s.Report(); r.ForcedIdles == 0 {
		t.Error("no forced idle: the test does not exercise the forced-idle watch")
	}
}

// The last cookied task exits and core scheduling goes off: every forced
// idle ends there. CPU 1, with two untagged hogs pinned to it, is forced
// idle only while the cookied hog of CPU 0 holds the core, and otherwise
// runs its hogs: its forced idle and their runtimes add up to the run.
func TestCoreSchedForcedIdleEndsWithTheLastCookie(t *testing.T) {
	const d = 300 * ms
	r := run(t, Config{Machine: smtCores(1), Duration: d, Workloads: []Workload{
		&StressWorkload{N: 2, Label: "u", Options: TaskOptions{CPUs: []int{1}}},
		&StressWorkload{Label: "c", Timeout: 100 * ms, Options: TaskOptions{Cookie: 1, CPUs: []int{0}}},
	}})
	if !r.Tasks[2].Exited {
		t.Fatal("the cookied hog did not exit")
	}
	fi := r.CPUStats[1].ForcedIdleNs
	if got := r.Tasks[0].RuntimeNs + r.Tasks[1].RuntimeNs + fi; got != uint64(d) {
		t.Errorf("CPU 1: hogs %d + %d ns, forced idle %d ns: %d ns, want the run's %d", r.Tasks[0].RuntimeNs, r.Tasks[1].RuntimeNs, fi, got, uint64(d))
	}
	if c := r.Tasks[2].RuntimeNs; fi == 0 || fi > c+uint64(ms) {
		t.Errorf("CPU 1 forced idle %d ns, the cookied hog ran %d ns: want about as long", fi, c)
	}
}

// The scenario language has no cookies: a scenario log of a run with
// core scheduling is refused, saying why.
func TestCoreSchedNoScenarioLog(t *testing.T) {
	var log bytes.Buffer
	_, err := New(Config{Machine: smtCores(1), Duration: ms, ScenarioLog: &log,
		Workloads: []Workload{Stress(1, TaskOptions{Cookie: 1})}})
	if err == nil || !strings.Contains(err.Error(), "core scheduling") {
		t.Fatalf("error %v, want one about core scheduling", err)
	}
}
