package smp

import (
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// newPresetHarness is newHarness on a named machine (topology.LookupMachine)
// at the preset's HZ.
func newPresetHarness(t testing.TB, name string, opts ...Option) *harness {
	t.Helper()
	p, err := topology.LookupMachine(name)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]Option{WithTickNsec(eevdf.TickNsecForHZ(uint64(p.HZ)))}, opts...)
	s, err := New(top, opts...)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, now: s.Clock()}
	h.at(1_000_000)
	return h
}

// freeAll lets t run on every CPU, with its max_allowed_capacity
// recomputed as an affinity change does.
func freeAll(t *Task) *Task {
	free(t)
	t.sys.setTaskMaxAllowedCapacity(t)
	return t
}

// AS3: fits_capacity's 80 % margin and capacity_greater's ≈ 5 % margin at
// the RB5's capacities.
func TestAsymMargins(t *testing.T) {
	for _, tc := range []struct {
		u, c uint64
		fits bool
	}{{227, 284, true}, {228, 284, false}, {696, 871, true}, {697, 871, false}, {819, 1024, true}, {820, 1024, false},
		{208, 261, true}, {209, 261, false}, {640, 801, true}, {641, 801, false}} {
		if got := fitsCapacity(tc.u, tc.c); got != tc.fits {
			t.Errorf("fits_capacity(%d, %d) = %v", tc.u, tc.c, got)
		}
	}
	for _, tc := range []struct {
		a, b    uint64
		greater bool
	}{{871, 284, true}, {1024, 871, true}, {1024, 284, true}, {871, 871, false}, {284, 871, false},
		{801, 261, true}, {1024, 801, true}, {1078, 1024, false}, {1079, 1024, true}} {
		if got := capacityGreater(tc.a, tc.b); got != tc.greater {
			t.Errorf("capacity_greater(%d, %d) = %v", tc.a, tc.b, got)
		}
	}
}

// On the RB5, a CPU hog forked on little CPU 0 is running on a big CPU
// (4–7) within 100 ms: its util, measured on CPU 0's slow PELT clock,
// passes 227 after about 4.7 ms of PELT time (17 ms of wall time), the
// next tick flags CPU 0 misfit, and the first idle big CPU whose periodic
// balance falls due pulls it by active balance.
//
// AS7's bookkeeping holds on the way: the pulling CPU's failure counter is
// not raised by the misfit and its balance interval is not doubled; with
// idle ticks stopped (AS8) the misfit makes CPU 0's tick kick an idle load
// balancer, which pulls the hog the same way.
func TestRB5HogMovesToBigCPU(t *testing.T) {
	for _, mode := range []NohzMode{NohzOff, NohzIdle} {
		t.Run(mode.String(), func(t *testing.T) { testRB5HogMovesToBigCPU(t, mode) })
	}
}

func testRB5HogMovesToBigCPU(t *testing.T, mode NohzMode) {
	h := newPresetHarness(t, "rb5", WithNohz(mode))
	hog := h.taskWith(0, nil)
	cpu := h.s.WakeUpNew(hog)
	h.resched(cpu)
	h.check()
	t.Logf("forked on CPU %d", cpu)
	if cpu >= 4 {
		t.Fatalf("the fork of a new task (util 0, fits everywhere) left CPU 0's group for CPU %d", cpu)
	}
	start := h.now
	for h.s.Curr(hog.CPU()) == hog && hog.CPU() < 4 && h.now-start < 100_000_000 {
		h.run(h.now + 1_000_000)
	}
	if hog.CPU() < 4 || h.s.Curr(hog.CPU()) != hog {
		t.Fatalf("after %d ms the hog is on CPU %d (running %v), util %d", (h.now-start)/1e6, hog.CPU(), h.s.Curr(hog.CPU()) == hog, hog.se.Avg().UtilAvg)
	}
	t.Logf("on CPU %d after %d ms, %d active kicks", hog.CPU(), (h.now-start)/1e6, h.s.Stats().ActiveKicks)
	if h.s.MisfitTaskLoad(0) != 0 && h.s.Curr(0) == nil {
		t.Errorf("CPU 0 idle with misfit_task_load %d", h.s.MisfitTaskLoad(0))
	}
	if h.s.Stats().ActiveKicks != 1 {
		t.Errorf("%d active kicks, want the one of the misfit", h.s.Stats().ActiveKicks)
	}
	sd := h.s.top.Base(hog.CPU())
	if d := h.s.dom(sd); d.nrBalanceFailed != 0 || d.balanceInterval != sd.MinInterval() {
		t.Errorf("CPU %d after the pull: nr_balance_failed %d, balance_interval %d (want 0, %d)", hog.CPU(), d.nrBalanceFailed, d.balanceInterval, sd.MinInterval())
	}
}

