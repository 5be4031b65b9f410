package smp

import (
	"slices"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/topology"
)

// synthView is find_energy_efficient_cpu's snapshot on KERNEL-SPEC-ASYM
// §10.3's machine (CPUs 0–1 capacity 512, 2–3 capacity 1024, rd->pd =
// [{2,3}, {0,1}]), with the CPUs' (util_avg = runnable_avg, util_est) and
// p's signals (util_avg = runnable_avg = util_est = pu, blocked on pcpu).
func synthView(t *testing.T, util, est [4]uint64, pcpu int, pu uint64) *easView {
	t.Helper()
	h := easHarness(t, "biglittle:2*512,2*1024", energy.Synthetic2x2())
	pds := h.s.PerfDomains() // rd->pd, as the System lists it
	all := topology.NewMask(4)
	for c := range 4 {
		all.Set(c)
	}
	v := &easView{caps: []uint64{512, 512, 1024, 1024}, utilEst: true, allowed: all, span: all, pds: pds,
		p: taskSignals{cpu: pcpu, util: pu, runnable: pu, utilEst: pu, utilEstMax: pu}}
	for c := range 4 {
		v.sig = append(v.sig, cpuSignals{util: util[c], runnable: util[c], utilEst: est[c]})
	}
	return v
}

// energies returns compute_energy of pd (its first CPU) for each dst, as
// the search computes them (pd_busy_time first).
func (v *easView) energies(pdFirst int, dsts ...int) []uint64 {
	var pd *energy.Domain
	for _, d := range v.pds {
		if d.FirstCPU() == pdFirst {
			pd = d
		}
	}
	env := energyEnv{taskBusyTime: v.p.utilEstMax, cpuCap: v.caps[pdFirst], pdCap: v.caps[pdFirst] * uint64(len(pd.CPUs()))}
	v.eenvPdBusyTime(&env, pd.CPUs())
	var out []uint64
	for _, d := range dsts {
		out = append(out, v.computeEnergy(&env, pd, d))
	}
	return out
}

// AS12: p (util 100) was on big CPU 2. Domain {2,3} first: prev 2 keeps
// the most spare (924; CPU 3 with p has 624 and is not evaluated); base
// ⌊7812·300⌋ = 2 343 600 (max util 300 + 75 = 375 → state 0), with p on 2
// 3 124 800: prev_delta 781 200. Domain {0,1}: CPU 1 has the most spare
// (412); base 3906·150 = 585 900 (max util 150 + 37 = 187 → state 0),
// with p on 1 3906·250 = 976 500: delta 390 600 < 781 200 → CPU 1, a
// little CPU. On CPU 0 instead max util 250 + 62 = 312 > 256 would need
// state 1 (cost 7812): 1 953 000, delta 1 367 100.
func TestFEECWorkedExampleAS12(t *testing.T) {
	v := synthView(t, [4]uint64{150, 0, 100, 300}, [4]uint64{150, 0, 0, 300}, 2, 100)
	if got := v.energies(2, -1, 2); !slices.Equal(got, []uint64{2343600, 3124800}) {
		t.Errorf("big domain: base, prev = %v, want [2343600 3124800]", got)
	}
	if got := v.energies(0, -1, 1, 0); !slices.Equal(got, []uint64{585900, 976500, 1953000}) {
		t.Errorf("little domain: base, on 1, on 0 = %v, want [585900 976500 1953000]", got)
	}
	if got := v.feecSearch(2); got != 1 {
		t.Errorf("find_energy_efficient_cpu = %d, want 1 (delta 390 600 < prev's 781 200)", got)
	}
	// The same choice made by a System from its runqueues' signals is
	// tested by driving it (TestEASPlacesOnTheLeastEnergy).
}

