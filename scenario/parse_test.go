package scenario

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

func TestParseHeaderAndDeclarations(t *testing.T) {
	src := `# a comment line
features NO_RUN_TO_PARITY PLACE_JOIN_LAG   # trailing comment
base_slice 3000000
hz 250
task A
task B nice=-5 slice=50000
task C weight=2048 policy=batch
task D policy=idle slice=200000000
0 new A
10 renice B 3
10 slice C 0
`
	sc, err := Parse(strings.NewReader(src), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := features.Parse("NO_RUN_TO_PARITY PLACE_JOIN_LAG")
	if sc.Features != want || sc.BaseSlice != 3000000 || sc.HZ != 250 {
		t.Errorf("header: %v %d %d", sc.Features.Diff(features.Default()), sc.BaseSlice, sc.HZ)
	}
	if len(sc.Tasks) != 4 || sc.Tasks[1].Nice != -5 || sc.Tasks[1].Slice != 50000 ||
		sc.Tasks[2].Weight != 2048 || sc.Tasks[2].Policy != eevdf.PolicyBatch || sc.Tasks[3].Policy != eevdf.PolicyIdle {
		t.Errorf("tasks: %+v", sc.Tasks)
	}
	if len(sc.Ops) != 3 || sc.Ops[1].Kind != OpRenice || sc.Ops[1].Arg != 3 || sc.Ops[1].Task != 1 || sc.Ops[2].Pos != (Pos{11, 1}) {
		t.Errorf("ops: %+v", sc.Ops)
	}
	// Declared tasks get the header's base slice and their clamped slices.
	r, err := NewReplayer(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []uint64{3000000, 100000, 3000000, 100000000} {
		if got := r.Entity(i).Slice(); got != want {
			t.Errorf("task %d slice %d, want %d", i, got, want)
		}
	}
	if r.Entity(2).Weight() != 2048 || r.Entity(3).Weight() != 3 {
		t.Errorf("weights %d %d", r.Entity(2).Weight(), r.Entity(3).Weight())
	}
}

// Every bad input is an *Error with the file, line and column of the
// offending word and a plain reason.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown op", "task A\n0 run A\n", "x:2:3: unknown operation \"run\""},
		{"undeclared task", "task A\n0 new B\n", "x:2:7: undeclared task \"B\""},
		{"time going backwards", "task A\n5 new A\n4 schedule\n", "x:3:1: time going backwards: 4 after 5"},
		{"bad time", "task A\n1e6 new A\n", "x:2:1: time \"1e6\" is not a number"},
		{"missing task", "task A\n0 new\n", "x:2:6: new takes one task"},
		{"extra argument", "task A\n0 tick A\n", "x:2:8: tick takes no argument"},
		{"renice range", "task A\n0 renice A 20\n", "x:2:12: nice \"20\" outside -20..19"},
		{"slice not a number", "task A\n0 slice A x\n", "x:2:11: slice \"x\" is not a number"},
		{"unknown feature", "features NO_SUCH\n", "x:1:10: unknown feature \"NO_SUCH\""},
		{"two yield variants", "features YIELD_BUMP_DEADLINE YIELD_FORFEIT_ALWAYS\n", "x:1:30: features: at most one yield variant"},
		{"header after an op", "task A\n0 new A\ntask B\n", "x:3:1: \"task\" after the first operation"},
		{"task twice", "task A\ntask A\n", "x:2:6: task A declared twice"},
		{"nice and weight", "task A nice=1 weight=5\n", "x:1:6: task A: nice= and weight= exclude each other"},
		{"idle with weight", "task A weight=5 policy=idle\n", "x:1:6: task A: weight= with policy=idle"},
		{"weight 0", "task A weight=0\n", "x:1:15: weight \"0\" outside 1.."},
		{"nice not a number", "task A nice=abc\n", "x:1:13: nice \"abc\" is not a number"},
		{"renice not a number", "task A\n0 renice A x5\n", "x:2:12: nice \"x5\" is not a number"},
		{"bad attribute", "task A prio=3\n", "x:1:8: unknown task attribute \"prio\""},
		{"bad policy", "task A policy=fifo\n", "x:1:15: policy \"fifo\""},
		{"unknown statement", "tsk A\n", "x:1:1: unknown statement \"tsk\""},
		{"base slice 0", "base_slice 0\n", "x:1:12: base_slice: \"0\" is not a number in 1.."},
		{"unknown group of a task", "task A group=G\n0 new A\n", "x:1:14: task A: undeclared group \"G\""},
		{"unknown group of an op", "group G\ntask A\n0 cgroup A H\n", "x:3:12: undeclared group \"H\""},
		{"a group its own parent", "group G parent=G\n", "x:1:16: group G: a group cannot be its own parent (a cycle of parents)"},
		{"a parent declared later", "group A parent=B\ngroup B parent=A\n", "x:1:16: group A: parent \"B\" is not declared before it"},
		{"group weight 0", "group G weight=0\n", "x:1:16: cpu.weight \"0\" outside 1..10000"},
		{"group weight 10001", "group G\n0 cpu.weight G 10001\n", "x:2:16: cpu.weight \"10001\" outside 1..10000"},
		{"idle with a weight", "group G weight=50 idle\n", "x:1:7: group G: idle with weight= or nice="},
		{"a group named /", "group /\n", "x:1:7: group \"/\": / is the root group"},
		{"cpu.weight of /", "group G\n0 cpu.weight / 50\n", "x:2:14: the root group / has fixed shares"},
		{"cpu.weight.nice of /", "group G\n0 cpu.weight.nice / 5\n", "x:2:19: the root group / has fixed shares"},
		{"cpu.idle of /", "group G\n0 cpu.idle / 1\n", "x:2:12: the root group / cannot be made idle"},
		{"cpu.idle 2", "group G\n0 cpu.idle G 2\n", "x:2:14: cpu.idle \"2\": want 0 or 1"},
		{"unknown cgroup_mode", "cgroup_mode fair\n", "x:1:13: cgroup_mode \"fair\""},
		{"group twice", "group G\ngroup G\n", "x:2:7: group G declared twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.src), "x")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %q\nwant prefix %q", err, tt.want)
			}
		})
	}
}

