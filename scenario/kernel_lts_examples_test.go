package scenario

import (
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// The worked examples of KERNEL-SPEC-LTS Part II §5 and Part I §4, computed by hand
// there, replayed with each preset they name. Vruntimes and deadlines are
// relative to the initial reference 2^64 − 2^20, as the examples write
// them.

const ltsZero = ^uint64(0) - 1<<20 + 1 // 2^64 − 2^20

// ltsCheck is one expected value after the operation at time t of kind op
// (and task, for ops that name one): a task's vruntime ("vr"), deadline
// ("dl"), saved lag ("vlag") or lag ("lag"), or the operation's resched
// (want 1 or 0) or pick (pick names the task; "" leaves it unchecked).
type ltsCheck struct {
	t      uint64
	op     string
	task   string // the op's task; "" for ops without one
	field  string // vr, dl, vlag, lag, resched, picked
	of     string // the task whose field is read (vr, dl, vlag, lag)
	want   int64
	picked string
}

func ltsReplay(t *testing.T, src string, k eevdf.Kernel) []Result {
	t.Helper()
	sc, err := Parse(strings.NewReader(src), "example")
	if err != nil {
		t.Fatal(err)
	}
	var out []Result
	err = Replay(sc, Options{Kernel: k}, func(r *Result) error {
		c := *r
		c.Tasks = append([]TaskState(nil), r.Tasks...)
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ltsVerify(t *testing.T, res []Result, checks []ltsCheck) {
	t.Helper()
	for _, c := range checks {
		var r *Result
		for i := range res {
			if res[i].T == c.t && res[i].Op.String() == c.op && res[i].Task == c.task {
				r = &res[i]
			}
		}
		if r == nil {
			t.Fatalf("no op %d %s %s", c.t, c.op, c.task)
		}
		var got int64
		switch c.field {
		case "resched":
			if r.Resched {
				got = 1
			}
		case "picked":
			if r.Picked != c.picked {
				t.Errorf("%d %s %s: picked %q, want %q", c.t, c.op, c.task, r.Picked, c.picked)
			}
			continue
		default:
			var ts *TaskState
			for i := range r.Tasks {
				if r.Tasks[i].Name == c.of {
					ts = &r.Tasks[i]
				}
			}
			switch c.field {
			case "vr":
				got = int64(ts.Vruntime - ltsZero)
			case "dl":
				got = int64(ts.Deadline - ltsZero)
			case "vlag":
				got = ts.VLag
			case "lag":
				got = ts.Lag
			}
		}
		if got != c.want {
			t.Errorf("%d %s %s: %s %s = %d, want %d", c.t, c.op, c.task, c.of, c.field, got, c.want)
		}
	}
}

// rawV is the raw signed value of a vlag that holds a vruntime (v6.12's
// mark), given relative to the initial reference.
func rawV(rel uint64) int64 { return int64(ltsZero + rel) }

func pick(t uint64, op, task, who string) ltsCheck {
	return ltsCheck{t: t, op: op, task: task, field: "picked", picked: who}
}

func resched(t uint64, op, task string, on bool) ltsCheck {
	c := ltsCheck{t: t, op: op, task: task, field: "resched"}
	if on {
		c.want = 1
	}
	return c
}

func field(t uint64, op, task, f, of string, want int64) ltsCheck {
	return ltsCheck{t: t, op: op, task: task, field: f, of: of, want: want}
}

func mustReadString(t *testing.T, path string) string { return string(mustRead(t, path)) }

func TestLTSWorkedExamples(t *testing.T) {
	v73, v71, v70, v618, v612, v66 := eevdf.KernelV73, eevdf.KernelV71, eevdf.KernelV70, eevdf.KernelV618, eevdf.KernelV612, eevdf.KernelV66
	type run struct {
		k      eevdf.Kernel
		checks []ltsCheck
	}
	for _, ex := range []struct {
		name string
		src  string
		runs []run
	}{
		{
			// §5.1 ex. 1: v7.1 (and v7.0, v6.18) protect A after the
			// yield to 0 + 2 ms; v7.3 cuts it where A turns ineligible.
			name: "protection bound after a pick (PR1)",
			src: `task A slice=6000000
task B slice=2000000
0       new A
0       new B
0       schedule
500000  yield
1000000 tick
2000000 tick
3000000 tick
3000000 schedule
`,
			runs: []run{
				{v73, []ltsCheck{pick(500000, "yield", "", "A"), resched(1000000, "tick", "", false), resched(2000000, "tick", "", true), pick(3000000, "schedule", "", "B")}},
				{v71, []ltsCheck{pick(500000, "yield", "", "A"), resched(2000000, "tick", "", false), resched(3000000, "tick", "", true),
					pick(3000000, "schedule", "", "B"), field(3000000, "schedule", "", "lag", "B", 1000000)}},
				{v70, []ltsCheck{resched(2000000, "tick", "", false), resched(3000000, "tick", "", true), field(3000000, "schedule", "", "lag", "B", 1000000)}},
				{v618, []ltsCheck{resched(2000000, "tick", "", false), resched(3000000, "tick", "", true), field(3000000, "schedule", "", "lag", "B", 1000000)}},
			},
		},
		{
			// §5.1 ex. 2: v7.1 requeues B before charging A, keeps its
			// −25000 and lets it preempt; v7.3 re-places it at V.
			name: "requeue before the charge (DD2)",
			src: `task A
task B
0       new A
0       new B
0       schedule
350000  tick
350000  schedule
750000  sleep
950000  wakeup B
`,
			runs: []run{
				{v73, []ltsCheck{field(750000, "sleep", "", "vlag", "B", -25000), field(950000, "wakeup", "B", "vr", "B", 550000),
					field(950000, "wakeup", "B", "dl", "B", 1250000), resched(950000, "wakeup", "B", false)}},
				{v71, []ltsCheck{field(750000, "sleep", "", "vlag", "B", -25000), field(950000, "wakeup", "B", "vr", "B", 400000),
					field(950000, "wakeup", "B", "dl", "B", 1100000), resched(950000, "wakeup", "B", true), field(950000, "wakeup", "B", "lag", "B", 75000)}},
				{v70, []ltsCheck{field(950000, "wakeup", "B", "vr", "B", 400000), field(950000, "wakeup", "B", "dl", "B", 1100000), resched(950000, "wakeup", "B", true)}},
				{v618, []ltsCheck{field(950000, "wakeup", "B", "vr", "B", 400000), field(950000, "wakeup", "B", "dl", "B", 1100000), resched(950000, "wakeup", "B", true)}},
			},
		},
		{
			// §5.1 ex. 3: B enters an empty tree as a lone root whose
			// max_slice v7.1 never set; A's lag is clamped to 1.7 ms and
			// re-placed with inflation at its wakeup.
			name: "stale max_slice (T2)",
			src: `task A
task B slice=100000000
0        new A
0        schedule
0        new B
1000000  tick
2000000  tick
3000000  tick
4000000  tick
5000000  tick
6000000  tick
7000000  tick
8000000  tick
9000000  tick
10000000 sleep
10000000 wakeup A
`,
			runs: []run{
				{v73, []ltsCheck{field(10000000, "sleep", "", "vlag", "A", -5000000), pick(10000000, "sleep", "", "B"),
					field(10000000, "wakeup", "A", "vr", "A", 10000000), field(10000000, "wakeup", "A", "dl", "A", 10700000), resched(10000000, "wakeup", "A", false)}},
				{v71, []ltsCheck{field(10000000, "sleep", "", "vlag", "A", -1700000), pick(10000000, "sleep", "", "B"),
					field(10000000, "wakeup", "A", "vr", "A", 3400000), field(10000000, "wakeup", "A", "dl", "A", 4100000), resched(10000000, "wakeup", "A", false)}},
				{v70, []ltsCheck{field(10000000, "wakeup", "A", "vr", "A", 10000000)}},
				{v618, []ltsCheck{field(10000000, "wakeup", "A", "vr", "A", 10000000)}},
			},
		},
		{
			// §5.1 ex. 4: the tick's pending resched stops v7.1's check,
			// so S waits for B.
			name: "a pending resched stops the check (W1)",
			src: `task A
task B
task S slice=300000
0       new A
0       new B
0       schedule
1000000 tick
1000000 new S
1000000 schedule
2000000 tick
2000000 schedule
`,
			runs: []run{
				{v73, []ltsCheck{field(1000000, "new", "S", "vr", "S", 500000), field(1000000, "new", "S", "dl", "S", 650000), pick(1000000, "schedule", "", "S")}},
				{v71, []ltsCheck{pick(1000000, "schedule", "", "B"), pick(2000000, "schedule", "", "S")}},
				{v70, []ltsCheck{pick(1000000, "schedule", "", "B"), pick(2000000, "schedule", "", "S")}},
				{v618, []ltsCheck{pick(1000000, "schedule", "", "B"), pick(2000000, "schedule", "", "S")}},
			},
		},
		{
			// §5.2 ex. 1: v7.0 recorded nothing when A was delayed and
			// keeps its negative lag at the requeue.
			name: "seed (a) off (DD1)",
			src:  mustReadString(t, "../examples/scenarios/seed000-delay-lag-floor.txt"),
			runs: []run{
				{v73, []ltsCheck{field(800000, "wakeup", "A", "vr", "A", 300000), field(800000, "wakeup", "A", "dl", "A", 1000000)}},
				{v70, []ltsCheck{field(800000, "wakeup", "A", "vr", "A", 400000), field(800000, "wakeup", "A", "dl", "A", 1100000), field(800000, "wakeup", "A", "lag", "A", -116667)}},
			},
		},
		{
			// §5.2 ex. 2: v7.0's raw pick returns the delayed D, so W
			// does not preempt at 500 µs.
			name: "seed (b) off (W6)",
			src:  mustReadString(t, "../examples/scenarios/seed002-flush-delayed.txt"),
			runs: []run{
				{v73, []ltsCheck{field(500000, "wakeup", "W", "vr", "W", 100000), field(500000, "wakeup", "W", "dl", "W", 800000), resched(500000, "wakeup", "W", true)}},
				{v70, []ltsCheck{field(500000, "wakeup", "W", "vr", "W", 100000), field(500000, "wakeup", "W", "dl", "W", 800000), resched(500000, "wakeup", "W", false),
					pick(1000000, "schedule", "", "W")}},
			},
		},
		{
			// §5.2 ex. 3: __calc_delta's fixed point gives A's request
			// 12799999 ns, one less than B's, so A goes first.
			name: "fixed-point tie (A1)",
			src: `task B slice=12800000
task A nice=13
0 new B
0 new A
0 schedule
`,
			runs: []run{
				{v73, []ltsCheck{field(0, "new", "A", "dl", "A", 6400000), pick(0, "schedule", "", "B")}},
				{v70, []ltsCheck{field(0, "new", "A", "dl", "A", 6399999), pick(0, "schedule", "", "A")}},
				{v618, []ltsCheck{field(0, "new", "A", "dl", "A", 6399999), pick(0, "schedule", "", "A")}},
			},
		},
		{
			// §5.2 ex. 4: v7.0's SHORT pick returns the eligible buddy W,
			// so S does not preempt; v7.1 ignores the buddy there.
			name: "PICK_BUDDY without protect (P1)",
			src: `features NEXT_BUDDY
task R
task W
task S slice=300000
0       new R
0       new W
0       new S
0       schedule
0       sleep
350000  tick
350000  schedule
750000  sleep
760000  wakeup W
900000  wakeup S
900000  schedule
`,
			runs: []run{
				{v73, []ltsCheck{field(900000, "wakeup", "S", "vr", "S", 450000), field(900000, "wakeup", "S", "dl", "S", 750000), resched(900000, "wakeup", "S", true), pick(900000, "schedule", "", "S")}},
				{v71, []ltsCheck{resched(760000, "wakeup", "W", false), resched(900000, "wakeup", "S", true), pick(900000, "schedule", "", "W")}},
				{v70, []ltsCheck{field(760000, "wakeup", "W", "vr", "W", 400000), resched(900000, "wakeup", "S", false)}},
			},
		},
		{
			// §5.3 ex. 1: v6.18's yield only pushes the deadline, and the
			// still-protected A is picked again.
			name: "yield keeps the CPU (Y1)",
			src: `task A
task B
0       new A
0       new B
0       schedule
350000  tick
350000  schedule
1000000 tick
1000000 schedule
1100000 yield
`,
			runs: []run{
				{v73, []ltsCheck{field(1100000, "yield", "", "vr", "A", 1050000), field(1100000, "yield", "", "dl", "A", 1750000), pick(1100000, "yield", "", "B")}},
				{v618, []ltsCheck{field(1100000, "yield", "", "vr", "A", 450000), field(1100000, "yield", "", "dl", "A", 1750000), pick(1100000, "yield", "", "A")}},
			},
		},
		{
			// §5.3 ex. 2: v6.18 has no fork exit; the new C wins the pick.
			name: "a new task preempts (W7)",
			src: `task A
task B slice=3000000
task C
0      new A
0      new B
0      schedule
200000 new C
`,
			runs: []run{
				{v73, []ltsCheck{field(200000, "new", "C", "vr", "C", 100000), field(200000, "new", "C", "dl", "C", 450000), resched(200000, "new", "C", false)}},
				{v70, []ltsCheck{resched(200000, "new", "C", false)}},
				{v618, []ltsCheck{field(200000, "new", "C", "vr", "C", 100000), field(200000, "new", "C", "dl", "C", 450000), resched(200000, "new", "C", true)}},
			},
		},
		{
			// §5.3 ex. 3: v6.18 clamps B's lag to its own 2·slice.
			name: "lag clamp max(2·slice, TICK_NSEC) (L1)",
			src: `task A
task B
0       new A
0       new B
0       schedule
1000000 tick
2000000 tick
3000000 slice B 1000000
`,
			runs: []run{
				{v73, []ltsCheck{field(3000000, "slice", "B", "vlag", "B", 1500000), field(3000000, "slice", "B", "vr", "B", 0), field(3000000, "slice", "B", "dl", "B", 350000)}},
				{v618, []ltsCheck{field(3000000, "slice", "B", "vlag", "B", 1400000), field(3000000, "slice", "B", "vr", "B", 200000), field(3000000, "slice", "B", "dl", "B", 550000)}},
			},
		},
		{
			// Part I §4.2 6.12-B: v6.12 saves no lag at the delay (vlag
			// keeps the mark) and requeues A before charging B.
			name: "a delayed wakeup judged with a stale V (D26, D28, D32)",
			src: `base_slice 700000
task A
task B
0       new A
0       new B
0       schedule
300000  sleep
700000  tick
800000  wakeup A
800000  schedule
`,
			runs: []run{
				{v73, []ltsCheck{field(300000, "sleep", "", "vlag", "A", -150000), field(800000, "wakeup", "A", "vr", "A", 500000),
					field(800000, "wakeup", "A", "dl", "A", 1200000), pick(800000, "schedule", "", "B")}},
				{v612, []ltsCheck{field(300000, "sleep", "", "vlag", "A", rawV(350000)), field(800000, "wakeup", "A", "vr", "A", 400000),
					field(800000, "wakeup", "A", "dl", "A", 1100000), field(800000, "wakeup", "A", "vlag", "A", 0), pick(800000, "schedule", "", "A")}},
			},
		},
		{
			// Part I §4.2 6.12-C: the yield bump keeps B, and the tick
			// reschedules it once its mark is gone and it is ineligible.
			name: "yield bump and the v6.12 tick rule (D41, D12)",
			src: `base_slice 700000
task A
task B
0       new A
0       new B
0       schedule
700000  tick
700000  schedule
1050000 yield
1750000 tick
1750000 schedule
`,
			runs: []run{
				{v73, []ltsCheck{pick(1050000, "yield", "", "A"), pick(1750000, "schedule", "", "B")}},
				{v612, []ltsCheck{field(1050000, "yield", "", "vr", "B", 350000), field(1050000, "yield", "", "dl", "B", 1750000), pick(1050000, "yield", "", "B"),
					resched(1750000, "tick", "", true), pick(1750000, "schedule", "", "A")}},
			},
		},
		{
			// Part I §4.1 6.6-A: full first requests, and the deadline tie
			// at 1.4 ms goes to the running B (the search's tie rule).
			name: "a deadline tie keeps the running task (D22, D44)",
			src: `base_slice 700000
task A
task B
0       new A
0       new B
0       schedule
700000  tick
700000  schedule
1400000 tick
1400000 schedule
`,
			runs: []run{
				{v73, []ltsCheck{field(0, "new", "B", "dl", "A", 350000), pick(1400000, "schedule", "", "A")}},
				{v66, []ltsCheck{field(0, "new", "B", "dl", "A", 700000), field(0, "new", "B", "dl", "B", 700000), pick(700000, "schedule", "", "B"),
					field(1400000, "tick", "", "dl", "B", 1400000), resched(1400000, "tick", "", true), pick(1400000, "schedule", "", "B")}},
			},
		},
		{
			// Part I §4.1 6.6-B: the yield bump keeps B, and the new C
			// preempts it (no fork exit).
			name: "yield bump, and a new task that preempts (D41, D33)",
			src: `base_slice 700000
task A
task B
task C
0       new A
0       new B
0       schedule
700000  tick
700000  schedule
1050000 yield
1050000 new C
`,
			runs: []run{
				{v73, []ltsCheck{pick(1050000, "yield", "", "A"), field(1050000, "new", "C", "vr", "C", 875000), field(1050000, "new", "C", "dl", "C", 1225000), resched(1050000, "new", "C", false)}},
				{v66, []ltsCheck{field(1050000, "yield", "", "dl", "B", 1400000), pick(1050000, "yield", "", "B"), resched(1050000, "yield", "", false),
					field(1050000, "new", "C", "vr", "C", 525000), field(1050000, "new", "C", "dl", "C", 1225000), resched(1050000, "new", "C", true)}},
			},
		},
		{
			// Part I §4.1 6.6-C: no delayed dequeue: A leaves with lag
			// −150000 and comes back behind with it inflated.
			name: "a sleeper with negative lag leaves at once (D27, D14)",
			src: `base_slice 700000
task A
task B
0       new A
0       new B
0       schedule
300000  sleep
500000  wakeup A
700000  tick
700000  schedule
1000000 tick
1000000 schedule
`,
			runs: []run{
				{v73, []ltsCheck{field(500000, "wakeup", "A", "vr", "A", 300000), field(500000, "wakeup", "A", "dl", "A", 350000), pick(700000, "schedule", "", "A"), pick(1000000, "schedule", "", "B")}},
				{v66, []ltsCheck{field(300000, "sleep", "", "vlag", "A", -150000), field(500000, "wakeup", "A", "vr", "A", 500000), field(500000, "wakeup", "A", "dl", "A", 1200000),
					pick(700000, "schedule", "", "B"), pick(1000000, "schedule", "", "A")}},
			},
		},
	} {
		for _, r := range ex.runs {
			t.Run(ex.name+"/"+r.k.String(), func(t *testing.T) {
				ltsVerify(t, ltsReplay(t, ex.src, r.k), r.checks)
			})
		}
	}
}

// What a kernel does not have is a scenario error that names the version:
// a SCHED_FEAT its features.h lacks, and v6.6's missing custom slices.
func TestLTSMissingFeatureOrOperation(t *testing.T) {
	for _, c := range []struct {
		k    eevdf.Kernel
		src  string
		want string
	}{
		{eevdf.KernelV66, "features PREEMPT_SHORT\ntask A\n0 new A\n", "v6.6 has no PREEMPT_SHORT"},
		{eevdf.KernelV612, "features PICK_BUDDY\ntask A\n0 new A\n", "v6.12 has no PICK_BUDDY"},
		{eevdf.KernelV70, "features PARANOID_AVG\ntask A\n0 new A\n", "v7.0 has no PARANOID_AVG"},
		{eevdf.KernelV66, "task A\n0 new A\n0 schedule\n1000 slice A 300000\n", "v6.6 has no custom slices"},
		{eevdf.KernelV66, "task A slice=300000\n0 new A\n", "v6.6 has no custom slices"},
	} {
		sc, err := Parse(strings.NewReader(c.src), "x.txt")
		if err != nil {
			t.Fatal(err)
		}
		err = Replay(sc, Options{Kernel: c.k}, func(*Result) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q: error %v, want one containing %q", c.k, c.src, err, c.want)
		}
	}
	// A seed toggle may still be turned on, as an experiment.
	sc, err := Parse(strings.NewReader("features DELAY_LAG_FLOOR\ntask A\n0 new A\n"), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if f, err := sc.FeaturesFor(eevdf.KernelV70, ""); err != nil || !f.Has(features.DelayLagFloor) || f.Has(features.PreemptFlushDelayed) {
		t.Errorf("FeaturesFor(v7.0) = %v, %v", f.Diff(features.Default()), err)
	}
}
