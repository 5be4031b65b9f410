package smp

import (
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

var (
	oneLLC4x1 = topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 1}
	oneLLC8x1 = topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 8, ThreadsPerCore: 1}
	oneLLC4x2 = topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2}
	twoLLC4x1 = topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 1}
)

// A3 (KERNEL-SPEC-SMP §3.5 rule 2): a sync wakeup from a waker alone on
// its CPU makes the waking CPU the target (wake_affine_idle rule b), which
// is busy; the wakee's previous CPU shares the LLC and is idle, so the
// wakee goes back there.
func TestWakeeReturnsToIdlePreviousCPUSharingTheLLC(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	w := h.pinnedStart(0)
	p := h.pinnedStart(2)
	h.run(5_000_000)
	h.block(2) // p sleeps; CPU 2 idles
	if got := h.wake(free(p), w, eevdf.WFSync); got != 2 {
		t.Fatalf("wakee on CPU %d, want its previous CPU 2", got)
	}
	st := h.s.Stats()
	if st.AffineThis != 1 || st.Placed[RulePrev] != 1 {
		t.Errorf("affine this %d, placed by prev %d; want 1 and 1", st.AffineThis, st.Placed[RulePrev])
	}
}

// a4 sets up KERNEL-SPEC-SMP §6.1 A4: 4 cores × 2 threads, linear
// numbering, a warm machine (has_idle_cores set, nr_idle_scan 8), the
// waker running on CPU 0 and the wakee, last on CPU 0, asleep.
func a4(t *testing.T) (*harness, *Task, *Task) {
	h := newHarness(t, oneLLC4x2, WithPreset(topology.Warm, 1_000_000_000))
	p := h.pinnedStart(0)
	w := h.task(0, WithAllowed(0))
	h.s.WakeUpNew(w)
	h.block(0) // at once: p has lag 0, so it is not delayed
	free(p)
	if h.s.Curr(0) != w || p.Sleeping() == false || p.CPU() != 0 || p.RecentUsedCPU() != 0 {
		t.Fatalf("setup: CPU 0 runs %v, wakee on %d (recent %d)", h.s.Curr(0), p.CPU(), p.RecentUsedCPU())
	}
	return h, p, w
}

// A4: an idle core comes first: the scan from CPU 1 finds core 0 busy
// (CPU 1 is remembered as an idle thread of a busy core) and core 1 wholly
// idle, and takes its first CPU, 2, not sibling 1.
func TestIdleCoreBeforeIdleSibling(t *testing.T) {
	h, p, w := a4(t)
	if !h.s.LLC(0).HasIdleCores {
		t.Fatal("setup: has_idle_cores is not set")
	}
	if got := h.wake(p, w, 0); got != 2 {
		t.Errorf("wakee on CPU %d, want 2 (the first CPU of the first idle core after CPU 0)", got)
	}
	if st := h.s.Stats(); st.Placed[RuleIdleCore] != 1 {
		t.Errorf("placements %v, want one by idle core", st.Placed)
	}
	if !h.s.LLC(0).HasIdleCores {
		t.Error("a scan that found an idle core cleared has_idle_cores")
	}
}

// A4, without an idle core known: select_idle_smt takes CPU 0's sibling.
func TestIdleSiblingWithoutIdleCores(t *testing.T) {
	h, p, w := a4(t)
	h.s.llcs[0].hasIdleCores = false
	if got := h.wake(p, w, 0); got != 1 {
		t.Errorf("wakee on CPU %d, want sibling 1", got)
	}
	if st := h.s.Stats(); st.Placed[RuleIdleSMT] != 1 {
		t.Errorf("placements %v, want one by idle SMT sibling", st.Placed)
	}
}

// A4: a scan with has_idle_cores set that finds no idle core clears the
// flag, and falls back to the first idle thread of a busy core it met.
func TestFailedCoreScanClearsHasIdleCores(t *testing.T) {
	h, p, w := a4(t)
	// One task on the first thread of cores 1, 2 and 3: no core is idle.
	for _, cpu := range []int{2, 4, 6} {
		h.pinnedStart(cpu)
	}
	h.s.llcs[0].hasIdleCores = true
	if got := h.wake(p, w, 0); got != 1 {
		t.Errorf("wakee on CPU %d, want 1: the first idle thread the scan met (core 0's)", got)
	}
	if h.s.LLC(0).HasIdleCores {
		t.Error("has_idle_cores still set after a scan without an idle core")
	}
}

