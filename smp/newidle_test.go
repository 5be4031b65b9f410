package smp

import (
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

var noNIRandom = WithFeatures(features.Default().Without(features.NIRandom))

var oneLLC2x2 = topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 2}

// B1 (KERNEL-SPEC-SMP §6.2): a CPU going idle while another CPU of its LLC
// holds one running and one cold waiting task pulls exactly that task: at
// MC, one-CPU groups, the busiest overloaded, migrate_task with imbalance
// ⌊sibling_imbalance/2⌋ = ⌊(2 − 0)/2⌋ = 1; one task (a preemptible kernel
// stops after one when newly idle). Its idle_stamp is back to 0 and it does
// not idle.
func TestNewidlePullsTheColdWaitingTask(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom)
	x := h.pinnedStart(0)
	y := h.pinnedStart(0)
	h.pinnedStart(1)
	h.run(50_000_000)
	waiting := func() *Task {
		if h.s.Curr(0) == y {
			return x
		}
		return y
	}
	for h.now-waiting().se.ExecStart() < 500_000 {
		h.run(h.now + 1_000_000)
	}
	p := waiting()
	h.overload()
	free(x)
	free(y)
	// CPU 1's task blocks (Block, in two steps): the sleep dequeue, then
	// __schedule, whose pick finds nothing and balances newly idle. Between
	// the two, the MC balance it will run sees the busiest group as CPU 0
	// with migration type migrate_task and imbalance ⌊(2 − 0)/2⌋ = 1
	// (§5.10 rule 4b: one-CPU groups).
	sleeper := h.s.Curr(1)
	if _, err := h.s.rq(1).Dequeue(sleeper.se, eevdf.DequeueSleep); err != nil || sleeper.se.OnRq() {
		t.Fatalf("setup: the sleep dequeue (%v) left the task queued", err)
	}
	sleeper.state = taskSleeping
	mc := h.s.top.Domains(1)[0]
	env := lbEnv{sd: mc, d: h.s.dom(mc), dstCPU: 1, dstGrpmask: mc.LocalGroup().BalanceMask(),
		idle: cpuNewlyIdle, loopBreak: topology.NrMigrateBreak, cpus: h.s.lbCpus, newDstCPU: -1}
	env.cpus.Copy(mc.Span())
	g := h.s.findSrcGroup(&env)
	if g == nil || !g.Span().Test(0) || env.mtype != migrateTask || env.imbalance != 1 {
		t.Fatalf("the newly idle MC balance would take group %v, type %d, imbalance %d; want CPU 0, migrate_task, 1", g, env.mtype, env.imbalance)
	}
	if src := h.s.findSrcRq(&env, g); src != 0 {
		t.Fatalf("busiest CPU %d, want 0", src)
	}
	h.s.schedule(1, false) // the rest of Block: __schedule on CPU 1
	h.check()
	if got := h.s.Curr(1); got != p {
		t.Fatalf("CPU 1 runs %v, want the waiting task %s", got, p)
	}
	if p.CPU() != 1 || h.s.RQ(0).NrRunning() != 1 || h.s.RQ(1).NrRunning() != 1 {
		t.Errorf("after the pull: %s on %d, CPU 0 %d tasks, CPU 1 %d", p, p.CPU(), h.s.RQ(0).NrRunning(), h.s.RQ(1).NrRunning())
	}
	if st := h.s.CPU(1).IdleStamp; st != 0 {
		t.Errorf("idle_stamp %d after a pull, want 0", st)
	}
	if st := h.s.Stats(); st.NewidlePulls[topology.MC] != 1 || st.BalanceMoves != 1 {
		t.Errorf("newidle pulls %v, moves %d; want one at MC", st.NewidlePulls, st.BalanceMoves)
	}
}

// b2 builds two cores of two threads: CPU 0 runs a task that will sleep,
// CPU 1 idles, CPUs 2 and 3 hold n2 and n3 tasks, pinned while they settle,
// then free to move.
func b2(t *testing.T, n2, n3 int) (*harness, *Task) {
	h := newHarness(t, oneLLC2x2, noNIRandom)
	sleeper := h.pinnedStart(0)
	var others []*Task
	for range n2 {
		others = append(others, h.pinnedStart(2))
	}
	for range n3 {
		others = append(others, h.pinnedStart(3))
	}
	h.run(30_000_000)
	for _, o := range others {
		free(o)
	}
	h.overload()
	return h, sleeper
}

