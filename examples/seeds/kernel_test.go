package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/scenario"
)

// scenarioFiles are the threads' one-CPU scenarios in examples/scenarios,
// which fairclass replay --kernel runs under every preset.
var scenarioFiles = map[string]string{
	"000": "examples/scenarios/seed000-delay-lag-floor.txt",
	"002": "examples/scenarios/seed002-flush-delayed.txt",
	"003": "examples/scenarios/seed003-join-lag.txt",
	"004": "examples/scenarios/seed004-yield-loop.txt",
}

// --kernel v6.12 in the smallest run the command offers: it exits 0, its
// first line names the kernel, seeds 000 and 003 run under v6.12 (its
// base slice, 750 µs scaled for the machine, in their descriptions), and
// seeds 002 and 004 are printed as not run with v6.12's own reasons: its
// wakeup check has no flush for 002's toggle, and its yield is the
// deadline bump whatever 004's toggles say.
func TestKernelV612NamedAndReported(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--kernel", "v6.12", "--quick", "--runs", "1", "--quiet"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	if errb.Len() != 0 {
		t.Errorf("stderr: %q", errb.String())
	}
	text := out.String()
	first, _, _ := strings.Cut(text, "\n")
	if first != "fairclass seed experiments: quick runs (--quick), simulation seed 1 only, kernel v6.12" {
		t.Errorf("first line %q does not name the kernel", first)
	}
	for id, want := range map[string]string{
		"000": "base slice 1.5ms, HZ=250", // 2 CPUs: 750 µs × 2
		"002": "v6.12's wakeup check has no flush of delayed entities",
		"003": "base slice 3ms, HZ=1000", // 8 CPUs: 750 µs × 4
		"004": "YIELD_BUMP_DEADLINE is that\n    kernel's own yield",
	} {
		_, section, _ := strings.Cut(text, "=== seed "+id)
		section, _, _ = strings.Cut(section, "=== seed")
		if !strings.Contains(section, want) {
			t.Errorf("seed %s: no %q in\n%s", id, want, section)
		}
		if notRun := strings.Contains(section, "not run under v6.12:\n"); notRun != (id == "002" || id == "004") {
			t.Errorf("seed %s: not run %v\n%s", id, notRun, section)
		}
	}
	if !strings.HasSuffix(text, "\nnot run under v6.12: seeds 002 and 004 (the reasons are above).\n") {
		t.Errorf("no closing line naming the experiments not run:\n%s", text)
	}
	if !strings.Contains(text, "reported directions reproduced") {
		t.Errorf("no summary of the directions that ran:\n%s", text)
	}
}

// Under a kernel without the modelled one's seed toggles among its
// defaults, each side keeps the toggles it has under the modelled kernel:
// seed 000's patched side has DELAY_LAG_FLOOR on under v7.0 (whose own
// default is off), its baseline has it off, and the SCHED_FEATs are v7.0's.
func TestUnderKernelKeepsTheSeedToggles(t *testing.T) {
	for _, tc := range []struct {
		tokens string
		floor  bool
	}{
		{"NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED", false},
		{"NO_PREEMPT_FLUSH_DELAYED", true},
	} {
		cfg := rb5.config(1, time.Second, parse(tc.tokens))
		if err := underKernel(&cfg, eevdf.KernelV70); err != nil {
			t.Fatal(err)
		}
		v70, _ := features.Preset("v7.0")
		want := v70.Toggle(features.DelayLagFloor, tc.floor)
		if cfg.Kernel != eevdf.KernelV70 || *cfg.Features != want {
			t.Errorf("%q under v7.0: kernel %v, features %v; want %v", tc.tokens, cfg.Kernel, cfg.Features, want)
		}
	}
}

