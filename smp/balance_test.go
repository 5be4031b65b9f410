package smp

import (
	"fmt"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// C1 (KERNEL-SPEC-SMP §6.3): at HZ=1000 an MC domain of 8 CPUs is balanced
// every 8 or 16 jiffies by an idle CPU (balance_interval 8 or 16 ms) and
// every 127 or 255 by a busy one (×16, −1).
func TestBalanceIntervals(t *testing.T) {
	h := newHarness(t, oneLLC8x1)
	mc := h.s.top.Domains(0)[0]
	for _, tc := range []struct {
		ms   uint64
		busy bool
		want uint64
	}{{8, false, 8}, {16, false, 16}, {8, true, 127}, {16, true, 255}} {
		h.s.dom(mc).balanceInterval = tc.ms
		if got := h.s.balanceInterval(mc, tc.busy); got != tc.want {
			t.Errorf("balance_interval %d ms, busy %v: %d jiffies, want %d", tc.ms, tc.busy, got, tc.want)
		}
	}
}

// C1 as a cadence (mode A, HZ=1000, one LLC of 8 CPUs: MC, w = 8): the
// jiffies at which each CPU balances MC, read from its last_balance. The
// domain starts with last_balance 0 and balance_interval 8 ms.
//
// CPU 1 runs a task from the start (busy): 8·16 − 1 = 127 jiffies, so at
// 127; that pass is balanced, the interval doubles to 16 (max_interval
// 2w): 16·16 − 1 = 255 after that, at 382 and 637.
//
// CPU 0 idles: 8 jiffies, at 8; balanced, so 16: at 24, 40, 56. At 50 two
// tasks arrive on CPU 2; at 56 CPU 0 pulls one (an unbalanced pass: back
// to 8 ms) and is busy: 127 jiffies, at 183; balanced, 255: at 438, 693.
func TestBalanceCadence(t *testing.T) {
	h := newHarness(t, oneLLC8x1, noNIRandom)
	h.pinnedStart(1)
	var at [2][]uint64
	last := [2]uint64{}
	for j := uint64(2); j <= 700; j++ {
		if j == 50 {
			free(h.pinnedStart(2))
			free(h.pinnedStart(2))
		}
		h.run(j * h.s.tickNsec)
		for c := range 2 {
			if lb := h.s.dom(h.s.top.Domains(c)[0]).lastBalance; lb != last[c] {
				at[c] = append(at[c], lb)
				last[c] = lb
			}
		}
	}
	want := [2][]uint64{{8, 24, 40, 56, 183, 438, 693}, {127, 382, 637}}
	for c := range 2 {
		if fmt.Sprint(at[c]) != fmt.Sprint(want[c]) {
			t.Errorf("CPU %d balanced MC at jiffies %v, want %v", c, at[c], want[c])
		}
	}
	if h.s.RQ(0).NrRunning() != 1 || h.s.Stats().PeriodicPulls[topology.MC] != 1 {
		t.Errorf("CPU 0 runs %d tasks after %d periodic pulls, want 1 and 1", h.s.RQ(0).NrRunning(), h.s.Stats().PeriodicPulls[topology.MC])
	}
}

// C1: balance_interval doubles once after a balanced pass (up to
// max_interval = 2w) and returns to w after an unbalanced one.
func TestBalanceIntervalBacksOff(t *testing.T) {
	h := newHarness(t, oneLLC8x1, noNIRandom)
	var tasks []*Task
	for cpu := range 8 {
		tasks = append(tasks, free(h.pinnedStart(cpu)))
	}
	mc := h.s.top.Domains(1)[0]
	d := h.s.dom(mc)
	cont := true
	for _, want := range []uint64{16, 16} {
		h.s.balanceRQ(1, mc, cpuNotIdle, &cont)
		if d.balanceInterval != want {
			t.Fatalf("after a balanced pass: balance_interval %d, want %d", d.balanceInterval, want)
		}
	}
	// CPU 1's task sleeps and a second task waits on CPU 0: CPU 1's next
	// (idle) pass moves it: unbalanced, back to w.
	h.s.Block(1)
	extra := h.pinnedStart(0)
	free(extra)
	h.overload()
	if n := h.s.balanceRQ(1, mc, cpuIdle, &cont); n != 1 {
		t.Fatalf("the idle pass moved %d tasks, want 1", n)
	}
	if d.balanceInterval != 8 {
		t.Errorf("after an unbalanced pass: balance_interval %d, want 8", d.balanceInterval)
	}
	_ = tasks
}

// C2: who balances a level (should_we_balance). At MC on an SMT machine,
// the first idle CPU on an idle core of the local core, else the first idle
// thread, else the core's first CPU; at PKG, the first idle CPU of the local
// LLC, else its first CPU. A newly idle CPU always balances.
func TestShouldWeBalance(t *testing.T) {
	swb := func(h *harness, cpu int, level int, idle cpuIdleType) bool {
		sd := h.s.top.Domains(cpu)[level]
		env := lbEnv{sd: sd, d: h.s.dom(sd), dstCPU: cpu, idle: idle, cpus: h.s.lbCpus}
		env.cpus.Copy(sd.Span())
		return h.s.shouldWeBalance(&env)
	}
	h := newHarness(t, oneLLC4x2)
	// All idle: at MC, CPU 2 for core 1.
	if !swb(h, 2, 1, cpuIdle) || swb(h, 3, 1, cpuIdle) {
		t.Error("MC, core 1 idle: CPU 2 should balance, CPU 3 not")
	}
	// CPU 2 busy: CPU 3, the idle thread of a busy core.
	h.pinnedStart(2)
	if !swb(h, 3, 1, cpuIdle) || swb(h, 2, 1, cpuNotIdle) {
		t.Error("MC, CPU 2 busy: CPU 3 should balance, CPU 2 not")
	}
	// Both busy: the core's first CPU.
	h.pinnedStart(3)
	if !swb(h, 2, 1, cpuNotIdle) || swb(h, 3, 1, cpuNotIdle) {
		t.Error("MC, core 1 busy: CPU 2 should balance")
	}
	// A newly idle CPU balances, whatever its siblings do.
	if !swb(h, 1, 1, cpuNewlyIdle) {
		t.Error("a newly idle CPU does not balance")
	}

	h = newHarness(t, twoLLC4x1)
	h.pinnedStart(0)
	h.pinnedStart(1)
	pkg := 1
	if !swb(h, 2, pkg, cpuIdle) || swb(h, 3, pkg, cpuIdle) || swb(h, 0, pkg, cpuNotIdle) {
		t.Error("PKG: the first idle CPU of the local LLC (2) should balance, alone")
	}
	h.pinnedStart(2)
	h.pinnedStart(3)
	if !swb(h, 0, pkg, cpuNotIdle) || swb(h, 1, pkg, cpuNotIdle) {
		t.Error("PKG, LLC 0 busy: its first CPU should balance")
	}
}

// C3: work conservation (mode A, NI_RANDOM off, T = 1) on one LLC of 8
// CPUs, MC w = 8 as in C1: CPUs 2–7 run one task each, CPU 0 two, CPU 1
// idles. CPU 1 pulls a waiting task at its next MC balance if it is cold
// (two tasks with 50 ms slices: the second never runs before the pull),
// so within an idle interval of at most 2w = 16 jiffies, without a
// failure. If every waiting task is hot (two tasks with 0.1 ms slices
// that switch at every tick, just before CPU 1's tick), the pull happens
// at the attempt after cache_nice_tries + 1 = 2 consecutive failures,
// the attempts w = 8 jiffies apart (each failure resets the interval to
// w): within 2w + 2w = 32 jiffies of going idle.
func TestIdleCPUPullsWaitingTask(t *testing.T) {
	const w = 8
	for _, hot := range []bool{false, true} {
		h := newHarness(t, oneLLC8x1, noNIRandom)
		for cpu := 2; cpu < 8; cpu++ {
			h.pinnedStart(cpu)
		}
		slice := uint64(50_000_000)
		if hot {
			slice = 100_000
		}
		x := h.pinnedStart(0, eevdf.WithSlice(slice))
		y := h.pinnedStart(0, eevdf.WithSlice(slice))
		h.run(h.now + 2_000_000)
		free(x)
		free(y)
		mc := h.s.top.Domains(1)[0]
		d := h.s.dom(mc)
		start := h.s.Jiffies()
		var fails []uint64
		for h.s.RQ(1).NrRunning() == 0 && h.s.Jiffies() < start+100 {
			before := d.nrBalanceFailed
			h.run(h.now + 1_000_000)
			if d.nrBalanceFailed > before {
				fails = append(fails, h.s.Jiffies())
			}
		}
		took := h.s.Jiffies() - start
		switch {
		case h.s.RQ(1).NrRunning() == 0:
			t.Fatalf("hot %v: nothing pulled in 100 jiffies", hot)
		case !hot && (len(fails) != 0 || took > 2*w):
			t.Errorf("cold: pulled after %d jiffies and %d failures, want within 2w = 16 and none", took, len(fails))
		case hot && len(fails) != 2:
			t.Errorf("hot: %d failures before the pull (at jiffies %v), want 2", len(fails), fails)
		case hot && (fails[1]-fails[0] != w || h.s.Jiffies()-fails[1] != w || took > 4*w):
			t.Errorf("hot: failures at %v, pulled at %d, %d jiffies after the start; want attempts w = 8 apart, within 4w = 32",
				fails, h.s.Jiffies(), took)
		}
		if d.nrBalanceFailed != 0 {
			t.Errorf("hot %v: nr_balance_failed %d after the pull", hot, d.nrBalanceFailed)
		}
	}
}

// C4: a busy CPU does not pull from a group that is not overloaded; an idle
// one does. Two fresh tasks on CPU 0 leave its group with spare capacity
// (their runnable average is still low).
func TestBusyCPUDoesNotPullFromGroupWithSpareCapacity(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom)
	h.pinnedStart(1)
	free(h.pinnedStart(0))
	free(h.pinnedStart(0))
	h.at(h.now + 600_000) // the task that waits is cold now
	mc := h.s.top.Domains(1)[0]
	cont := true
	if n := h.s.balanceRQ(1, mc, cpuNotIdle, &cont); n != 0 {
		t.Errorf("a busy CPU pulled %d tasks from a group with spare capacity", n)
	}
	if n := h.s.balanceRQ(2, h.s.top.Domains(2)[0], cpuIdle, &cont); n != 1 {
		t.Errorf("an idle CPU pulled %d tasks, want 1", n)
	}
}

