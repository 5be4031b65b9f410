package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// The earlier kernels' own answers: testdata/kernel-lts/vX-NAME.txt
// replayed by that kernel's fair.c printed vX-NAME.jsonl.gz (README
// there). Each file is replayed with its --kernel flag on both timeline
// backends and compared field by field. A file that does not match yet is
// listed in ltsKnownDifferences with its first difference, exactly: a
// listed file that starts to match, or whose first difference moves,
// fails, so the list can only shrink.

// ltsKnownDifferences maps a file (without .txt) to the first difference
// its replay shows today.
var ltsKnownDifferences = map[string]string{}

// ltsKernel reads the --kernel flag of a file's replay-flags line.
func ltsKernel(t *testing.T, path string) string {
	t.Helper()
	first, _, _ := bytes.Cut(mustRead(t, path), []byte("\n"))
	rest, ok := bytes.CutPrefix(first, []byte("# replay-flags:"))
	if !ok {
		t.Fatalf("%s: no replay-flags line", path)
	}
	fs := strings.Fields(string(rest))
	if len(fs) != 2 || fs[0] != "--kernel" {
		t.Fatalf("%s: replay flags %q, want --kernel vX", path, fs)
	}
	return fs[1]
}

// ltsDifference replays path with kernel and backend b and describes the
// first difference from golden, or returns "". Where the kernel's output
// stops before the scenario's end, the replay must stop there with a
// scenario error; a replay that stops elsewhere is a difference.
func ltsDifference(t *testing.T, path, kernel string, b eevdf.Backend, golden []map[string]json.RawMessage) string {
	t.Helper()
	k, err := eevdf.ParseKernel(kernel)
	if err != nil {
		return "no preset: " + err.Error()
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := Parse(f, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplayer(sc, Options{Backend: b, Kernel: k})
	if err != nil {
		return "replayer: " + err.Error()
	}
	var out bytes.Buffer
	emit := JSONWriter(&out)
	var stop error
	for !r.Done() {
		res, err := r.Step()
		if err != nil {
			stop = err
			break
		}
		if err := r.RunQueue().Check(); err != nil {
			return fmt.Sprintf("after op %d (%s): %v", res.I, res.Op, err)
		}
		if err := emit(res); err != nil {
			t.Fatal(err)
		}
	}
	s := bufio.NewScanner(&out)
	s.Buffer(nil, 1<<24)
	model := readJSONLines(t, s)
	if d := firstDifference(golden, model); d != "" {
		return d
	}
	switch kernelStopped := len(golden) < len(sc.Ops); {
	case kernelStopped && stop == nil:
		return fmt.Sprintf("the kernel stopped before op %d, the replay did not", len(golden))
	case !kernelStopped && stop != nil:
		return fmt.Sprintf("the replay stopped: %v", stop)
	}
	return ""
}

func TestLTSKernelAnswers(t *testing.T) {
	files, err := filepath.Glob("testdata/kernel-lts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		seen[name] = true
		kernel := ltsKernel(t, path)
		golden := loadGolden(t, strings.TrimSuffix(path, ".txt")+".jsonl.gz")
		for _, b := range []eevdf.Backend{eevdf.BTree, eevdf.RBTree} {
			t.Run(name+"/"+b.String(), func(t *testing.T) {
				got := ltsDifference(t, path, kernel, b, golden)
				want, listed := ltsKnownDifferences[name]
				switch {
				case got != "" && !listed:
					t.Errorf("%s %s: %s", kernel, name, got)
				case listed && got == "":
					t.Errorf("%s now matches: remove it from ltsKnownDifferences", name)
				case listed && got != want:
					t.Errorf("first difference moved: update ltsKnownDifferences\n got: %q\nwant: %q", got, want)
				}
			})
		}
	}
	var stale []string
	for name := range ltsKnownDifferences {
		if !seen[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("ltsKnownDifferences lists files that do not exist: %v", stale)
	}
}