// B2: the source is the CPU of the busiest group with the most runnable
// tasks (the lowest id on ties); the task taken is the tail of its
// cfs_tasks, the least recently run; the running task is never taken.
func TestNewidleTakesTheTailOfTheBusiestCPU(t *testing.T) {
	for _, tc := range []struct {
		n2, n3, src int
	}{
		{3, 3, 2}, // a tie: the lowest id
		{3, 4, 3},
	} {
		h, sleeper := b2(t, tc.n2, tc.n3)
		if h.s.RQ(2).NrRunnable() != tc.n2 || h.s.RQ(3).NrRunnable() != tc.n3 {
			t.Fatalf("setup: CPU 2 has %d, CPU 3 %d tasks", h.s.RQ(2).NrRunnable(), h.s.RQ(3).NrRunnable())
		}
		tail := taskOf(h.s.RQ(tc.src).LastTask())
		if h.s.Curr(tc.src) == tail {
			t.Fatalf("setup: the tail of CPU %d runs", tc.src)
		}
		h.block(0)
		if got := h.s.Curr(0); got != tail {
			t.Errorf("n = %d/%d: CPU 0 runs %v, want CPU %d's tail %s", tc.n2, tc.n3, got, tc.src, tail)
		}
		if sleeper.CPU() != 0 {
			t.Errorf("the sleeper moved to %d", sleeper.CPU())
		}
	}
}

// B2: the running task is never taken, even at the tail of cfs_tasks.
// CPU 2 runs a (picked, so at the head), then b is forked there and,
// without preempting a, is enqueued at the head: the tail is the running
// a. CPU 0 goes newly idle: detach_tasks looks at a first (can_migrate_task:
// running, no), rotates it to the head, then takes b — the one waiting
// task, never run, so cold (exec_start 0). When the one waiting task may
// not move (b pinned to CPU 2), a free running a stays all the same and
// nothing is pulled. a is made to look cold, so that heat does not hide
// the rule.
func TestNewidleNeverTakesTheRunningTask(t *testing.T) {
	for _, pinned := range []bool{false, true} {
		h := newHarness(t, oneLLC4x1, noNIRandom)
		sleeper := h.pinnedStart(0)
		a := free(h.pinnedStart(2))
		h.run(10_000_000)
		b := h.task(2, WithAllowed(2))
		if h.s.WakeUpNew(b) != 2 {
			t.Fatal("setup: b was not forked on CPU 2")
		}
		if !pinned {
			free(b)
		}
		rq := h.s.RQ(2)
		if h.s.Curr(2) != a || rq.NeedResched() || taskOf(rq.LastTask()) != a {
			t.Fatalf("setup: CPU 2 runs %v (resched %v), tail %v; want a running at the tail", h.s.Curr(2), rq.NeedResched(), taskOf(rq.LastTask()))
		}
		if !h.s.Overloaded() {
			t.Fatal("setup: two tasks on CPU 2 did not mark the root domain overloaded")
		}
		// 0.6 ms without a tick: a's exec_start (last set when b's enqueue
		// charged it) is old enough for a to look cold, so only its running
		// keeps it.
		h.at(h.now + 600_000)
		h.block(0)
		if a.CPU() != 2 || h.s.Curr(2) != a {
			t.Errorf("b pinned %v: the running task moved to CPU %d", pinned, a.CPU())
		}
		switch {
		case !pinned && (b.CPU() != 0 || h.s.Curr(0) != b):
			t.Errorf("CPU 0 runs %v, want the waiting b", h.s.Curr(0))
		case pinned && (h.s.Curr(0) != nil || h.s.Stats().BalanceMoves != 0):
			t.Errorf("b pinned: CPU 0 runs %v after %d moves, want nothing pulled", h.s.Curr(0), h.s.Stats().BalanceMoves)
		}
		if sleeper.CPU() != 0 {
			t.Errorf("the sleeper moved to %d", sleeper.CPU())
		}
	}
}

// B3: no pull while the root domain is not overloaded, nor when avg_idle
// is below the base domain's max_newidle_lb_cost.
func TestNewidleNeedsOverloadAndTime(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom)
	a, b := h.pinnedStart(0), h.pinnedStart(0)
	h.pinnedStart(1)
	h.run(20_000_000)
	free(a)
	free(b)
	h.s.overloaded = false
	h.block(1)
	if h.s.Curr(1) != nil || h.s.Stats().BalanceMoves != 0 {
		t.Errorf("not overloaded: CPU 1 runs %v after %d moves", h.s.Curr(1), h.s.Stats().BalanceMoves)
	}

	// A balance that costs 5 ms: the first attempt records the cost, and
	// with avg_idle at 1 ms no later attempt is made.
	h = newHarness(t, oneLLC4x1, noNIRandom, WithNewidleCost(NewidleCost{Base: 5_000_000}))
	h.pinnedStart(0)
	h.pinnedStart(0)
	h.pinnedStart(1)
	h.pinnedStart(2)
	h.run(20_000_000)
	h.overload()
	h.block(1) // nothing movable (pinned): the attempt costs 5 ms
	base := h.s.top.Base(1)
	if c := h.s.dom(base).maxNewidleLBCost; c != 5_000_000 {
		t.Fatalf("max_newidle_lb_cost %d after the first attempt", c)
	}
	calls := h.s.Stats().BalanceCalls[cpuNewlyIdle]
	h.block(2)
	if got := h.s.Stats().BalanceCalls[cpuNewlyIdle]; got != calls {
		t.Errorf("avg_idle %d < cost %d, yet the newly idle CPU balanced", h.s.CPU(2).AvgIdle, h.s.dom(h.s.top.Base(2)).maxNewidleLBCost)
	}
}