// A light periodic task on the RB5 — 1 ms of running every 16 ms, util
// about 1024·1/16·(PELT on a little CPU runs slower still) — stays on the
// little CPU it started on: it fits there (util far below 227), so its
// wakeups take select_idle_sibling's target shortcut and no CPU ever
// records a misfit for it.
func TestRB5LightPeriodicTaskStaysLittle(t *testing.T) {
	h := newPresetHarness(t, "rb5")
	p := h.taskWith(0, nil)
	cpu := h.s.WakeUpNew(p)
	h.resched(cpu)
	if cpu >= 4 {
		t.Fatalf("forked on big CPU %d", cpu)
	}
	for period := 0; period < 60; period++ {
		start := h.now
		h.run(start + 1_000_000)
		if h.s.Curr(p.CPU()) != p {
			t.Fatalf("period %d: not running", period)
		}
		h.block(p.CPU())
		h.settle()
		h.run(start + 16_000_000)
		got := h.wake(p, nil, 0)
		h.resched(got)
		h.settle()
		if got != cpu || p.CPU() != cpu {
			t.Fatalf("period %d: woke on CPU %d, want %d (util %d)", period, got, cpu, p.se.Avg().UtilAvg)
		}
		for c := range 8 {
			if h.s.MisfitTaskLoad(c) != 0 {
				t.Fatalf("period %d: CPU %d has a misfit", period, c)
			}
		}
	}
	if u := taskUtilEst(p); u > 227 || u == 0 {
		t.Errorf("util_est %d after a second", u)
	}
	t.Logf("util %d, util_est %d", p.se.Avg().UtilAvg, taskUtilEst(p))
}

// AS4: select_idle_capacity on the RB5 with target = prev = 1, CPUs 2, 3,
// 5, 7 idle and 0, 1, 4, 6 busy.
func TestSelectIdleCapacity(t *testing.T) {
	h := newPresetHarness(t, "rb5")
	for _, c := range []int{0, 1, 4, 6} {
		h.pinnedStart(c)
	}
	p := h.taskWith(1, nil)
	sd := h.s.top.SDAsymCPUCapacity(1)
	for _, tc := range []struct {
		name   string
		scan   int
		u      uint64
		want   int
		reason string
	}{
		{"first idle CPU that fits", 8, 300, 5, "1 busy, 2 and 3 too small (best 2), 4 busy, 5 fits"},
		{"scan limit returns the best so far", 4, 300, 2, "CPUs 1-4 examined, the 5th iteration returns best"},
		{"no scan at all", 0, 300, -1, "nr_idle_scan 0: none, the caller returns target"},
		{"fits nowhere: the biggest idle CPU", 8, 850, 7, "2 (284) → 5 (871) → 7 (1024)"},
		{"small task: first idle CPU after target", 8, 100, 2, "2 is idle and 100 fits 284"},
	} {
		h.setNrIdleScan(0, tc.scan)
		if got := h.s.selectIdleCapacity(p, sd, 1, tc.u); got != tc.want {
			t.Errorf("%s: CPU %d, want %d (%s)", tc.name, got, tc.want, tc.reason)
		}
	}
}

