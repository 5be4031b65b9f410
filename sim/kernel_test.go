package sim

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/scenario"
)

// Under every kernel preset, a one-CPU run written as a scenario and
// replayed by package scenario under the same preset ends with every
// entity in the state the simulation left it in: the simulator drives
// that kernel's fair class, not the modelled one's.
func TestKernelScenarioLogReplaysUnderEveryPreset(t *testing.T) {
	for k := eevdf.KernelV71; k <= eevdf.KernelV66; k++ {
		t.Run(k.String(), func(t *testing.T) {
			var slice time.Duration
			if k != eevdf.KernelV66 {
				slice = 300 * us
			}
			var log bytes.Buffer
			s, err := New(Config{Duration: 60 * ms, Kernel: k, ScenarioLog: &log, Debug: true, Workloads: []Workload{
				Cyclictest(1, 2777*us, TaskOptions{Slice: slice}),
				&HackbenchWorkload{Groups: 1, Fds: 3, Loops: 1 << 20, Pipe: true, Capacity: 2},
				Stress(2, TaskOptions{Nice: 3}),
				YieldLoop(20*ms, TaskOptions{}),
			}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			if r.Kernel != k.String() || r.BaseSliceNs != k.BaseSlice() {
				t.Fatalf("report: kernel %q base slice %d, want %v and %d", r.Kernel, r.BaseSliceNs, k, k.BaseSlice())
			}
			if !strings.Contains(log.String(), "# replay with --kernel "+k.String()+"\n") {
				t.Fatalf("the scenario log does not name its kernel:\n%.300s", log.String())
			}
			sc, err := scenario.Parse(strings.NewReader(log.String()), k.String())
			if err != nil {
				t.Fatal(err)
			}
			rp, err := scenario.NewReplayer(sc, scenario.Options{Kernel: k})
			if err != nil {
				t.Fatal(err)
			}
			for !rp.Done() {
				if _, err := rp.Step(); err != nil {
					t.Fatal(err)
				}
			}
			if len(sc.Ops) < 100 {
				t.Fatalf("only %d operations", len(sc.Ops))
			}
			rq, want := rp.RunQueue(), s.cpus[0].rq
			if rq.Kernel() != k || want.Kernel() != k {
				t.Fatalf("runqueues follow %v (replay) and %v (simulation), want %v", rq.Kernel(), want.Kernel(), k)
			}
			if rq.V() != want.V() || rq.NeedResched() != want.NeedResched() || (rq.Curr() == nil) != (want.Curr() == nil) {
				t.Fatalf("runqueue: replay V %d resched %v curr %v, simulation V %d resched %v curr %v",
					rq.V(), rq.NeedResched(), rq.Curr(), want.V(), want.NeedResched(), want.Curr())
			}
			for i := range s.tasks {
				got, want := rq.EntitySnapshot(rp.Entity(i)), want.EntitySnapshot(s.tasks[i].se)
				if got != want {
					t.Fatalf("%s after %d operations:\nreplay     %+v\nsimulation %+v", s.tasks[i].name, len(sc.Ops), got, want)
				}
			}
		})
	}
}

// A preset changes the run: the same configuration under v6.12 (750 µs
// base slice, fixed-point arithmetic, its own wakeup check) does not give
// v7.3's schedule, and the default kernel reports no kernel at all.
func TestKernelPresetChangesTheRun(t *testing.T) {
	cfg := Config{Duration: 200 * ms, Workloads: []Workload{
		Cyclictest(1, 1000*us, TaskOptions{}),
		&HackbenchWorkload{Groups: 1, Fds: 3, Loops: 1 << 20, Pipe: true, Capacity: 2},
		Stress(1, TaskOptions{}),
	}}
	base := run(t, cfg)
	cfg.Kernel = eevdf.KernelV612
	old := run(t, cfg)
	if base.Kernel != "" || old.Kernel != "v6.12" {
		t.Fatalf("kernel names %q and %q, want empty and v6.12", base.Kernel, old.Kernel)
	}
	if base.BaseSliceNs != 700_000 || old.BaseSliceNs != 750_000 {
		t.Fatalf("base slices %d and %d, want 700000 and 750000", base.BaseSliceNs, old.BaseSliceNs)
	}
	var a, b bytes.Buffer
	old.Kernel, old.BaseSliceNs = base.Kernel, base.BaseSliceNs
	if err := base.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := old.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("v6.12's run is v7.3's, number for number")
	}
	old.Kernel, old.BaseSliceNs = "v6.12", 750_000
	var text bytes.Buffer
	if err := old.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "features: v6.12 kernel defaults") {
		t.Errorf("the text report does not name the kernel:\n%.200s", text.String())
	}
}