// B4: a task that ran less than 0.5 ms ago is cache-hot: newly idle
// balancing does not take it across cores (MC), but takes it between SMT
// siblings, which share the cache.
func TestNewidleLeavesHotTasksAcrossCores(t *testing.T) {
	for _, tc := range []struct {
		dst  int
		pull bool
	}{{0, false}, {3, true}} {
		h := newHarness(t, oneLLC2x2, noNIRandom)
		h.pinnedStart(0)
		if tc.dst == 3 {
			h.pinnedStart(3)
		}
		x, y := h.pinnedStart(2), h.pinnedStart(2)
		h.run(20_000_000)
		// Run until CPU 2 switches at a tick: the task switched out is
		// then hot. Only then may the two move.
		prev := h.s.Curr(2)
		for i := 0; h.s.Curr(2) == prev; i++ {
			h.run(h.now + 1_000_000)
			if i > 100 {
				t.Fatal("setup: CPU 2 never switches")
			}
		}
		hot := x
		if h.s.Curr(2) == x {
			hot = y
		}
		free(x)
		free(y)
		h.overload()
		h.at(h.now + 100_000)
		h.block(tc.dst)
		got := hot.CPU() == tc.dst
		if got != tc.pull {
			t.Errorf("to CPU %d: hot task pulled %v, want %v", tc.dst, got, tc.pull)
		}
	}
}

// B4 at PKG: on two LLCs of four CPUs, CPU 4 (LLC 1) holds two tasks and
// every other CPU idles; CPU 0 goes newly idle. MC finds nothing in LLC 0;
// at PKG, prefer_sibling (the MC groups' flags) and the task counts 2
// against 0 force migrate_task, ⌊2/2⌋ = 1, from CPU 4. The waiting task
// that ran 0.1 ms ago is cache-hot (under migration_cost, 0.5 ms) and
// stays; 0.6 ms after it ran it is cold and is pulled.
func TestNewidleLeavesHotTasksAcrossLLCs(t *testing.T) {
	for _, tc := range []struct {
		since uint64 // ns since the waiting task last ran
		pull  bool
	}{{100_000, false}, {600_000, true}} {
		h := newHarness(t, twoLLC4x1, noNIRandom)
		h.pinnedStart(0)
		x, y := h.pinnedStart(4), h.pinnedStart(4)
		h.run(20_000_000)
		prev := h.s.Curr(4)
		for i := 0; h.s.Curr(4) == prev; i++ {
			h.run(h.now + 1_000_000)
			if i > 100 {
				t.Fatal("setup: CPU 4 never switches")
			}
		}
		waiting := x
		if h.s.Curr(4) == x {
			waiting = y
		}
		free(x)
		free(y)
		h.overload()
		h.at(h.now + tc.since)
		if d := h.now - waiting.se.ExecStart(); d != tc.since {
			t.Fatalf("setup: the waiting task ran %d ns ago, want %d", d, tc.since)
		}
		calls := h.s.Stats().BalanceCalls[cpuNewlyIdle]
		h.block(0)
		if n := h.s.Stats().BalanceCalls[cpuNewlyIdle] - calls; n != 2 {
			t.Errorf("%d newly idle balances, want 2: MC, then PKG", n)
		}
		if got := waiting.CPU() == 0; got != tc.pull {
			t.Errorf("%d ns after it ran: pulled across LLCs %v, want %v", tc.since, got, tc.pull)
		}
		st := h.s.Stats()
		if tc.pull && st.NewidlePulls[topology.PKG] != 1 {
			t.Errorf("newidle pulls %v, want one at PKG", st.NewidlePulls)
		}
		if !tc.pull && (st.BalanceMoves != 0 || h.s.Curr(0) != nil) {
			t.Errorf("%d moves, CPU 0 runs %v; want nothing pulled", st.BalanceMoves, h.s.Curr(0))
		}
	}
}

