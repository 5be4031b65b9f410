package scenario

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/features"
)

// genScenario builds a valid scenario of n operations over k tasks by
// replaying it as it grows: ticks and schedules every millisecond, with
// sleeps of the running task, wakeups of sleepers, yields and renices.
func genScenario(tb testing.TB, n, k int) *Scenario {
	rng := rand.New(rand.NewPCG(3, 4))
	sc := &Scenario{Name: "gen", Features: features.Default(), BaseSlice: 700000, HZ: 1000}
	for i := 0; i < k; i++ {
		sc.Tasks = append(sc.Tasks, Task{Name: fmt.Sprintf("T%d", i), Nice: rng.IntN(11) - 5})
	}
	r, err := NewReplayer(sc, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var t uint64
	add := func(kind OpKind, task int, arg int64) {
		sc.Ops = append(sc.Ops, Op{At: t, Kind: kind, Task: task, Arg: arg})
		if _, err := r.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < k; i++ {
		add(OpNew, i, 0)
	}
	for len(sc.Ops) < n {
		t += 1 + uint64(rng.IntN(1000000))
		switch rng.IntN(6) {
		case 0:
			if r.RunQueue().Curr() != nil {
				add(OpSleep, -1, 0)
			}
		case 1:
			i := rng.IntN(k)
			if se := r.Entity(i); (!se.OnRq() || se.Delayed()) && se != r.RunQueue().Curr() {
				add(OpWakeup, i, 0)
			}
		case 2:
			if r.RunQueue().Curr() != nil {
				add(OpYield, -1, 0)
			}
		case 3:
			add(OpRenice, rng.IntN(k), int64(rng.IntN(11)-5))
		default:
			add(OpTick, -1, 0)
			add(OpSchedule, -1, 0)
		}
	}
	return sc
}

// BenchmarkReplay10k replays a 10,000-operation scenario and writes its
// JSON lines (to io.Discard).
func BenchmarkReplay10k(b *testing.B) {
	sc := genScenario(b, 10000, 16)
	b.ReportAllocs()
	for b.Loop() {
		if err := Replay(sc, Options{}, JSONWriter(io.Discard)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse10k parses the same scenario, written out.
func BenchmarkParse10k(b *testing.B) {
	var w strings.Builder
	sc := genScenario(b, 10000, 16)
	for _, t := range sc.Tasks {
		fmt.Fprintf(&w, "task %s nice=%d\n", t.Name, t.Nice)
	}
	for _, op := range sc.Ops {
		fmt.Fprintf(&w, "%d %s", op.At, op.Kind)
		if op.Task >= 0 {
			fmt.Fprintf(&w, " %s", sc.Tasks[op.Task].Name)
		}
		if op.Kind == OpRenice {
			fmt.Fprintf(&w, " %d", op.Arg)
		}
		w.WriteByte('\n')
	}
	src := w.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(src), "gen"); err != nil {
			b.Fatal(err)
		}
	}
}
