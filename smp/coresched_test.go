package smp

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// Tests of core scheduling (KERNEL-SPEC-CORESCHED, "the spec" below; the
// CSn names are its §12 table, the examples its §9).

// oneCore2 is one core of two SMT threads: CPUs 0 and 1, base slice
// 1.4 ms.
var oneCore2 = topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 2}

// newCoreSystem builds a System of m at clock 0, failing the test on error.
func newCoreSystem(t *testing.T, m topology.Machine, opts ...Option) *System {
	t.Helper()
	top, err := topology.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(top, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// csTask makes a task on cpu, allowed on the given CPUs (all if none).
func csTask(t *testing.T, s *System, name string, cpu int, allowed ...int) *Task {
	t.Helper()
	se, err := eevdf.NewEntity(name)
	if err != nil {
		t.Fatal(err)
	}
	opts := []TaskOption{WithCPU(cpu)}
	if len(allowed) > 0 {
		opts = append(opts, WithAllowed(allowed...))
	}
	tk, err := s.NewTask(se, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// tag gives tasks a new cookie.
func tag(t *testing.T, s *System, tasks ...*Task) Cookie {
	t.Helper()
	c, err := s.CoreCreate(tasks...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fork starts tk and runs the instant out.
func fork(t *testing.T, s *System, tk *Task) {
	t.Helper()
	if s.WakeUpNew(tk) < 0 {
		t.Fatalf("WakeUpNew(%s) failed", tk)
	}
	advance(t, s, s.Clock())
}

// advance runs the System to now, checking it after every tick instant.
func advance(t *testing.T, s *System, now uint64) {
	t.Helper()
	for s.Clock() < now {
		next := min(now, (s.Clock()/s.tickNsec+1)*s.tickNsec)
		if err := s.Advance(next); err != nil {
			t.Fatal(err)
		}
		if err := s.Check(); err != nil {
			t.Fatalf("at %d: %v", s.Clock(), err)
		}
	}
	if err := s.Advance(now); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("at %d: %v", s.Clock(), err)
	}
}

const ms = 1_000_000

// example1 sets up the spec's §9 example 1: A (cookie 1) pinned to CPU 0
// forked at 0, B (cookie 2) pinned to CPU 1 forked at 0.2 ms.
func example1(t *testing.T, tickCore bool) (s *System, a, b *Task) {
	t.Helper()
	s = newCoreSystem(t, oneCore2)
	s.SetTaskTickCore(tickCore)
	s.SetSchedstats(true)
	a = csTask(t, s, "A", 0, 0)
	b = csTask(t, s, "B", 1, 1)
	if c := tag(t, s, a); c != 1 {
		t.Fatalf("A's cookie %d, want 1", c)
	}
	if c := tag(t, s, b); c != 2 {
		t.Fatalf("B's cookie %d, want 2", c)
	}
	fork(t, s, a)
	if got := s.Core(1).ZeroVruntimeFi; got != 0 {
		t.Fatalf("CPU 1's zero_vruntime_fi %d before any pick there, want 0 (init_cfs_rq leaves it)", got)
	}
	advance(t, s, 200_000)
	fork(t, s, b)
	return s, a, b
}

// CS6: two hogs of different cookies on one core alternate every tick:
// the spec's §9 example 1 numbers at t = 1000 ms.
func TestCoreSchedExample1Alternation(t *testing.T) {
	s, a, b := example1(t, true)
	if got := s.Curr(0); got != nil {
		t.Fatalf("at 0.2 ms CPU 0 runs %v, want forced idle", got)
	}
	if ci := s.Core(0); !ci.ForcedIdle || ci.ForceIdleSeq != 1 || ci.ForceIdleCount != 1 || ci.Cookie != 2 {
		t.Fatalf("at 0.2 ms: %+v", ci)
	}
	// From 1 ms the core changes cookie at every tick.
	for ms1 := uint64(1); ms1 <= 6; ms1++ {
		advance(t, s, ms1*ms)
		want := a
		if ms1%2 == 0 {
			want = b
		}
		if got := s.Curr(0); ms1%2 == 1 && got != a || ms1%2 == 0 && got != nil {
			t.Fatalf("at %d ms CPU 0 runs %v, want %v running on its CPU", ms1, got, want)
		}
		if got := s.Curr(1); ms1%2 == 0 && got != b || ms1%2 == 1 && got != nil {
			t.Fatalf("at %d ms CPU 1 runs %v, want %v running on its CPU", ms1, got, want)
		}
	}
	advance(t, s, 1000*ms)
	if got, want := a.Entity().SumExecRuntime(), uint64(500_200_000); got != want {
		t.Errorf("A ran %d ns, want %d", got, want)
	}
	if got, want := b.Entity().SumExecRuntime(), uint64(499_800_000); got != want {
		t.Errorf("B ran %d ns, want %d", got, want)
	}
	if got, want := s.Core(0).ForcedIdleNs, uint64(499_800_000); got != want {
		t.Errorf("CPU 0 forced idle %d ns, want %d", got, want)
	}
	if got, want := s.Core(1).ForcedIdleNs, uint64(500_000_000); got != want {
		t.Errorf("CPU 1 forced idle %d ns, want %d", got, want)
	}
	if got := s.Core(0).ForceIdleSeq; got != 1 {
		t.Errorf("core_forceidle_seq %d, want 1 throughout", got)
	}
	if m := a.Migrations() + b.Migrations(); m != 0 {
		t.Errorf("%d migrations, want none", m)
	}
	// CS19: with schedstats, the running task is charged its sibling's
	// forced-idle time at ticks.
	if got, want := a.ForceIdleSum(), uint64(500_000_000); got != want {
		t.Errorf("A's core_forceidle_sum %d, want %d", got, want)
	}
	if got, want := b.ForceIdleSum(), uint64(499_800_000); got != want {
		t.Errorf("B's core_forceidle_sum %d, want %d", got, want)
	}
}

// The brief's bound: each of the two hogs gets 500 ± 10 ms of the second.
func TestCoreSchedTwoCookiesShareTheCore(t *testing.T) {
	s, a, b := example1(t, true)
	advance(t, s, 1000*ms)
	for _, tk := range []*Task{a, b} {
		if got := tk.Entity().SumExecRuntime(); got < 490*ms || got > 510*ms {
			t.Errorf("%s ran %d ns of 1 s, want 500 ± 10 ms", tk, got)
		}
	}
}

// CS7: without task_tick_core nothing re-picks after 0.2 ms.
func TestCoreSchedExample1bNoTickCore(t *testing.T) {
	s, a, b := example1(t, false)
	advance(t, s, 1000*ms)
	if got, want := a.Entity().SumExecRuntime(), uint64(200_000); got != want {
		t.Errorf("A ran %d ns, want %d", got, want)
	}
	if got, want := b.Entity().SumExecRuntime(), uint64(999_800_000); got != want {
		t.Errorf("B ran %d ns, want %d", got, want)
	}
}

// coreBadInputCases are the core-scheduling entries of
// TestEveryExportedFunctionHandlesBadInput, on its machine without SMT.
func coreBadInputCases(s *System, newTask func(...TaskOption) error, wantErr func(*testing.T, string, error, error, string), running, dead, foreign *Task) map[string]func(t *testing.T) {
	var nilTask *Task
	return map[string]func(t *testing.T){
		"System.CoreCreate": func(t *testing.T) {
			_, err := s.CoreCreate(running)
			wantErr(t, "CoreCreate without SMT", err, ErrNoSMT, "SMT")
		},
		"System.CoreShare": func(t *testing.T) {
			wantErr(t, "CoreShare without SMT", s.CoreShare(0, running), ErrNoSMT, "SMT")
		},
		"WithCookie": func(t *testing.T) {
			wantErr(t, "WithCookie(7)", newTask(WithCookie(7)), ErrBadCookie, "7")
		},
		"System.Core": func(t *testing.T) {
			if s.Core(-1) != (CoreInfo{}) || s.Core(s.NumCPUs()) != (CoreInfo{}) {
				t.Error("Core of no CPU is not the zero CoreInfo")
			}
		},
		"System.CoreScheduling": func(t *testing.T) {
			if s.CoreScheduling() {
				t.Error("core scheduling on without a cookie")
			}
		},
		"System.SetSchedstats":   func(t *testing.T) { s.SetSchedstats(false) },
		"System.SetTaskTickCore": func(t *testing.T) { s.SetTaskTickCore(true) },
		"Task.Cookie": func(t *testing.T) {
			if nilTask.Cookie() != 0 || nilTask.CoreOccupation() != 0 || nilTask.ForceIdleSum() != 0 {
				t.Error("the idle task has core-scheduling state")
			}
		},
		"Task.CoreOccupation": func(t *testing.T) { _ = nilTask.CoreOccupation() },
		"Task.ForceIdleSum":   func(t *testing.T) { _ = nilTask.ForceIdleSum() },
		"Task.CoreSteals": func(t *testing.T) {
			if nilTask.CoreSteals() != 0 {
				t.Error("the idle task was stolen")
			}
		},
	}
}

// CS1: cookies are made, inherited, shared and freed as prctl and fork do
// them, and core scheduling is on exactly while one lives.
func TestCoreSchedCookieLifecycle(t *testing.T) {
	s := newCoreSystem(t, oneCore2)
	p := csTask(t, s, "P", 0, 0)
	fork(t, s, p)
	if s.CoreScheduling() {
		t.Fatal("on before any cookie")
	}
	c := tag(t, s, p)
	if c != 1 || p.Cookie() != 1 || s.core.refs[1] != 1 || !s.CoreScheduling() {
		t.Fatalf("after CREATE: cookie %d, P's %d, count %d, on %v", c, p.Cookie(), s.core.refs[1], s.CoreScheduling())
	}
	se, _ := eevdf.NewEntity("C")
	child, err := s.NewTask(se, WithParent(p))
	if err != nil {
		t.Fatal(err)
	}
	if child.Cookie() != 1 || s.core.refs[1] != 2 {
		t.Fatalf("the child's cookie %d (count %d), want the parent's 1 (2)", child.Cookie(), s.core.refs[1])
	}
	fork(t, s, child)
	if err := s.CoreShare(0, child); err != nil || child.Cookie() != 0 || s.core.refs[1] != 1 {
		t.Fatalf("SHARE_TO of cookie 0: %v, child's cookie %d, count %d", err, child.Cookie(), s.core.refs[1])
	}
	if err := s.CoreShare(p.Cookie(), child); err != nil || child.Cookie() != 1 || s.core.refs[1] != 2 {
		t.Fatalf("SHARE_FROM: %v, child's cookie %d, count %d", err, child.Cookie(), s.core.refs[1])
	}
	// A thread-group CREATE: one new cookie for both; the old one freed,
	// core scheduling stays on.
	c2 := tag(t, s, p, child)
	if c2 != 2 || p.Cookie() != 2 || child.Cookie() != 2 || s.core.refs[2] != 2 || s.core.refs[1] != 0 || !s.CoreScheduling() {
		t.Fatalf("group CREATE: cookie %d, P %d, child %d, counts %v", c2, p.Cookie(), child.Cookie(), s.core.refs)
	}
	if err := s.CoreShare(1, p); !errors.Is(err, ErrBadCookie) {
		t.Fatalf("sharing a freed cookie: %v, want ErrBadCookie", err)
	}
	// Both run (one per CPU, same cookie); the first exit leaves the
	// cookie live, the second frees it and turns core scheduling off.
	advance(t, s, 5*ms)
	for i, want := range []bool{true, false} {
		cpu := 0
		if s.Curr(0) == nil {
			cpu = 1
		}
		if err := s.Exit(cpu); err != nil {
			t.Fatal(err)
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		if s.CoreScheduling() != want {
			t.Fatalf("after exit %d: core scheduling %v, want %v (live %d)", i+1, s.CoreScheduling(), want, s.core.live)
		}
		advance(t, s, s.Clock())
	}
	if _, err := s.CoreCreate(); !errors.Is(err, ErrNilTask) {
		t.Errorf("CoreCreate of no task: %v", err)
	}
}

// example3 is the spec's §9 example 3 up to its steal: P and Q (cookie
// 1) forked pinned on CPU 0 at 0 and then allowed on both CPUs, R
// (cookie 2) pinned on CPU 1 forked at 0.1 ms. tweak changes P before
// R arrives.
func example3(t *testing.T, tweak func(s *System, p *Task)) (s *System, p, q, r *Task) {
	t.Helper()
	s = newCoreSystem(t, oneCore2)
	p, q = csTask(t, s, "P", 0, 0), csTask(t, s, "Q", 0, 0)
	r = csTask(t, s, "R", 1, 1)
	tag(t, s, p, q)
	tag(t, s, r)
	fork(t, s, p)
	fork(t, s, q)
	free(p)
	free(q)
	if tweak != nil {
		tweak(s, p)
	}
	advance(t, s, 100_000)
	fork(t, s, r)
	return s, p, q, r
}

// CS11: a CPU forced idle at t = 1 ms steals P, which then runs there
// although ineligible; Q runs on CPU 0 and R waits.
func TestCoreSchedExample3Steal(t *testing.T) {
	s, p, q, r := example3(t, nil)
	if s.Curr(0) != nil || s.Curr(1) != r || s.Core(1).Steals != 0 {
		t.Fatalf("at 0.1 ms: CPU 0 runs %v, CPU 1 %v, steals %d; want idle, R, 0", s.Curr(0), s.Curr(1), s.Core(1).Steals)
	}
	advance(t, s, 1*ms)
	if p.Migrations() != 1 || p.CPU() != 1 || s.Core(1).Steals != 1 {
		t.Fatalf("at 1 ms: P migrated %d times, is on CPU %d, CPU 1 stole %d; want 1, 1, 1", p.Migrations(), p.CPU(), s.Core(1).Steals)
	}
	if p.CoreSteals() != 1 || q.CoreSteals() != 0 || r.CoreSteals() != 0 {
		t.Errorf("steals by task: P %d, Q %d, R %d; want 1, 0, 0", p.CoreSteals(), q.CoreSteals(), r.CoreSteals())
	}
	if s.Curr(0) != q || s.Curr(1) != p {
		t.Fatalf("at 1 ms CPU 0 runs %v and CPU 1 %v, want Q and P", s.Curr(0), s.Curr(1))
	}
	if s.RQ(1).Eligible(p.Entity()) {
		t.Error("P is eligible on CPU 1; the example forces an ineligible pick")
	}
	if s.Core(0).ForceIdleCount != 0 || p.CoreOccupation() != 2 || q.CoreOccupation() != 2 {
		t.Errorf("after the steal: forced-idle count %d, occupations P %d Q %d; want 0, 2, 2",
			s.Core(0).ForceIdleCount, p.CoreOccupation(), q.CoreOccupation())
	}
}

// CS11's variants: P pinned to CPU 0, or P last picked with both siblings
// busy (occupation 2): nothing is stolen and CPU 1 stays forced idle.
func TestCoreSchedExample3NoSteal(t *testing.T) {
	for name, tweak := range map[string]func(s *System, p *Task){
		"P pinned to CPU 0": func(s *System, p *Task) {
			p.allowed = s.top.NewMask()
			p.allowed.Set(0)
			p.nrAllowed = 1
		},
		"P of occupation 2": func(s *System, p *Task) { p.core.occupation = 2 },
	} {
		t.Run(name, func(t *testing.T) {
			s, p, _, _ := example3(t, tweak)
			advance(t, s, 1*ms)
			if p.Migrations() != 0 || s.Core(1).Steals != 0 {
				t.Fatalf("P migrated %d times, steals %d; want none", p.Migrations(), s.Core(1).Steals)
			}
			if s.Curr(1) != nil || !s.Core(1).ForcedIdle {
				t.Fatalf("CPU 1 runs %v (forced idle %v), want forced idle", s.Curr(1), s.Core(1).ForcedIdle)
			}
		})
	}
}

// CS10, the spec's §9 example 7: when the core's max is untagged, a
// sibling whose pick is tagged is forced idle even with untagged work
// queued, and no steal is tried (core_cookie 0). T (cookie 1) runs on
// CPU 1 with U2 (untagged) queued behind it; U forked on the idle CPU 0
// makes CPU 0 pick core-wide (core_cookie 1) and wins: rq0 was never
// snapshotted, so n(U) is 1,048,576 ns better than it is.
func TestCoreSchedExample7UntaggedMaxIdles(t *testing.T) {
	s := newCoreSystem(t, oneCore2)
	u := csTask(t, s, "U", 0, 0)
	tt := csTask(t, s, "T", 1, 1)
	u2 := csTask(t, s, "U2", 1, 1)
	tag(t, s, tt)
	fork(t, s, tt)
	fork(t, s, u2)
	if s.Curr(1) != tt || s.Core(1).Cookie != 1 {
		t.Fatalf("at 0: CPU 1 runs %v, core cookie %d; want T, 1", s.Curr(1), s.Core(1).Cookie)
	}
	advance(t, s, 100_000)
	fork(t, s, u)
	ci := s.Core(1)
	if s.Curr(0) != u || s.Curr(1) != nil || !ci.ForcedIdle || ci.Cookie != 0 || ci.ForceIdleCount != 1 || ci.ForceIdleSeq != 1 {
		t.Fatalf("at 0.1 ms: CPU 0 runs %v, CPU 1 %v, %+v; want U, CPU 1 forced idle under cookie 0", s.Curr(0), s.Curr(1), ci)
	}
	if s.CPU(1).NrRunning != 2 {
		t.Fatalf("CPU 1 is forced idle with %d tasks, want T and U2", s.CPU(1).NrRunning)
	}
	if ci.Steals != 0 || tt.Migrations()+u2.Migrations() != 0 {
		t.Fatalf("steals %d, migrations %d; an untagged max queues no core balance", ci.Steals, tt.Migrations()+u2.Migrations())
	}
}

// CS16: while a cookie lives anywhere, a CPU going idle never balances
// newly idle: no pull, and its idle_stamp stays 0. The setting (b2: CPU
// 0's task sleeps while CPU 2 holds two tasks) pulls without the cookie.
func TestCoreSchedNoNewidle(t *testing.T) {
	run := func(cookie bool) *harness {
		h, _ := b2(t, 2, 0)
		if cookie {
			tag(t, h.s, h.task(3)) // never started: it only holds the cookie
		}
		h.block(0)
		h.settle()
		h.check()
		return h
	}
	h := run(false)
	if st := h.s.Stats(); st.BalanceCalls[cpuNewlyIdle] == 0 || st.BalanceMoves == 0 {
		t.Fatalf("without a cookie: %d newly idle balances, %d moves; the setting tests nothing", st.BalanceCalls[cpuNewlyIdle], st.BalanceMoves)
	}
	h = run(true)
	if st := h.s.Stats(); st.BalanceCalls[cpuNewlyIdle] != 0 || st.BalanceMoves != 0 {
		t.Errorf("with a live cookie: %d newly idle balances, %d moves; want none", st.BalanceCalls[cpuNewlyIdle], st.BalanceMoves)
	}
	if h.s.Curr(0) != nil {
		t.Errorf("CPU 0 runs %v, want idle", h.s.Curr(0))
	}
	if st := h.s.CPU(0).IdleStamp; st != 0 {
		t.Errorf("CPU 0's idle_stamp %d with a live cookie, want 0", st)
	}
}

// The brief's second example: three hogs of cookie 1 and one of cookie 2
// on two SMT cores: none starves.
func TestCoreSchedThreeAndOneHogs(t *testing.T) {
	s := newCoreSystem(t, oneLLC2x2)
	advance(t, s, ms)
	var hogs []*Task
	for i, name := range []string{"A1", "A2", "A3", "B"} {
		hogs = append(hogs, csTask(t, s, name, i%4))
	}
	tag(t, s, hogs[:3]...)
	tag(t, s, hogs[3])
	for _, h := range hogs {
		fork(t, s, h)
	}
	advance(t, s, 2001*ms)
	var sum uint64
	for _, h := range hogs {
		got := h.Entity().SumExecRuntime()
		sum += got
		t.Logf("%s ran %d ms on CPU %d, %d migrations", h, got/ms, h.CPU(), h.Migrations())
		if got < 200*ms {
			t.Errorf("%s ran %d ns of 2 s: starved", h, got)
		}
	}
	t.Logf("total %d ms of 8000", sum/ms)
}

// CS3: prio_less across the modelled classes: the idle task (nil) is
// below a fair task; two idle tasks are equal.
func TestCoreSchedPrioLessClasses(t *testing.T) {
	s, a, b := example1(t, true)
	for _, tc := range []struct {
		name string
		x, y *Task
		want bool
	}{
		{"idle below fair", nil, a, true},
		{"fair above idle", a, nil, false},
		{"two idle tasks", nil, nil, false},
	} {
		if got := s.prioLess(tc.x, 0, tc.y, 1); got != tc.want {
			t.Errorf("%s: prio_less = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Between A and B, cfs_prio_less: at 0.2 ms B's queue has the fresh
	// snapshot Z and A's vruntime is 200,000 ahead of B's.
	if !s.prioLess(a, 0, b, 1) || s.prioLess(b, 1, a, 0) {
		t.Error("at 0.2 ms A should be below B")
	}
	// The snapshots normalise: with rq0's at Z + 1 ms, n(A) = −800,000
	// against n(B) = 0, and B is the lower one.
	s.core.cpus[0].zvFi += 1_000_000
	if s.prioLess(a, 0, b, 1) || !s.prioLess(b, 1, a, 0) {
		t.Error("with rq0's snapshot 1 ms later B should be below A")
	}
}

// CS5, the spec's §9 example 2 (d): the snapshot update table on a root
// queue marked with forceidle_seq 3.
func TestCoreSchedSnapshotTable(t *testing.T) {
	s, _, b := example1(t, true)
	k, c := s.coreOf(1), &s.core.cpus[1]
	zv := s.RQ(1).ZeroVruntime()
	c.fiSeq, k.fiSeq, c.zvFi = 3, 3, 42
	s.taskVruntimeUpdate(b, true)
	if c.zvFi != 42 || c.fiSeq != 3 {
		t.Errorf("in_fi with the queue marked: zero_vruntime_fi %d, mark %d; want no copy", c.zvFi, c.fiSeq)
	}
	k.fiSeq = 4
	s.taskVruntimeUpdate(b, true)
	if c.zvFi != zv || c.fiSeq != 4 {
		t.Errorf("in_fi with a new seq: zero_vruntime_fi %d, mark %d; want %d, 4", c.zvFi, c.fiSeq, zv)
	}
	c.zvFi = 42
	s.taskVruntimeUpdate(b, false)
	if c.zvFi != zv || c.fiSeq != 4 {
		t.Errorf("not in_fi: zero_vruntime_fi %d, mark %d; want a copy whatever the marks", c.zvFi, c.fiSeq)
	}
	c.zvFi = 42
	s.taskVruntimeUpdate(nil, false)
	if c.zvFi != 42 {
		t.Error("the idle task updated a snapshot")
	}
}

// CS5 in a run: at the start of a forced-idle period the snapshots are
// copied (B's queue: Z); during it they stay frozen while the vruntimes
// and zero_vruntimes move.
func TestCoreSchedSnapshotsFrozenDuringForcedIdle(t *testing.T) {
	s, _, _ := example1(t, true)
	z := eevdfZ()
	if got := s.Core(1).ZeroVruntimeFi; got != z {
		t.Fatalf("CPU 1's snapshot %d at 0.2 ms, want Z", got)
	}
	if got := s.Core(0).ZeroVruntimeFi; got != z {
		t.Fatalf("CPU 0's snapshot %d at 0.2 ms, want Z (from the pick at 0)", got)
	}
	advance(t, s, 100*ms)
	if s.Core(0).ZeroVruntimeFi != z || s.Core(1).ZeroVruntimeFi != z {
		t.Fatalf("snapshots %d, %d at 100 ms; want both frozen at Z", s.Core(0).ZeroVruntimeFi, s.Core(1).ZeroVruntimeFi)
	}
	if s.RQ(0).ZeroVruntime() == z {
		t.Fatal("rq0's zero_vruntime never moved: the test shows nothing")
	}
}

// CS5: a CPU forced idle at the start of a period keeps the snapshot of
// the last full pick in which it ran a task for the whole period, even
// when it runs again inside the period and its zero_vruntime has moved.
// A runs alone from 0 (snapshot Z at its pick; its deadline renewal at
// 1 ms moves zero_vruntime to Z + 1 ms); B (cookie 2) arrives at 2.2 ms
// and starts a forced-idle period that never ends.
func TestCoreSchedSnapshotKeptByTheIdledCPU(t *testing.T) {
	s := newCoreSystem(t, oneCore2)
	a, b := csTask(t, s, "A", 0, 0), csTask(t, s, "B", 1, 1)
	tag(t, s, a)
	tag(t, s, b)
	fork(t, s, a)
	advance(t, s, 2_200_000)
	fork(t, s, b)
	z := eevdfZ()
	if s.Curr(0) != nil || s.RQ(0).ZeroVruntime() == z {
		t.Fatalf("at 2.2 ms CPU 0 runs %v, rq0's zero_vruntime %d; want forced idle, moved", s.Curr(0), s.RQ(0).ZeroVruntime())
	}
	ranA := false
	for now := uint64(3); now <= 60; now++ {
		advance(t, s, now*ms)
		ranA = ranA || s.Curr(0) == a
		if got := s.Core(0).ZeroVruntimeFi; got != z {
			t.Fatalf("at %d ms CPU 0's snapshot is Z%+d, want Z all through the period", now, int64(got-z))
		}
	}
	if !ranA || s.Core(0).ForceIdleSeq != 1 {
		t.Fatalf("A ran %v, forceidle_seq %d; the period should continue with A running", ranA, s.Core(0).ForceIdleSeq)
	}
}

// eevdfZ is Z, a fresh runqueue's zero_vruntime.
func eevdfZ() uint64 {
	rq, _ := eevdf.NewCfsRq()
	return rq.ZeroVruntime()
}

// CS8, the spec's §9 example 9: with two tasks queued on the running CPU
// task_tick_core stays silent there (the EEVDF tick re-picks), while the
// lone B on CPU 1 triggers it.
func TestCoreSchedExample9TickCoreSilentWithTwo(t *testing.T) {
	s := newCoreSystem(t, oneCore2)
	a, a2 := csTask(t, s, "A", 0, 0), csTask(t, s, "A2", 0, 0)
	b := csTask(t, s, "B", 1, 1)
	tag(t, s, a, a2)
	tag(t, s, b)
	fork(t, s, a)
	fork(t, s, a2)
	advance(t, s, 200_000)
	fork(t, s, b)
	advance(t, s, 200*ms)
	if n := s.Core(0).TickCore; n != 0 {
		t.Errorf("task_tick_core rescheduled CPU 0 %d times with A and A2 queued", n)
	}
	if s.Core(1).TickCore == 0 {
		t.Error("task_tick_core never rescheduled the lone B: the test shows nothing")
	}
	for _, tk := range []*Task{a, a2, b} {
		if tk.Entity().SumExecRuntime() < 20*ms {
			t.Errorf("%s ran %d ns of 200 ms", tk, tk.Entity().SumExecRuntime())
		}
	}
}

// CS9: a sibling rescheduled by a full pick takes its core_pick by the
// fast path (no pick_task); an enqueue in between makes it pick in full.
func TestCoreSchedFastPath(t *testing.T) {
	s, _, _ := example1(t, true)
	k := s.Core(0)
	if k.Picks != 2 || k.FastPicks != 1 || k.SchedSeq != k.PickSeq || s.Core(1).SchedSeq != k.PickSeq {
		t.Fatalf("at 0.2 ms: %+v; want 2 full picks, 1 fast, both CPUs at core_pick_seq", k)
	}
	// The same at 0.2 ms, but C (untagged) is forked onto CPU 1 between
	// CPU 1's pick and CPU 0's reschedule.
	s = newCoreSystem(t, oneCore2)
	a, b, c := csTask(t, s, "A", 0, 0), csTask(t, s, "B", 1, 1), csTask(t, s, "C", 1, 1)
	tag(t, s, a)
	tag(t, s, b)
	fork(t, s, a)
	advance(t, s, 200_000)
	s.WakeUpNew(b)
	s.Schedule(1)
	if !s.RQ(0).NeedResched() || !s.core.cpus[0].pickSet {
		t.Fatal("CPU 1's pick left no pick for CPU 0")
	}
	seq := s.Core(0).TaskSeq
	s.WakeUpNew(c)
	if got := s.Core(0).TaskSeq; got != seq+1 {
		t.Fatalf("an enqueue moved core_task_seq %d → %d, want +1", seq, got)
	}
	before := s.Core(0)
	s.Schedule(0)
	after := s.Core(0)
	if after.Picks != before.Picks+1 || after.FastPicks != before.FastPicks {
		t.Errorf("CPU 0 after an enqueue: picks %d → %d, fast %d → %d; want a full pick", before.Picks, after.Picks, before.FastPicks, after.FastPicks)
	}
	advance(t, s, s.Clock())
}

// CS12: migrating the last task off a forced-idle CPU reschedules it, which
// ends its forced idle at that instant.
func TestCoreSchedLastTaskLeavesForcedIdle(t *testing.T) {
	s, a, _ := example1(t, true)
	if err := s.SetClock(500_000); err != nil {
		t.Fatal(err)
	}
	free(a)
	s.moveQueuedTask(a, 1)
	if !s.RQ(0).NeedResched() {
		t.Fatal("CPU 0 lost its last task while forced idle and was not rescheduled")
	}
	advance(t, s, s.Clock())
	if ci := s.Core(0); ci.ForcedIdle || ci.ForcedIdleNs != 300_000 {
		t.Fatalf("CPU 0 forced idle %v for %d ns; want ended after 300,000", ci.ForcedIdle, ci.ForcedIdleNs)
	}
}

// CS2: the core tree holds the tagged queued tasks only, in the order of
// their vruntimes at arrival; every hooked enqueue bumps core_task_seq,
// untagged ones included; find and next walk one cookie.
func TestCoreSchedCoreTree(t *testing.T) {
	s := newCoreSystem(t, oneCore2)
	x := csTask(t, s, "X", 0, 0)
	y1, y2, u := csTask(t, s, "Y1", 1, 1), csTask(t, s, "Y2", 1, 1), csTask(t, s, "U", 1, 1)
	tag(t, s, x)
	c := tag(t, s, y1, y2)
	fork(t, s, x)
	seq := s.Core(1).TaskSeq
	s.WakeUpNew(u)
	if s.Core(1).TaskSeq != seq+1 || s.Core(1).Queued != 0 {
		t.Fatalf("untagged enqueue: core_task_seq %d → %d, tree %d; want +1, empty", seq, s.Core(1).TaskSeq, s.Core(1).Queued)
	}
	advance(t, s, 300_000)
	s.WakeUpNew(y1)
	advance(t, s, 600_000)
	// Y2 sorts before Y1 iff its vruntime is smaller now, at its arrival
	// (Y1 is on the insertion path: the comparison reads both live).
	want := []*Task{y1, y2}
	s.RQ(1).UpdateCurr()
	if s.WakeUpNew(y2); int64(y2.se.Vruntime()-y1.se.Vruntime()) < 0 {
		want = []*Task{y2, y1}
	}
	advance(t, s, s.Clock())
	if s.Core(1).Queued != 2 {
		t.Fatalf("%d tasks in CPU 1's core tree, want Y1 and Y2", s.Core(1).Queued)
	}
	// The keys go stale: the order stays the order of arrival while the
	// vruntimes move (the spec's example 8).
	stale := false
	for now := uint64(1); now <= 30; now++ {
		advance(t, s, now*ms)
		first := s.coreFind(1, c)
		if first != want[0] || coreNext(first) != want[1] || coreNext(want[1]) != nil {
			t.Fatalf("at %d ms find/next of cookie %d give %v, %v; want %v, %v", now, c, first, coreNext(first), want[0], want[1])
		}
		stale = stale || int64(want[0].se.Vruntime()-want[1].se.Vruntime()) > 0
	}
	if !stale {
		t.Error("the vruntimes never disagreed with the tree order: the test shows nothing")
	}
	if s.coreFind(1, c+1) != nil || s.coreFind(1, 0) != nil {
		t.Error("find of a cookie with no task found one")
	}
}

// threeCores2 is one LLC of three cores of two threads: {0,1}, {2,3}, {4,5}.
var threeCores2 = topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 3, ThreadsPerCore: 2}

// example4 is the spec's §9 example 4: X and X2 (cookie 1) on CPUs 0 and
// 1, Y (cookie 2) on CPU 2, W (cookie 3) on CPU 4, CPUs 3 and 5 idle, no
// idle core, nr_idle_scan 6; p sleeps with CPU 0 as its previous and
// recent CPU and takes cookie pc (0: untagged; −1: no cookie anywhere).
// X wakes p; it returns the CPU p lands on.
func example4(t *testing.T, pc int, withX2 bool) int {
	h := newHarness(t, threeCores2)
	p := h.pinnedStart(0)
	h.run(h.now + ms)
	h.block(0)
	x := h.pinnedStart(0)
	var x2 *Task
	if withX2 {
		x2 = h.pinnedStart(1)
	}
	y := h.pinnedStart(2)
	w := h.pinnedStart(4)
	if pc >= 0 {
		tag(t, h.s, x)
		if x2 != nil {
			if err := h.s.CoreShare(x.Cookie(), x2); err != nil {
				t.Fatal(err)
			}
		}
		tag(t, h.s, y)
		tag(t, h.s, w)
		if err := h.s.CoreShare(Cookie(pc), p); err != nil {
			t.Fatal(err)
		}
	}
	h.settle()
	h.run(h.now + 2*ms)
	free(p)
	h.s.llcs[0].hasIdleCores = false
	h.setNrIdleScan(0, 6)
	if pc >= 0 {
		for cpu, want := range []Cookie{1, 1, 2, 2, 3, 3} {
			if got := h.s.Core(cpu).Cookie; got != want {
				t.Fatalf("core cookie of CPU %d: %d, want %d", cpu, got, want)
			}
		}
	}
	if p.CPU() != 0 || p.RecentUsedCPU() != 0 {
		t.Fatalf("setup: p's previous CPU %d, recent %d; want 0, 0", p.CPU(), p.RecentUsedCPU())
	}
	return h.wake(p, x, 0)
}

// CS13, the spec's §9 example 4: select_idle_cpu skips idle CPUs of cores
// running another cookie; select_idle_smt does not look at cookies.
func TestCoreSchedExample4IdleScan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cookie int
		withX2 bool
		want   int
	}{
		{"(a) cookie 3: CPU 3's core runs cookie 2, CPU 5's cookie 3", 3, true, 5},
		{"(a) without core scheduling: the first idle CPU", -1, true, 3},
		{"(b) untagged: every idle CPU's core runs a cookie; stays on the target", 0, true, 0},
		{"(c) the idle sibling, without a cookie test", 3, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := example4(t, tc.cookie, tc.withX2); got != tc.want {
				t.Errorf("p placed on CPU %d, want %d", got, tc.want)
			}
		})
	}
}

// CS15, the spec's §9 example 6: task_hot refuses a pull across cores to a
// core running another cookie until nr_balance_failed exceeds
// cache_nice_tries (1): CPU 3 (next to U, cookie 2) pulls the cold Q
// (cookie 1) from CPU 0 after two failed MC balances; without core
// scheduling at the first. Q may run on CPUs 0 and 3 only, so that CPU 1's
// SMT balance (where cookies never refuse) does not take it first.
func TestCoreSchedExample6TaskHot(t *testing.T) {
	for _, cookies := range []bool{false, true} {
		h := newHarness(t, oneLLC2x2, noNIRandom)
		tk := h.pinnedStart(0, eevdf.WithSlice(50*ms))
		q := h.pinnedStart(0, eevdf.WithSlice(50*ms))
		t2 := h.pinnedStart(1)
		u := h.pinnedStart(2)
		if cookies {
			tag(t, h.s, tk, q, t2)
			tag(t, h.s, u)
			h.settle()
		}
		h.run(h.now + 2*ms)
		q.allowed = topology.MaskOf(4, 0, 3)
		q.nrAllowed = 2
		h.overload()
		mc := h.s.top.Domains(3)[1]
		d := h.s.dom(mc)
		start := h.s.Jiffies()
		var fails []uint64
		for q.CPU() == 0 && h.s.Jiffies() < start+100 {
			before := d.nrBalanceFailed
			h.run(h.now + ms)
			if d.nrBalanceFailed > before {
				fails = append(fails, h.s.Jiffies())
			}
		}
		want := 0
		if cookies {
			want = 2
		}
		if q.CPU() != 3 || len(fails) != want {
			t.Errorf("cookies %v: Q on CPU %d after %d failed MC balances of CPU 3 (at %v); want CPU 3 after %d",
				cookies, q.CPU(), len(fails), fails, want)
		}
	}
}

// CS14, the spec's §9 example 5: T (cookie 1, CPU 0) forks C, which
// inherits cookie 1; CPU 1 runs T2 (1), CPU 2 U (2), CPU 4 W (3, or
// nothing), CPUs 3 and 5 idle, all long-running. The slow path skips the
// groups whose cores run another cookie and are not idle: C stays on
// CPU 0. With core 2 idle (no W) its group matches by the idle-core
// exception, but no CPU there has an idle_stamp (no newidle under core
// scheduling): C stays on CPU 0 again.
func TestCoreSchedExample5ForkPlacement(t *testing.T) {
	for _, withW := range []bool{true, false} {
		h := newHarness(t, threeCores2)
		tk, t2, u := h.pinnedStart(0), h.pinnedStart(1), h.pinnedStart(2)
		var w *Task
		if withW {
			w = h.pinnedStart(4)
		}
		tag(t, h.s, tk, t2)
		tag(t, h.s, u)
		if w != nil {
			tag(t, h.s, w)
		}
		h.settle()
		h.run(h.now + 300*ms)
		se, _ := eevdf.NewEntity("C")
		c, err := h.s.NewTask(se, WithParent(tk))
		if err != nil {
			t.Fatal(err)
		}
		free(c)
		if c.Cookie() != tk.Cookie() {
			t.Fatalf("C's cookie %d, want T's %d", c.Cookie(), tk.Cookie())
		}
		if got := h.s.WakeUpNew(c); got != 0 {
			t.Errorf("W %v: C forked onto CPU %d, want 0", withW, got)
		}
		h.settle()
		h.check()
	}
}

// CS14, the group skip alone: groups {2,3} (U, cookie 2, next to idle
// CPU 3) and {4,5} (W, cookie 1, next to idle CPU 5) look equally idle,
// and the first would win; the cookie skips {2,3}, so C (cookie 1) goes to
// {4,5}, whose SMT level then gives it the idle CPU 5. Without the skip
// no CPU of {2,3} matches and C would stay on CPU 0.
func TestCoreSchedForkSkipsMismatchedGroup(t *testing.T) {
	h := newHarness(t, threeCores2)
	tk, t2, u, w := h.pinnedStart(0), h.pinnedStart(1), h.pinnedStart(2), h.pinnedStart(4)
	tag(t, h.s, tk, t2, w)
	tag(t, h.s, u)
	h.settle()
	h.run(h.now + 300*ms)
	se, _ := eevdf.NewEntity("C")
	c, err := h.s.NewTask(se, WithParent(tk))
	if err != nil {
		t.Fatal(err)
	}
	free(c)
	if got := h.s.WakeUpNew(c); got != 5 {
		t.Errorf("C forked onto CPU %d, want 5", got)
	}
	h.settle()
	h.check()
}

// Two CPU hogs of different cookies on one SMT core share it by turns:
// each time the runner has used half its slice while its sibling is
// forced idle, task_tick_core reschedules it and the waiting cookie wins
// the core-wide pick.
func ExampleSystem_CoreCreate() {
	top, _ := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 2})
	s, _ := New(top)
	var hogs []*Task
	for cpu, name := range []string{"A", "B"} {
		se, _ := eevdf.NewEntity(name)
		t, _ := s.NewTask(se, WithCPU(cpu), WithAllowed(cpu))
		_, _ = s.CoreCreate(t) // a cookie of its own
		hogs = append(hogs, t)
	}
	s.WakeUpNew(hogs[0])
	_ = s.Advance(200_000)
	s.WakeUpNew(hogs[1])
	_ = s.Advance(1_000_000_000)
	for _, t := range hogs {
		fmt.Printf("%s (cookie %d) ran %.1f ms\n", t, t.Cookie(), float64(t.Entity().SumExecRuntime())/1e6)
	}
	for cpu := range 2 {
		fmt.Printf("CPU %d forced idle %.1f ms\n", cpu, float64(s.Core(cpu).ForcedIdleNs)/1e6)
	}
	// Output:
	// A (cookie 1) ran 500.2 ms
	// B (cookie 2) ran 499.8 ms
	// CPU 0 forced idle 499.8 ms
	// CPU 1 forced idle 500.0 ms
}

// The last cookie going away while a sibling is forced idle with a task
// queued ends that period and asks the sibling to reschedule: the
// schedule after the last tagged task leaves is still a core-wide pick in
// the kernel, which hands the idled sibling its task.
func TestCoreSchedOffEndsForcedIdle(t *testing.T) {
	s, a, b := example1(t, true)
	idled := 1
	if !s.Core(1).ForcedIdle {
		idled = 0
	}
	if !s.Core(idled).ForcedIdle || s.RQ(idled).NrRunning() == 0 {
		t.Fatalf("no CPU forced idle with a task queued after example 1's start: %+v %+v", s.Core(0), s.Core(1))
	}
	advance(t, s, 300_000)
	before := s.Core(idled).ForcedIdleNs
	s.Resched() // forget what is due so far
	if err := s.CoreShare(0, b); err != nil {
		t.Fatal(err)
	}
	if err := s.CoreShare(0, a); err != nil {
		t.Fatal(err)
	}
	if s.CoreScheduling() {
		t.Fatal("core scheduling still on with no cookie left")
	}
	ci := s.Core(idled)
	if ci.ForcedIdle || ci.ForcedIdleNs != before {
		t.Fatalf("CPU %d forced idle %v for %d ns after the switch-off, want ended at %d", idled, ci.ForcedIdle, ci.ForcedIdleNs, before)
	}
	if !s.RQ(idled).NeedResched() || !slices.Contains(s.Resched(), idled) {
		t.Fatalf("CPU %d, idle with a task queued, was not asked to reschedule", idled)
	}
	if got := s.Schedule(idled); got == nil {
		t.Fatalf("CPU %d still idle after its reschedule", idled)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
