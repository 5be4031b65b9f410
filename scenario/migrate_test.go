package scenario

import (
	"strings"
	"testing"
)

// migrateSrc exercises both halves of the pair: A leaves queued and comes
// back (detach_task, attach_task), B leaves asleep and is woken back with
// WF_MIGRATED.
const migrateSrc = `task A
task B
0 new A
0 new B
0 schedule
400000 schedule
500000 migrate_out A
600000 migrate_in A
700000 sleep
800000 migrate_out B
900000 migrate_in B
900000 schedule
`

// The numbers, relative to the first V (the model starts vruntimes at
// −1 048 576, as the kernel's zero_vruntime does), follow from the lag
// rules by hand:
//
//   - at 400 µs A has run 400 µs: vruntime 400 000, its deadline pushed to
//     400 000 + 700 000; B (vruntime 0, deadline 350 000) is picked.
//   - at 500 µs B has run 100 µs, V = (400 000 + 100 000)/2 = 250 000, so
//     A leaves with vlag 250 000 − 400 000 = −150 000 and its deadline
//     made relative: 1 100 000 − 400 000 = 700 000.
//   - at 600 µs B alone sits at 200 000 = V; A's lag, scaled by
//     (W + w)/W = 2, is −300 000: A lands at 500 000, deadline 1 200 000,
//     and V = (200 000 + 500 000)/2 = 350 000, so A's lag is −150 000 again.
//   - at 700 µs B sleeps at 300 000 with V = 400 000: vlag 100 000.
//   - at 900 µs A alone sits at 700 000; B lands at 700 000 − 2·100 000 =
//     500 000 with deadline 1 200 000, V = 600 000, B's lag 100 000 again.
func TestMigratePairKeepsLag(t *testing.T) {
	sc, err := Parse(strings.NewReader(migrateSrc), "m")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplayer(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		v                  uint64 // V − base
		curr               string
		resched            bool
		aOnRq, bOnRq       bool
		aV, bV             uint64 // vruntime − base
		aDl, bDl           uint64 // deadline (− base unless relative)
		aVlag, bVlag       int64
		aLag, bLag         int64
		aRelDl             bool // A's deadline is relative (left queued)
		skipDeadlineChecks bool
	}
	const base = uint64(1<<64 - 1048576)
	wants := []want{
		{v: 0, curr: "", resched: true, aOnRq: true, aDl: 350000, skipDeadlineChecks: true},
		{v: 0, curr: "", resched: true, aOnRq: true, bOnRq: true, aDl: 350000, bDl: 350000},
		{v: 0, curr: "A", aOnRq: true, bOnRq: true, aDl: 350000, bDl: 350000},
		{v: 200000, curr: "B", aOnRq: true, bOnRq: true, aV: 400000, aDl: 1100000, bDl: 350000, aLag: -200000, bLag: 200000},
		{v: 100000, curr: "B", bOnRq: true, aV: 400000, bV: 100000, aDl: 700000, aRelDl: true, bDl: 350000, aVlag: -150000, aLag: -300000},
		{v: 350000, curr: "B", aOnRq: true, bOnRq: true, aV: 500000, bV: 200000, aDl: 1200000, bDl: 350000, aVlag: -150000, aLag: -150000, bLag: 150000},
		{v: 500000, curr: "A", aOnRq: true, aV: 500000, bV: 300000, aDl: 1200000, bDl: 350000, aVlag: -150000, bVlag: 100000, bLag: 200000},
		{v: 500000, curr: "A", aOnRq: true, aV: 500000, bV: 300000, aDl: 1200000, bDl: 350000, aVlag: -150000, bVlag: 100000, bLag: 200000},
		{v: 600000, curr: "A", resched: true, aOnRq: true, bOnRq: true, aV: 700000, bV: 500000, aDl: 1200000, bDl: 1200000, aVlag: -150000, bVlag: 100000, aLag: -100000, bLag: 100000},
		{v: 600000, curr: "B", aOnRq: true, bOnRq: true, aV: 700000, bV: 500000, aDl: 1200000, bDl: 1200000, aVlag: -150000, bVlag: 100000, aLag: -100000, bLag: 100000},
	}
	for i := 0; !r.Done(); i++ {
		res, err := r.Step()
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		if err := r.RunQueue().Check(); err != nil {
			t.Fatalf("op %d (%s): %v", i, res.Op, err)
		}
		w := wants[i]
		a, b := res.Tasks[0], res.Tasks[1]
		got := want{v: res.V - base, curr: res.Curr, resched: res.Resched, aOnRq: a.OnRq, bOnRq: b.OnRq,
			aV: a.Vruntime - base, bV: b.Vruntime - base, aVlag: a.VLag, bVlag: b.VLag, aLag: a.Lag, bLag: b.Lag,
			aRelDl: w.aRelDl, skipDeadlineChecks: w.skipDeadlineChecks}
		if i < 2 {
			got.bV, w.bV = 0, 0 // B does not exist before op 1
		}
		if i == 0 {
			got.bLag, w.bLag = 0, 0
		}
		got.aDl = a.Deadline - base
		if w.aRelDl {
			got.aDl = a.Deadline
		}
		got.bDl = b.Deadline - base
		if w.skipDeadlineChecks {
			got.bDl = w.bDl
		}
		if got != w {
			t.Errorf("op %d (%d %s %s):\n got %+v\nwant %+v", i, res.T, res.Op, res.Task, got, w)
		}
	}
}

