package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// wideConfig is a busy machine of several LLCs: cyclictest threads,
// hackbench groups exchanging messages across CPUs, run/sleep tasks with
// random phases, and a few hogs.
func wideConfig(seed uint64, m topology.Machine, d time.Duration) Config {
	n := m.NumCPUs()
	var specs []TaskSpec
	for i := range n {
		specs = append(specs, TaskSpec{Name: fmt.Sprintf("sleeper%d", i), Program: []Phase{
			Forever(RunJitter(50*us, 450*us), SleepJitter(100*us, 1900*us)),
		}})
	}
	return Config{
		Seed:        seed,
		Machine:     m,
		Duration:    d,
		StartJitter: ms,
		Workloads: []Workload{
			Cyclictest(2, 1000*us, TaskOptions{}),
			&HackbenchWorkload{Groups: max(1, n/16), Fds: 8, Loops: 1 << 20, Pipe: true},
			Custom("sleepers", specs...),
			Stress(max(1, n/8), TaskOptions{}),
		},
		Trace: true,
	}
}

// A 64-CPU machine (2 packages of 2 LLCs of 8 cores of 2 threads) gives
// byte-identical reports for the same seed — JSON, text, CSV, samples,
// shares, sched latency and the Perfetto trace, each compared on its own —;
// another seed gives another run.
func TestDeterminism64CPUs(t *testing.T) {
	m := topology.Machine{Packages: 2, LLCsPerPackage: 2, CoresPerLLC: 8, ThreadsPerCore: 2}
	d := 100 * ms
	if testing.Short() {
		d = 30 * ms
	}
	writers := []struct {
		name  string
		write func(*Report, io.Writer) error
	}{
		{"JSON", (*Report).WriteJSON},
		{"text", (*Report).WriteText},
		{"CSV", (*Report).WriteCSV},
		{"samples CSV", (*Report).WriteSamplesCSV},
		{"shares CSV", (*Report).WriteSharesCSV},
		{"sched latency", (*Report).WriteSchedLatency},
		{"trace", (*Report).WriteTrace},
	}
	outputs := func(seed uint64) [][]byte {
		r, err := Simulate(wideConfig(seed, m, d))
		if err != nil {
			t.Fatal(err)
		}
		if r.CPUs != 64 || r.Migrations == 0 {
			t.Fatalf("%d CPUs, %d migrations", r.CPUs, r.Migrations)
		}
		var out [][]byte
		for _, w := range writers {
			var b bytes.Buffer
			if err := w.write(r, &b); err != nil {
				t.Fatalf("%s: %v", w.name, err)
			}
			out = append(out, b.Bytes())
		}
		return out
	}
	a, b := outputs(3), outputs(3)
	for i, w := range writers {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("the same seed gave different %s output on 64 CPUs", w.name)
		}
	}
	// The trace records every slice of every CPU: a run without one
	// would compare nothing.
	if tr := a[len(a)-1]; !bytes.Contains(tr, []byte(`"ph":"X"`)) || !bytes.Contains(tr, []byte(`"ph":"s"`)) {
		t.Errorf("the trace has no slices or no migration arrows (%d bytes)", len(tr))
	}
	c := outputs(4)
	if bytes.Equal(a[0], c[0]) || bytes.Equal(a[len(a)-1], c[len(c)-1]) {
		t.Error("seeds 3 and 4 gave identical reports or traces")
	}
}

// Debug mode checks smp's invariants and the simulator's after every
// event, on a machine with SMT and several LLCs, in both tick modes and
// both start states; the counts of the report agree with each other.
func TestSeveralCPUsChecked(t *testing.T) {
	boot := topology.Boot
	for _, tc := range []struct {
		name   string
		m      topology.Machine
		nohz   smp.NohzMode
		preset *topology.Preset
	}{
		{"2x2x2x2 linear, nohz off, warm", topology.Machine{Packages: 2, LLCsPerPackage: 2, CoresPerLLC: 2, ThreadsPerCore: 2}, smp.NohzOff, nil},
		{"1x2x4x2 x86, nohz idle, boot", topology.Machine{Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 4, ThreadsPerCore: 2, Numbering: topology.X86}, smp.NohzIdle, &boot},
		{"1x1x6x1, nohz idle, warm", topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 6, ThreadsPerCore: 1}, smp.NohzIdle, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := wideConfig(1, tc.m, 60*ms)
			cfg.Nohz, cfg.Preset = tc.nohz, tc.preset
			cfg.Groups = []Group{{Name: "bench", Weight: 200}}
			cfg.Workloads[1].(*HackbenchWorkload).Options.Group = "bench"
			r := run(t, cfg)
			p := r.Placement
			var placed, migrated, taskMigrations, causes uint64
			for _, rc := range p.Rules {
				placed += rc.Placed
				migrated += rc.Migrated
			}
			for _, tk := range r.Tasks {
				taskMigrations += tk.Migrations
			}
			for _, c := range r.MigrationCauses {
				if c.Cause != "fork_balance" {
					causes += c.Count
				}
			}
			if placed != p.Forks+p.Wakeups || p.Forks != uint64(len(r.Tasks)) {
				t.Errorf("%d placements by rule for %d forks and %d wakeups", placed, p.Forks, p.Wakeups)
			}
			if taskMigrations != r.Migrations || causes != r.Migrations || migrated == 0 || migrated > r.Migrations {
				t.Errorf("migrations: report %d, tasks %d, causes %d, wakeup migrations %d", r.Migrations, taskMigrations, causes, migrated)
			}
			if p.ForkBalance == 0 {
				t.Error("no fork placed away from the forking CPU")
			}
			if r.Nohz != tc.nohz.String() || r.Machine != tc.m.String() {
				t.Errorf("report names machine %q nohz %q", r.Machine, r.Nohz)
			}
			var text bytes.Buffer
			r.WriteText(&text)
			if !strings.Contains(text.String(), "placed   migrated\n") || !strings.Contains(text.String(), "\n  slow_path   ") {
				t.Errorf("text report without placements:\n%s", text.String()[:400])
			}
		})
	}
}