// C5: across LLCs (PKG, prefer_sibling from the MC groups' flags), tasks
// stacked in one LLC spread until the LLCs' task counts differ by at most
// one.
func TestTasksSpreadAcrossLLCs(t *testing.T) {
	for _, mode := range []NohzMode{NohzOff, NohzIdle} {
		h := newHarness(t, twoLLC4x1, noNIRandom, WithNohz(mode))
		var tasks []*Task
		for i := range 6 {
			tk := h.task(i%4, WithAllowed(0, 1, 2, 3))
			h.s.WakeUpNew(tk)
			h.settle()
			tasks = append(tasks, tk)
		}
		for _, tk := range tasks {
			free(tk)
		}
		h.run(h.now + 500_000_000)
		var n [2]int
		for c := range 8 {
			n[h.s.top.LLC(c)] += h.s.RQ(c).NrRunning()
		}
		if d := n[0] - n[1]; d < -1 || d > 1 {
			t.Errorf("nohz %v: %d and %d tasks in the two LLCs", mode, n[0], n[1])
		}
	}
}

// C6: between two overloaded groups, migrate_load moves the smaller of the
// busiest group's excess over the domain average and the local group's
// shortfall below it (each times the group's capacity, over 1024); the
// differences are unsigned, so a negative one wraps and loses the min.
func TestOverloadedImbalance(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	env := lbEnv{sd: h.s.top.Domains(0)[0], idle: cpuIdle}
	mk := func(b, l, avg uint64) *sdStats {
		return &sdStats{
			busiestSt: sgStats{groupType: groupOverloaded, avgLoad: b, groupCapacity: 1024},
			localSt:   sgStats{groupType: groupOverloaded, avgLoad: l, groupCapacity: 1024},
			avgLoad:   avg,
		}
	}
	h.s.calculateImbalance(&env, mk(3000, 1500, 2000))
	if env.mtype != migrateLoad || env.imbalance != 500 {
		t.Errorf("imbalance %d (type %d), want migrate_load 500", env.imbalance, env.mtype)
	}
	h.s.calculateImbalance(&env, mk(1900, 1500, 2000)) // busiest below the average: wraps
	if env.imbalance != 500 {
		t.Errorf("imbalance %d, want 500 (the wrapped side loses the min)", env.imbalance)
	}
	// shr_bound lets a task twice or four times the imbalance move after
	// one or two failures.
	for _, tc := range []struct{ load, failed, want uint64 }{{1024, 0, 1024}, {1024, 1, 512}, {1024, 2, 256}, {5, 70, 0}} {
		if got := shrBound(tc.load, tc.failed); got != tc.want {
			t.Errorf("shr_bound(%d, %d) = %d, want %d", tc.load, tc.failed, got, tc.want)
		}
	}
}