// B5: avg_idle after an idle period D that began with a failed newly idle
// balance: avg + trunc((D − avg)/8), at most 2·max_idle_balance_cost; an
// idle period that began otherwise (a CPU idle since boot) is no sample.
func TestAvgIdleSamplesIdlePeriods(t *testing.T) {
	for _, tc := range []struct {
		d, want uint64
	}{
		{200_000, 1_000_000 - 100_000},           // 1 ms + (0.2 ms − 1 ms)/8
		{10_000_000, 2 * topology.MigrationCost}, // capped
		{1_000_000 + 7, 1_000_000},               // truncated toward zero
		{1_000_000 - 9, 1_000_000 - 1},           // truncated toward zero
	} {
		h := newHarness(t, oneLLC4x1, noNIRandom)
		p := h.pinnedStart(1)
		h.run(5_000_000)
		h.block(1)
		stamp := h.s.CPU(1).IdleStamp
		if stamp != h.now {
			t.Fatalf("idle_stamp %d, want the clock %d", stamp, h.now)
		}
		h.at(stamp + tc.d)
		h.wake(p, nil, 0)
		h.settle()
		if got := h.s.CPU(1).AvgIdle; got != tc.want {
			t.Errorf("D = %d: avg_idle %d, want %d", tc.d, got, tc.want)
		}
	}
	// CPU 2 idles since boot (idle_stamp 0): a task arriving is no sample.
	h := newHarness(t, oneLLC4x1, noNIRandom)
	h.at(3_000_000)
	h.pinnedStart(2)
	if got := h.s.CPU(2).AvgIdle; got != 2*topology.MigrationCost {
		t.Errorf("avg_idle %d after an idle period not begun by newidle", got)
	}
}

// B6: with NI_RANDOM, a domain whose success ratio is 512 is skipped when
// the draw is at least 514 (weight 1 + 512 = 513); the generator is
// seeded, so the sequence repeats for a seed. Every 1024 calls (512 more
// after boot) the ratio becomes the successes plus, with NI_RATE, one per
// 2^22 ns elapsed, and both counters halve.
func TestNewidleRandomSkipsBySuccessRatio(t *testing.T) {
	seq := func(seed uint64) []bool {
		h := newHarness(t, oneLLC4x1, WithSeed(seed))
		h.pinnedStart(0)
		h.pinnedStart(0)
		h.pinnedStart(1)
		h.run(10_000_000)
		var skips []bool
		d := h.s.dom(h.s.top.Base(1))
		for i := 0; i < 40; i++ {
			// The ratio stays at its sd_init value, 512, for 512 more calls
			// (§1.3: newidle_call 512): the dice are rolled with weight
			// 1 + 512 = 513, a skip iff the draw (mod 1024) is above it.
			if d.newidleRatio != 512 {
				t.Fatalf("seed %d attempt %d: newidle_ratio %d, want 512", seed, i, d.newidleRatio)
			}
			rng := h.s.cpus[1].rng // a copy: the draw the next walk makes
			draw := rng.next() % 1024
			before := h.s.Stats().NewidleSkips
			h.s.overloaded = true
			h.s.newidleBalance(1)
			got := h.s.Stats().NewidleSkips > before
			if want := draw >= 514; got != want {
				t.Fatalf("seed %d attempt %d: draw %d skipped %v, want %v", seed, i, draw, got, want)
			}
			skips = append(skips, got)
		}
		return skips
	}
	a, b := seq(7), seq(7)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 7 gave different sequences at %d", i)
		}
	}
	c := seq(8)
	same := true
	for i := range a {
		same = same && a[i] == c[i]
	}
	if same {
		t.Error("seeds 7 and 8 gave the same 40 decisions")
	}

	// The window: 512 more calls from the boot state (512 calls, 256
	// successes, ratio 512), none successful, 4·2^22 ns later.
	h := newHarness(t, oneLLC4x1)
	d := h.s.dom(h.s.top.Base(1))
	if d.newidleCall != 512 || d.newidleSuccess != 256 || d.newidleRatio != 512 {
		t.Fatalf("boot: calls %d, successes %d, ratio %d; want 512, 256, 512", d.newidleCall, d.newidleSuccess, d.newidleRatio)
	}
	h.at(d.newidleStamp + 4<<22)
	for range 511 {
		h.s.updateNewidleStats(d, 0)
	}
	if d.newidleRatio != 512 || d.newidleCall != 1023 {
		t.Fatalf("before the window: ratio %d, calls %d", d.newidleRatio, d.newidleCall)
	}
	h.s.updateNewidleStats(d, 0)
	if d.newidleRatio != 256+4 || d.newidleCall != 512 || d.newidleSuccess != 128 {
		t.Errorf("after the window: ratio %d (want 260), calls %d (512), successes %d (128)", d.newidleRatio, d.newidleCall, d.newidleSuccess)
	}
}