// What a kernel does not have is refused with its name: a feature its
// features.h lacks, a custom slice under v6.6 (set at creation or by a
// program), lazy preemption before v6.13, task groups before the single
// runqueue.
func TestKernelRefusals(t *testing.T) {
	buddy := features.Default().With(features.PickBuddy)
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"feature absent", Config{Kernel: eevdf.KernelV612, Features: &buddy}, "features: v6.12 has no PICK_BUDDY"},
		{"slice at creation", Config{Kernel: eevdf.KernelV66, Workloads: []Workload{Stress(1, TaskOptions{Slice: ms})}},
			"slice: custom slices (sched_attr.sched_runtime) do not exist in v6.6"},
		{"slice by a program", Config{Kernel: eevdf.KernelV66, Workloads: []Workload{
			Custom("c", TaskSpec{Name: "c", Program: []Phase{SetSlice(ms), Spin()}})}},
			"custom slices (sched_attr.sched_runtime) do not exist in v6.6"},
		{"lazy before v6.13", Config{Kernel: eevdf.KernelV612, Preempt: eevdf.PreemptLazy, Workloads: []Workload{Stress(1, TaskOptions{})}},
			"v6.12 has no lazy preemption model"},
		{"groups", Config{Kernel: eevdf.KernelV70, Groups: []Group{{Name: "g"}}, Workloads: []Workload{Stress(1, TaskOptions{Group: "g"})}},
			"task groups"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Duration = 10 * ms
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error containing %q", err, tc.want)
			}
			if tc.name == "slice at creation" && !errors.Is(err, errNoCustomSlices) {
				t.Errorf("%v does not wrap errNoCustomSlices", err)
			}
		})
	}
}

// The JSON key "kernel" selects the preset, and "features" change that
// kernel's defaults; SetKernel (fairclass sim --kernel) keeps the changes
// when it moves a configuration to another kernel.
func TestKernelConfigKey(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"duration": "10ms", "kernel": "v7.0", "features": "NO_PLACE_LAG DELAY_LAG_FLOOR", "workloads": [{"kind": "stress"}]}`), ".")
	if err != nil {
		t.Fatal(err)
	}
	v70, _ := features.Preset("v7.0")
	if cfg.Kernel != eevdf.KernelV70 || cfg.Features.Diff(v70) != "NO_PLACE_LAG DELAY_LAG_FLOOR" {
		t.Fatalf("kernel %v, features %q against v7.0's defaults", cfg.Kernel, cfg.Features.Diff(v70))
	}
	if err := SetKernel(&cfg, eevdf.KernelV73); err != nil {
		t.Fatal(err)
	}
	if cfg.Kernel != eevdf.KernelV73 || cfg.Features.Diff(features.Default()) != "NO_PLACE_LAG" {
		t.Fatalf("after SetKernel(v7.3): kernel %v, features %q against the defaults (DELAY_LAG_FLOOR is a v7.3 default)",
			cfg.Kernel, cfg.Features.Diff(features.Default()))
	}
	if err := SetKernel(nil, eevdf.KernelV66); err == nil {
		t.Error("SetKernel(nil) did not fail")
	}
	_, err = ParseConfig([]byte(`{"duration": "10ms", "kernel": "v5.15", "workloads": [{"kind": "stress"}]}`), ".")
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "1:32: kernel:") {
		t.Fatalf("unknown kernel: %v, want a ConfigError at 1:32 naming kernel", err)
	}
}