// A5: nr_idle_scan bounds the scan without idle cores: 0 disables it (the
// wakee stays on its busy previous CPU although CPUs idle), k examines the
// k CPUs after the target.
func TestNrIdleScanBoundsTheScan(t *testing.T) {
	for _, tc := range []struct {
		scan int
		want int
	}{
		{0, 0}, // no scan: CPU 4 is idle but never examined
		{3, 0}, // CPUs 1..3 examined, all busy
		{4, 4}, // CPU 4 is the fourth after the target
	} {
		h := newHarness(t, oneLLC8x1)
		p := h.pinnedStart(0)
		w := h.task(0, WithAllowed(0))
		h.s.WakeUpNew(w)
		for cpu := 1; cpu <= 3; cpu++ {
			h.pinnedStart(cpu)
		}
		h.run(3_000_000)
		h.untilPicked(0, p)
		h.block(0)
		free(p)
		h.setNrIdleScan(0, tc.scan)
		if got := h.wake(p, w, 0); got != tc.want {
			t.Errorf("nr_idle_scan %d: wakee on CPU %d, want %d", tc.scan, got, tc.want)
		}
	}
}

// A6: wake_wide with sd_llc_size 8. Waker flips 64, wakee 8: wide (8 ≥ 8,
// 64 ≥ 8·8), so no affine wakeup — the wakee is searched for around its
// previous CPU, in its own LLC; 63 and 8: not wide, wake_affine is asked.
func TestWakeWideSearchesAroundThePreviousCPU(t *testing.T) {
	for _, tc := range []struct {
		waker uint32
		wide  bool
	}{{64, true}, {63, false}} {
		h := newHarness(t, topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 8, ThreadsPerCore: 1})
		w := h.pinnedStart(0)
		p := h.pinnedStart(8)
		h.pinnedStart(9) // keep CPU 8's LLC partly busy
		h.run(5_000_000)
		h.block(8)
		free(p)
		h.setNrIdleScan(1, 8)
		w.wakee = wakee{last: p, flips: tc.waker, decayTs: h.s.Jiffies()}
		p.wakee.flips = 8
		before := h.s.Stats()
		got := h.wake(p, w, 0)
		st := h.s.Stats()
		affine := st.AffineThis + st.AffinePrev - before.AffineThis - before.AffinePrev
		if wide := st.WakeWide > before.WakeWide; wide != tc.wide {
			t.Errorf("flips %d/8: wide %v, want %v", tc.waker, wide, tc.wide)
		}
		if tc.wide && (affine != 0 || h.s.top.LLC(got) != 1) {
			t.Errorf("flips %d/8: %d wake_affine calls, wakee on CPU %d; want none, in CPU 8's LLC", tc.waker, affine, got)
		}
		if !tc.wide && affine != 1 {
			t.Errorf("flips %d/8: %d wake_affine calls, want 1", tc.waker, affine)
		}
	}
}

// A6: a waker alternating between two wakees gains a flip per wakeup; its
// flips halve once, at the first wakeup more than HZ jiffies after the
// last halving, however long ago that was.
func TestWakeeFlipsCountSwitchesAndHalveOncePerSecond(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	w := h.pinnedStart(0)
	a, b := h.pinnedStart(1), h.pinnedStart(2)
	h.run(2_000_000)
	h.block(1)
	h.block(2)
	free(a)
	free(b)
	for i, p := range []*Task{a, b, a, b} {
		h.wake(p, w, 0)
		if got := w.WakeeFlips(); got != uint32(i+1) {
			t.Fatalf("after wakeup %d: flips %d, want %d", i+1, got, i+1)
		}
		cpu := p.CPU()
		h.run(h.now + 1_000_000)
		if h.s.Curr(cpu) == p {
			h.block(cpu)
		} else {
			t.Fatalf("%s does not run on CPU %d", p, cpu)
		}
	}
	// Waking the same wakee again adds nothing.
	h.wake(b, w, 0)
	if got := w.WakeeFlips(); got != 4 {
		t.Fatalf("same wakee again: flips %d, want 4", got)
	}
	h.run(h.now + 1_000_000)
	h.block(b.CPU())
	// More than HZ jiffies after the last halving (at jiffy 0), three
	// seconds even: one halving, then the switch counts.
	h.run(3_000_000_000)
	h.wake(a, w, 0)
	if got := w.WakeeFlips(); got != 4/2+1 {
		t.Errorf("after 3 s: flips %d, want %d", got, 4/2+1)
	}
}

