// Package scenarios holds example scenarios of the seed threads and of
// task groups; its test replays each under every variant it documents and
// compares the output with the committed golden table (JSON lines for a
// scenario replayed with --pelt).
package scenarios

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// variants lists, per scenario, the feature tokens applied on top of its
// own features line; "" is the scenario as written.
var variants = map[string][]string{
	"seed000-delay-lag-floor": {"", "NO_DELAY_LAG_FLOOR", "DELAY_LAG_FLOOR_POSTED"},
	"seed002-flush-delayed":   {"", "NO_PREEMPT_FLUSH_DELAYED"},
	"seed003-join-lag":        {"", "PLACE_JOIN_LAG"},
	"seed004-yield-loop":      {"", "YIELD_BUMP_DEADLINE", "YIELD_CLAMP_DEADLINE", "YIELD_FORFEIT_ALWAYS"},
	"worked-replay":           {"", "NO_PREEMPT_SHORT"},
	"groups-hierarchy":        {""},
	"groups-build-order":      {""},
	"groups-round-robin":      {""},
	"groups-moves":            {""},
	"groups-weight-tick":      {""},
	"groups-idle":             {""},
	"groups-tasks-mode":       {""},
}

func replayTable(t *testing.T, path, tokens string, backend eevdf.Backend) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := scenario.Parse(f, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := sc.Features.Apply(tokens)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	opt := scenario.Options{Backend: backend, Features: &fs}
	// A scenario whose first line asks for --pelt has a JSON golden: the
	// PELT signals are not in the table.
	if first, _ := os.ReadFile(path); bytes.HasPrefix(first, []byte("# replay-flags: --pelt\n")) {
		opt.PELT = true
		if err := scenario.Replay(sc, opt, scenario.JSONWriter(&out)); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	tw := scenario.NewTableWriter(&out, sc)
	if err := scenario.Replay(sc, opt, tw.Write); err != nil {
		t.Fatal(err)
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("*.txt")
	if len(files) != len(variants) {
		t.Fatalf("%d scenarios, %d with variants listed", len(files), len(variants))
	}
	for _, path := range files {
		name := strings.TrimSuffix(path, ".txt")
		vs, ok := variants[name]
		if !ok {
			t.Fatalf("%s: no variants listed", name)
		}
		for _, tokens := range vs {
			golden := name + ".golden"
			if tokens != "" {
				golden = name + "." + tokens + ".golden"
			}
			t.Run(golden, func(t *testing.T) {
				got := replayTable(t, path, tokens, eevdf.BTree)
				if rb := replayTable(t, path, tokens, eevdf.RBTree); !bytes.Equal(got, rb) {
					t.Fatal("the two timeline backends disagree")
				}
				if *update {
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update and review the new file)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("output differs from %s (review, then go test -update):\n%s", golden, firstLineDiff(want, got))
				}
			})
		}
	}
}

func firstLineDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  golden: " + w + "\n  now:    " + g
		}
	}
	return ""
}