// C6 through detach_tasks: two CPUs (MC, one-CPU groups), CPU 0 runs three
// nice-0 tasks (load ≈ 3·1023), CPU 1 a nice-0 and a nice −1 task (weights
// 1024 and 1277: load ≈ 2300). Both groups are overloaded, so the busy
// CPU 1's periodic balance is migrate_load with the §5.10 rule 6 amount,
// ≈ (3069 − 2300)/2 ≈ 385 — below a task's task_h_load (≈ 1022) and its
// half (511), above its quarter (255). With the waiting tasks cold (so
// that only their load holds them back): the pass with no failure moves
// nothing, nor the pass after one failure (1022 >> 1 = 511 > 385); after
// two (1022 >> 2 = 255) the tail of CPU 0 moves, and the count resets.
func TestFailuresLetBiggerTasksMove(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1}, noNIRandom)
	var src []*Task
	for range 3 {
		src = append(src, h.pinnedStart(0))
	}
	h.pinnedStart(1)
	h.pinnedStart(1, eevdf.WithNice(-1))
	h.run(300_000_000)
	h.at(h.now + 600_000) // 0.6 ms after the last tick: every waiting task is cold
	for _, x := range src {
		free(x)
		if h.s.Curr(0) != x && h.now-x.se.ExecStart() < 500_000 {
			t.Fatalf("setup: %s ran %d ns ago", x, h.now-x.se.ExecStart())
		}
	}
	mc := h.s.top.Domains(1)[0]
	d := h.s.dom(mc)
	env := lbEnv{sd: mc, d: d, dstCPU: 1, idle: cpuNotIdle, cpus: h.s.lbCpus}
	env.cpus.Copy(mc.Span())
	if g := h.s.findSrcGroup(&env); g == nil || !g.Span().Test(0) || env.mtype != migrateLoad {
		t.Fatalf("setup: busiest %v, type %d; want CPU 0, migrate_load", g, env.mtype)
	}
	tail := taskOf(h.s.RQ(0).LastTask())
	load := h.s.taskHLoad(tail)
	if imb := uint64(env.imbalance); !(load>>2 <= imb && imb < load>>1) {
		t.Fatalf("setup: imbalance %d, task_h_load %d: want load/4 ≤ imbalance < load/2", imb, load)
	}
	cont := true
	for failed := uint64(0); failed < 2; failed++ {
		if d.nrBalanceFailed != failed {
			t.Fatalf("nr_balance_failed %d, want %d", d.nrBalanceFailed, failed)
		}
		if n := h.s.balanceRQ(1, mc, cpuNotIdle, &cont); n != 0 {
			t.Fatalf("after %d failures: %d tasks moved, want none", failed, n)
		}
	}
	if d.nrBalanceFailed != 2 {
		t.Fatalf("nr_balance_failed %d after two failed passes", d.nrBalanceFailed)
	}
	if n := h.s.balanceRQ(1, mc, cpuNotIdle, &cont); n != 1 || tail.CPU() != 1 {
		t.Errorf("after 2 failures: %d moved, CPU 0's tail on %d; want it moved", n, tail.CPU())
	}
	if d.nrBalanceFailed != 0 {
		t.Errorf("nr_balance_failed %d after the move", d.nrBalanceFailed)
	}
}