// A6 (§3.3 rule 1): the halving needs time_after(jiffies, decay_ts + HZ),
// strictly more than HZ = 1000 jiffies (HZ=1000, §0.2 item 6): a wakeup
// exactly 1000 jiffies after the last halving only counts the switch
// (4 → 5); one at 1001 jiffies halves first, then counts: ⌊5/2⌋ + 1 = 3,
// and restamps the decay.
func TestWakeeFlipsHalveOnlyMoreThanHZAfterTheLastHalving(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	w := h.pinnedStart(0)
	a, b := h.pinnedStart(1), h.pinnedStart(2)
	h.run(2_000_000)
	h.block(1)
	h.block(2)
	free(a)
	free(b)
	const hz = 1000 // jiffies per second at HZ=1000
	j0 := h.s.Jiffies()
	w.wakee = wakee{last: b, flips: 4, decayTs: j0}
	wakeAt := func(p *Task, jiffy uint64) {
		t.Helper()
		h.at(jiffy * h.s.tickNsec)
		cpu := h.wake(p, w, 0)
		h.settle()
		if h.s.Curr(cpu) != p {
			t.Fatalf("%s does not run on CPU %d", p, cpu)
		}
		h.block(cpu)
	}
	wakeAt(a, j0+hz)
	if w.WakeeFlips() != 5 || w.wakee.decayTs != j0 {
		t.Errorf("exactly HZ after the halving: flips %d (want 5), decay stamp %d (want %d)", w.WakeeFlips(), w.wakee.decayTs, j0)
	}
	wakeAt(b, j0+hz+1)
	if w.WakeeFlips() != 3 || w.wakee.decayTs != j0+hz+1 {
		t.Errorf("HZ + 1 after the halving: flips %d (want 3), decay stamp %d (want %d)", w.WakeeFlips(), w.wakee.decayTs, j0+hz+1)
	}
}

// A7 (KERNEL-SPEC-SMP §6.1): wake_affine_weight at MC, non-sync, both CPUs
// busy. this runs one always-running task (cpu_load 1024); prev runs
// another (load 1024) and the wakee, which has load_avg 1024, so
// cpu_load(prev) = 2048: task_h_load = ⌊1024·2048/2049⌋ = 1023,
// E_this = 2047·100·1024 against E_prev = 1025·108·1024: no verdict for
// this, so prev. With a second always-running task on prev (cpu_load
// 3072, still t = 1023): E_prev = 2049·108·1024 > E_this: this.
//
// The wakee is forked on prev and sleeps at once: until its first period
// boundary its averages are the initial ones (load_avg = its weight, 1024)
// — an always-runnable task settles at 1023 —, and the attach adds them
// to the queue's as they are.
func TestWakeAffineWeight(t *testing.T) {
	for _, tc := range []struct {
		others   int // always-running tasks on prev
		prevLoad uint64
		prevEff  int64
		want     int
	}{
		{others: 1, prevLoad: 2048, prevEff: 1025 * 108 * 1024, want: 1},
		{others: 2, prevLoad: 3072, prevEff: 2049 * 108 * 1024, want: 0},
	} {
		h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1})
		w := h.pinnedStart(0)
		for range tc.others {
			h.pinnedStart(1)
		}
		h.run(3_000_000_000)
		p := h.task(1, WithAllowed(1))
		h.s.WakeUpNew(p)
		if err := h.s.RQ(1).SetNext(p.se); err != nil { // run it now, as a forced pick would
			t.Fatal(err)
		}
		h.block(1)
		p.allowed, p.nrAllowed = h.s.top.All().Clone(), 2
		if l := h.s.cpuLoad(0); l != 1024 {
			t.Fatalf("cpu_load(this) = %d, want 1024", l)
		}
		if l, pl := h.s.cpuLoad(1), p.se.Avg().LoadAvg; l != tc.prevLoad || pl != 1024 {
			t.Fatalf("cpu_load(prev) = %d and the wakee's load_avg %d; want %d and 1024", l, pl, tc.prevLoad)
		}
		if th := h.s.taskHLoad(p); th != 1023 {
			t.Fatalf("task_h_load = %d, want 1023", th)
		}
		sd := h.s.top.Domains(0)[0]
		thisEff, prevEff, early := h.s.wakeAffineLoads(sd, p, 0, 1, false, h.s.current(0))
		if thisEff != 2047*100*1024 || prevEff != tc.prevEff || early {
			t.Errorf("cpu_load(prev) %d: E_this %d, E_prev %d (early %v); want %d, %d",
				tc.prevLoad, thisEff, prevEff, early, 2047*100*1024, tc.prevEff)
		}
		if got := h.wake(p, w, 0); got != tc.want {
			t.Errorf("cpu_load(prev) %d: wakee on CPU %d, want %d", tc.prevLoad, got, tc.want)
		}
	}
}

