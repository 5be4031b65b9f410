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
		r.fill(i, sc.Ops[i])
		line := r.res.AppendJSON(nil)
		model := readJSONLines(t, bufio.NewScanner(bytes.NewReader(append(line, '\n'))))
		if d := firstDifference(golden[len(golden)-1:], model); d != "" {
			t.Error(d)
		}
	})
}

// An operation that is not defined in its state is the same *Error from
// Advance as from Step, and is not executed.
func TestAdvanceErrors(t *testing.T) {
	for _, src := range []string{"task A\n0 sleep\n", "task A\n0 new A\n0 new A\n", "task A\n0 new A\n0 schedule\n1 wakeup A\n"} {
		sc, err := Parse(strings.NewReader(src), "x")
		if err != nil {
			t.Fatal(err)
		}
		a, _ := NewReplayer(sc, Options{})
		b, _ := NewReplayer(sc, Options{})
		for {
			_, errStep := a.Step()
			errAdv := b.Advance()
			if (errStep == nil) != (errAdv == nil) || errStep != nil && errStep.Error() != errAdv.Error() {
				t.Fatalf("%q: Step says %v, Advance says %v", src, errStep, errAdv)
			}
			if errStep != nil {
				if _, ok := errAdv.(*Error); !ok {
					t.Fatalf("%q: Advance's error is a %T, not an *Error", src, errAdv)
				}
				break
			}
		}
	}
}
