package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runTraceCmd calls traceCmd directly, as the dispatch in run will.
func runTraceCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = traceCmd(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestTraceImportJSONLines: the hand-written 6.x excerpt prints one JSON
// object per event with exactly the fields of its kind, and a summary.
func TestTraceImportJSONLines(t *testing.T) {
	name := filepath.Join("..", "..", "trace", "testdata", "ftrace_v6.txt")
	code, out, errs := runTraceCmd(t, "import", name)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `{"t":100000001000,"cpu":1,"kind":"sched_switch","ctx":0,"prev":{"pid":0,"comm":"swapper/1","prio":120},"prev_state":"R","next":{"pid":500,"comm":"stress","prio":120}}
{"t":100000001000,"cpu":0,"kind":"lost_events","lost":42}
{"t":100000250000,"cpu":1,"kind":"sched_waking","ctx":500,"task":{"pid":501,"comm":"cat","prio":139},"target_cpu":0}
{"t":100000400000,"cpu":1,"kind":"sched_switch","ctx":500,"prev":{"pid":500,"comm":"stress","prio":120},"prev_state":"R+","next":{"pid":501,"comm":"cat","prio":139}}
{"t":100000500000,"cpu":1,"kind":"sched_process_exit","ctx":501,"task":{"pid":501,"comm":"cat","prio":139}}
{"t":100000600000,"cpu":1,"kind":"sched_switch","ctx":501,"prev":{"pid":501,"comm":"cat","prio":139},"prev_state":"Z","next":{"pid":0,"comm":"swapper/1","prio":120}}
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	wantSummary := name + ": ftrace, prev_state era 4.14+: 6 events (sched_switch 3, sched_waking 1, sched_process_exit 1, lost_events 1), 0 other events\n"
	if errs != wantSummary {
		t.Errorf("summary %q, want %q", errs, wantSummary)
	}
}

// TestTraceImportPerfetto: the Perfetto excerpt gives its 50 events, each a
// valid JSON object, and names its kernel.
func TestTraceImportPerfetto(t *testing.T) {
	code, out, errs := runTraceCmd(t, "import", filepath.Join("..", "..", "trace", "testdata", "perfetto_android12.pftrace"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 23+15+12 {
		t.Errorf("%d lines, want 50", len(lines))
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
	}
	if !strings.Contains(errs, "perfetto, prev_state era 4.14+, kernel 5.10.43-android12-9") {
		t.Errorf("summary %q does not name the format and kernel", errs)
	}
}

// TestTraceImportStrictAndLenient: a malformed line stops the import with
// FILE:LINE: reason and exit 1; --lenient skips it and reports the count.
func TestTraceImportStrictAndLenient(t *testing.T) {
	name := filepath.Join(t.TempDir(), "bad.txt")
	in := "  a-7 [001] d..2  10.000001: sched_waking: comm=b pid=8 prio=120 target_cpu=001\n" +
		"not a trace line\n" +
		"  a-7 [001] d..2  10.000002: sched_waking: comm=b pid=9 prio=120 target_cpu=001\n"
	if err := os.WriteFile(name, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runTraceCmd(t, "import", name)
	if code != 1 || strings.Count(out, "\n") != 1 || !strings.Contains(errs, name+":2: no [CPU] column") {
		t.Errorf("strict: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errs)
	}
	code, out, errs = runTraceCmd(t, "import", "--lenient", name)
	if code != 0 || strings.Count(out, "\n") != 2 ||
		!strings.Contains(errs, "1 malformed lines skipped (first: "+name+":2: no [CPU] column)") {
		t.Errorf("lenient: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errs)
	}
}

// TestTraceImportKernelFlag: --kernel selects the prev_state encoding of
// numeric values: 64 is x before 4.14 and P after.
func TestTraceImportKernelFlag(t *testing.T) {
	name := filepath.Join(t.TempDir(), "r.txt")
	in := "cpus=1\n  a-7 [000] 1.000001: sched_switch: prev_comm=a prev_pid=7 prev_prio=120 prev_state=64 next_comm=b next_pid=8 next_prio=120\n"
	if err := os.WriteFile(name, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	for kernel, want := range map[string]string{"4.9.0": `"prev_state":"x","raw_state":64`, "5.4.0": `"prev_state":"P","raw_state":64`} {
		code, out, errs := runTraceCmd(t, "import", "--kernel", kernel, name)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--kernel %s: exit %d, %s %s; want %s", kernel, code, out, errs, want)
		}
	}
}

func TestTraceImportErrors(t *testing.T) {
	dat := filepath.Join(t.TempDir(), "trace.dat")
	if err := os.WriteFile(dat, []byte("\x17\x08\x44tracing6\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{nil, 2, "want the subcommand import or replay"},
		{[]string{"replay"}, 2, "want one trace file, got 0"},
		{[]string{"import"}, 2, "want one trace file, got 0"},
		{[]string{"import", "--kernel", "new", "x"}, 2, `--kernel "new" is not a release`},
		{[]string{"import", "--format", "etw", "x"}, 2, `unknown --format "etw"`},
		{[]string{"import", filepath.Join(t.TempDir(), "missing.txt")}, 1, "no such file"},
		{[]string{"import", dat}, 1, "trace-cmd report -N -t"},
	}
	for _, tc := range tests {
		code, _, errs := runTraceCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.err) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.err)
		}
	}
	if code, out, _ := runTraceCmd(t, "--help"); code != 0 || !strings.HasPrefix(out, "Usage: fairclass trace import") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}
