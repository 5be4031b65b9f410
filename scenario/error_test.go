package scenario

import (
	"strings"
	"testing"
)

// An Error prints as FILE:LINE:COL: MSG, "scenario" standing for a file
// without a name.
func TestErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{File: "a.sc", Pos: Pos{Line: 3, Col: 7}, Msg: "unknown operation"}, "a.sc:3:7: unknown operation"},
		{Error{Pos: Pos{Line: 12, Col: 1}, Msg: "bad"}, "scenario:12:1: bad"},
		{Error{File: "built", Msg: "no position"}, "built:0:0: no position"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v prints %q, want %q", tc.e, got, tc.want)
		}
	}
}

// Every operation prints as the word a scenario spells it with, and the
// parser reads that word back; a value that is no operation prints "?".
func TestOpKindNames(t *testing.T) {
	want := []string{"new", "wakeup", "sleep", "schedule", "tick", "yield", "renice", "slice", "forcepick",
		"cgroup", "cpu.weight", "cpu.weight.nice", "cpu.idle", "cgroup_mode", "migrate_out", "migrate_in"}
	for k := range numOps {
		if got := k.String(); got != want[k] {
			t.Errorf("OpKind %d prints %q, want %q", k, got, want[k])
		}
	}
	if got := numOps.String(); got != "?" {
		t.Errorf("OpKind(numOps) prints %q", got)
	}
	// The words parse: each is accepted as an operation (its arguments
	// aside), so an error never says it is unknown.
	for _, w := range want {
		_, err := Parse(strings.NewReader("task A\ngroup G\n0 "+w+"\n"), "w.sc")
		if err != nil && strings.Contains(err.Error(), "unknown operation") {
			t.Errorf("%q: %v", w, err)
		}
	}
}