// AS6 in parts: group classification and the pick of the busiest group
// from big CPU 4 and from little CPU 2, with the spec's numbers.
func TestAsymClassifyAndPick(t *testing.T) {
	h := newPresetHarness(t, "rb5")
	s := h.s
	// CPU 5: one task of util 760 on a gold CPU: fully busy (760 > 744).
	gold := sgStats{sumNrRunning: 1, sumHNrRunning: 1, groupWeight: 1, groupCapacity: 871, groupUtil: 760, groupRunnable: 760}
	if g := groupClassify(117, &gold); g != groupFullyBusy {
		t.Errorf("gold CPU at util 760: %v, want fully_busy", g)
	}
	// CPU 0: p (util 230, runnable 230) alone on a little CPU: has_spare
	// seen from a little CPU (230 ≤ 242, 230 ≤ 332), misfit_task once its
	// load is recorded.
	little := sgStats{sumNrRunning: 1, sumHNrRunning: 1, groupWeight: 1, groupCapacity: 284, groupUtil: 230, groupRunnable: 230}
	if g := groupClassify(117, &little); g != groupHasSpare {
		t.Errorf("little CPU at util 230: %v, want has_spare", g)
	}
	// The misfit is recorded from CPU 4 (871 noticeably above 284), not
	// from CPU 2 (284 vs 284) and not CPU 5's from CPU 4 (871 vs 871); any
	// misfit seen at the top domain overloads the root.
	s.cpus[0].misfitTaskLoad = 1023
	s.cpus[5].misfitTaskLoad = 700
	sd4, sd2 := s.top.Base(4), s.top.Base(2)
	g0, g5 := sd4.Group(4), sd4.Group(1)
	if g0.FirstCPU() != 0 || g5.FirstCPU() != 5 {
		t.Fatalf("group order from CPU 4: %d, %d", g0.FirstCPU(), g5.FirstCPU())
	}
	for _, tc := range []struct {
		dst  int
		sd   *topology.Domain
		g    *topology.Group
		cpu  int
		want uint64
	}{{4, sd4, g0, 0, 1023}, {2, sd2, g0, 0, 0}, {4, sd4, g5, 5, 0}, {7, s.top.Base(7), g5, 5, 700}} {
		env := lbEnv{sd: tc.sd, dstCPU: tc.dst}
		st := little
		over := false
		s.asymMisfitStats(&env, tc.g, tc.cpu, true, &st, &over)
		if st.groupMisfitTaskLoad != tc.want || !over {
			t.Errorf("from CPU %d, CPU %d's misfit: recorded %d, want %d; root overloaded %v", tc.dst, tc.cpu, st.groupMisfitTaskLoad, tc.want, over)
		}
	}
	mis := little
	mis.groupMisfitTaskLoad = 1023
	if g := groupClassify(117, &mis); g != groupMisfitTask {
		t.Errorf("with a recorded misfit: %v, want misfit_task", g)
	}
	// The pick from CPU 4 (local has_spare): gold CPU 5 fully busy is not
	// vetoed (871 is not noticeably above 871), the misfit group is taken
	// over it; from little CPU 2 a fully busy gold group is vetoed
	// (871 noticeably above 284), and a misfit group is never the busiest
	// for a CPU not noticeably bigger.
	sds := sdStats{localSt: sgStats{groupType: groupHasSpare}}
	gold.groupType = groupFullyBusy
	mis.groupType = groupMisfitTask
	env4 := lbEnv{sd: sd4, dstCPU: 4}
	if s.asymPickVeto(&env4, &sds, g5, &gold) || s.asymPickVeto(&env4, &sds, g0, &mis) {
		t.Error("CPU 4 vetoes group 5 or the misfit group 0")
	}
	env2 := lbEnv{sd: sd2, dstCPU: 2}
	if !s.asymPickVeto(&env2, &sds, sd2.Group(3), &gold) || !s.asymPickVeto(&env2, &sds, sd2.Group(6), &mis) {
		t.Error("CPU 2 does not veto the gold group or an unrelievable misfit")
	}
	busyLocal := sdStats{localSt: sgStats{groupType: groupFullyBusy}}
	if !s.asymPickVeto(&env4, &busyLocal, g0, &mis) {
		t.Error("a misfit is picked although the local group has no spare capacity")
	}
	// Two misfit groups: the larger misfit load wins.
	sds.busiestSt = mis
	more := mis
	more.groupMisfitTaskLoad = 1024
	if !updateSdPickBusiest(&sds, g5, &more) || updateSdPickBusiest(&sds, g5, &mis) {
		t.Error("misfit groups are not ordered by misfit load")
	}
	s.cpus[0].misfitTaskLoad, s.cpus[5].misfitTaskLoad = 0, 0
}

