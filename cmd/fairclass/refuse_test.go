package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goodConfig is a valid configuration, short to simulate.
const goodConfig = `{"seed": 3, "duration": "200ms", "workloads": [{"kind": "stress", "n": 2}]}`

// TestRefusals runs the command line over inputs that it once accepted
// silently (or refused only after the work was done) and asserts that
// each is one line on standard error, with the exit status, before
// anything is written: nothing on standard output, no file created or
// changed in the directory. DIR in args and want is the test's directory,
// which holds c.json (goodConfig), existing.json and the case's files.
func TestRefusals(t *testing.T) {
	stress := `"workloads": [{"kind": "stress"}]`
	tests := []struct {
		name  string
		files map[string]string // written to DIR before the run
		args  []string
		code  int
		want  string // the whole of standard error, DIR substituted
	}{
		// sim's output paths, checked before the simulation runs.
		{"json in a missing directory", nil, []string{"sim", "DIR/c.json", "--json", "DIR/nonexistent/r.json"}, 1,
			"fairclass sim: --json DIR/nonexistent/r.json: directory DIR/nonexistent does not exist"},
		{"csv in a missing directory after a good json", nil, []string{"sim", "DIR/c.json", "--json", "DIR/r.json", "--csv", "DIR/no/r.csv"}, 1,
			"fairclass sim: --csv DIR/no/r.csv: directory DIR/no does not exist"},
		{"trace in a missing directory", nil, []string{"sim", "DIR/c.json", "--trace", "DIR/no/t.json"}, 1,
			"fairclass sim: --trace DIR/no/t.json: directory DIR/no does not exist"},
		{"json is a directory", nil, []string{"sim", "DIR/c.json", "--json", "DIR"}, 1,
			"fairclass sim: --json DIR: is a directory"},
		{"two outputs, one file", nil, []string{"sim", "DIR/c.json", "--json", "DIR/r", "--csv", "DIR/./r"}, 1,
			"fairclass sim: --csv DIR/./r: --json names the same file"},
		{"output over the configuration", nil, []string{"sim", "DIR/c.json", "--csv", "DIR/c.json"}, 1,
			"fairclass sim: --csv DIR/c.json: that is an input of the command; it would be overwritten"},
		{"empty output name", nil, []string{"sim", "DIR/c.json", "--json="}, 1,
			"fairclass sim: --json: empty file name"},
		// sim's flags.
		{"negative seed", nil, []string{"sim", "DIR/c.json", "--seed", "-5"}, 2,
			"fairclass sim: --seed -5: want an integer 0..18446744073709551615"},
		{"seed not a number", nil, []string{"sim", "DIR/c.json", "--seed=abc"}, 2,
			"fairclass sim: --seed abc: want an integer 0..18446744073709551615"},
		{"seed beyond 64 bits", nil, []string{"sim", "DIR/c.json", "--seed", "18446744073709551616"}, 2,
			"fairclass sim: --seed 18446744073709551616: want an integer 0..18446744073709551615"},
		{"unknown flag", nil, []string{"sim", "DIR/c.json", "--runs", "0"}, 2,
			`fairclass sim: flag provided but not defined: -runs; see "fairclass help sim"`},
		{"two configurations", nil, []string{"sim", "DIR/c.json", "DIR/c.json"}, 2,
			`fairclass sim: want one configuration file, got 2; see "fairclass help sim"`},
		// Configurations.
		{"cpus 0", map[string]string{"b.json": `{"duration": "1s", "cpus": 0, ` + stress + `}`}, []string{"sim", "DIR/b.json"}, 1,
			"DIR/b.json:1:28: cpus 0 outside 1..8192 (leave it out for one CPU)"},
		{"no workloads", map[string]string{"b.json": `{"duration": "1s", "workloads": []}`}, []string{"sim", "DIR/b.json"}, 1,
			"DIR/b.json:1:33: no workloads: a configuration needs at least one"},
		{"Seed overriding seed", map[string]string{"b.json": `{"seed": 1, "Seed": 2, "duration": "1s", ` + stress + `}`}, []string{"sim", "DIR/b.json"}, 1,
			`DIR/b.json:1:13: unknown field "Seed" (keys are case-sensitive: did you mean "seed"?)`},
		{"nested key of the wrong case", map[string]string{"b.json": "{\"duration\": \"1s\",\n \"workloads\": [{\"kind\": \"stress\", \"Nice\": 5}]}"}, []string{"sim", "DIR/b.json"}, 1,
			`DIR/b.json:2:35: workload 0: unknown field "Nice" (keys are case-sensitive: did you mean "nice"?)`},
		{"syntax error", map[string]string{"b.json": "{\"duration\": \"1s\",\n  " + stress + ",}"}, []string{"sim", "DIR/b.json"}, 1,
			"DIR/b.json:2:37: invalid character '}' looking for beginning of object key string"},
		{"type error", map[string]string{"b.json": `{"duration": "1s", "cpus": "two", ` + stress + `}`}, []string{"sim", "DIR/b.json"}, 1,
			`DIR/b.json:1:28: cpus: "two" is not a number`},
		{"nice not a number", map[string]string{"b.json": `{"duration": "1s", "workloads": [{"kind": "stress", "nice": "abc"}]}`}, []string{"sim", "DIR/b.json"}, 1,
			`DIR/b.json:1:61: workload 0: nice: "abc" is not a number`},
		{"empty configuration", map[string]string{"b.json": ""}, []string{"sim", "DIR/b.json"}, 1,
			"DIR/b.json: empty config"},
		{"features name themselves once", map[string]string{"b.json": `{"duration": "1s", "features": "NO_X", ` + stress + `}`}, []string{"sim", "DIR/b.json"}, 1,
			`DIR/b.json:1:32: features: unknown feature "NO_X"; valid names (each may take a NO_ prefix): ` + featureNames()},
		{"sim kernel unknown", map[string]string{"b.json": `{"duration": "1s", ` + stress + `}`}, []string{"sim", "DIR/b.json", "--kernel", "v5.15"}, 2,
			`fairclass sim: --kernel: bad option: kernel "v5.15" (want v7.3, v7.1, v7.0, v6.18, v6.12 or v6.6)`},
		{"sim kernel without a feature the configuration turns on", map[string]string{"b.json": `{"duration": "1s", "features": "PARANOID_AVG", ` + stress + `}`},
			[]string{"sim", "DIR/b.json", "--kernel", "v7.0"}, 1, "fairclass sim: DIR/b.json: features: v7.0 has no PARANOID_AVG"},
		{"the simulation's own check, before any output", map[string]string{"b.json": `{"duration": "1s", "workloads": [{"kind": "stress", "cookie": 1}]}`},
			[]string{"sim", "DIR/b.json", "--json", "DIR/r.json"}, 1,
			`fairclass sim: DIR/b.json: workload "stress": task "stress-0": cookie 1: smp: core scheduling needs SMT (give "machine" a threads_per_core of 2 or more)`},
		// replay.
		{"replay trace in a missing directory", map[string]string{"s.txt": small}, []string{"replay", "DIR/s.txt", "--trace", "DIR/no/t.json"}, 1,
			"fairclass replay: --trace DIR/no/t.json: directory DIR/no does not exist"},
		{"replay features name themselves once", map[string]string{"s.txt": small}, []string{"replay", "DIR/s.txt", "--features", "NO_X"}, 2,
			`fairclass replay: --features: unknown feature "NO_X"; valid names (each may take a NO_ prefix): ` + featureNames()},
		{"replay trace over its scenario", map[string]string{"s.txt": small}, []string{"replay", "DIR/s.txt", "--trace", "DIR/s.txt"}, 1,
			"fairclass replay: --trace DIR/s.txt: that is an input of the command; it would be overwritten"},
		// topology.
		{"topology's package prefix once", nil, []string{"topology", "--cores", "0"}, 2,
			"fairclass topology: bad machine: 0 cores per LLC (want at least 1)"},
		{"explicit cpu -1", nil, []string{"topology", "--cpu", "-1"}, 2,
			"fairclass topology: --cpu -1: the machine has CPUs 0-7"},
		// help.
		{"help on nothing known", nil, []string{"help", "nope"}, 2,
			`fairclass help: no help on "nope" (topics: replay, sim, bench, topology, trace, scenario, features)`},
		{"unknown command", nil, []string{"reply"}, 2,
			`fairclass: unknown command "reply" (want replay, sim, bench, topology or trace; run "fairclass help")`},
		{"trace without import", nil, []string{"trace", "x.txt"}, 2,
			`fairclass trace: want the subcommand import or replay; see "fairclass help trace"`},
		{"trace import of no file", nil, []string{"trace", "import"}, 2,
			`fairclass trace: want one trace file, got 0; see "fairclass help trace"`},
		{"trace import with a bad kernel", nil, []string{"trace", "import", "--kernel", "six", "x.txt"}, 2,
			`fairclass trace: --kernel "six" is not a release like 6.6.30; see "fairclass help trace"`},
		{"trace import with a bad format", nil, []string{"trace", "import", "--format", "pcap", "x.txt"}, 2,
			`fairclass trace: unknown --format "pcap"; see "fairclass help trace"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.files = mapsWith(tc.files, "c.json", goodConfig, "existing.json", "keep me")
			for name, text := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := listDir(t, dir)
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			code, out, errs := runCmd(t, "", args...)
			want := strings.ReplaceAll(tc.want, "DIR", dir) + "\n"
			if code != tc.code || errs != want {
				t.Errorf("exit %d, stderr\n\t%q\nwant %d and\n\t%q", code, errs, tc.code, want)
			}
			if out != "" {
				t.Errorf("standard output %q", out)
			}
			if w := stutter(errs); w != "" {
				t.Errorf("the message says %q twice", w)
			}
			if after := listDir(t, dir); !slices.Equal(before, after) {
				t.Errorf("the directory changed:\n\t%v\nto\n\t%v", before, after)
			}
		})
	}
}

// stutter returns a word that a message repeats as a prefix
// ("fairclass topology: topology: …", "--features: features: …"), or "".
func stutter(msg string) string {
	segs := strings.Split(strings.TrimSpace(msg), ": ")
	seen := map[string]bool{}
	for _, s := range segs[:len(segs)-1] {
		words := strings.Fields(s)
		if len(words) == 0 {
			continue
		}
		if w := strings.TrimLeft(words[0], "-"); len(words) == 1 && seen[w] {
			return w
		}
		seen[strings.TrimLeft(words[len(words)-1], "-")] = true
	}
	return ""
}

// mapsWith returns m (or a new map) with the key-value pairs kv added.
func mapsWith(m map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// listDir lists dir's files with their contents.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var list []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		list = append(list, path+"="+string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// featureNames is the list of feature names the features package prints
// after an unknown one.
func featureNames() string {
	_, _, errs := runCmdNoT("replay", "-", "--features", "NO_X")
	_, names, _ := strings.Cut(strings.TrimSpace(errs), "prefix): ")
	return names
}

func runCmdNoT(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(small), &out, &errb)
	return code, out.String(), errb.String()
}

// --trace turns tracing on: the trace has the tasks' slices, not only
// the CPUs' names, although the configuration does not ask for one.
func TestSimTraceTurnsTracingOn(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	os.WriteFile(cfg, []byte(goodConfig), 0o644)
	trace := filepath.Join(dir, "t.json")
	if code, _, errs := runCmd(t, "", "sim", cfg, "--trace", trace, "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	// Two hogs on one CPU for 200 ms: each runs in many slices.
	for _, task := range []string{"stress-0", "stress-1"} {
		if n := strings.Count(string(b), `{"name":"`+task+`","cat":"sched","ph":"X"`); n < 10 {
			t.Errorf("%s: %d slices in the trace", task, n)
		}
	}
}

// An existing output file is replaced only once the simulation has run;
// before, it is left as it was.
func TestSimReplacesExistingOutputs(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	os.WriteFile(cfg, []byte(goodConfig), 0o644)
	out := filepath.Join(dir, "r.csv")
	os.WriteFile(out, bytes.Repeat([]byte("old contents\n"), 100000), 0o644)
	if code, _, errs := runCmd(t, "", "sim", cfg, "--csv", out, "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(out)
	if bytes.Contains(b, []byte("old contents")) || !bytes.Contains(b, []byte("runtime_ns")) {
		t.Errorf("the CSV was not replaced: %d bytes", len(b))
	}
	// A device is written without being truncated.
	if _, err := os.Stat(os.DevNull); err == nil {
		if code, _, errs := runCmd(t, "", "sim", cfg, "--json", os.DevNull, "--quiet"); code != 0 {
			t.Errorf("--json %s: exit %d: %s", os.DevNull, code, errs)
		}
	}
}

// help lists every subcommand and topic, and each has its text.
func TestHelpListsEveryTopic(t *testing.T) {
	_, usage, _ := runCmd(t, "", "help")
	for _, name := range topicNames() {
		if !strings.Contains(usage, name) {
			t.Errorf("the usage does not list %s", name)
		}
		code, out, errs := runCmd(t, "", "help", name)
		if code != 0 || len(out) < 100 || errs != "" {
			t.Errorf("help %s: exit %d, %d bytes, %q", name, code, len(out), errs)
		}
	}
	for _, name := range []string{"replay", "sim", "bench", "topology", "scenario", "features"} {
		if !slices.Contains(topicNames(), name) {
			t.Errorf("no topic %s", name)
		}
	}
	for _, c := range commands() {
		if code, out, _ := runCmd(t, "", c.name, "-h"); code != 0 || out != c.help {
			t.Errorf("%s -h: exit %d", c.name, code)
		}
	}
}

// Progress frames, redrawn with \r, go only to a terminal: not to a
// buffer, a pipe or a file.
func TestProgressOnlyOnTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, out := range map[string]any{"buffer": &bytes.Buffer{}, "pipe": w, "file": f} {
		if progressBar(out.(interface{ Write([]byte) (int, error) })) != nil {
			t.Errorf("%s: a progress bar", name)
		}
	}
}

func TestStutter(t *testing.T) {
	for msg, want := range map[string]string{
		"fairclass replay: --features: features: unknown feature":                      "features",
		"fairclass topology: topology: bad machine: 0 cores":                           "topology",
		"fairclass sim: c.json: sim: core pair [0 1]: need":                            "sim",
		"fairclass sim: c.json: core pair [0 1]: need":                                 "",
		`c.json:3:5: workload 1: task "a": phase 1: body phase 0: unknown channel "x"`: "",
	} {
		if got := stutter(msg); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}
