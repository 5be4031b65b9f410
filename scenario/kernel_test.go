package scenario

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// The kernel's own answers: testdata/kernel/NAME.txt replayed by the
// kernel's fair.c (mainline 673dab7eac16, flat runqueue, one CPU) printed
// NAME.jsonl.gz. Every field of every operation must match, with both
// timeline backends.

func readJSONLines(t *testing.T, r *bufio.Scanner) []map[string]json.RawMessage {
	t.Helper()
	var rows []map[string]json.RawMessage
	for r.Scan() {
		line := bytes.TrimSpace(r.Bytes())
		if len(line) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		d := json.NewDecoder(bytes.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatalf("line %d: %v", len(rows)+1, err)
		}
		rows = append(rows, m)
	}
	return rows
}

func loadGolden(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<24)
	return readJSONLines(t, sc)
}

// firstDifference compares kernel and model rows field by field — every
// field the kernel printed, at every depth; the model may print nothing
// the kernel did not — and describes the first difference, or returns "".
// Arrays of named objects (tasks, groups) are matched element by element
// and must list the same names in the same order.
func firstDifference(golden, model []map[string]json.RawMessage) string {
	for n := 0; n < min(len(golden), len(model)); n++ {
		g, m := golden[n], model[n]
		where := fmt.Sprintf("op %s (%s %s t=%s)", g["i"], g["op"], g["task"], g["t"])
		if d := diffJSON("", g, m); d != "" {
			return where + ": " + d
		}
	}
	if len(golden) != len(model) {
		return fmt.Sprintf("kernel printed %d operations, model %d", len(golden), len(model))
	}
	return ""
}

// diffJSON describes the first difference between two decoded objects.
func diffJSON(path string, g, m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for k := range m {
		if _, ok := g[k]; !ok {
			return fmt.Sprintf("%s%s printed by the model only", path, k)
		}
	}
	for _, k := range keys {
		gv, mv := g[k], m[k]
		if mv == nil {
			return fmt.Sprintf("%s%s missing from the model", path, k)
		}
		var ga, ma []map[string]json.RawMessage
		if json.Unmarshal(gv, &ga) == nil && json.Unmarshal(mv, &ma) == nil && len(ga) > 0 {
			if len(ga) != len(ma) {
				return fmt.Sprintf("%s%s: kernel lists %d, model %d", path, k, len(ga), len(ma))
			}
			for j := range ga {
				sub := fmt.Sprintf("%s%s[%d].", path, k, j)
				if name, ok := ga[j]["name"]; ok {
					sub = fmt.Sprintf("%s%s[%s].", path, k, name)
				}
				if d := diffJSON(sub, ga[j], ma[j]); d != "" {
					return d
				}
			}
			continue
		}
		var go_, mo map[string]json.RawMessage
		if json.Unmarshal(gv, &go_) == nil && json.Unmarshal(mv, &mo) == nil && go_ != nil {
			if d := diffJSON(path+k+".", go_, mo); d != "" {
				return d
			}
			continue
		}
		if !bytes.Equal(bytes.TrimSpace(gv), bytes.TrimSpace(mv)) {
			return fmt.Sprintf("%s%s kernel=%s model=%s", path, k, gv, mv)
		}
	}
	return ""
}

// replayOptions are the options a kernel scenario asks for: a first line
// "# replay-flags: --pelt" asks for the PELT fields.
func replayOptions(t *testing.T, path string, backend eevdf.Backend) Options {
	t.Helper()
	opt := Options{Backend: backend}
	if first, _, _ := bytes.Cut(mustRead(t, path), []byte("\n")); bytes.HasPrefix(first, []byte("# replay-flags:")) {
		for _, f := range strings.Fields(string(first[len("# replay-flags:"):])) {
			switch f {
			case "--pelt":
				opt.PELT = true
			default:
				t.Fatalf("unknown replay flag %q", f)
			}
		}
	}
	return opt
}

func replayJSON(t *testing.T, path string, backend eevdf.Backend) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := Parse(f, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	opt := replayOptions(t, path, backend)
	// Replay step by step, checking every invariant after each operation.
	var out bytes.Buffer
	r, err := NewReplayer(sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	emit := JSONWriter(&out)
	for !r.Done() {
		res, err := r.Step()
		if err != nil {
			t.Errorf("replay: %v", err)
			break
		}
		if err := r.RunQueue().Check(); err != nil {
			t.Errorf("after op %d (%s): %v", res.I, res.Op, err)
			break
		}
		if err := emit(res); err != nil {
			t.Fatal(err)
		}
	}
	s := bufio.NewScanner(&out)
	s.Buffer(nil, 1<<24)
	return readJSONLines(t, s)
}

// eachKernelScenario runs check as the subtest NAME/BACKEND for every
// kernel scenario with each timeline backend, given the kernel's answers.
func eachKernelScenario(t *testing.T, check func(t *testing.T, path string, b eevdf.Backend, golden []map[string]json.RawMessage)) {
	files, err := filepath.Glob("testdata/kernel/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no kernel scenarios: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		golden := loadGolden(t, strings.TrimSuffix(path, ".txt")+".jsonl.gz")
		for _, b := range []eevdf.Backend{eevdf.BTree, eevdf.RBTree} {
			t.Run(name+"/"+b.String(), func(t *testing.T) { check(t, path, b, golden) })
		}
	}
}

func TestKernelAnswers(t *testing.T) {
	eachKernelScenario(t, func(t *testing.T, path string, b eevdf.Backend, golden []map[string]json.RawMessage) {
		if d := firstDifference(golden, replayJSON(t, path, b)); d != "" {
			t.Error(d)
		}
	})
}

// The comparison itself must be able to fail: a change to any field at any
// depth, a field the kernel did not print, or a missing one is reported.
func TestFirstDifferenceSeesEveryField(t *testing.T) {
	golden := loadGolden(t, "testdata/kernel/nice-mixed.jsonl.gz")
	for _, tc := range []struct{ name, from, to string }{
		{"a nested task field", `"sum_exec":0`, `"sum_exec":1`},
		{"a top-level field", `"resched":true`, `"resched":false`},
		{"an extra field", `"slice":`, `"extra":1,"slice":`},
		{"a missing field", `"vlag":0,`, ``},
	} {
		model := make([]map[string]json.RawMessage, len(golden))
		changed := false
		for i, row := range golden {
			b, _ := json.Marshal(row)
			if !changed && bytes.Contains(b, []byte(tc.from)) {
				b = bytes.Replace(b, []byte(tc.from), []byte(tc.to), 1)
				changed = true
			}
			model[i] = readJSONLines(t, bufio.NewScanner(bytes.NewReader(b)))[0]
		}
		if !changed {
			t.Fatalf("%s: %q not in the golden file", tc.name, tc.from)
		}
		if firstDifference(golden, model) == "" {
			t.Errorf("%s: no difference reported", tc.name)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