// AS5 in motion: a task allowed on CPUs 0 and 7 only, running alone on
// little CPU 0, becomes a misfit at the first tick after its util_est
// passes 227, with misfit_task_load = max(task_h_load, 1); tasks that may
// use only CPU 0, or only little CPUs, never do.
func TestMisfitStatus(t *testing.T) {
	h := newPresetHarness(t, "rb5")
	pinned := h.pinnedStart(1)                          // allowed {1}: nr_cpus_allowed 1
	littleOnly := h.taskWith(2, nil, WithAllowed(2, 3)) // max_allowed_capacity 284
	if cpu := h.s.WakeUpNew(littleOnly); cpu != 2 && cpu != 3 {
		t.Fatalf("little-only task forked on %d", cpu)
	}
	h.resched(littleOnly.CPU())
	p := h.taskWith(0, nil, WithAllowed(0, 7))
	if cpu := h.s.WakeUpNew(p); cpu != 0 {
		t.Fatalf("forked on %d", cpu)
	}
	h.resched(0)
	if p.MaxAllowedCapacity() != 1024 || littleOnly.MaxAllowedCapacity() != 284 || pinned.MaxAllowedCapacity() != 284 {
		t.Fatalf("max_allowed_capacity %d, %d, %d", p.MaxAllowedCapacity(), littleOnly.MaxAllowedCapacity(), pinned.MaxAllowedCapacity())
	}
	flagged := false
	for i := 0; i < 200 && p.CPU() == 0; i++ {
		// One tick instant by hand, CPU 0's tick first, so that its
		// misfit value is read right after task_tick_fair set it.
		h.at((h.now/h.s.tickNsec + 1) * h.s.tickNsec)
		h.s.Tick(0)
		m, u := h.s.MisfitTaskLoad(0), taskUtilEst(p)
		switch {
		case u > 227 && m != max(h.s.taskHLoad(p), 1):
			t.Fatalf("util_est %d: misfit_task_load %d, want max(task_h_load %d, 1)", u, m, h.s.taskHLoad(p))
		case u <= 227 && m != 0:
			t.Fatalf("util_est %d fits 284, yet misfit_task_load %d", u, m)
		}
		flagged = flagged || m != 0
		h.resched(0)
		for c := 1; c < 8; c++ {
			h.s.Tick(c)
			h.resched(c)
		}
		h.settle()
		h.check()
		for _, c := range []int{1, 2, 3} {
			if h.s.MisfitTaskLoad(c) != 0 {
				t.Fatalf("CPU %d flags a task that cannot go bigger", c)
			}
		}
	}
	if !flagged {
		t.Fatalf("never flagged; on CPU %d with util_est %d", p.CPU(), taskUtilEst(p))
	}
	if p.CPU() != 7 {
		t.Fatalf("the misfit went to CPU %d, the only bigger CPU it may use is 7", p.CPU())
	}
	// The gold CPUs saw the misfit but could not take it (not allowed
	// there): a misfit failure is not counted (§7.8).
	for _, c := range []int{4, 5, 6} {
		if d := h.s.dom(h.s.top.Base(c)); d.nrBalanceFailed != 0 {
			t.Errorf("CPU %d: nr_balance_failed %d", c, d.nrBalanceFailed)
		}
	}
	h.run(h.now + 2*h.s.tickNsec)
	if h.s.MisfitTaskLoad(7) != 0 {
		t.Errorf("CPU 7 flags the task that is on its biggest allowed CPU")
	}
}

// §1.5: cpu_util never exceeds the CPU's own capacity. A hog pinned to
// little CPU 0 drives the queue's util_avg towards 1024 (its PELT clock is
// never idle), but the CPU reports 284; and the hog, pinned, is never a
// misfit.
func TestCPUUtilCappedAtCapacity(t *testing.T) {
	h := newPresetHarness(t, "rb5")
	h.pinnedStart(0)
	h.run(h.now + 500_000_000)
	if a := h.s.RQ(0).Avg().UtilAvg; a < 900 {
		t.Fatalf("queue util_avg %d after 500 ms of a hog", a)
	}
	if u := h.s.cpuUtilCfs(0); u != 284 {
		t.Errorf("cpu_util_cfs(0) = %d, want 284", u)
	}
	if h.s.MisfitTaskLoad(0) != 0 {
		t.Errorf("a pinned hog is a misfit")
	}
}