// C7: nr_idle_scan after a periodic balance of the LLC domain: w = 8,
// Σ util = 4096: x = 512, t = ⌊512²·117²/(10⁴·1024)⌋ = 350,
// ⌊(1024 − 350)·8/1024⌋ = 5. Not after a newly idle balance, nor of
// another domain, nor without SIS_UTIL.
func TestNrIdleScanFollowsUtilization(t *testing.T) {
	for _, tc := range []struct {
		name  string
		idle  cpuIdleType
		feat  features.Set
		level int
		want  int
	}{
		{"periodic", cpuIdle, features.Default(), 0, 5},
		{"newly idle", cpuNewlyIdle, features.Default(), 0, 7},
		{"no SIS_UTIL", cpuIdle, features.Default().Without(features.SISUtil), 0, 7},
		{"PKG", cpuIdle, features.Default(), 1, 7},
	} {
		h := newHarness(t, topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 8, ThreadsPerCore: 1}, WithFeatures(tc.feat))
		h.setNrIdleScan(0, 7)
		sd := h.s.top.Domains(0)[tc.level]
		env := lbEnv{sd: sd, dstCPU: 0, idle: tc.idle}
		h.s.updateIdleCPUScan(&env, 4096)
		if got := h.s.LLC(0).NrIdleScan; got != tc.want {
			t.Errorf("%s: nr_idle_scan %d, want %d", tc.name, got, tc.want)
		}
	}
}