// AS17: p (util 100) was on little CPU 1. Domain {2,3} comes first in
// rd->pd: CPU 2 (spare 924) adds 781 200 and is taken provisionally
// (best_fits was −1). Domain {0,1}: prev 1 (spare 412) adds 390 600,
// which best_delta takes; CPU 0 (spare 262 ≤ 412) is not evaluated. The
// end test 390 600 < 390 600 fails: prev wins the tie, not CPU 2.
func TestFEECPrevKeptOnEqualDeltaAS17(t *testing.T) {
	v := synthView(t, [4]uint64{150, 100, 0, 300}, [4]uint64{150, 0, 0, 300}, 1, 100)
	if got := v.energies(2, -1, 2); !slices.Equal(got, []uint64{2343600, 3124800}) {
		t.Errorf("big domain: base, on 2 = %v", got)
	}
	if got := v.energies(0, -1, 1); !slices.Equal(got, []uint64{585900, 976500}) {
		t.Errorf("little domain: base, prev = %v", got)
	}
	if got := v.feecSearch(1); got != 1 {
		t.Errorf("find_energy_efficient_cpu = %d, want prev 1", got)
	}
}

// Prev loses to a fitting candidate that saves any energy at all: there
// is no 6 % margin (§8.6). On §10.3's machine with the little domain
// given one state of cost 7600 (1 000 000 kHz, 389 120 µW, performance
// 512), p (util 100) on idle big CPU 2 adds 7812·100 = 781 200 there and
// 7600·100 = 760 000 on little CPU 0 (the first of the equally spare
// little CPUs): a saving of 2.7 %, below the 1/16 old kernels asked for,
// and CPU 0 wins.
func TestFEECNoEnergyMargin(t *testing.T) {
	spec := energy.Synthetic2x2Spec()
	spec.Domains[0].States = []energy.StateSpec{{FrequencyKHz: 1000000, PowerUW: 389120}}
	m, err := energy.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	v := synthView(t, [4]uint64{0, 0, 100, 0}, [4]uint64{0, 0, 0, 0}, 2, 100)
	v.pds = []*energy.Domain{m.DomainOf(2), m.DomainOf(0)}
	if got := v.energies(2, -1, 2); !slices.Equal(got, []uint64{0, 781200}) {
		t.Errorf("big domain: base, prev = %v", got)
	}
	if got := v.energies(0, -1, 0); !slices.Equal(got, []uint64{0, 760000}) {
		t.Errorf("little domain: base, on 0 = %v", got)
	}
	if got := v.feecSearch(2); got != 0 {
		t.Errorf("find_energy_efficient_cpu = %d, want 0 (760 000 < 781 200, no margin)", got)
	}
}

// rd->pd's order decides between equal deltas (§8.5 rule 7: a later
// domain's candidate must be strictly better). p (util 100) was on little
// CPU 1, which it no longer fits (CPU 1 at 450 with p, above 409). Big
// CPU 2 adds 7812·100 = 781 200 at state 0; little CPU 0 adds as much,
// the little domain being at state 1 (max util 350·1.25 = 437 > 256)
// with and without p. Domain {2,3} is listed first: CPU 2.
func TestFEECDomainOrderBreaksEqualDeltas(t *testing.T) {
	v := synthView(t, [4]uint64{0, 450, 0, 0}, [4]uint64{0, 0, 0, 0}, 1, 100)
	if got := v.energies(2, -1, 2); !slices.Equal(got, []uint64{0, 781200}) {
		t.Errorf("big domain: base, on 2 = %v", got)
	}
	if got := v.energies(0, -1, 0); !slices.Equal(got, []uint64{2734200, 3515400}) {
		t.Errorf("little domain: base, on 0 = %v", got)
	}
	if got := v.feecSearch(1); got != 2 {
		t.Errorf("find_energy_efficient_cpu = %d, want 2 (the first domain's candidate)", got)
	}
}