// §7.6: on an asymmetric domain the only task of a CPU that is not
// noticeably smaller than the destination is never taken.
func TestAsymSkipSrcRq(t *testing.T) {
	h := newPresetHarness(t, "rb5")
	for _, tc := range []struct {
		dst, src, nr int
		skip         bool
	}{{4, 5, 1, true}, {4, 7, 1, true}, {4, 0, 1, false}, {4, 5, 2, false}, {7, 4, 1, false}, {0, 1, 1, true}} {
		env := lbEnv{sd: h.s.top.Base(tc.dst), dstCPU: tc.dst}
		if got := h.s.asymSkipSrcRq(&env, tc.src, tc.nr); got != tc.skip {
			t.Errorf("dst %d, src %d with %d tasks: skip %v, want %v", tc.dst, tc.src, tc.nr, got, tc.skip)
		}
	}
}

// §4.2 rule 1: a task too big for its idle little CPU is not woken there
// (nor on idle prev, also little) but on an idle CPU it fits.
//
// With UTIL_EST off, so that the task's signal is its util_avg alone (an
// estimate does not decay while the task sleeps).
func TestMisfitWakeup(t *testing.T) {
	h := newPresetHarness(t, "rb5", WithFeatures(features.Default().Toggle(features.UtilEst, false)))
	big := h.pinnedStart(0)
	h.run(h.now + 100_000_000)
	h.block(0)
	h.settle()
	freeAll(big)
	if u := taskUtilEst(big); u <= 227 {
		t.Fatalf("util_est %d fits a little CPU", u)
	}
	cpu, rule := h.s.selectIdleSibling(big, 1, 0)
	if cpu != 4 || rule != RuleIdleCPU {
		t.Errorf("wakeup with idle little target 0 and prev 1: CPU %d by %v, want 4 by idle_cpu", cpu, rule)
	}
	// 300 ms later CPU 0's blocked averages have decayed; the wakeup
	// first syncs the task to its queue (§4.2 step 0), after which it
	// fits little CPU 0 again.
	h.run(h.now + 300_000_000)
	if cpu, rule := h.s.selectIdleSibling(big, 0, 0); cpu != 0 || rule != RuleTarget {
		t.Errorf("after 300 ms asleep: CPU %d by %v, want 0 by target (util_est %d)", cpu, rule, taskUtilEst(big))
	}
}

// AS15: on a saturated RB5 Σ cpu_util = 4·284 + 3·871 + 1024 = 4773, x =
// 596, t = ⌊596²·117²/(10⁴·1024)⌋ = 474 and nr_idle_scan = ⌊550·8/1024⌋
// = 4: the asymmetric wakeup scan never switches itself off there.
func TestRB5NrIdleScanSaturated(t *testing.T) {
	h := newPresetHarness(t, "rb5")
	env := lbEnv{sd: h.s.top.Base(0), dstCPU: 0, idle: cpuIdle}
	h.s.updateIdleCPUScan(&env, 4*284+3*871+1024)
	if got := h.s.llcs[0].nrIdleScan; got != 4 {
		t.Errorf("nr_idle_scan %d, want 4", got)
	}
}

// AS16 through smp and §4.5 rule 1: a task forked on idle little CPU 0
// starts at util ⌊284/2⌋ = 142; once it has grown too big for a little CPU,
// its exec's slow path types every little group misfit_task and takes the
// first idle CPU it fits, gold CPU 4, instead of staying on its own idle
// CPU.
func TestRB5ForkUtilAndExecOfABigTask(t *testing.T) {
	h := newPresetHarness(t, "rb5")
	p := h.pinnedStart(0)
	if u := p.se.Avg().UtilAvg; u != 142 {
		t.Errorf("initial util %d on a 284 CPU, want 142", u)
	}
	h.run(h.now + 100_000_000)
	freeAll(p)
	if u := taskUtilEst(p); u <= 227 || u > 696 {
		t.Fatalf("util_est %d: want a task too big for a little CPU that fits a gold one", u)
	}
	if got := h.s.Exec(0); got != 4 {
		t.Errorf("exec moved the task to CPU %d, want 4", got)
	}
}