// C8: the root overloaded flag is cleared by the first top-level balance
// that sees no CPU with more than one task; newly idle balancing then
// stops pulling.
func TestOverloadedClearedByTopLevelBalance(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom)
	free(h.pinnedStart(0))
	h.pinnedStart(0)
	h.pinnedStart(1)
	if !h.s.Overloaded() {
		t.Fatal("two tasks on CPU 0 did not set the flag")
	}
	// An idle CPU takes the free task; then every CPU balances again.
	h.run(h.now + 50_000_000)
	for c := range 4 {
		if h.s.RQ(c).NrRunning() > 1 {
			t.Fatalf("setup: CPU %d runs %d tasks", c, h.s.RQ(c).NrRunning())
		}
	}
	if h.s.Overloaded() {
		t.Error("the flag is still set")
	}
	calls := h.s.Stats().BalanceCalls[cpuNewlyIdle]
	h.block(1)
	if h.s.Stats().BalanceCalls[cpuNewlyIdle] != calls {
		t.Error("a newly idle CPU balanced although nothing is overloaded")
	}
}

// C9: an ineligible waiting task is not pulled to a destination that has
// tasks queued until the domain has failed once (PLACE_LAG).
func TestIneligibleTaskWaitsForAFailure(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom)
	x, y := h.pinnedStart(0), h.pinnedStart(0)
	h.pinnedStart(1)
	h.run(h.now + 10_000_000)
	prev := h.s.Curr(0)
	for h.s.Curr(0) == prev {
		h.run(h.now + 1_000_000)
	}
	h.run(h.now + 1_000_000) // the task switched out is cold now, and still ineligible
	waiting := x
	if h.s.Curr(0) == x {
		waiting = y
	}
	free(waiting)
	rq := h.s.RQ(0)
	if rq.Eligible(waiting.se) || h.now-waiting.se.ExecStart() < 500_000 {
		t.Fatalf("setup: the waiting task is eligible (%v) or hot (%d ns)", rq.Eligible(waiting.se), h.now-waiting.se.ExecStart())
	}
	mc := h.s.top.Domains(1)[0]
	env := lbEnv{sd: mc, d: h.s.dom(mc), srcCPU: 0, dstCPU: 1, idle: cpuNotIdle, dstGrpmask: mc.LocalGroup().BalanceMask(), cpus: h.s.lbCpus}
	env.cpus.Copy(mc.Span())
	if h.s.canMigrateTask(waiting, &env) {
		t.Error("an ineligible task may move to a busy CPU before any failure")
	}
	env.d.nrBalanceFailed = 1
	if !h.s.canMigrateTask(waiting, &env) {
		t.Error("after a failure the ineligible task may still not move")
	}
}