// With EAS on, group_is_overloaded needs an overutilized CPU in the group
// (§7.2), and the fork and exec slow path never computes that (§4.5, the
// end of AS11): RB5 CPU 5 with three tasks (utils 435, 218, 109 from their
// forks: 762 > 744) is overloaded to the slow path without EAS, fully
// busy with it.
func TestEASSlowPathNeverOverloaded(t *testing.T) {
	for _, eas := range []bool{false, true} {
		var opts []Option
		if eas {
			opts = append(opts, WithEnergyModel(energy.RB5()))
		}
		h := newPresetHarness(t, "rb5", opts...)
		for range 3 {
			h.pinnedStart(5)
		}
		p := h.taskWith(0, nil)
		sd := h.s.top.Base(0)
		var g *topology.Group
		for k := range sd.NumGroups() {
			if sd.Group(k).Span().Test(5) {
				g = sd.Group(k)
			}
		}
		st := h.s.updateSgWakeupStats(sd, g, p)
		want := groupOverloaded
		if eas {
			want = groupFullyBusy
		}
		if st.groupType != want {
			t.Errorf("EAS %v: CPU 5 with 3 tasks (util %d) is %v, want %v", eas, st.groupUtil, st.groupType, want)
		}
	}
}

// A CPU p does not fit is no candidate, prev included: p (util 600) was
// on little CPU 1, and 600 fits no capacity-512 CPU (80 % is 409.6); the
// big CPUs compete alone and CPU 2, the first of the most spare, wins.
func TestFEECSkipsCPUsThatDoNotFit(t *testing.T) {
	v := synthView(t, [4]uint64{0, 600, 0, 0}, [4]uint64{0, 0, 0, 0}, 1, 600)
	if got := v.feecSearch(1); got != 2 {
		t.Errorf("find_energy_efficient_cpu = %d, want 2", got)
	}
}

// easHarness is a harness on §10.3's machine (or another BigLittle) with
// an energy model.
func easHarness(t *testing.T, machine string, m *energy.Model, opts ...Option) *harness {
	t.Helper()
	return newPresetHarness(t, machine, append([]Option{WithEnergyModel(m)}, opts...)...)
}

// EAS is on exactly when the kernel's sched_energy_enabled() would be:
// perf domains for every CPU of an asymmetric machine; rd->pd in
// descending order of first CPU.
func TestEnergyEnabledAsTheKernel(t *testing.T) {
	h := easHarness(t, "rb5", energy.RB5())
	var firsts []int
	for _, d := range h.s.PerfDomains() {
		firsts = append(firsts, d.FirstCPU())
	}
	if !h.s.EnergyEnabled() || !slices.Equal(firsts, []int{7, 4, 0}) || h.s.Overutilized() {
		t.Errorf("rb5: enabled %v, rd->pd firsts %v, overutilized %v", h.s.EnergyEnabled(), firsts, h.s.Overutilized())
	}
	// The model is rescaled to the machine: rb5-3091's capacities.
	h = easHarness(t, "rb5-3091", energy.RB5())
	if d := h.s.EnergyModel().DomainOf(0); d.Capacity() != 261 || d.States()[0].Performance != 43 {
		t.Errorf("rb5-3091 little domain: capacity %d, first performance %d", d.Capacity(), d.States()[0].Performance)
	}
	// A model missing a CPU: no perf domains (em_cpu_get fails for it).
	part, _ := energy.New(energy.Spec{Domains: energy.Synthetic2x2Spec().Domains[:1]})
	h = easHarness(t, "biglittle:2*512,2*1024", part)
	if h.s.EnergyEnabled() || !h.s.Overutilized() || h.s.PerfDomains() != nil {
		t.Error("a model without CPUs 2-3 enables EAS")
	}
	// A symmetric machine: no asymmetric domain, no EAS.
	top, _ := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 1})
	s, err := New(top, WithEnergyModel(energy.Synthetic2x2()))
	if err != nil || s.EnergyEnabled() {
		t.Errorf("symmetric machine: %v, enabled %v", err, s.EnergyEnabled())
	}
}

// startLight starts a task on cpu that runs runNs and sleeps, once, so
// that it has a small utilisation and is asleep on cpu.
func startLight(h *harness, cpu int, runNs uint64) *Task {
	h.t.Helper()
	p := h.taskWith(cpu, nil)
	got := h.s.WakeUpNew(p)
	h.resched(got)
	h.settle()
	h.run(h.now + runNs)
	if h.s.Curr(p.CPU()) == p {
		h.block(p.CPU())
		h.settle()
	}
	return p
}