// Operations that are not defined in the state the scenario reached stop
// the replay at their line; what came before is still emitted.
func TestReplayErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
		emitted         int
	}{
		{"sleep with nothing running", "task A\n0 sleep\n", "x:2:1: sleep with nothing running", 0},
		{"yield with nothing running", "task A\n0 yield\n", "x:2:1: yield with nothing running", 0},
		{"new twice", "task A\n0 new A\n0 new A\n", "x:3:1: new A: the task already exists", 1},
		{"wakeup of a running task", "task A\n0 new A\n0 schedule\n1 wakeup A\n", "x:4:1: wakeup A: the task is running", 2},
		{"wakeup of a queued task", "task A\ntask B\n0 new A\n0 new B\n0 schedule\n1 wakeup B\n", "x:6:1: wakeup B: the task is queued and not delayed", 3},
		{"wakeup of a task never created", "task A\n0 wakeup A\n", "x:2:1: wakeup A: the task was never created", 0},
		{"forcepick of a sleeping task", "task A\n0 new A\n0 schedule\n1 sleep\n2 forcepick A\n", "x:5:1: forcepick A: the task is not queued", 3},
		{"a weight write on an idle group", "group G\ntask A group=G\n0 new A\n1 cpu.idle G 1\n2 cpu.weight G 50\n", "x:5:1: weight write on an idle group: /G", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse(strings.NewReader(tt.src), "x")
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = Replay(sc, Options{}, JSONWriter(&out))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want prefix %q", err, tt.want)
			}
			if n := bytes.Count(out.Bytes(), []byte("\n")); n != tt.emitted {
				t.Errorf("%d results emitted before the error, want %d", n, tt.emitted)
			}
		})
	}
}

// FuzzScenario feeds arbitrary bytes to the parser and the replayer: no
// panic, no hang; an error is always an *Error.
func FuzzScenario(f *testing.F) {
	f.Add([]byte("task A\ntask B slice=100000\n0 new A\n0 new B\n0 schedule\n1000000 tick\n1000000 schedule\n1500000 sleep\n2000000 wakeup A\n2000000 yield\n"))
	f.Add([]byte("features NO_DELAY_DEQUEUE PLACE_JOIN_LAG\nhz 250\ntask A nice=-20\ntask B weight=3\n0 new A\n0 renice B 19\n1 new B\n1 forcepick B\n2 slice A 0\n"))
	f.Add([]byte("task A\n0 new A\n0 schedule\n5 sleep\n5 wakeup A\n"))
	// Groups: nested, idle, weight and nice headers, mode max on two
	// CPUs; moves to and from an idle group and the root, every group
	// write, a mode switch.
	f.Add([]byte("group G weight=50\ngroup H parent=G nice=5\ngroup I idle\ncgroup_mode max\nonline_cpus 2\ntask A group=G\ntask B group=H slice=200000\ntask C\ntask D group=I policy=idle\n0 new A\n0 new B\n0 new C\n0 new D\n0 schedule\n1000000 tick\n1000000 cpu.weight G 10000\n1500000 cgroup A I\n2000000 tick\n2000000 schedule\n2500000 cpu.weight.nice H -5\n3000000 cpu.idle I 0\n3000000 cgroup_mode tasks\n3500000 sleep\n4000000 cgroup C H\n4100000 cgroup B /\n4200000 cpu.idle G 1\n5000000 tick\n5000000 schedule\n"))
	// Mode smp, a move before the task exists, a sleeper moved and woken,
	// a mode switch to concur.
	f.Add([]byte("cgroup_mode smp\ngroup P\ngroup Q parent=P weight=300\ntask X group=Q\ntask Y group=P nice=-3\ntask Z group=/\n0 cgroup Z Q\n0 new X\n0 new Y\n0 schedule\n400000 sleep\n500000 cgroup X P\n600000 cgroup_mode concur\n700000 wakeup X\n800000 new Z\n900000 cgroup Y Q\n1000000 tick\n1000000 schedule\n"))
	// Mode tasks (its share reads the group's PELT runnable average), the
	// smallest cpu.weight, then idle.
	f.Add([]byte("cgroup_mode tasks\ngroup G\ntask A group=G\ntask B group=G\n0 new A\n0 new B\n0 schedule\n1000000 tick\n1000000 schedule\n2000000 tick\n2000000 cpu.weight G 1\n2000000 schedule\n2500000 cpu.idle G 1\n3000000 tick\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		sc, err := Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("parse error is not an *Error: %v", err)
			}
			return
		}
		r, err := NewReplayer(sc, Options{})
		if err != nil {
			return
		}
		// The kernel's s64 products overflow (and its pick then crashes)
		// when a task runs for hours without a single accounting point; the
		// invariants are only asserted inside the kernel's envelope.
		inEnvelope := true
		for i := 1; i < len(sc.Ops); i++ {
			if sc.Ops[i].At-sc.Ops[i-1].At > 1e9 || sc.Ops[0].At > 1e12 {
				inEnvelope = false
			}
		}
		for !r.Done() {
			if _, err := r.Step(); err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("replay error is not an *Error: %v", err)
				}
				break
			}
			if err := r.RunQueue().Check(); err != nil && inEnvelope {
				t.Fatalf("invariant broken: %v", err)
			}
		}
	})
}

