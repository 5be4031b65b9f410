package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trace replay on the panopticon excerpt: the text report names the
// agreement and the coverage; --json is one object with the same counts.
func TestTraceReplay(t *testing.T) {
	name := filepath.Join("..", "..", "trace", "testdata", "ftrace_panopticon.txt")
	code, out, errs := runTraceCmd(t, "replay", name, "--tasks", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"mode A (pinned) on ", "pick agreement: ", "per CPU:", "coverage: "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	code, out, errs = runTraceCmd(t, "replay", "--json", name)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var rep struct {
		Mode     string
		Overall  struct{ Scored, Agreed int }
		Coverage struct{ Picks, Scored int }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Mode != "pinned" || rep.Coverage.Scored != rep.Overall.Scored || rep.Coverage.Picks == 0 {
		t.Errorf("--json: %+v", rep)
	}
	code, out, errs = runTraceCmd(t, "replay", "--mode", "b", "--compare", "NO_RUN_TO_PARITY", name)
	if code != 0 || !strings.Contains(out, "mode B (free)") || !strings.Contains(out, "(toggled: the model with NO_RUN_TO_PARITY)") {
		t.Errorf("--mode b: exit %d, %s%s", code, out, errs)
	}
	// Mode B follows --kernel: the simulated CPUs run v6.6's fair class.
	code, out, errs = runTraceCmd(t, "replay", "--mode", "b", "--kernel", "v6.6", "--compare", "NO_PLACE_LAG", name)
	if code != 0 || !strings.Contains(out, "mode B (free) on 4 CPU(s), kernel v6.6") || !strings.Contains(out, "toggled") {
		t.Errorf("--mode b --kernel v6.6: exit %d, %s%s", code, out, errs)
	}
}

func TestTraceReplayErrors(t *testing.T) {
	name := filepath.Join("..", "..", "trace", "testdata", "ftrace_panopticon.txt")
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"replay", "--mode", "c", name}, 2, `--mode "c": want a (pinned) or b (model)`},
		{[]string{"replay", "--kernel", "v5", name}, 2, "--kernel: "},
		{[]string{"replay", "--features", "NO_SUCH", name}, 2, "--features: "},
		{[]string{"replay", "--burn-in", "soon", name}, 2, `--burn-in "soon": want a duration`},
		{[]string{"replay", "--hz", "-1", name}, 2, "--hz -1"},
		{[]string{"replay", "--mode", "b", "--burn-in", "1s", name}, 2, "--burn-in and --examples are for mode a"},
		{[]string{"replay", "--compare", "NO_RUN_TO_PARITY", name}, 2, "--compare is for mode b"},
		{[]string{"replay", "--mode", "b", "--compare", "NO_SUCH", name}, 2, "--compare: "},
		{[]string{"replay", filepath.Join(t.TempDir(), "missing.txt")}, 1, "no such file"},
	}
	for _, tc := range tests {
		code, _, errs := runTraceCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.err) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.err)
		}
	}
}