// Affinity that keeps an LLC unbalanced marks its group imbalanced one
// level up (LBF_SOME_PINNED, §5.5 rule 7c): CPU 1 cannot take CPU 0's
// tasks, which may run on CPU 0 or 2 only, so the PKG group of CPUs 0–1
// becomes imbalanced, and CPU 2's PKG balance then sees it so (§5.7) and
// takes a task.
func TestPinnedTasksMarkTheParentGroupImbalanced(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1}, noNIRandom)
	for range 3 {
		tk := h.pinnedStart(0)
		tk.allowed, tk.nrAllowed = topology.MaskOf(4, 0, 2), 2
	}
	h.at(h.now + 1_000_000)
	mc1 := h.s.top.Domains(1)[0]
	h.overload()
	cont := true
	if n := h.s.balanceRQ(1, mc1, cpuIdle, &cont); n != 0 {
		t.Fatalf("CPU 1 took %d tasks it may not run", n)
	}
	pkg := h.s.top.Domains(1)[1]
	if !h.s.groups[pkg.LocalGroup().ID()].imbalance {
		t.Fatal("the PKG group of CPUs 0-1 is not marked imbalanced")
	}
	pkg2 := h.s.top.Domains(2)[1]
	if n := h.s.balanceRQ(2, pkg2, cpuIdle, &cont); n != 1 {
		t.Errorf("CPU 2's PKG balance moved %d tasks, want 1", n)
	}
}

// LBF_DST_PINNED (§5.5 rule 7b, §5.12 rule 3.5): one LLC of two cores of
// two threads; CPU 0 runs x and has y waiting, CPU 1 runs a task, core 1
// (CPUs 2 and 3) idles. CPU 2, the first idle CPU of the idle core,
// balances MC: core 0 is smt_balance, migrate_task 1, busiest CPU 0. y may
// run on CPUs 0, 1 and 3 but not 2: can_migrate_task records CPU 3, the
// first CPU of the local group that y may use, and the pass retries the
// same source for CPU 3, which gets y. A newly idle balance does not
// retarget: CPU 2 going newly idle leaves y where it is.
func TestDstPinnedRetargetsWithinTheLocalGroup(t *testing.T) {
	for _, idle := range []cpuIdleType{cpuIdle, cpuNewlyIdle} {
		h := newHarness(t, oneLLC2x2, noNIRandom)
		h.pinnedStart(0)
		y := h.pinnedStart(0)
		y.allowed, y.nrAllowed = topology.MaskOf(4, 0, 1, 3), 3
		h.pinnedStart(1)
		h.at(h.now + 600_000)
		if h.s.Curr(0) == y {
			t.Fatal("setup: y runs")
		}
		mc := h.s.top.Domains(2)[1]
		env := lbEnv{sd: mc, d: h.s.dom(mc), dstCPU: 2, idle: idle, cpus: h.s.lbCpus}
		env.cpus.Copy(mc.Span())
		if g := h.s.findSrcGroup(&env); g == nil || !g.Span().Test(0) || env.mtype != migrateTask || env.imbalance != 1 || h.s.findSrcRq(&env, g) != 0 {
			t.Fatalf("setup: busiest %v, type %d, imbalance %d; want core 0, migrate_task 1, CPU 0", g, env.mtype, env.imbalance)
		}
		cont := true
		n := h.s.balanceRQ(2, mc, idle, &cont)
		h.settle()
		h.check()
		switch {
		case idle == cpuIdle && (n != 1 || y.CPU() != 3 || h.s.Curr(3) != y || h.s.RQ(2).NrRunning() != 0):
			t.Errorf("CPU 2's balance moved %d; y on CPU %d (CPU 3 runs %v); want y retargeted to CPU 3", n, y.CPU(), h.s.Curr(3))
		case idle == cpuNewlyIdle && (n != 0 || y.CPU() != 0):
			t.Errorf("newly idle: moved %d, y on CPU %d; want no retarget", n, y.CPU())
		}
	}
}