// A7: a sync wakeup by a waker alone on its CPU gives this at once
// (wake_affine_idle rule b), whatever the loads.
func TestSyncWakeupByLoneWakerIsAffine(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1})
	h.pinnedStart(0) // the waker, alone on CPU 0
	p := h.pinnedStart(1)
	h.pinnedStart(1)
	h.run(50_000_000)
	h.untilPicked(1, p)
	h.block(1)
	if got := h.s.wakeAffineIdle(0, 1, true); got != 0 {
		t.Errorf("wake_affine_idle(sync) = %d, want this (0)", got)
	}
	if got := h.s.wakeAffineIdle(0, 1, false); got != -1 {
		t.Errorf("wake_affine_idle(not sync) = %d, want no opinion", got)
	}
}

// A7, the whole wakeup (try_to_wake_up → select_task_rq_fair): the waker
// runs alone on CPU 0, which also carries the blocked load of a task that
// slept there, so cpu_load(this) ≈ 2048 although nr_running is 1; the
// wakee slept on CPU 1, where another task keeps running. The loads favour
// prev, with or without sync (wake_affine_weight has no verdict for this).
// Without sync the wakee returns to CPU 1; with WF_SYNC rule 1b answers
// this at once, and select_idle_sibling, finding target and prev busy and
// no scan allowed (nr_idle_scan 0), keeps the waker's CPU.
func TestSyncWakeupByLoneWakerLandsOnTheWakersCPU(t *testing.T) {
	for _, tc := range []struct {
		wf   eevdf.WakeFlags
		want int
	}{{0, 1}, {eevdf.WFSync, 0}} {
		h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1})
		w := h.pinnedStart(0)
		q := h.pinnedStart(0)
		p := h.pinnedStart(1)
		h.pinnedStart(1)
		h.run(100_000_000)
		h.untilPicked(0, q)
		h.block(0) // q sleeps on CPU 0: its load stays there, blocked
		h.untilPicked(1, p)
		h.block(1)
		free(p)
		if h.s.Curr(0) != w || h.s.RQ(0).NrRunning() != 1 {
			t.Fatalf("setup: CPU 0 runs %v with %d tasks, want the waker alone", h.s.Curr(0), h.s.RQ(0).NrRunning())
		}
		sd := h.s.top.Domains(0)[0]
		thisEff, prevEff, early := h.s.wakeAffineLoads(sd, p, 0, 1, tc.wf&eevdf.WFSync != 0, h.s.current(0))
		if early || thisEff < prevEff {
			t.Fatalf("setup: the loads decide for this (E_this %d, E_prev %d, early %v)", thisEff, prevEff, early)
		}
		got := h.wake(p, w, tc.wf)
		st := h.s.Stats()
		if got != tc.want {
			t.Errorf("wake flags %#x: wakee on CPU %d, want %d", tc.wf, got, tc.want)
		}
		if this := uint64(1 - tc.want); st.AffineThis != this || st.AffinePrev != 1-this {
			t.Errorf("wake flags %#x: affine verdicts this %d, prev %d", tc.wf, st.AffineThis, st.AffinePrev)
		}
		// The sync wakeup moved the wakee to the waker's CPU: an affine pull.
		if pulls := uint64(1 - tc.want); st.MigratedAffine != pulls || st.Migrations != pulls {
			t.Errorf("wake flags %#x: %d migrations, %d affine pulls; want %d of each", tc.wf, st.Migrations, st.MigratedAffine, pulls)
		}
	}
}

