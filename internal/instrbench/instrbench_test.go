package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMeasureWithoutValgrind runs everything but callgrind on a tiny
// plan: the inputs are written, every measured run executes in-process
// with its arguments, and the table is printed from fake counts (a short
// run 1000 instructions, a long one 1000 + 10 per operation of the
// row), so that each figure must come out as 10.
func TestMeasureWithoutValgrind(t *testing.T) {
	p := plan{streamTime: 20 * time.Millisecond, schedules: 50, sizes: []int{16}}
	var runs []string
	per := map[string]int{}
	count := func(name string, args []string) (uint64, error) {
		runs = append(runs, name)
		if err := work(args); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		if strings.HasSuffix(name, ".long") {
			row := strings.Split(name, ".")[0]
			return 1000 + 10*uint64(per[row]), nil
		}
		return 1000, nil
	}
	// The streams' operation counts are known only once written: measure
	// twice, the first time to learn them.
	rows, err := measure(t.TempDir(), p, nil, func(name string, args []string) (uint64, error) {
		return 0, work(args)
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		per[r.name] = r.ops
	}
	rows, err = measure(t.TempDir(), p, nil, count, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sleepers", "hogs", "mixed", "pick-16"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if r.name != want[i] || r.ops <= 0 {
			t.Errorf("row %d: %s with %d ops, want %s with some", i, r.name, r.ops, want[i])
		}
		if r.btree != 10 || (r.pick && r.rbtree != 10) || (!r.pick && r.sim != 10) {
			t.Errorf("%s: B-tree %v, red-black %v, simulator %v; want 10 each measured", r.name, r.btree, r.rbtree, r.sim)
		}
		if r.kernel == 0 {
			t.Errorf("%s: no kernel figure", r.name)
		}
	}
	if len(runs) != 2*(2*3+2) {
		t.Errorf("%d runs, want %d: two per figure", len(runs), 2*(2*3+2))
	}
	var b bytes.Buffer
	writeTable(&b, rows)
	for _, line := range []string{
		"| sleepers (100 run/sleep) | " + fmt.Sprint(per["sleepers"]) + " | 808 | 10 | 0.01× | — | 10 | 0.01× |",
		"| pick loop, n = 16 | 50 | 781 | 10 | 0.01× | 10 | — | — |",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, b.String())
		}
	}
}

// TestFullPlanStreams checks that the full plan's streams are the
// operation counts the kernel's figures were measured on (sim's log of
// benchConfig's 2 seconds), without callgrind.
func TestFullPlanStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three 2-second simulations")
	}
	dir := t.TempDir()
	for _, s := range streams {
		if err := writeStream(dir, s, fullPlan.streamTime); err != nil {
			t.Fatal(err)
		}
		sc, err := parseFile(dir + "/" + s.name + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"sleepers": 17609, "hogs": 4101, "mixed": 10337}[s.name]
		if len(sc.Ops) != want {
			t.Errorf("%s: %d operations, want %d", s.name, len(sc.Ops), want)
		}
	}
}

func TestWorkRejectsBadArguments(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"replay"},
		{"replay", "f", "avl", "1"},
		{"replay", "f", "btree", "-1"},
		{"sim", "sleepers", "x", "1"},
		{"sim", "nosuch", "1000", "1"},
		{"replay", "/nonexistent/file.txt", "btree", "1"},
	} {
		if err := work(args); err == nil {
			t.Errorf("work %q: no error", args)
		}
	}
}

func TestReplayOpsBeyondTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := writePickLoop(dir, 16, 10); err != nil {
		t.Fatal(err)
	}
	file := dir + "/pick-16.txt"
	n := pickHeader(16) + pickWarm(16) + 10
	if err := work([]string{"replay", file, "rbtree", "1", fmt.Sprint(n)}); err != nil {
		t.Fatalf("all %d operations: %v", n, err)
	}
	if err := work([]string{"replay", file, "btree", "1", fmt.Sprint(n + 1)}); err == nil {
		t.Errorf("%d operations of %d: no error", n+1, n)
	}
}

// fakeValgrind writes a shell script that stands in for valgrind: its
// first fails runs print stderr and exit 1, the later ones print a count
// of 12345; every run appends a line to the returned log.
func fakeValgrind(t *testing.T, fails int, stderr string) (script, log string) {
	t.Helper()
	dir := t.TempDir()
	script, log = filepath.Join(dir, "valgrind"), filepath.Join(dir, "runs")
	body := fmt.Sprintf(`#!/bin/sh
echo run >> %q
if [ "$(wc -l < %q)" -le %d ]; then printf '%%s\n' %q >&2; exit 1; fi
echo '==1== Collected : 12345' >&2
`, log, log, fails, stderr)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, log
}

func runsLogged(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// TestCallgrindRunsAgainAfterRDTSCP: a run that died on valgrind's
// unhandled RDTSCP is run again until it ends, at most rdtscpAttempts
// times; any other failure is reported at once.
func TestCallgrindRunsAgainAfterRDTSCP(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to stand in for valgrind")
	}
	sigill := "vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20 0x48 0x1 0xD0"
	out := filepath.Join(t.TempDir(), "cg.out")

	vg, log := fakeValgrind(t, 2, sigill)
	n, err := callgrind(vg, out, "self", []string{"x"})
	if err != nil || n != 12345 {
		t.Fatalf("after two RDTSCP deaths: %d, %v; want 12345, nil", n, err)
	}
	if got := runsLogged(t, log); got != 3 {
		t.Errorf("%d runs, want 3", got)
	}

	vg, log = fakeValgrind(t, 100, sigill)
	if _, err := callgrind(vg, out, "self", []string{"x"}); err == nil || !strings.Contains(err.Error(), "0xF9") {
		t.Errorf("RDTSCP on every run: error %v, want one quoting valgrind", err)
	}
	if got := runsLogged(t, log); got != rdtscpAttempts {
		t.Errorf("%d runs, want %d", got, rdtscpAttempts)
	}

	vg, log = fakeValgrind(t, 1, "valgrind: something else went wrong")
	if _, err := callgrind(vg, out, "self", []string{"x"}); err == nil {
		t.Error("another failure: no error")
	}
	if got := runsLogged(t, log); got != 1 {
		t.Errorf("another failure: %d runs, want 1", got)
	}
}