// A delayed task may leave too: it goes as it is (still delayed, its lag
// negative) and comes back delayed, to be completed by the next pick.
func TestMigrateDelayedTask(t *testing.T) {
	src := `task A
task B
0 new A
0 new B
0 schedule
900000 sleep
900000 migrate_out A
1000000 migrate_in A
1000000 schedule
`
	sc, err := Parse(strings.NewReader(src), "d")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplayer(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var delayedOut, delayedIn bool
	for i := 0; !r.Done(); i++ {
		res, err := r.Step()
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		if err := r.RunQueue().Check(); err != nil {
			t.Fatalf("op %d (%s): %v", i, res.Op, err)
		}
		switch res.Op {
		case OpMigrateOut:
			delayedOut = res.Tasks[0].Delayed
		case OpMigrateIn:
			delayedIn = res.Tasks[0].Delayed && res.Tasks[0].OnRq
		}
	}
	// A ran 900 µs against B's 0: V = 450 000 < 900 000, so A's sleep was
	// delayed; it stays so across the move.
	if !delayedOut || !delayedIn {
		t.Errorf("delayed at migrate_out %v, queued delayed after migrate_in %v; want both", delayedOut, delayedIn)
	}
}

// Each operation that is not defined in the state reached is an error at
// its line, and changes nothing.
func TestMigrateErrors(t *testing.T) {
	head := "task A\ntask B\n0 new A\n0 new B\n0 schedule\n"
	tests := []struct{ name, ops, want string }{
		{"running task", "1 migrate_out A\n", "x:6:1: migrate_out A: the task is running"},
		{"never created", "", ""},
		{"twice", "1 migrate_out B\n2 migrate_out B\n", "x:7:1: migrate_out B: the task is already on another CPU"},
		{"in without out", "1 migrate_in B\n", "x:6:1: migrate_in B: the task is not on another CPU"},
		{"wakeup while away", "1 migrate_out B\n2 wakeup B\n", "x:7:1: wakeup B: the task is on another CPU"},
		{"forcepick while away", "1 migrate_out B\n2 forcepick B\n", "x:7:1: forcepick B: the task is on another CPU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + tt.ops
			if tt.name == "never created" {
				src = "task A\n0 migrate_out A\n"
				tt.want = "x:2:1: migrate_out A: the task was never created"
			}
			sc, err := Parse(strings.NewReader(src), "x")
			if err != nil {
				t.Fatal(err)
			}
			err = Replay(sc, Options{}, func(*Result) error { return nil })
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMigrateParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"task A\n0 migrate_out\n", "x:2:14: migrate_out takes one task"},
		{"task A\n0 migrate_in A A\n", "x:2:16: migrate_in takes one task"},
		{"task A\n0 migrate_in B\n", "x:2:14: undeclared task \"B\""},
	}
	for _, tt := range tests {
		_, err := Parse(strings.NewReader(tt.src), "x")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.src, err, tt.want)
		}
	}
}

// The JSON line names the operation as the scenario spells it.
func TestMigrateJSON(t *testing.T) {
	sc, err := Parse(strings.NewReader(migrateSrc), "m")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	err = Replay(sc, Options{}, func(res *Result) error {
		lines = append(lines, string(res.AppendJSON(nil)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]string{4: `{"i":4,"t":500000,"op":"migrate_out","task":"A",`, 5: `{"i":5,"t":600000,"op":"migrate_in","task":"A",`} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %s, want prefix %s", i, lines[i], want)
		}
	}
}