// On §10.3's machine with EAS on, a small periodic task that ran on big
// CPU 2 wakes where it adds the least energy, a little CPU, although CPU
// 2 is idle (select_idle_sibling would have kept it there); the choice is
// find_energy_efficient_cpu's on the runqueues' own signals.
func TestEASPlacesOnTheLeastEnergy(t *testing.T) {
	h := easHarness(t, "biglittle:2*512,2*1024", energy.Synthetic2x2())
	p := h.taskWith(2, nil, WithAllowed(2))
	h.resched(h.s.WakeUpNew(p))
	// 1 ms of running every 16 ms, pinned to CPU 2: util_est settles low.
	for range 40 {
		start := h.now
		h.run(start + 1_000_000)
		if h.s.Curr(2) == p {
			h.block(2)
		}
		h.settle()
		h.run(start + 16_000_000)
		h.resched(h.wake(p, nil, 0))
		h.settle()
	}
	h.run(h.now + 1_000_000)
	h.block(2)
	h.settle()
	freeAll(p)
	h.run(h.now + 15_000_000)
	if h.s.Overutilized() {
		t.Fatal("overutilized with one small task")
	}
	before := h.s.EnergyStats()
	got := h.wake(p, nil, 0)
	st := h.s.EnergyStats()
	if got > 1 || st.Placements != before.Placements+1 || st.Moved != before.Moved+1 {
		t.Errorf("woke on CPU %d (util_est %d), stats %+v; want a little CPU placed by EAS", got, taskUtilEst(p), st)
	}
}

// AS13 and the gate of §4.1 on §10.3's machine: a hog pinned to little
// CPU 0 passes 409 (80 % of 512) and the tick at 23 ms sets the root's
// flag; a small task's wakeup then skips EAS (counted as Skipped) and
// takes select_idle_sibling; once the hog exits, the first top-level
// balance that finds every CPU below its mark clears the flag (31 ms).
func TestOverutilizedGatesEAS(t *testing.T) {
	h := easHarness(t, "biglittle:2*512,2*1024", energy.Synthetic2x2())
	start := h.now
	h.pinnedStart(0)
	for h.now-start < 200_000_000 && !h.s.Overutilized() {
		h.run(h.now + 1_000_000)
	}
	if setAt := h.now - start; setAt != 23_000_000 || !h.s.CPUOverutilized(0) {
		t.Fatalf("a hog on a 512 CPU: overutilized at %d ms (CPU 0 util %d), want 23", setAt/1e6, h.s.cpuUtilCfs(0))
	}
	p := startLight(h, 3, 1_000_000)
	before := h.s.EnergyStats()
	h.run(h.now + 5_000_000)
	h.wake(p, nil, 0)
	if st := h.s.EnergyStats(); st.Skipped != before.Skipped+1 || st.Placements != before.Placements {
		t.Errorf("wakeup while overutilized: stats %+v, before %+v", st, before)
	}
	if err := h.s.Exit(0); err != nil {
		t.Fatal(err)
	}
	h.settle()
	for end := h.now + 400_000_000; h.now < end && h.s.Overutilized(); {
		h.run(h.now + 1_000_000)
	}
	if cleared := h.now - start; cleared != 31_000_000 {
		t.Errorf("flag cleared at %d ms, want 31", cleared/1e6)
	}
	if st := h.s.EnergyStats(); st.OverutilizedSet != 1 || st.OverutilizedCleared != 1 {
		t.Errorf("transitions %+v, want one set and one clear", st)
	}
}