// A8: a fork on a 2-LLC machine with the parent busy on LLC 0 and every
// other CPU idle goes to LLC 1, to the CPU that idled most recently.
func TestForkGoesToTheMostRecentlyIdledCPUOfTheIdlestLLC(t *testing.T) {
	h := newHarness(t, twoLLC4x1)
	parent := h.pinnedStart(0)
	// CPUs 1..7 each run a task briefly, the last to idle being CPU 5.
	order := []int{1, 2, 3, 4, 6, 7, 5}
	for i, cpu := range order {
		h.pinnedStart(cpu)
		h.at(h.now + uint64(i+1)*100_000)
		h.block(cpu)
	}
	h.at(h.now + 1_000_000)
	child := h.task(0, WithParent(parent), WithAllowed(0, 1, 2, 3, 4, 5, 6, 7))
	if got := h.s.WakeUpNew(child); got != 5 {
		t.Errorf("child on CPU %d, want 5 (idle_stamps: %v)", got, stamps(h.s))
	}
	if st := h.s.Stats(); st.Placed[RuleSlowPath] != 1 || st.ForkBalance != 1 {
		t.Errorf("placements %v, fork balance %d", st.Placed, st.ForkBalance)
	}
}

// A8 with one LLC whose idle CPUs all have idle_stamp 0 (never newly
// idle): the parent runs on CPU 0 of LLC 0, every other CPU idles with
// distinct idle_stamps (set here; those CPUs never ran anything, so their
// utilization is 0), except the zeroed LLC's.
//
// LLC 1 all zero: at PKG LLC 1 is the idlest group (4 idle CPUs against 3),
// but find_dst_group_cpu sees no idle candidate in it (a stamp must be
// above 0) and no busy CPU either, so it returns the forking CPU; the walk
// descends to CPU 0's MC, whose one-CPU groups 1–3 tie (one idle CPU, no
// utilization each): the first, CPU 1, although LLC 1 is idler (§3.7
// rule 5).
//
// LLC 0 all zero: nothing changes: LLC 1 is chosen at PKG and its most
// recently idled CPU, 6, takes the child.
func TestForkIgnoresIdleCPUsWithZeroIdleStamp(t *testing.T) {
	// CPU i's idle_stamp, distinct by CPU; CPU 6 idled most recently.
	distinct := []uint64{0, 1_100_000, 1_300_000, 1_250_000, 1_200_000, 1_500_000, 1_700_000, 1_150_000}
	for _, tc := range []struct {
		zero []int
		want int
	}{
		{[]int{4, 5, 6, 7}, 1},
		{[]int{1, 2, 3}, 6},
	} {
		h := newHarness(t, twoLLC4x1)
		parent := h.pinnedStart(0)
		h.at(2_000_000)
		for cpu := 1; cpu < 8; cpu++ {
			h.s.cpus[cpu].idleStamp = distinct[cpu]
		}
		for _, cpu := range tc.zero {
			h.s.cpus[cpu].idleStamp = 0
		}
		child := h.task(0, WithParent(parent), WithAllowed(0, 1, 2, 3, 4, 5, 6, 7))
		if got := h.s.WakeUpNew(child); got != tc.want {
			t.Errorf("stamps 0 on CPUs %v: child on CPU %d, want %d (idle_stamps %v)", tc.zero, got, tc.want, stamps(h.s))
		}
	}
}

func stamps(s *System) []uint64 {
	var st []uint64
	for i := range s.cpus {
		st = append(st, s.cpus[i].idleStamp)
	}
	return st
}

// A11: a delayed task is requeued on its own CPU by its wakeup: no CPU is
// selected (the waker's statistics do not change), even though the waker's
// CPU is idle-adjacent and the task could run elsewhere.
func TestDelayedTaskWakesInPlace(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	w := h.pinnedStart(1)
	a := h.pinnedStart(0)
	b := h.task(0, WithAllowed(0))
	h.s.WakeUpNew(b)
	h.resched(0)
	// a runs past b's vruntime, then sleeps: ineligible, so delayed.
	for h.s.Curr(0) != a {
		h.run(h.now + 1_000_000)
	}
	h.at(h.now + 600_000)
	h.block(0)
	if !a.se.Delayed() {
		t.Fatalf("setup: %s is not delayed (lag %d)", a, h.s.RQ(0).Lag(a.se))
	}
	flips := w.WakeeFlips()
	if got := h.wake(free(a), w, 0); got != 0 {
		t.Errorf("delayed task woken on CPU %d, want its own CPU 0", got)
	}
	if a.se.Delayed() || !a.se.OnRq() {
		t.Errorf("after the wakeup: delayed %v, on_rq %v", a.se.Delayed(), a.se.OnRq())
	}
	if w.WakeeFlips() != flips || h.s.Stats().Placed[RuleInPlace] != 1 {
		t.Errorf("a CPU was selected: flips %d → %d, placements %v", flips, w.WakeeFlips(), h.s.Stats().Placed)
	}
}