// With nohz idle an idle CPU stops its tick: a lone sleeper on a
// four-CPU machine leaves three CPUs idle, whose ticks nohz off counts
// and nohz idle does not. The schedule itself is the same.
func TestNohzIdleStopsIdleTicks(t *testing.T) {
	cfg := func(mode smp.NohzMode) Config {
		return Config{CPUs: 4, Duration: 100 * ms, Nohz: mode, Workloads: []Workload{
			Custom("s", TaskSpec{Name: "s", Program: []Phase{Forever(Run(300*us), Sleep(700*us))}}),
		}}
	}
	off, idle := run(t, cfg(smp.NohzOff)), run(t, cfg(smp.NohzIdle))
	if off.Events <= idle.Events+300 {
		t.Errorf("events: %d with nohz off, %d with nohz idle", off.Events, idle.Events)
	}
	if off.Tasks[0].RuntimeNs != idle.Tasks[0].RuntimeNs || off.ContextSwitches != idle.ContextSwitches {
		t.Errorf("the schedule differs: runtime %d / %d, switches %d / %d",
			off.Tasks[0].RuntimeNs, idle.Tasks[0].RuntimeNs, off.ContextSwitches, idle.ContextSwitches)
	}
}

// The reschedules of one instant run in ascending CPU id (§7.3 step 5),
// whatever order the wakeups came in: four sleepers pinned to CPUs 3, 2,
// 1 and 0 wake at the same instant, in that order (arming order, then task
// order), and start to run on CPUs 0, 1, 2, 3.
func TestReschedulesInCPUOrder(t *testing.T) {
	var order []int
	var specs []TaskSpec
	for i := range 4 {
		specs = append(specs, TaskSpec{Name: fmt.Sprintf("p%d", i), TaskOptions: TaskOptions{CPUs: []int{3 - i}},
			Program: []Phase{SleepUntil(5 * ms), Hook(func(e HookEvent) { order = append(order, e.CPU) })}})
	}
	run(t, Config{CPUs: 4, Duration: 10 * ms, Workloads: []Workload{Custom("p", specs...)}})
	if fmt.Sprint(order) != "[0 1 2 3]" {
		t.Fatalf("the woken tasks ran on CPUs in the order %v, want [0 1 2 3]", order)
	}
}

