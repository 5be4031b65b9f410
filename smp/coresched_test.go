package smp

import (
	"errors"
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