// The flag's update points (§6 rule 3), each in isolation: with CPU 1
// overutilized (a pinned hog there past 409, 80 % of 512) and the flag
// cleared by hand, a fork's first enqueue onto CPU 1 leaves it clear, a
// wakeup's enqueue onto CPU 1 sets it, and so does the next tick of a
// fair task there.
func TestOverutilizedSetOnlyByWakeupEnqueueAndTick(t *testing.T) {
	h := easHarness(t, "biglittle:2*512,2*1024", energy.Synthetic2x2())
	s := h.s
	p := startLight(h, 0, 2_000_000)
	h.pinnedStart(1)
	for s.cpuUtilCfs(1) < 410 {
		h.run(h.now + 1_000_000)
	}
	if !s.cpuOverutilized(1) || !s.Overutilized() {
		t.Fatalf("CPU 1 at util %d: overutilized %v, flag %v", s.cpuUtilCfs(1), s.cpuOverutilized(1), s.Overutilized())
	}
	s.eas.overutil = false
	c := h.taskWith(1, nil, WithAllowed(1))
	s.WakeUpNew(c)
	if s.Overutilized() {
		t.Error("a fork's first enqueue set the flag")
	}
	p.allowed = topology.NewMask(4)
	p.allowed.Set(1)
	p.nrAllowed = 1
	s.setTaskMaxAllowedCapacity(p)
	h.wake(p, nil, 0)
	if !s.Overutilized() {
		t.Error("a wakeup enqueue onto an overutilized CPU leaves the flag clear")
	}
	s.eas.overutil = false
	s.Tick(1)
	if !s.Overutilized() {
		t.Error("a tick of a fair task on an overutilized CPU leaves the flag clear")
	}
}

// While EAS places tasks and nothing is overutilized, the balancer leaves
// a CPU with two tasks alone although other CPUs idle (§7.4); once the
// root is overutilized it spreads them. On §10.3's machine two tasks
// forked on big CPU 2 (utils 512 and 256 at fork: CPU util 768) are
// freed: without EAS big CPU 3 pulls one at 11 ms; with EAS nothing
// moves until CPU 2's util reaches 820 (80 % of 1024) at 11 ms, and the
// pull follows at 19 ms; the flag clears at 27 ms, once CPU 2's util has
// fallen to 419.
func TestEASBalancerMovesOnlyMisfits(t *testing.T) {
	for _, eas := range []bool{false, true} {
		var opts []Option
		if eas {
			opts = append(opts, WithEnergyModel(energy.Synthetic2x2()))
		}
		h := newPresetHarness(t, "biglittle:2*512,2*1024", opts...)
		a, b := h.pinnedStart(2), h.pinnedStart(2)
		freeAll(a)
		freeAll(b)
		h.overload()
		start := h.now
		var overAt, movedAt, clearedAt uint64
		for h.now-start < 40_000_000 {
			h.run(h.now + 1_000_000)
			el := h.now - start
			if eas && overAt == 0 && h.s.Overutilized() {
				overAt = el
			}
			if movedAt == 0 && h.s.Stats().BalanceMoves > 0 {
				movedAt = el
				if eas && !h.s.Overutilized() {
					t.Errorf("EAS on: a move at %d ms while not overutilized", el/1e6)
				}
			}
			if eas && movedAt != 0 && clearedAt == 0 && !h.s.Overutilized() {
				clearedAt = el
			}
		}
		if !eas && movedAt != 11_000_000 {
			t.Errorf("EAS off: first pull at %d ms, want 11", movedAt/1e6)
		}
		if eas && (overAt != 11_000_000 || movedAt != 19_000_000 || clearedAt != 27_000_000) {
			t.Errorf("EAS on: overutilized at %d ms, pull at %d ms, cleared at %d ms; want 11, 19, 27", overAt/1e6, movedAt/1e6, clearedAt/1e6)
		}
	}
}

// On the RB5 with EAS on: a light periodic task placed by energy stays on
// the little CPUs; the root is never overutilized.
func TestRB5EASLightTaskStaysLittle(t *testing.T) {
	h := easHarness(t, "rb5", energy.RB5())
	p := h.taskWith(0, nil)
	cpu := h.s.WakeUpNew(p)
	h.resched(cpu)
	for period := 0; period < 60; period++ {
		start := h.now
		h.run(start + 1_000_000)
		if h.s.Curr(p.CPU()) == p {
			h.block(p.CPU())
		}
		h.settle()
		h.run(start + 16_000_000)
		got := h.wake(p, nil, 0)
		h.resched(got)
		h.settle()
		if got >= 4 || h.s.Overutilized() {
			t.Fatalf("period %d at %d ms: woke on CPU %d, overutilized %v (util_est %d)", period, h.now/1e6, got, h.s.Overutilized(), taskUtilEst(p))
		}
	}
	if st := h.s.EnergyStats(); st.Placements != 60 || st.Skipped != 0 {
		t.Errorf("stats %+v, want 60 placements by energy", st)
	}
}

