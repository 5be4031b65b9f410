package main

import (
	"bytes"
	"strings"
	"testing"
)

// tableRows returns the table's data rows, split into cells.
func tableRows(t *testing.T, out string) [][]string {
	t.Helper()
	var rows [][]string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "| CPUs") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		if len(cells) != 8 {
			t.Fatalf("row %q has %d cells, want 8", l, len(cells))
		}
		rows = append(rows, cells)
	}
	return rows
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d, stderr:\n%s", args, code, errb.String())
	}
	return out.String()
}

// A small hackbench on three machines: one row each, in order, with the
// machine it ran on, and the same simulated columns in a second run.
func TestTable(t *testing.T) {
	args := []string{"--cpus", "1,2,4", "--groups", "2", "--fds", "4", "--loops", "20"}
	out := runOK(t, args...)
	for _, want := range []string{"hackbench -g 2 -f 4 -l 20, processes over sockets: 16 tasks, 640 messages; simulation seed 1",
		"N single-thread cores in one LLC", "| CPUs | machine | hackbench time |", "wall time in all"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rows := tableRows(t, out)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3:\n%s", len(rows), out)
	}
	for i, want := range []string{"1x1x1x1 linear", "1x1x2x1 linear", "1x1x4x1 linear"} {
		if rows[i][1] != want {
			t.Errorf("row %d: machine %q, want %q", i, rows[i][1], want)
		}
		if rows[i][2] == "0.000 s" || rows[i][5] == "0" {
			t.Errorf("row %d: nothing ran: %v", i, rows[i])
		}
	}
	if rows[0][4] != "0" {
		t.Errorf("migrations on one CPU: %s", rows[0][4])
	}
	again := tableRows(t, runOK(t, args...))
	for i := range rows {
		if strings.Join(rows[i][:6], "|") != strings.Join(again[i][:6], "|") {
			t.Errorf("row %d differs between two runs:\n%v\n%v", i, rows[i], again[i])
		}
	}
}

func TestSMTMachines(t *testing.T) {
	out := runOK(t, "--machine", "smt", "--cpus", "1,4", "--groups", "1", "--fds", "3", "--loops", "10", "--pipe")
	rows := tableRows(t, out)
	if len(rows) != 2 || rows[0][1] != "1x1x1x1 linear" || rows[1][1] != "1x1x2x2 x86" {
		t.Errorf("machines %v, want 1x1x1x1 linear and 1x1x2x2 x86:\n%s", rows, out)
	}
	if !strings.Contains(out, "over pipes") {
		t.Errorf("--pipe not stated:\n%s", out)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--cpus", "0"}, {"--cpus", "1,x"}, {"--cpus", "9000"}, {"--machine", "smt", "--cpus", "3"},
		{"--machine", "numa"}, {"--loops", "0"}, {"--groups", "-1"}, {"--fds", "0"}, {"--groups", "100000", "--loops", "100000000"}, {"extra"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errb.String())
		}
	}
}