// A Scenario built in Go rather than parsed: the zero values mean the
// root group and no custom slice, and a reference outside the declared
// tasks or groups is an *Error, never a panic.
func TestBuiltScenarioReferences(t *testing.T) {
	base := func() *Scenario {
		return &Scenario{Name: "built", Features: features.Default(), BaseSlice: 700000, HZ: 1000,
			Tasks: []Task{{Name: "A"}, {Name: "B", Nice: 5}}}
	}
	sc := base()
	sc.Ops = []Op{{Kind: OpNew, Task: 0}, {Kind: OpNew, Task: 1}, {Kind: OpSchedule}, {At: 1000000, Kind: OpTick}}
	var out bytes.Buffer
	tw := NewTableWriter(&out, sc)
	if err := Replay(sc, Options{}, tw.Write); err != nil {
		t.Fatalf("zero-valued tasks: %v", err)
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "group") {
		t.Errorf("a scenario without groups printed group columns:\n%s", out.String())
	}

	bad := []struct {
		name  string
		edit  func(*Scenario)
		want  string
		steps int
	}{
		{"task group out of range", func(sc *Scenario) { sc.Tasks[0].Group = 1 }, "built:0:0: task A: group reference 1", -1},
		{"negative task group", func(sc *Scenario) { sc.Tasks[1].Group = -1 }, "built:0:0: task B: group reference -1", -1},
		{"parent after its child", func(sc *Scenario) {
			sc.Groups = []Group{{Name: "g", Parent: 1}}
			sc.HasGroups = true
		}, "built:0:0: group g: parent reference 1", -1},
		{"task out of range", func(sc *Scenario) { sc.Ops = []Op{{Kind: OpNew, Task: 2}} }, "built:0:0: new: task reference 2", 0},
		{"unknown operation", func(sc *Scenario) { sc.Ops = []Op{{Kind: numOps}} }, "built:0:0: unknown operation", 0},
		{"group op without groups", func(sc *Scenario) { sc.Ops = []Op{{Kind: OpCPUWeight, Arg: 100}} }, "built:0:0: cpu.weight: the scenario declares no groups", 0},
		{"cgroup_mode without groups", func(sc *Scenario) { sc.Ops = []Op{{Kind: OpCgroupMode}} }, "built:0:0: cgroup_mode: the scenario declares no groups", 0},
		{"weight write on the root", func(sc *Scenario) {
			sc.Groups, sc.HasGroups = []Group{{Name: "g"}}, true
			sc.Ops = []Op{{Kind: OpCPUWeight, Group: 0, Arg: 100}}
		}, "built:0:0: cpu.weight: the root group / has fixed shares", 0},
		{"idle write on the root", func(sc *Scenario) {
			sc.Groups, sc.HasGroups = []Group{{Name: "g"}}, true
			sc.Ops = []Op{{Kind: OpCPUIdle, Group: 0, Arg: 1}}
		}, "built:0:0: cpu.idle: the root group / cannot be made idle", 0},
		{"group op out of range", func(sc *Scenario) {
			sc.Groups, sc.HasGroups = []Group{{Name: "g"}}, true
			sc.Ops = []Op{{Kind: OpCgroup, Task: 0, Group: 2}}
		}, "built:0:0: cgroup: group reference 2", 0},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			sc := base()
			tt.edit(sc)
			r, err := NewReplayer(sc, Options{})
			if tt.steps < 0 {
				if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
					t.Fatalf("NewReplayer: err = %v, want prefix %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Step()
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Step: err = %v, want an *Error with prefix %q", err, tt.want)
			}
		})
	}
}