// B6 at the threshold: with newidle_ratio 512 the weight is 1 + 512 =
// 513 and a domain is skipped iff the draw is above it: a draw of 513
// balances, 514 skips (§5.4 rule 9d). A skip counts a call without
// success; a pull after the draw counts a call and ⌊(1024 + ⌊513/2⌋)/513⌋
// = 2 successes. The seeds are the first whose first draw on CPU 1 (mod
// 1024) is 513 and 514.
func TestNewidleRandomThresholdAtRatio512(t *testing.T) {
	seedFor := func(draw uint32) uint64 {
		for seed := uint64(0); seed < 1<<20; seed++ {
			r := newSchedRNG(seed, 1)
			if r.next()%1024 == draw {
				return seed
			}
		}
		t.Fatalf("no seed draws %d first", draw)
		return 0
	}
	for _, tc := range []struct {
		draw    uint32
		skipped bool
		success uint64
	}{{513, false, 2}, {514, true, 0}} {
		seed := seedFor(tc.draw)
		h := newHarness(t, oneLLC4x1, WithSeed(seed))
		x, y := h.pinnedStart(0), h.pinnedStart(0)
		h.pinnedStart(1)
		h.run(20_000_000)
		h.at(h.now + 600_000) // the waiting task is cold
		free(x)
		free(y)
		h.overload()
		d := h.s.dom(h.s.top.Base(1))
		if h.s.cpus[1].rng != newSchedRNG(seed, 1) || d.newidleRatio != 512 || d.newidleCall != 512 || d.newidleSuccess != 256 {
			t.Fatalf("setup: CPU 1 drew already, or ratio %d calls %d successes %d", d.newidleRatio, d.newidleCall, d.newidleSuccess)
		}
		h.block(1)
		st := h.s.Stats()
		if skipped := st.NewidleSkips == 1; skipped != tc.skipped {
			t.Errorf("draw %d: skipped %v, want %v", tc.draw, skipped, tc.skipped)
		}
		if pulled := st.NewidlePulls[topology.MC] == 1; pulled == tc.skipped {
			t.Errorf("draw %d: pulled %v", tc.draw, pulled)
		}
		if d.newidleCall != 513 || d.newidleSuccess != 256+tc.success {
			t.Errorf("draw %d: calls %d, successes %d; want 513 and %d", tc.draw, d.newidleCall, d.newidleSuccess, 256+tc.success)
		}
	}
}

// B7: the walk stops at the first domain that pulled, and before the first
// domain whose max_newidle_lb_cost plus the cost so far exceeds avg_idle.
func TestNewidleWalkStops(t *testing.T) {
	// The SMT sibling has a waiting task: pulled at SMT, MC not visited.
	h := newHarness(t, oneLLC2x2, noNIRandom)
	h.pinnedStart(0)
	a, b := h.pinnedStart(1), h.pinnedStart(1)
	h.run(20_000_000)
	free(a)
	free(b)
	h.overload()
	calls := h.s.Stats().BalanceCalls[cpuNewlyIdle]
	h.block(0)
	if st := h.s.Stats(); st.NewidlePulls[topology.SMT] != 1 || st.BalanceCalls[cpuNewlyIdle] != calls+1 {
		t.Errorf("pulls %v, newly idle balances %d (want one, at SMT)", st.NewidlePulls, st.BalanceCalls[cpuNewlyIdle]-calls)
	}

	// A costly MC: after SMT (nothing there) the walk stops.
	h = newHarness(t, oneLLC2x2, noNIRandom)
	h.pinnedStart(0)
	a, b = h.pinnedStart(2), h.pinnedStart(2)
	h.run(20_000_000)
	free(a)
	free(b)
	h.overload()
	mc := h.s.top.Domains(0)[1]
	h.s.dom(mc).maxNewidleLBCost = h.s.CPU(0).AvgIdle
	calls = h.s.Stats().BalanceCalls[cpuNewlyIdle]
	h.block(0)
	if st := h.s.Stats(); st.BalanceCalls[cpuNewlyIdle] != calls+1 || h.s.Curr(0) != nil {
		t.Errorf("newly idle balances %d (want 1: SMT only), CPU 0 runs %v", st.BalanceCalls[cpuNewlyIdle]-calls, h.s.Curr(0))
	}
}