// LBF_ALL_PINNED (§5.5 rules 7d, 13–15): one LLC of four CPUs. CPU 0 has
// three tasks pinned to it, CPU 2 two free ones; CPU 1 idles. The busiest
// CPU is 0 (most tasks): every task is pinned, so the pass drops CPU 0
// and redoes the search among the rest, which finds CPU 2 and takes one
// of its tasks.
func TestAllPinnedRedoesWithoutTheBusiestCPU(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom)
	var pinned []*Task
	for range 3 {
		pinned = append(pinned, h.pinnedStart(0))
	}
	a, b := h.pinnedStart(2), h.pinnedStart(2)
	h.run(h.now + 30_000_000)
	h.at(h.now + 600_000)
	free(a)
	free(b)
	mc := h.s.top.Domains(1)[0]
	env := lbEnv{sd: mc, d: h.s.dom(mc), dstCPU: 1, idle: cpuIdle, cpus: h.s.lbCpus}
	env.cpus.Copy(mc.Span())
	if g := h.s.findSrcGroup(&env); g == nil || h.s.findSrcRq(&env, g) != 0 {
		t.Fatal("setup: the busiest CPU is not CPU 0")
	}
	cont := true
	if n := h.s.balanceRQ(1, mc, cpuIdle, &cont); n != 1 {
		t.Fatalf("CPU 1's balance moved %d tasks, want 1", n)
	}
	if a.CPU() != 1 && b.CPU() != 1 {
		t.Errorf("CPU 1 took none of CPU 2's tasks (on %d and %d)", a.CPU(), b.CPU())
	}
	for _, p := range pinned {
		if p.CPU() != 0 {
			t.Errorf("pinned %s moved to CPU %d", p, p.CPU())
		}
	}
	if d := h.s.dom(mc); d.balanceInterval != 4 || d.nrBalanceFailed != 0 {
		t.Errorf("balance_interval %d ms, nr_balance_failed %d after the move; want 4 (w) and 0", d.balanceInterval, d.nrBalanceFailed)
	}
}

// MAX_PINNED_INTERVAL (§5.5 rule 15, §1.11: 512 ms): when the only tasks to
// move are pinned, every periodic pass ends all pinned, and the balance
// interval keeps doubling past max_interval (2w = 8 ms for w = 4) up to
// 512 ms: 8, 16, 32, 64, 128, 256, 512, 512. nr_balance_failed stays 0.
// Without pinned tasks a balanced pass stops doubling at max_interval.
func TestAllPinnedBacksOffToMaxPinnedInterval(t *testing.T) {
	for _, pin := range []bool{true, false} {
		h := newHarness(t, oneLLC4x1, noNIRandom)
		n := 3
		if !pin {
			n = 1
		}
		for range n {
			h.pinnedStart(0)
		}
		h.overload()
		mc := h.s.top.Domains(1)[0]
		d := h.s.dom(mc)
		if d.balanceInterval != 4 {
			t.Fatalf("setup: balance_interval %d ms, want w = 4", d.balanceInterval)
		}
		want := []uint64{8, 16, 32, 64, 128, 256, 512, 512}
		if !pin {
			want = []uint64{8, 8, 8}
		}
		var got []uint64
		cont := true
		for range want {
			if n := h.s.balanceRQ(1, mc, cpuIdle, &cont); n != 0 {
				t.Fatalf("pinned %v: %d tasks moved", pin, n)
			}
			got = append(got, d.balanceInterval)
			if d.nrBalanceFailed != 0 {
				t.Errorf("pinned %v: nr_balance_failed %d", pin, d.nrBalanceFailed)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("pinned %v: balance_interval after each pass %v, want %v", pin, got, want)
		}
	}
}
