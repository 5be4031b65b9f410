package main

import (
	"bytes"
	"encoding/json"
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