// On the RB5 with EAS on, a CPU hog forked on a little CPU: at the tick
// after its util passes 227 (19 ms) the root turns overutilized and the
// CPU records a misfit at the same tick; big CPU 4, whose balance falls
// due first, pulls it by active balance at 23 ms (misfits move whether or
// not EAS places tasks).
func TestRB5EASHogMovesToBigCPU(t *testing.T) {
	h := easHarness(t, "rb5", energy.RB5())
	start := h.now
	hog := h.taskWith(0, nil)
	h.resched(h.s.WakeUpNew(hog))
	var overAt, misfitAt, movedAt uint64
	for h.now-start < 200_000_000 && movedAt == 0 {
		h.run(h.now + 1_000_000)
		if overAt == 0 && h.s.Overutilized() {
			overAt = h.now - start
		}
		if misfitAt == 0 && h.s.MisfitTaskLoad(hog.CPU()) != 0 {
			misfitAt = h.now - start
		}
		if hog.CPU() >= 4 && h.s.Curr(hog.CPU()) == hog {
			movedAt = h.now - start
		}
	}
	if overAt != 19_000_000 || misfitAt != 19_000_000 || movedAt != 23_000_000 || hog.CPU() != 4 {
		t.Errorf("overutilized at %d ms, misfit at %d ms, on CPU %d at %d ms; want 19, 19, CPU 4 at 23", overAt/1e6, misfitAt/1e6, hog.CPU(), movedAt/1e6)
	}
}