// Timer expiries of one instant come first, in arming order (ties by
// task), then the tick, then the reschedule (§7.3 steps 2, 3 and 5): on
// one CPU under a hog, c arms its timer at 1 ms, a and b at 0; all expire
// at 4 ms, a tick instant. The scenario log shows the order.
func TestTimersThenTickThenReschedule(t *testing.T) {
	var log bytes.Buffer
	_, err := Simulate(Config{Duration: 4*ms + 500*us, ScenarioLog: &log, Workloads: []Workload{
		Stress(1, TaskOptions{}),
		Custom("t",
			TaskSpec{Name: "c", Program: []Phase{Sleep(ms), SleepUntil(4 * ms), Spin()}},
			TaskSpec{Name: "b", Program: []Phase{SleepUntil(4 * ms), Spin()}},
			TaskSpec{Name: "a", Program: []Phase{SleepUntil(4 * ms), Spin()}}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	var at4 []string
	for _, line := range strings.Split(log.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "4000000 "); ok {
			at4 = append(at4, rest)
		}
	}
	want := []string{"wakeup b", "wakeup a", "wakeup c", "tick", "schedule"}
	if len(at4) < len(want) || fmt.Sprint(at4[:len(want)]) != fmt.Sprint(want) {
		t.Fatalf("operations at 4 ms: %q, want %q first", at4, want)
	}
}

// A 1024-CPU machine (no cap at 64): stress with one and a half hogs per
// CPU, all forked at time 0 from CPU 0. Fork placement (the slow path)
// gives every CPU one, so every CPU runs all the time, and the CPU time
// adds up. (Where the other 512 go is the slow path's business: the
// group of the forking CPU keeps a fork while it has as many idle CPUs as
// the idlest group, so CPU 0 takes a few more before its signals make it
// overloaded.)
func TestStress1024CPUs(t *testing.T) {
	d := 20 * ms
	if testing.Short() {
		d = 4 * ms
	}
	r, err := Simulate(Config{CPUs: 1024, Duration: d, Workloads: []Workload{Stress(1536, TaskOptions{})}})
	if err != nil {
		t.Fatal(err)
	}
	perCPU := map[int]int{}
	var ran uint64
	for _, tk := range r.Tasks {
		perCPU[tk.CPU]++
		ran += tk.RuntimeNs
	}
	for c := range 1024 {
		if perCPU[c] < 1 {
			t.Fatalf("CPU %d holds no hog", c)
		}
		if b := r.CPUStats[c].BusyNs; b != uint64(d) {
			t.Fatalf("CPU %d busy %d ns of %d", c, b, d)
		}
	}
	if ran != 1024*uint64(d) {
		t.Fatalf("hogs ran %d ns, want %d", ran, 1024*uint64(d))
	}
	if r.Placement.Forks != 1536 || r.Placement.Rules[smp.RuleSlowPath].Placed != 1536 {
		t.Fatalf("placement %+v", r.Placement)
	}
}

// The schedule's trace: a track per CPU, and a migration arrow (a flow
// start on the CPU the task left, bound to its last slice there, and a
// flow end on the CPU it moved to, bound to its next slice) for every
// change of CPU between two slices of a task.
func TestTraceMigrationArrows(t *testing.T) {
	cfg := wideConfig(2, topology.Machine{Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 2, ThreadsPerCore: 2}, 50*ms)
	r := run(t, cfg)
	var tr bytes.Buffer
	if err := r.WriteTrace(&tr); err != nil {
		t.Fatal(err)
	}
	var trace struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Cat  string          `json:"cat"`
			Ph   string          `json:"ph"`
			ID   int             `json:"id"`
			Tid  int             `json:"tid"`
			Ts   float64         `json:"ts"`
			Dur  float64         `json:"dur"`
			Bp   string          `json:"bp"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(tr.Bytes(), &trace); err != nil {
		t.Fatal(err)
	}
	type key struct {
		tid int
		ts  float64
	}
	slices := map[key]string{}
	tracks := map[int]bool{}
	starts := map[int]key{}
	var flows int
	for _, e := range trace.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				tracks[e.Tid] = true
			}
		case "X":
			slices[key{e.Tid, e.Ts}] = e.Name
		}
	}
	for _, e := range trace.TraceEvents {
		switch e.Ph {
		case "s":
			var args struct {
				Task  string `json:"task"`
				ToCPU int    `json:"to_cpu"`
			}
			json.Unmarshal(e.Args, &args)
			if slices[key{e.Tid, e.Ts}] != args.Task || e.Cat != "sched" {
				t.Fatalf("flow %d starts at CPU %d %.3f µs, not at a slice of %s", e.ID, e.Tid, e.Ts, args.Task)
			}
			starts[e.ID] = key{args.ToCPU, e.Ts}
		case "f":
			s, ok := starts[e.ID]
			if !ok || e.Bp != "e" || s.tid != e.Tid || e.Ts < s.ts {
				t.Fatalf("flow %d ends at CPU %d %.3f µs, started %+v", e.ID, e.Tid, e.Ts, s)
			}
			if _, ok := slices[key{e.Tid, e.Ts}]; !ok {
				t.Fatalf("flow %d ends at CPU %d %.3f µs, not at a slice", e.ID, e.Tid, e.Ts)
			}
			flows++
		}
	}
	if len(tracks) != 8 {
		t.Errorf("%d CPU tracks, want 8", len(tracks))
	}
	if flows == 0 || flows != len(starts) {
		t.Errorf("%d flows ended of %d started", flows, len(starts))
	}
	// A migration between two slices is an arrow; every change of CPU
	// the report counts happened while the task waited or slept, so
	// there are at most that many arrows.
	if uint64(flows) > r.Migrations {
		t.Errorf("%d arrows for %d migrations", flows, r.Migrations)
	}
}

// The events of a machine of several CPUs allocate nothing in the steady
// state either.
func TestZeroAllocationsPerEventSMP(t *testing.T) {
	cfg := wideConfig(1, topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2}, time.Hour)
	cfg.Trace = false
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for s.Now() < 500*ms {
		s.Step()
	}
	if a := testing.AllocsPerRun(20000, func() { s.Step() }); a != 0 {
		t.Fatalf("%v allocations per event in steady state", a)
	}
}
