package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/scenario"
)

// --kernel v6.12 in the smallest run the command offers: it exits 0, its
// first line names the kernel, and every experiment is printed as not run
// under v6.12 with its reasons — seed 004's own (v6.12's yield is the
// deadline bump whatever the toggle) and the simulator's — and with the
// replay command that runs the thread's scenario under v6.12 instead.
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
	for _, id := range []string{"000", "002", "003", "004"} {
		_, section, _ := strings.Cut(text, "=== seed "+id)
		section, _, _ = strings.Cut(section, "=== seed")
		for _, want := range []string{
			"not run under v6.12:\n",
			"the simulator runs only the modelled kernel's fair class",
			"go run ./cmd/fairclass replay " + scenarioFiles[id] + " --kernel v6.12 --table\n",
		} {
			if !strings.Contains(section, want) {
				t.Errorf("seed %s: no %q in\n%s", id, want, section)
			}
		}
		if yield := strings.Contains(section, "YIELD_BUMP_DEADLINE is that\n    kernel's own yield"); yield != (id == "004") {
			t.Errorf("seed %s: gives the yield reason: %v\n%s", id, yield, section)
		}
	}
	if !strings.HasSuffix(text, "\nnot run under v6.12: seeds 000, 002, 003 and 004 (the reasons are above).\n") {
		t.Errorf("no closing line naming the experiments not run:\n%s", text)
	}
	if strings.Contains(text, "reported directions reproduced") {
		t.Errorf("a summary of directions where none ran:\n%s", text)
	}
}

// Each kernel's reasons, experiment by experiment (KERNEL-SPEC-LTS): none
// under the modelled kernel; under every other, the simulator's, after
// the kernel's own — v6.6 lacks delayed dequeue and custom slices (seeds
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
			want := 1
			if tt.own[e.id] != "" {
				want = 2
			}
			if len(got) != want {
				t.Fatalf("%v, seed %s: %d reasons %v; want %d", tt.k, e.id, len(got), got, want)
			}
			if want == 2 && !strings.Contains(got[0].why, tt.own[e.id]) {
				t.Errorf("%v, seed %s: first reason %q; want the kernel's own, about %s", tt.k, e.id, got[0].why, tt.own[e.id])
			}
			last := got[len(got)-1]
			if !strings.HasPrefix(last.why, "the simulator runs only") || !strings.Contains(last.instead, "--kernel "+tt.k.String()) {
				t.Errorf("%v, seed %s: last reason %+v; want the simulator's, with a replay under %v", tt.k, e.id, last, tt.k)
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
			n := len(kernelLimits(e.id, k))
			if k != eevdf.KernelV73 {
				n-- // the simulator's reason
			}
			if same, own := runs[0] == runs[1], n > 0; same != own {
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
