package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// The kernel's own answers for multi-CPU scenarios: testdata/smp/NAME.txt
// replayed by the kernel's fair.c (mainline 673dab7eac16, N CPUs, NOHZ
// mode A) printed NAME.jsonl.gz (SMP-SCENARIOS). Every field of every
// operation must match, with both timeline backends.

// smpKnownDifferences lists the multi-CPU kernel scenarios the model does
// not replay exactly yet, each with the first difference the comparison
// reports (the same for both backends). The test fails when a listed file
// differs otherwise, or matches: the list can only shrink. Empty: every
// file matches field for field.
var smpKnownDifferences = map[string]string{}

// replaySMPJSON replays a multi-CPU scenario step by step, checking the
// System's invariants after every operation, and returns its JSON lines.
func replaySMPJSON(t *testing.T, path string, backend eevdf.Backend) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := ParseSMP(f, filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewSMPReplayer(sc, SMPOptions{Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	emit := SMPJSONWriter(&out)
	for !r.Done() {
		res, err := r.Step()
		if err != nil {
			t.Errorf("replay: %v", err)
			break
		}
		if err := r.System().Check(); err != nil {
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

func TestSMPKernelAnswers(t *testing.T) {
	files, err := filepath.Glob("testdata/smp/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no multi-CPU kernel scenarios: %v", err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		seen[name] = true
		golden := loadGolden(t, strings.TrimSuffix(path, ".txt")+".jsonl.gz")
		for _, b := range []eevdf.Backend{eevdf.BTree, eevdf.RBTree} {
			t.Run(name+"/"+b.String(), func(t *testing.T) {
				d := firstDifference(golden, replaySMPJSON(t, path, b))
				want, known := smpKnownDifferences[name]
				switch {
				case !known && d != "":
					t.Error(d)
				case known && d == "":
					t.Errorf("matches the kernel now: remove it from smpKnownDifferences")
				case known && d != want:
					t.Errorf("first difference changed:\n got  %s\n want %s", d, want)
				}
			})
		}
	}
	for name := range smpKnownDifferences {
		if !seen[name] {
			t.Errorf("smpKnownDifferences lists %s, which is not in testdata/smp", name)
		}
	}
}

// The comparison must see a change of any multi-CPU field: a domain's
// statistic, an LLC's flag, an order in cfs_tasks, an event's key.
func TestSMPFirstDifferenceSeesEveryField(t *testing.T) {
	golden := loadGolden(t, "testdata/smp/smp-hand-smt-active.jsonl.gz")
	for _, tc := range []struct{ name, from, to string }{
		{"a domain statistic", `"newidle_call":513`, `"newidle_call":514`},
		{"an LLC field", `"nr_idle_scan":3`, `"nr_idle_scan":4`},
		{"an event key", `"ev":"active","busiest":0`, `"ev":"active","busiest":1`},
		{"an event missing", `{"ev":"active_kick","busiest":0,"push_cpu":2},`, ``},
		{"a top-level null", `"prev_cpu":null`, `"prev_cpu":0`},
		{"a flag as an integer", `"overloaded":0`, `"overloaded":false`},
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

// Parse hands a file with a machine line to ParseSMP, and Replay with
// JSONWriter prints exactly what ReplaySMP prints: the replay command
// needs no change to replay multi-CPU files.
func TestParseRoutesMultiCPUScenarios(t *testing.T) {
	path := "testdata/smp/smp-ops-006.txt"
	sc, err := Parse(bytes.NewReader(mustRead(t, path)), "smp-ops-006.txt")
	if err != nil {
		t.Fatal(err)
	}
	if sc.SMP == nil || sc.SMP.Machine.CoresPerLLC != 2 || sc.HZ != 250 {
		t.Fatalf("Parse did not read the multi-CPU header: %+v", sc)
	}
	var viaReplay, direct bytes.Buffer
	if err := Replay(sc, Options{}, JSONWriter(&viaReplay)); err != nil {
		t.Fatal(err)
	}
	if err := ReplaySMP(sc.SMP, SMPOptions{}, SMPJSONWriter(&direct)); err != nil {
		t.Fatal(err)
	}
	if viaReplay.Len() == 0 || !bytes.Equal(viaReplay.Bytes(), direct.Bytes()) {
		t.Errorf("Replay printed %d bytes, ReplaySMP %d, and they differ", viaReplay.Len(), direct.Len())
	}
	if _, err := NewReplayer(sc, Options{}); err == nil {
		t.Error("NewReplayer accepted a multi-CPU scenario")
	}
	var table bytes.Buffer
	if err := Replay(sc, Options{}, NewTableWriter(&table, sc).Write); !errors.Is(err, errSMPOutput) {
		t.Errorf("the table writer took a multi-CPU result: %v", err)
	}
}

func TestParseSMPErrors(t *testing.T) {
	const head = "machine 1 1 2 1\ntask A\ntask B cpus=1\n"
	for _, tc := range []struct{ name, in, want string }{
		{"unknown statement", "machine 1 1 2 1\nfrobnicate 3\n", "f:2:1: unknown statement"},
		{"bad machine count", "machine 1 0 2 1\n", "f:1:11: machine: \"0\""},
		{"machine too large", "machine 2 2 4 5\n", "f:1:9: machine of 80 CPUs"},
		{"hz not allowed", "machine 1 1 2 1\nhz 300\n", "f:2:4: hz 300"},
		{"unknown feature", "machine 1 1 2 1\nfeatures NO_FOO\n", "f:2:10: feature \"NO_FOO\""},
		{"zero newidle cost", "machine 1 1 2 1\nnewidle_cost 0 0 5\n", "f:2:14: newidle_cost"},
		{"header twice", "machine 1 1 2 1\nseed 1\nseed 2\n", "f:3:1: seed given twice"},
		{"cpus outside the machine", "machine 1 1 2 1\ntask A cpus=0-2\n1 new A\n", "f:2:13: task A: CPU 2"},
		{"bad cpu list", "machine 1 1 2 1\ntask A cpus=3-1\n", "f:2:13: cpus=3-1"},
		{"time zero", head + "0 new A\n", "f:4:1: time 0"},
		{"time backwards", head + "5 new A\n4 new B\n", "f:5:1: time going backwards"},
		{"cpu outside the machine", head + "5 new A on 2\n", "f:4:12: \"2\" is not a CPU"},
		{"fork twice", head + "5 new A\n6 new A\n", "f:5:7: new A: each task is forked once"},
		{"wakeup before fork", head + "5 wakeup A\n", "f:4:10: wakeup A: the task was never forked"},
		{"wakeup junk", head + "5 new A\n6 wakeup A from 1 async\n", "f:5:19: wakeup takes a task"},
		{"sleep without cpu", head + "5 sleep\n", "f:4:8: sleep takes one CPU"},
		{"tick of two cpus", head + "5 tick 0 1\n", "f:4:10: tick takes at most a CPU"},
		{"header after ops", head + "5 new A\nseed 3\n", "f:5:1: \"seed\" after the first operation"},
		{"online_cpus", "machine 1 1 2 1\nonline_cpus 2\n", "f:2:1: online_cpus: a multi-CPU scenario's online CPUs are its machine's"},
		{"group twice", "machine 1 1 2 1\ngroup G\ngroup G\n", "f:3:7: group G declared twice"},
		{"group parent undeclared", "machine 1 1 2 1\ngroup G parent=P\n", "f:2:16: group G: parent \"P\""},
		{"group idle with weight", "machine 1 1 2 1\ngroup G weight=5 idle\n", "f:2:7: group G: idle with weight="},
		{"group of a task undeclared", "machine 1 1 2 1\ntask A group=G\n", "f:2:14: undeclared group \"G\""},
		{"bad cgroup_mode", "machine 1 1 2 1\ncgroup_mode fair\n", "f:2:13: bad option"},
		{"cgroup before mkdir", "machine 1 1 2 1\ngroup G mkdir\ntask A\n5 cgroup A G\n", "f:4:12: group G is not online yet"},
		{"mkdir twice", "machine 1 1 2 1\ngroup G mkdir\n5 mkdir G\n6 mkdir G\n", "f:4:9: mkdir G: only a group declared with mkdir, once"},
		{"mkdir of an online group", "machine 1 1 2 1\ngroup G\n5 mkdir G\n", "f:3:9: mkdir G: only a group declared with mkdir"},
		{"cpu.weight of the root", "machine 1 1 2 1\ngroup G\n5 cpu.weight / 5\n", "f:3:14: the root group / has fixed shares"},
		{"cpu.weight out of range", "machine 1 1 2 1\ngroup G\n5 cpu.weight G 0\n", "f:3:16: cpu.weight \"0\" outside 1..10000"},
		{"cpu.idle not a bit", "machine 1 1 2 1\ngroup G\n5 cpu.idle G 2\n", "f:3:14: cpu.idle \"2\": want 0 or 1"},
		{"cgroup without group", "machine 1 1 2 1\ngroup G\ntask A\n5 cgroup A\n", "f:4:9: cgroup takes a task and a group"},
		{"h_load without cpu", "machine 1 1 2 1\ngroup G\n5 h_load\n", "f:3:9: h_load takes one CPU"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSMP(strings.NewReader(tc.in), "f")
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want an *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %s\nwant %s…", err, tc.want)
			}
		})
	}
}

// Operations the state does not allow stop the replay with an *Error at
// the operation's position, the machine unchanged.
func TestSMPReplayErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"sleep on an idle CPU", "machine 1 1 2 1\ntask A\n5 sleep 1\n", "f:3:1: smp: the CPU is idle"},
		{"yield on an idle CPU", "machine 1 1 2 1\ntask A\n5 yield 0\n", "f:3:1: smp: the CPU is idle"},
		{"sync wakeup from an idle CPU", "machine 1 1 2 1\ntask A\n5 new A\n5 schedule 0\n6 sleep 0\n7 wakeup A from 1 sync\n", "f:6:1: smp: the CPU is idle: a sync wakeup"},
		{"wakeup of a runnable task", "machine 1 1 2 1\ntask A\n5 new A\n6 wakeup A\n", "f:4:1: wakeup A: the task is not asleep"},
		{"a new without a task (built by hand)", "machine 1 1 2 1\ntask A\n5 schedule 0\n", "f:3:1: new: task reference -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := ParseSMP(strings.NewReader(tc.in), "f")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tc.name, "by hand") {
				sc.Ops[0].Kind = SMPNew
			}
			err = ReplaySMP(sc, SMPOptions{}, func(*SMPResult) error { return nil })
			var pe *Error
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %v\nwant %s…", err, tc.want)
			}
		})
	}
}