// sim --ftrace writes a run that trace replay reads back and agrees with
// on every pick.
func TestSimFtraceRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	if err := os.WriteFile(cfg, []byte(`{"seed": 2, "cpus": 2, "duration": "100ms",
  "workloads": [{"kind": "stress", "n": 1}, {"kind": "hackbench", "groups": 1, "fds": 2, "loops": 1000000, "pipe": true, "threads": true}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ft := filepath.Join(dir, "run.txt")
	var out, errb bytes.Buffer
	if code := simCmd([]string{cfg, "--ftrace", ft, "--quiet"}, nil, &out, &errb); code != 0 {
		t.Fatalf("sim: exit %d: %s", code, errb.String())
	}
	code, js, errs := runTraceCmd(t, "replay", "--json", ft)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	var rep struct {
		Overall  struct{ Scored, Agreed int }
		Coverage struct{ Picks, Repairs int }
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Overall.Scored < 1000 || rep.Overall.Agreed != rep.Overall.Scored || rep.Coverage.Repairs != 0 {
		t.Errorf("%+v: want every one of a thousand picks or more agreed, no repair", rep)
	}
}

// --plot writes one PNG: mode A's two panels (720 × 640 pt, 960 × 853 px
// at 96 dpi), mode B's CDF (720 × 400 pt); the report is printed as
// without it.
func TestTraceReplayPlot(t *testing.T) {
	name := filepath.Join("..", "..", "trace", "testdata", "ftrace_panopticon.txt")
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		w, h int
		text string
	}{
		{[]string{"--tasks", "2"}, 960, 853, "mode A (pinned)"},
		{[]string{"--json"}, 960, 853, `"mode": "pinned"`},
		{[]string{"--mode", "b", "--compare", "NO_RUN_TO_PARITY"}, 960, 533, "mode B (free)"},
		{[]string{"--mode", "b", "--kernel", "v6.12"}, 960, 533, "kernel v6.12"},
	} {
		out := filepath.Join(dir, "replay.png")
		code, text, errs := runTraceCmd(t, append(append([]string{"replay", "--plot", out}, tc.args...), name)...)
		if code != 0 || !strings.Contains(text, tc.text) {
			t.Fatalf("%q: exit %d, %s%s", tc.args, code, text, errs)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if got := img.Bounds().Size(); got.X != tc.w || got.Y != tc.h {
			t.Errorf("%q: %v px, want %d×%d", tc.args, got, tc.w, tc.h)
		}
	}
}

// A trace without a switch has nothing to draw in mode A: the report is
// printed, the command fails naming --plot, and the image it would have
// created is not left behind. Mode B still draws the model's latencies
// (its run of the same task wakes it), the trace having none. A path that
// cannot be written fails before the trace is read.
func TestTraceReplayPlotErrors(t *testing.T) {
	dir := t.TempDir()
	noSwitch := filepath.Join(dir, "wakeups.txt")
	if err := os.WriteFile(noSwitch, []byte(
		"     threaded-ml-32307 [001] d..3 21926.770086: sched_waking: comm=AudioOutputDevi pid=32308 prio=120 target_cpu=003\n"+
			"     threaded-ml-32307 [001] d..4 21926.770128: sched_wakeup: comm=AudioOutputDevi pid=32308 prio=120 target_cpu=002\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "out.png")
	code, out, errs := runTraceCmd(t, "replay", "--plot", img, noSwitch)
	if code != 1 || !strings.Contains(errs, "--plot "+img+": a replay with no scored pick and no latency sample: nothing to draw") || !strings.Contains(out, "pick agreement: 0 of 0") {
		t.Errorf("mode a, no switch: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(img); err == nil {
		t.Errorf("mode a, no switch: %s left behind", img)
	}
	code, _, errs = runTraceCmd(t, "replay", "--mode", "b", "--plot", img, noSwitch)
	if code != 0 {
		t.Fatalf("mode b, no switch: exit %d, %s", code, errs)
	}
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	_, err = png.Decode(f)
	f.Close()
	if err != nil {
		t.Errorf("mode b, no switch: %v", err)
	}
	for _, tc := range []struct {
		path, err string
	}{
		{filepath.Join(dir, "no", "such", "dir.png"), "directory " + filepath.Join(dir, "no", "such") + " does not exist"},
		{noSwitch, "that is an input of the command"},
		{dir, "is a directory"},
	} {
		code, out, errs := runTraceCmd(t, "replay", "--plot", tc.path, noSwitch)
		if code != 1 || out != "" || !strings.Contains(errs, "--plot "+tc.path+": "+tc.err) {
			t.Errorf("--plot %s: exit %d, stdout %q, stderr %q; want %q before any output", tc.path, code, out, errs, tc.err)
		}
	}
	if code, _, errs := runTraceCmd(t, "replay", "--plot", "", noSwitch); code != 1 || !strings.Contains(errs, "--plot: empty file name") {
		t.Errorf("--plot \"\": exit %d, %q", code, errs)
	}
}