// Each kernel's reasons, experiment by experiment (KERNEL-SPEC-LTS): none
// under the modelled kernel, v7.1 and v7.0; otherwise the kernel's own —
// v6.6 lacks delayed dequeue and custom slices (seeds
// 000 and 002), v6.12's wakeup check has no flush (seed 002), and the
// yield of v6.18, v6.12 and v6.6 is the deadline bump (seed 004).
func TestKernelLimits(t *testing.T) {
	for _, tt := range []struct {
		k    eevdf.Kernel
		own  map[string]string // the kernel's own reason, by experiment
		none bool              // nothing stops any experiment
	}{
		{k: eevdf.KernelV73, none: true},
		{k: eevdf.KernelV71},
		{k: eevdf.KernelV70},
		{k: eevdf.KernelV618, own: map[string]string{"004": "yield"}},
		{k: eevdf.KernelV612, own: map[string]string{"002": "flush", "004": "yield"}},
		{k: eevdf.KernelV66, own: map[string]string{"000": "delayed dequeue", "002": "delayed dequeue", "004": "yield"}},
	} {
		for _, e := range experiments {
			got := kernelLimits(e.id, tt.k)
			if tt.none {
				if len(got) != 0 {
					t.Errorf("%v, seed %s: %v; want nothing", tt.k, e.id, got)
				}
				continue
			}
			want := 0
			if tt.own[e.id] != "" {
				want = 1
			}
			if len(got) != want {
				t.Fatalf("%v, seed %s: %d reasons %v; want %d", tt.k, e.id, len(got), got, want)
			}
			if want == 1 && !strings.Contains(got[0].why, tt.own[e.id]) {
				t.Errorf("%v, seed %s: reason %q; want the kernel's own, about %s", tt.k, e.id, got[0].why, tt.own[e.id])
			}
			if _, err := os.Stat(filepath.Join("..", "..", scenarioFiles[e.id])); err != nil {
				t.Errorf("seed %s: %v", e.id, err)
			}
		}
	}
}

// --kernel v7.3 is the default: the same output, byte for byte, as no
// flag at all.
func TestKernelDefaultOutputUnchanged(t *testing.T) {
	var plain, named, errb bytes.Buffer
	args := []string{"--quick", "--runs", "1", "--seeds", "003", "--quiet"}
	if code := run(args, &plain, &errb); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	if code := run(append(args, "--kernel", "v7.3"), &named, &errb); code != 0 {
		t.Fatalf("--kernel v7.3: exit %d, stderr:\n%s", code, errb.String())
	}
	if plain.String() != named.String() {
		t.Errorf("--kernel v7.3 changes the output:\n%s\nwithout the flag:\n%s", named.String(), plain.String())
	}
	if strings.Contains(plain.String(), "not run under") {
		t.Errorf("the default run reports an experiment not run:\n%s", plain.String())
	}
}

// A kernel the command does not know is refused before any work.
func TestKernelUnknown(t *testing.T) {
	for _, name := range []string{"v6.5", "6.12", "", "V6.12"} {
		var out, errb bytes.Buffer
		code := run([]string{"--kernel", name}, &out, &errb)
		if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "want v7.3, v7.1, v7.0, v6.18, v6.12 or v6.6") ||
			strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("--kernel %q: exit %d, stdout %q, stderr %q; want 2, nothing, one line", name, code, out.String(), errb.String())
		}
	}
}

// A kernel gives an experiment a reason of its own exactly where the
// thread's toggle changes nothing: the thread's one-CPU scenario replayed
// under the kernel with the toggle on and off is the same run there, and
// a different one everywhere else.
func TestKernelLimitsAgreeWithReplay(t *testing.T) {
	sides := map[string][2]string{
		"000": {"DELAY_LAG_FLOOR", "NO_DELAY_LAG_FLOOR"},
		"002": {"PREEMPT_FLUSH_DELAYED", "NO_PREEMPT_FLUSH_DELAYED"},
		"003": {"PLACE_JOIN_LAG", "NO_PLACE_JOIN_LAG"},
		"004": {"NO_YIELD_BUMP_DEADLINE", "YIELD_BUMP_DEADLINE"},
	}
	for k := eevdf.KernelV73; k <= eevdf.KernelV66; k++ {
		for _, e := range experiments {
			var runs [2]string
			for i, tokens := range sides[e.id] {
				runs[i] = replayText(t, filepath.Join("..", "..", scenarioFiles[e.id]), k, tokens)
			}
			if same, own := runs[0] == runs[1], len(kernelLimits(e.id, k)) > 0; same != own {
				t.Errorf("%v, seed %s: %s and %s give the same run: %v; the kernel gives a reason of its own: %v",
					k, e.id, sides[e.id][0], sides[e.id][1], same, own)
			}
		}
	}
}

// replayText replays a scenario file under kernel k with extra feature
// tokens applied last, and prints every result.
func replayText(t *testing.T, path string, k eevdf.Kernel, extra string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := scenario.Parse(f, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := sc.FeaturesFor(k, extra)
	if err != nil {
		t.Fatalf("%s under %v with %q: %v", path, k, extra, err)
	}
	var b strings.Builder
	err = scenario.Replay(sc, scenario.Options{Kernel: k, Features: &fs}, func(r *scenario.Result) error {
		fmt.Fprintf(&b, "%+v\n", *r)
		return nil
	})
	if err != nil {
		t.Fatalf("%s under %v with %q: %v", path, k, extra, err)
	}
	return b.String()
}
