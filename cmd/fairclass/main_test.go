package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const small = "task A\ntask B nice=5\n0 new A\n0 new B\n0 schedule\n1000000 tick\n1000000 schedule\n"

func TestReplayJSONFromStdin(t *testing.T) {
	code, out, errs := runCmd(t, small, "replay", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5", len(lines))
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	// Keys in the contract's order.
	want := `{"i":0,"t":0,"op":"new","task":"A","V":18446744073708503040,"curr":null,"resched":true,"picked":null,"tasks":[`
	if !strings.HasPrefix(lines[0], want) {
		t.Errorf("first line %s", lines[0])
	}
}

func TestReplayTableAndBackends(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.txt")
	os.WriteFile(path, []byte(small), 0o644)
	_, bt, _ := runCmd(t, "", "replay", path, "--backend", "btree")
	_, rb, _ := runCmd(t, "", "replay", "--backend=rbtree", path)
	if bt != rb || bt == "" {
		t.Error("the backends disagree")
	}
	code, table, _ := runCmd(t, "", "replay", path, "--table")
	if code != 0 || !strings.Contains(table, "schedule") || !strings.Contains(table, "vruntime") {
		t.Errorf("table:\n%s", table)
	}
	trace := filepath.Join(dir, "t.json")
	if code, _, errs := runCmd(t, "", "replay", path, "--trace", trace); code != 0 {
		t.Fatal(errs)
	}
	b, _ := os.ReadFile(trace)
	if !json.Valid(b) {
		t.Error("trace is not JSON")
	}
}

func TestReplayErrors(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"no file", "", []string{"replay"}, 2, "want one scenario file"},
		{"bad backend", small, []string{"replay", "-", "--backend", "avl"}, 2, "want btree or rbtree"},
		{"bad features", small, []string{"replay", "-", "--features", "NO_SUCH"}, 2, "unknown feature"},
		{"missing file", "", []string{"replay", "/nonexistent/x.txt"}, 1, "no such file"},
		{"parse error", "task A\n0 jump A\n", []string{"replay", "-"}, 1, "<stdin>:2:3: unknown operation"},
		{"unknown command", "", []string{"reply"}, 2, "unknown command"},
	}
	for _, tt := range tests {
		code, _, errs := runCmd(t, tt.stdin, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tt.name, code, errs, tt.code, tt.want)
		}
	}
	// A replay error still prints what came before it.
	code, out, errs := runCmd(t, "task A\n0 new A\n0 sleep\n", "replay", "-")
	if code != 1 || strings.Count(out, "\n") != 1 || !strings.Contains(errs, "<stdin>:3:1: sleep with nothing running") {
		t.Errorf("exit %d out %q err %q", code, out, errs)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "replay"}, {"help", "scenario"}, {"help", "features"}, {"replay", "--help"}} {
		code, out, _ := runCmd(t, "", args...)
		if code != 0 || len(out) < 100 {
			t.Errorf("%v: exit %d, %d bytes", args, code, len(out))
		}
	}
	if _, out, _ := runCmd(t, "", "help", "features"); !strings.Contains(out, "PLACE_JOIN_LAG") {
		t.Error("features help lacks the seed toggles")
	}
}

func TestSimCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	os.WriteFile(cfg, []byte(`{"seed": 3, "duration": "200ms", "workloads": [{"kind": "stress", "n": 2}]}`), 0o644)
	jsonOut := filepath.Join(dir, "r.json")
	code, out, errs := runCmd(t, "", "sim", cfg, "--json", jsonOut, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "stress") || !strings.Contains(out, "Runtime ms") {
		t.Errorf("report:\n%s", out)
	}
	b, err := os.ReadFile(jsonOut)
	if err != nil || !json.Valid(b) {
		t.Errorf("JSON report: %v", err)
	}
	// Same seed, same report.
	_, again, _ := runCmd(t, "", "sim", cfg, "--quiet")
	if again != out {
		t.Error("the same configuration gave two reports")
	}
	if code, _, errs := runCmd(t, "", "sim", filepath.Join(dir, "missing.json")); code != 1 || errs == "" {
		t.Errorf("missing config: exit %d", code)
	}
	if code, _, _ := runCmd(t, "", "sim"); code != 2 {
		t.Errorf("no config: exit %d, want 2", code)
	}
}

func TestBenchCommand(t *testing.T) {
	code, out, errs := runCmd(t, "", "bench", "--sizes", "4")
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.Contains(out, "rbtree") {
		t.Errorf("exit %d, out %q, err %q", code, out, errs)
	}
	if code, _, _ := runCmd(t, "", "bench", "--sizes", "0"); code != 2 {
		t.Errorf("size 0: exit %d, want 2", code)
	}
}
