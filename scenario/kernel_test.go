package scenario

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// The kernel's own answers: testdata/kernel/NAME.txt replayed by the
// kernel's fair.c (mainline 673dab7eac16, flat runqueue, one CPU) printed
// NAME.jsonl.gz. Every field of every operation must match, with both
// timeline backends.

var topFields = []string{"i", "t", "op", "task", "V", "curr", "resched", "picked"}
var taskFields = []string{"on_rq", "delayed", "vruntime", "deadline", "vlag", "lag", "eligible", "weight", "slice", "sum_exec"}

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

// firstDifference compares kernel and model rows field by field and
// describes the first difference, or returns "".
func firstDifference(golden, model []map[string]json.RawMessage) string {
	for n := 0; n < min(len(golden), len(model)); n++ {
		g, m := golden[n], model[n]
		where := fmt.Sprintf("op %s (%s %s t=%s)", g["i"], g["op"], g["task"], g["t"])
		for _, k := range topFields {
			if !bytes.Equal(g[k], m[k]) {
				return fmt.Sprintf("%s: %s kernel=%s model=%s", where, k, g[k], m[k])
			}
		}
		var gt, mt []map[string]json.RawMessage
		json.Unmarshal(g["tasks"], &gt)
		json.Unmarshal(m["tasks"], &mt)
		byName := map[string]map[string]json.RawMessage{}
		for _, x := range mt {
			byName[string(x["name"])] = x
		}
		for _, x := range gt {
			y, ok := byName[string(x["name"])]
			if !ok {
				return fmt.Sprintf("%s: task %s missing", where, x["name"])
			}
			for _, k := range taskFields {
				if !bytes.Equal(x[k], y[k]) {
					return fmt.Sprintf("%s: %s.%s kernel=%s model=%s", where, x["name"], k, x[k], y[k])
				}
			}
		}
	}
	if len(golden) != len(model) {
		return fmt.Sprintf("kernel printed %d operations, model %d", len(golden), len(model))
	}
	return ""
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
	var out bytes.Buffer
	if err := Replay(sc, Options{Backend: backend}, JSONWriter(&out)); err != nil {
		t.Errorf("replay: %v", err)
	}
	s := bufio.NewScanner(&out)
	s.Buffer(nil, 1<<24)
	return readJSONLines(t, s)
}

func TestKernelAnswers(t *testing.T) {
	files, err := filepath.Glob("testdata/kernel/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no kernel scenarios: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		golden := loadGolden(t, strings.TrimSuffix(path, ".txt")+".jsonl.gz")
		for _, b := range []eevdf.Backend{eevdf.BTree, eevdf.RBTree} {
			t.Run(name+"/"+b.String(), func(t *testing.T) {
				if d := firstDifference(golden, replayJSON(t, path, b)); d != "" {
					t.Error(d)
				}
			})
		}
	}
}
