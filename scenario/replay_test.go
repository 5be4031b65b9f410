package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// Advance, which takes no snapshot, must leave the runqueue where the
// kernel left it: every kernel scenario advanced to its end, with both
// timelines, ends in the state of the kernel's last line, every field.
func TestAdvanceEndsWhereTheKernelDoes(t *testing.T) {
	eachKernelScenario(t, func(t *testing.T, path string, b eevdf.Backend, golden []map[string]json.RawMessage) {
		sc, r := kernelReplayer(t, path, b)
		for !r.Done() {
			if err := r.Advance(); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Advance(); err == nil {
			t.Error("Advance past the last operation: no error")
		}
		checkLastLine(t, r, sc, golden)
	})
}

// kernelReplayer parses the kernel scenario at path and returns it with a
// Replayer on backend b, with the options its first line asks for.
func kernelReplayer(t *testing.T, path string, b eevdf.Backend) (*Scenario, *Replayer) {
	t.Helper()
	sc, err := Parse(bytes.NewReader(mustRead(t, path)), filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplayer(sc, replayOptions(t, path, b))
	if err != nil {
		t.Fatal(err)
	}
	return sc, r
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

// Advance allocates nothing per operation once the runqueue has grown to
// its working size: the dispatch adds no allocation to the model's (the
// error after the last operation included).
func TestAdvanceAllocatesNothing(t *testing.T) {
	sc := genScenario(t, 6000, 16)
	r, err := NewReplayer(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		if err := r.Advance(); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(4000, func() {
		if err := r.Advance(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Advance: %v allocations an operation, want 0", n)
	}
	for !r.Done() {
		if err := r.Advance(); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(10, func() { _ = r.Advance() }); n != 0 {
		t.Errorf("Advance past the last operation: %v allocations, want 0", n)
	}
}

// Every operation that names a task checks its reference before it does
// anything, whatever its kind: outside the declared tasks (negative or
// past the last) it is an *Error naming the operation and the reference,
// never a panic, and the replayer stays at that operation. An operation
// of an unknown kind is one too.
func TestEveryTaskOperationChecksItsReference(t *testing.T) {
	for _, kind := range []OpKind{OpNew, OpWakeup, OpRenice, OpSlice, OpForcePick, OpCgroup, OpMigrateOut, OpMigrateIn} {
		for _, ref := range []int{-1, 2, 1 << 40} {
			sc := &Scenario{Name: "built", Features: features.Default(), BaseSlice: 700000, HZ: 1000,
				Tasks: []Task{{Name: "A"}, {Name: "B"}}, Groups: []Group{{Name: "g"}}, HasGroups: true,
				Ops: []Op{{Kind: kind, Task: ref, Group: 1, Pos: Pos{Line: 7, Col: 1}}}}
			r, err := NewReplayer(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = r.Advance()
			want := fmt.Sprintf("built:7:1: %s: task reference %d outside the 2 declared tasks", kind, ref)
			if _, isErr := err.(*Error); !isErr || err.Error() != want {
				t.Errorf("%s of task %d: %T %v, want %q", kind, ref, err, err, want)
			}
			if r.Done() {
				t.Errorf("%s of task %d: the failed operation counts as replayed", kind, ref)
			}
		}
	}
	sc := &Scenario{Name: "built", Features: features.Default(), BaseSlice: 700000, HZ: 1000,
		Tasks: []Task{{Name: "A"}}, Ops: []Op{{Kind: numOps, Pos: Pos{Line: 3, Col: 1}}}}
	r, err := NewReplayer(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Advance(); err == nil || err.Error() != "built:3:1: unknown operation 16" {
		t.Errorf("an unknown operation: %v", err)
	}
}

// A wakeup the language does not define is refused in the language's
// words whatever eevdf's own reason, before any effect: the runqueue
// reads the same after the refusal as before it, and the same wakeup
// fails again.
func TestWakeupRefusals(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"task A\ntask B\n0 new A\n0 wakeup B\n", "x:4:1: wakeup B: the task was never created (use new)"},
		{"task A\n0 new A\n1 wakeup A\n", "x:3:1: wakeup A: the task is queued and not delayed"},
		{"task A\n0 new A\n0 schedule\n1 wakeup A\n", "x:4:1: wakeup A: the task is running"},
		{"task A\ntask B\n0 new A\n0 new B\n0 schedule\n1 migrate_out B\n2 wakeup B\n", "x:7:1: wakeup B: the task is on another CPU (migrate_in first)"},
	} {
		sc, err := Parse(strings.NewReader(tc.src), "x")
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReplayer(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		last := len(sc.Ops) - 1
		for range last {
			if err := r.Advance(); err != nil {
				t.Fatal(err)
			}
		}
		r.fill(last, &sc.Ops[last])
		before := string(r.res.AppendJSON(nil))
		for range 2 {
			if err := r.Advance(); err == nil || err.Error() != tc.want {
				t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
			}
		}
		r.fill(last, &sc.Ops[last])
		if after := string(r.res.AppendJSON(nil)); after != before {
			t.Errorf("%q: the refused wakeup changed the state:\n%s\n%s", tc.src, before, after)
		}
	}
}

// AdvanceTo is Advance in a loop: every kernel scenario advanced to its
// middle and then to its end, with both timelines, ends in the state of
// the kernel's last line, every field.
func TestAdvanceToEndsWhereTheKernelDoes(t *testing.T) {
	eachKernelScenario(t, func(t *testing.T, path string, b eevdf.Backend, golden []map[string]json.RawMessage) {
		sc, r := kernelReplayer(t, path, b)
		for _, n := range []int{len(sc.Ops) / 2, len(sc.Ops)} {
			if err := r.AdvanceTo(n); err != nil {
				t.Fatal(err)
			}
		}
		if !r.Done() {
			t.Fatal("AdvanceTo the last operation: not done")
		}
		checkLastLine(t, r, sc, golden)
	})
}

// AdvanceTo stops where Advance would: at the first operation that fails,
// with Advance's *Error, the operations before it replayed; a count not
// after the replayed ones does nothing, and one past the last operation
// is an error before anything is replayed.
func TestAdvanceToStops(t *testing.T) {
	sc, err := Parse(strings.NewReader("task A\n0 new A\n0 schedule\n1 tick\n2 wakeup A\n3 tick\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplayer(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AdvanceTo(6); err == nil || err.Error() != "scenario: AdvanceTo(6) past the last of 5 operations" {
		t.Errorf("AdvanceTo past the end: %v", err)
	}
	if r.RunQueue().Curr() != nil || r.Entity(0).OnRq() {
		t.Error("AdvanceTo past the end replayed something")
	}
	for _, n := range []int{2, 2, 1, 0} {
		if err := r.AdvanceTo(n); err != nil {
			t.Fatalf("AdvanceTo(%d): %v", n, err)
		}
	}
	if r.RunQueue().Curr() != r.Entity(0) {
		t.Fatal("AdvanceTo(2): A does not run")
	}
	const want = "x:5:1: wakeup A: the task is running"
	if err := r.AdvanceTo(5); err == nil || err.Error() != want {
		t.Fatalf("AdvanceTo(5): %v, want %q", err, want)
	}
	if err := r.Advance(); err == nil || err.Error() != want {
		t.Errorf("Advance after AdvanceTo stopped: %v, want %q", err, want)
	}
	if got := r.Entity(0).SumExecRuntime(); got != 1 {
		t.Errorf("A's sum_exec after the refused wakeup: %d ns, want 1 (charged by the tick at 1)", got)
	}
}

// checkLastLine compares the replayer's state after the last of sc's
// operations, as its result line, with the kernel's last line in golden.
func checkLastLine(t *testing.T, r *Replayer, sc *Scenario, golden []map[string]json.RawMessage) {
	t.Helper()
	i := len(sc.Ops) - 1
	r.fill(i, &sc.Ops[i])
	line := r.res.AppendJSON(nil)
	model := readJSONLines(t, bufio.NewScanner(bytes.NewReader(append(line, '\n'))))
	if d := firstDifference(golden[len(golden)-1:], model); d != "" {
		t.Error(d)
	}
}