// On the RB5 with EAS on, four hogs forked 1 ms apart land on the idle
// little CPUs 0–3 (a fork's slow path; util 0 fits anywhere). At 19 ms the
// first passes 227 and the root turns overutilized; the misfits move to
// the big CPUs one by one (4 at 23 ms, 5 at 31, 6 at 39, 7 at 47); at
// 51 ms a top-level balance finds every CPU below its mark and clears the
// flag; at 79 ms the hogs' utils on the big CPUs reach their marks and,
// every big CPU being busy, the root stays overutilized: a light task's
// wakeup then skips EAS.
func TestRB5EASOverutilizedWhenEveryBigCPUIsBusy(t *testing.T) {
	h := easHarness(t, "rb5", energy.RB5())
	start := h.now
	var hogs []*Task
	for range 4 {
		hog := h.taskWith(0, nil)
		h.resched(h.s.WakeUpNew(hog))
		h.settle()
		hogs = append(hogs, hog)
		h.run(h.now + 1_000_000)
	}
	type event struct {
		ms   uint64
		cpus [4]int
		over bool
	}
	var got []event
	for h.now-start < 200_000_000 {
		h.run(h.now + 1_000_000)
		e := event{ms: (h.now - start) / 1e6, over: h.s.Overutilized()}
		for i, x := range hogs {
			e.cpus[i] = x.CPU()
		}
		if len(got) == 0 || got[len(got)-1].cpus != e.cpus || got[len(got)-1].over != e.over {
			got = append(got, e)
		}
	}
	want := []event{
		{5, [4]int{0, 1, 2, 3}, false},
		{19, [4]int{0, 1, 2, 3}, true},
		{23, [4]int{4, 1, 2, 3}, true},
		{31, [4]int{4, 5, 2, 3}, true},
		{39, [4]int{4, 5, 6, 3}, true},
		{47, [4]int{4, 5, 6, 7}, true},
		{51, [4]int{4, 5, 6, 7}, false},
		{79, [4]int{4, 5, 6, 7}, true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("hogs' CPUs and the flag over time:\n got %v\nwant %v", got, want)
	}
	for c := 4; c < 8; c++ {
		if !h.s.CPUOverutilized(c) {
			t.Errorf("busy big CPU %d is not overutilized", c)
		}
	}
	p := startLight(h, 0, 500_000)
	h.run(h.now + 10_000_000)
	before := h.s.EnergyStats()
	h.wake(p, nil, 0)
	if st := h.s.EnergyStats(); st.Skipped != before.Skipped+1 || st.Placements != before.Placements {
		t.Errorf("a wakeup with every big CPU busy: %+v (before %+v), want EAS skipped", st, before)
	}
}

// While EAS places tasks, a misfit is still pulled (§7.4: the misfit test
// comes before the EAS exit). The rule alone, with the state set by hand:
// RB5 little CPU 0 runs a light task (util far below 228, so no CPU is
// overutilized) and still shows the misfit_task_load 1023 a tick left
// there (the value lags, §5.2); idle big CPU 4's balance of the top
// domain finds the misfit group busiest and kicks an active balance,
// where a domain without a misfit is balanced.
func TestEASStillPullsMisfits(t *testing.T) {
	h := easHarness(t, "rb5", energy.RB5())
	s := h.s
	h.pinnedStart(0)
	free(s.Curr(0))
	s.setTaskMaxAllowedCapacity(s.Curr(0))
	if s.Overutilized() || s.CPUOverutilized(0) {
		t.Fatal("overutilized with one fresh task")
	}
	cont := true
	if s.balanceRQ(4, s.top.Base(4), cpuIdle, &cont); s.Stats().ActiveKicks != 0 {
		t.Fatal("an active balance without a misfit")
	}
	s.cpus[0].misfitTaskLoad = 1023
	s.balanceRQ(4, s.top.Base(4), cpuIdle, &cont)
	if s.Overutilized() || s.Stats().ActiveKicks != 1 {
		t.Errorf("misfit on CPU 0 while not overutilized: %d active kicks (overutilized %v), want 1", s.Stats().ActiveKicks, s.Overutilized())
	}
}

// An energy.Meter sampled from CPUUtil at every tick of an RB5 run with
// EAS on: the light task's CPUs are charged, idle ones nothing.
func TestRB5EnergyMeterFromCPUUtil(t *testing.T) {
	h := easHarness(t, "rb5", energy.RB5())
	mt := energy.NewMeter(h.s.EnergyModel())
	utils := make([]uint64, h.s.NumCPUs())
	p := h.taskWith(0, nil)
	h.resched(h.s.WakeUpNew(p))
	for range 20 {
		start := h.now
		for end := start + 16_000_000; h.now < end; {
			if h.now == start+1_000_000 && h.s.Curr(p.CPU()) == p {
				h.block(p.CPU())
				h.settle()
			}
			h.run(h.now + 1_000_000)
			for c := range utils {
				utils[c] = h.s.CPUUtil(c)
			}
			if err := mt.Add(1_000_000, utils); err != nil {
				t.Fatal(err)
			}
		}
		h.resched(h.wake(p, nil, 0))
		h.settle()
	}
	r := mt.Report()
	if r.ElapsedNs != 320_000_000 || r.TotalUJ <= 0 || r.Domains[0].UJ != r.TotalUJ {
		t.Errorf("20 periods of a light task on the little CPUs: %+v", r)
	}
}

// An EAS wakeup allocates nothing in the steady state: the snapshot is
// the System's, reused.
func TestEASWakeupAllocatesNothing(t *testing.T) {
	h := easHarness(t, "rb5", energy.RB5())
	s := h.s
	p := h.taskWith(0, nil)
	h.resched(s.WakeUpNew(p))
	now := h.now
	cycle := func() {
		now += 16_000_000
		_ = s.SetClock(now)
		c := s.TryToWakeUp(p, nil, 0)
		s.Schedule(c)
		now += 1_000_000
		_ = s.SetClock(now)
		if s.Curr(c) == p {
			_ = s.Block(c)
		}
	}
	for range 10 {
		cycle()
	}
	before := s.EnergyStats().Placements
	if n := testing.AllocsPerRun(50, cycle); n != 0 {
		t.Errorf("a wakeup cycle with EAS allocates %v times", n)
	}
	if s.EnergyStats().Placements == before {
		t.Error("EAS placed nothing: the test measures another path")
	}
}

// BenchmarkEASWakeup measures TryToWakeUp placed by
// find_energy_efficient_cpu on the RB5 (three perf domains, eight CPUs):
// a light task woken every 16 ms that runs 1 ms, with the schedule and
// the block of each cycle.
func BenchmarkEASWakeup(b *testing.B) {
	top, err := mustPreset(b, "rb5").Build()
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(top, WithEnergyModel(energy.RB5()))
	if err != nil {
		b.Fatal(err)
	}
	se, _ := eevdf.NewEntity("eas")
	p, _ := s.NewTask(se)
	now := uint64(1_000_000)
	_ = s.SetClock(now)
	s.Schedule(s.WakeUpNew(p))
	now += 1_000_000
	_ = s.SetClock(now)
	_ = s.Block(p.CPU())
	b.ReportAllocs()
	for b.Loop() {
		now += 16_000_000
		_ = s.SetClock(now)
		c := s.TryToWakeUp(p, nil, 0)
		s.Schedule(c)
		now += 1_000_000
		_ = s.SetClock(now)
		if s.Curr(c) == p {
			_ = s.Block(c)
		}
	}
}

// mustPreset is topology.LookupMachine for benchmarks.
func mustPreset(b *testing.B, name string) topology.MachinePreset {
	p, err := topology.LookupMachine(name)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// A balance of a domain below the top only ever sets the flag; the top
// domain's rewrites it (§6 rule 4). Capacity classes in separate LLCs
// (§2.8 case B: CPUs 0–1 of 446 in one LLC, 2–3 of 1024 in another): with
// a hog pinned to CPU 0 past 356 (80 % of 446) and the flag cleared by
// hand, CPU 1's balance of its MC domain sets it; with the hog gone and
// CPU 0 idle again, CPU 0's MC balance leaves it set and only its PKG
// balance clears it.
func TestOverutilizedLowerDomainOnlySets(t *testing.T) {
	top, err := topology.BuildCapacities(topology.Machine{Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 2, ThreadsPerCore: 1}, []uint64{446, 446, 1024, 1024})
	if err != nil {
		t.Fatal(err)
	}
	m, err := energy.Synthetic2x2().Rescale([]uint64{446, 446, 1024, 1024})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(top, WithEnergyModel(m), WithTickNsec(eevdf.TickNsecForHZ(250)))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, now: s.Clock()}
	h.at(1_000_000)
	if !s.EnergyEnabled() || s.top.Base(1).Parent() == nil {
		t.Fatalf("EAS %v; CPU 1's base domain is the top", s.EnergyEnabled())
	}
	h.pinnedStart(0)
	for !s.cpuOverutilized(0) {
		h.run(h.now + 1_000_000)
	}
	s.eas.overutil = false
	cont := true
	s.balanceRQ(1, s.top.Base(1), cpuIdle, &cont)
	if !s.Overutilized() {
		t.Fatal("an MC balance that sees overutilized CPU 0 leaves the flag clear")
	}
	if err := s.Exit(0); err != nil {
		t.Fatal(err)
	}
	h.settle()
	for s.cpuOverutilized(0) {
		h.run(h.now + 1_000_000)
	}
	s.eas.overutil = true
	s.balanceRQ(0, s.top.Base(0), cpuIdle, &cont) // CPU 0 is now its groups' first idle CPU
	if !s.Overutilized() {
		t.Fatal("a balance below the top cleared the flag")
	}
	s.balanceRQ(0, s.top.Base(0).Parent(), cpuIdle, &cont)
	if s.Overutilized() {
		t.Error("the top domain's balance, every CPU below its mark, leaves the flag set")
	}
}