// Any input either parses or fails with an *Error; a parsed scenario
// replays until an operation its state refuses (an *Error), with the
// System's invariants holding after every operation. Nothing panics.
func FuzzSMPScenario(f *testing.F) {
	f.Add([]byte("machine 1 1 2 2\nseed 7\nfeatures NO_NI_RANDOM\ntask A\ntask B\n1000000 new A on 0\n1000000 schedule 0\n1000000 new B on 0\n1000000 schedule 1\n2000000 tick\n3000000 tick\n4000000 tick\n5000000 tick\n6000000 tick\n7000000 tick\n8000000 tick\n9000000 tick\n16000000 tick\n16000000 schedule 2\n"))
	f.Add([]byte("machine 1 1 2 1\nhz 250\njiffies0 4294667296\nbase_slice 3000000\nnewidle_cost 20000 1000 5000\ntask T0 nice=10 slice=100000\ntask T1 policy=idle cpus=0-1\ntask T2 policy=batch cpus=1\n1000000 new T0 on 1\n1000000 new T1\n1000000 schedule 0\n1000000 schedule 1\n1500000 new T2 on 0\n2000000 sleep 0\n2000000 wakeup T0 from 0\n2500000 wakeup T1 from 1 sync\n4000000 tick 1\n4000000 balance 0\n4000000 yield 1\n5000000 sleep 1\n6000000 wakeup T2\n8000000 tick\n"))
	f.Add([]byte("machine 2 1 1 1\ntask A cpus=1\n1 new A on 0\n2 schedule 1\n3 sleep 1\n4 wakeup A from 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		sc, err := ParseSMP(bytes.NewReader(data), "fuzz")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("parse error is not an *Error: %v", err)
			}
			return
		}
		if len(sc.Ops) > 2000 {
			return
		}
		r, err := NewSMPReplayer(sc, SMPOptions{})
		if err != nil {
			return
		}
		for !r.Done() {
			if _, err := r.Step(); err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("replay error is not an *Error: %v", err)
				}
				return
			}
			if err := r.System().Check(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