// §4.5 rules 3 and 4: a task that fits no CPU (util_est above 819) sees
// every group as misfit_task at exec; from little CPU 0 it goes to the
// group of the biggest CPU, 7; from CPU 7 it stays.
func TestRB5ExecOfATaskThatFitsNowhere(t *testing.T) {
	for _, tc := range []struct {
		from, want int
		run        uint64
	}{{0, 7, 400_000_000}, {7, 7, 100_000_000}} {
		h := newPresetHarness(t, "rb5")
		p := h.pinnedStart(tc.from)
		h.run(h.now + tc.run)
		freeAll(p)
		if u := taskUtilEst(p); u <= 819 {
			t.Fatalf("from CPU %d: util_est %d fits the biggest CPU", tc.from, u)
		}
		if got := h.s.Exec(tc.from); got != tc.want {
			t.Errorf("exec from CPU %d went to CPU %d, want %d", tc.from, got, tc.want)
		}
	}
}

// An asymmetric domain above the LLCs (two LLCs, little and big) has a
// shared object of its own (KERNEL-SPEC-ASYM §2.5), whose nr_idle_scan
// bounds select_idle_capacity (§4.3 step 2): its span's weight on a warm
// machine, 0 at boot (and then the scan returns nothing at once), and
// recomputed by a periodic balance of that domain from its utilization,
// w and imbalance_pct being the domain's: Σ util = 2048 over w = 4 is
// x = 512, t = ⌊512²·p²/(10⁴·1024)⌋ capped at 1024, and nr_idle_scan =
// ⌊(1024 − t)·4/1024⌋ (2 for the domain's p of 117).
func TestAsymAboveLLCScanBound(t *testing.T) {
	m := topology.Machine{Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 2, ThreadsPerCore: 1}
	top, err := topology.BuildCapacities(m, []uint64{512, 512, 1024, 1024})
	if err != nil {
		t.Fatal(err)
	}
	sd := top.SDAsymCPUCapacity(0)
	if sd == nil || sd == top.SDLLC(0) || top.NumSharedIDs() != top.NumLLCs()+1 {
		t.Fatalf("the asym domain %v is not above the LLCs (%d shared IDs)", sd, top.NumSharedIDs())
	}
	for _, tc := range []struct {
		preset topology.Preset
		want   int
	}{{topology.Warm, 4}, {topology.Boot, 0}} {
		s, err := New(top, WithPreset(tc.preset, 1_000_000))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.LLC(top.NumLLCs()).NrIdleScan; got != tc.want {
			t.Errorf("%v: the asym object's nr_idle_scan %d, want %d", tc.preset, got, tc.want)
		}
		se, _ := eevdf.NewEntity("p")
		p, err := s.NewTask(se, WithCPU(0))
		if err != nil {
			t.Fatal(err)
		}
		got := s.selectIdleCapacity(p, sd, 0, 0)
		if tc.want == 0 && got != -1 {
			t.Errorf("%v: an nr_idle_scan of 0 scanned and found CPU %d", tc.preset, got)
		}
		if tc.want > 0 && got != 0 {
			t.Errorf("%v: the scan from idle target 0 found CPU %d, want 0", tc.preset, got)
		}
	}
	s, err := New(top, WithPreset(topology.Warm, 1_000_000))
	if err != nil {
		t.Fatal(err)
	}
	pct := uint64(sd.ImbalancePct())
	x := uint64(2048 / 4)
	tt := min(x*x*pct*pct/(10000*1024), 1024)
	want := int((1024 - tt) * 4 / 1024)
	llcBefore := s.LLC(top.LLC(0)).NrIdleScan
	s.updateIdleCPUScan(&lbEnv{sd: sd, dstCPU: 0, idle: cpuIdle}, 2048)
	if got := s.LLC(top.NumLLCs()).NrIdleScan; got != want || want == 4 {
		t.Errorf("after a balance of the asym domain: nr_idle_scan %d, want %d (imbalance_pct %d)", got, want, pct)
	}
	if got := s.LLC(top.LLC(0)).NrIdleScan; got != llcBefore {
		t.Errorf("the LLC's nr_idle_scan changed to %d by the asym domain's balance", got)
	}
}
