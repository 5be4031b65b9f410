package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// Advance, which takes no snapshot, must leave the runqueue where the
// kernel left it: every kernel scenario advanced to its end, with both
// timelines, ends in the state of the kernel's last line, every field.
func TestAdvanceEndsWhereTheKernelDoes(t *testing.T) {
	eachKernelScenario(t, func(t *testing.T, path string, b eevdf.Backend, golden []map[string]json.RawMessage) {
		sc, err := Parse(bytes.NewReader(mustRead(t, path)), filepath.Base(path))
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReplayer(sc, replayOptions(t, path, b))
		if err != nil {
			t.Fatal(err)
		}
		for !r.Done() {
			if err := r.Advance(); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Advance(); err == nil {
			t.Error("Advance past the last operation: no error")
		}
		i := len(sc.Ops) - 1
		r.fill(i, &sc.Ops[i])
		line := r.res.AppendJSON(nil)
		model := readJSONLines(t, bufio.NewScanner(bytes.NewReader(append(line, '\n'))))
		if d := firstDifference(golden[len(golden)-1:], model); d != "" {
			t.Error(d)
		}
	})
}

// An operation that is not defined in its state is an *Error from
// Advance, naming its line, after the operations before it succeeded; it
// is not executed, so the same operation fails again.
func TestAdvanceErrors(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		ok        int
	}{
		{"task A\n0 sleep\n", "x:2:1: sleep with nothing running", 0},
		{"task A\n0 new A\n0 new A\n", "x:3:1: new A: the task already exists", 1},
		{"task A\n0 new A\n0 schedule\n1 wakeup A\n", "x:4:1: wakeup A: the task is running", 2},
	} {
		sc, err := Parse(strings.NewReader(tc.src), "x")
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReplayer(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		for ; ; ok++ {
			if err = r.Advance(); err != nil {
				break
			}
		}
		if _, isErr := err.(*Error); !isErr || !strings.HasPrefix(err.Error(), tc.want) || ok != tc.ok {
			t.Errorf("%q: %d operations, then %T %v; want %d, then %q", tc.src, ok, err, err, tc.ok, tc.want)
		}
		if again := r.Advance(); again == nil || again.Error() != err.Error() {
			t.Errorf("%q: the failed operation again: %v", tc.src, again)
		}
	}
}
