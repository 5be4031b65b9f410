package smp

import (
	"testing"

	"github.com/schedmodel/fairclass/topology"
)

// d1 is KERNEL-SPEC-SMP §6.4 D1's machine: one LLC of two cores of two
// threads, an always-running task on each of CPUs 0 and 1, CPUs 2 and 3
// idle.
func d1(t *testing.T, mode NohzMode, allowed ...int) (*harness, *Task, *Task) {
	h := newHarness(t, oneLLC2x2, noNIRandom, WithNohz(mode))
	a, b := h.pinnedStart(0), h.pinnedStart(1)
	if len(allowed) == 0 {
		free(a)
		free(b)
	} else {
		for _, tk := range []*Task{a, b} {
			tk.allowed = topology.MaskOf(4, allowed...)
			tk.nrAllowed = tk.allowed.Weight()
		}
	}
	return h, a, b
}

// D1: CPU 2, the first idle CPU on an idle core, balances MC; it sees core
// 0 as smt_balance (two runnable tasks on an SMT core, seen from an idle
// CPU), finds nothing to detach (one task per CPU), and on its 4th
// consecutive failed periodic balance (nr_balance_failed 4 > 1 + 2) kicks
// active balancing: CPU 0's task moves to CPU 2, and the failures reset.
func TestActiveBalanceSpreadsSMTCore(t *testing.T) {
	for _, mode := range []NohzMode{NohzOff, NohzIdle} {
		h, a, _ := d1(t, mode)
		mc := h.s.top.Domains(2)[1]
		d := h.s.dom(mc)
		if mode == NohzOff {
			env := lbEnv{sd: mc, d: d, dstCPU: 2, idle: cpuIdle, cpus: h.s.lbCpus}
			env.cpus.Copy(mc.Span())
			var sds sdStats
			h.s.updateSdLbStats(&env, &sds)
			if sds.busiestSt.groupType != groupSMTBalance || !sds.busiest.Span().Test(0) {
				t.Fatalf("busiest %v of type %v, want core 0 as smt_balance", sds.busiest.Span(), sds.busiestSt.groupType)
			}
		}
		// The 4th failure kicks, and the push at the same instant resets
		// the count: before that instant it reads 3.
		var before uint64
		for h.s.Stats().ActiveMoves == 0 && h.now < 200_000_000 {
			before = d.nrBalanceFailed
			h.run(h.now + 1_000_000)
		}
		st := h.s.Stats()
		if st.ActiveMoves != 1 || a.CPU() != 2 || h.s.Curr(2) != a {
			t.Fatalf("nohz %v: %d active moves, CPU 0's task on %d (CPU 2 runs %v)", mode, st.ActiveMoves, a.CPU(), h.s.Curr(2))
		}
		if mode == NohzOff && (before != 3 || st.ActiveKicks != 1) {
			t.Errorf("kicked after %d failures (%d kicks), want at the 4th", before+1, st.ActiveKicks)
		}
		if d.nrBalanceFailed != 0 {
			t.Errorf("nohz %v: nr_balance_failed %d after the push", mode, d.nrBalanceFailed)
		}
		// And it stays spread (D5: in both modes).
		h.run(h.now + 100_000_000)
		if n0, n2 := h.s.RQ(0).NrRunning()+h.s.RQ(1).NrRunning(), h.s.RQ(2).NrRunning()+h.s.RQ(3).NrRunning(); n0 != 1 || n2 != 1 {
			t.Errorf("nohz %v: cores run %d and %d tasks, want one each", mode, n0, n2)
		}
	}
}

// D2: no active balance when the running task may not run on the
// balancing CPU; and no second one while one is pending.
func TestActiveBalanceRespectsAffinityAndPending(t *testing.T) {
	h, _, _ := d1(t, NohzOff, 0, 1)
	h.run(h.now + 100_000_000)
	if st := h.s.Stats(); st.ActiveKicks != 0 {
		t.Errorf("%d active balances for tasks that may not move", st.ActiveKicks)
	}

	h, _, _ = d1(t, NohzOff)
	mc := h.s.top.Domains(2)[1]
	h.s.dom(mc).nrBalanceFailed = 3
	cont := true
	h.s.balanceRQ(2, mc, cpuIdle, &cont) // the 4th failure: a kick
	h.s.balanceRQ(2, mc, cpuIdle, &cont) // pending: no second one
	if st := h.s.Stats(); st.ActiveKicks != 1 || len(h.s.deferred.stoppers) != 1 {
		t.Errorf("%d kicks, %d stopper works queued; want 1 and 1", st.ActiveKicks, len(h.s.deferred.stoppers))
	}
	h.settle()
	if st := h.s.Stats(); st.ActiveMoves != 1 {
		t.Errorf("%d tasks pushed, want 1", st.ActiveMoves)
	}
}

// D3: in mode B an idle CPU whose tick is stopped does not balance itself;
// a busy CPU running two tasks kicks the ILB, the first idle CPU on an
// idle core of the NOHZ mask, at most once per jiffy; its sweep starts
// after the ILB and ends with it.
func TestNohzIdleLoadBalancer(t *testing.T) {
	h := newHarness(t, oneLLC4x2, noNIRandom, WithNohz(NohzIdle), WithPreset(topology.Warm, 1_000_000_000))
	h.now = h.s.Clock()
	for c := range 8 {
		if !h.s.TickStopped(c) {
			t.Fatalf("warm mode B: CPU %d ticks", c)
		}
	}
	calls := h.s.Stats().BalanceCalls
	h.s.Tick(5) // stopped: nothing
	if h.s.Stats().BalanceCalls != calls {
		t.Error("a CPU with its tick stopped balanced")
	}
	// CPU 0 (core 0) runs two pinned tasks; CPU 1, its sibling, idles.
	h.pinnedStart(0)
	h.pinnedStart(0)
	var sweeps [][2]int
	h.s.onSweep = func(ilb, cpu int) { sweeps = append(sweeps, [2]int{ilb, cpu}) }
	kicks := h.s.Stats().ILBKicks
	h.run(h.now + 1_000_000) // CPU 0's first busy tick: it leaves the mask and kicks
	if got := h.s.Stats().ILBKicks - kicks; got != 1 {
		t.Fatalf("%d ILB kicks at the first busy tick, want 1", got)
	}
	want := []int{3, 4, 5, 6, 7, 1, 2} // after the ILB (2: first idle CPU on an idle core), wrapping, ending with it
	if len(sweeps) != len(want) {
		t.Fatalf("sweep %v, want CPUs %v by ILB 2", sweeps, want)
	}
	for i, sw := range sweeps {
		if sw[0] != 2 || sw[1] != want[i] {
			t.Fatalf("sweep %v, want CPUs %v by ILB 2", sweeps, want)
		}
	}
	// Kicks at most once per jiffy: two busy CPUs ticking in one jiffy.
	h.pinnedStart(4)
	h.pinnedStart(4)
	for range 5 {
		kicks = h.s.Stats().ILBKicks
		h.run(h.now + 1_000_000)
		if got := h.s.Stats().ILBKicks - kicks; got > 1 {
			t.Errorf("%d ILB kicks in one jiffy", got)
		}
	}
}

// D4: in mode B the blocked load of an idle CPU decays only when something
// updates it — here the statistics kicks of a busy CPU, at least 32
// jiffies apart —, so the load others read is stale in between; in mode A
// the idle CPU's own ticks decay it at each of its balances.
func TestNohzBlockedLoadDecaysAtStatsKicks(t *testing.T) {
	for _, mode := range []NohzMode{NohzIdle, NohzOff} {
		h := newHarness(t, oneLLC4x1, noNIRandom, WithNohz(mode))
		h.pinnedStart(0) // busy throughout
		p := h.pinnedStart(1)
		h.run(h.now + 100_000_000)
		h.block(1) // CPU 1 idles with p's blocked load
		_ = p
		var updates []uint64
		last := h.s.RQ(1).Avg().LastUpdateTime
		for range 200 {
			h.run(h.now + 1_000_000)
			if lut := h.s.RQ(1).Avg().LastUpdateTime; lut != last {
				updates = append(updates, h.s.Jiffies())
				last = lut
			}
		}
		if len(updates) < 2 {
			t.Fatalf("nohz %v: CPU 1's blocked load updated at %v", mode, updates)
		}
		minGap := ^uint64(0)
		for i := 1; i < len(updates); i++ {
			minGap = min(minGap, updates[i]-updates[i-1])
		}
		if mode == NohzIdle && minGap < 32 {
			t.Errorf("mode B: blocked-load updates %v, less than 32 jiffies apart", updates)
		}
		if mode == NohzOff && minGap >= 32 {
			t.Errorf("mode A: blocked-load updates %v, none closer than 32 jiffies", updates)
		}
	}
}

// D4, what other CPUs read: mode B, one LLC of four CPUs, CPU 0 busy, CPU 1
// idle with the blocked load of a task that ran there for 100 ms. CPU 1's
// root load_avg — its cpu_load, as every other CPU's balance reads it —
// changes only at the statistics kicks, and then by exactly one decay from
// its last update to the kick's instant; in between it keeps its last
// value while a fresh update would give less: stale, and too high.
func TestNohzIdleCPULoadIsStaleBetweenStatsKicks(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom, WithNohz(NohzIdle))
	h.pinnedStart(0)
	h.pinnedStart(1)
	h.run(h.now + 100_000_000)
	h.block(1)
	prev := h.s.RQ(1).Avg()
	var updates []uint64
	stale := 0
	for range 200 {
		h.run(h.now + h.s.tickNsec)
		a := h.s.RQ(1).Avg()
		if h.s.cpuLoad(1) != a.LoadAvg {
			t.Fatal("cpu_load is not the root's load_avg")
		}
		if a.LastUpdateTime != prev.LastUpdateTime {
			want := prev
			want.UpdateQueue(h.now, 0, 0, false)
			if a.LoadAvg != want.LoadAvg || a.LastUpdateTime != want.LastUpdateTime {
				t.Errorf("jiffy %d: load_avg %d at %d, want one decay from the last update: %d at %d",
					h.s.Jiffies(), a.LoadAvg, a.LastUpdateTime, want.LoadAvg, want.LastUpdateTime)
			}
			updates = append(updates, h.s.Jiffies())
			prev = a
			continue
		}
		fresh := a
		fresh.UpdateQueue(h.now, 0, 0, false)
		if fresh.LoadAvg < a.LoadAvg {
			stale++
		}
	}
	if len(updates) < 3 {
		t.Fatalf("CPU 1's blocked load updated at jiffies %v only", updates)
	}
	for i := 1; i < len(updates); i++ {
		if updates[i]-updates[i-1] < 32 {
			t.Errorf("updates at %v: less than 32 jiffies apart", updates)
		}
	}
	if stale < 200-2*len(updates)-32 {
		t.Errorf("cpu_load(1) above its fresh value at %d jiffies of 200, updates at %v", stale, updates)
	}
}

// D4, the other two moments an idle CPU's blocked load decays in mode B.
// Every CPU of one LLC of four idles, ticks stopped, so nothing kicks
// statistics: CPU 1's blocked load stays as it was for 100 jiffies. Then a
// task wakes on CPU 2 and sleeps again within the jiffy: CPU 2's newly
// idle balance finds nothing, and since the blocked loads are due
// (nohz.next_blocked passed) it flags itself NEWILB, and at its idle entry
// refreshes the blocked load of the idle CPUs: CPU 1's decays, by one
// update to that instant. Later a task wakes on CPU 1 itself: the enqueue
// decays the root first, then attaches the task's load.
func TestNohzIdleCPULoadDecaysAtNewidleAndEnqueue(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom, WithNohz(NohzIdle))
	h.pinnedStart(1)
	q := h.pinnedStart(2)
	r := h.pinnedStart(3)
	h.run(h.now + 100_000_000)
	h.block(3)
	h.block(2)
	h.block(1)
	h.run(h.now + h.s.tickNsec)
	for c := range 4 {
		if !h.s.TickStopped(c) {
			t.Fatalf("setup: CPU %d ticks", c)
		}
	}
	prev := h.s.RQ(1).Avg()
	h.run(h.now + 100*h.s.tickNsec)
	if a := h.s.RQ(1).Avg(); a != prev {
		t.Fatalf("CPU 1's blocked load changed while nothing ran: %d at %d → %d at %d", prev.LoadAvg, prev.LastUpdateTime, a.LoadAvg, a.LastUpdateTime)
	}

	// Newly idle, within one jiffy: no tick on CPU 2.
	h.at(h.now + 100_000)
	if h.wake(q, nil, 0) != 2 {
		t.Fatal("q did not wake on CPU 2")
	}
	h.settle()
	h.at(h.now + 200_000)
	h.block(2)
	want := prev
	want.UpdateQueue(h.now, 0, 0, false)
	if a := h.s.RQ(1).Avg(); a.LoadAvg != want.LoadAvg || a.LastUpdateTime != want.LastUpdateTime {
		t.Errorf("after CPU 2's newly idle entry: CPU 1's load_avg %d at %d, want %d at %d", a.LoadAvg, a.LastUpdateTime, want.LoadAvg, want.LastUpdateTime)
	}

	// An enqueue, 50 jiffies later: r wakes on CPU 1.
	prev = h.s.RQ(1).Avg()
	h.run(h.now + 50*h.s.tickNsec)
	if a := h.s.RQ(1).Avg(); a != prev {
		t.Fatal("CPU 1's blocked load changed while nothing ran")
	}
	h.at(h.now + 300_000)
	r.allowed, r.nrAllowed = topology.MaskOf(4, 1), 1
	if h.wake(r, nil, 0) != 1 {
		t.Fatal("r did not wake on CPU 1")
	}
	want = prev
	want.UpdateQueue(h.now, 0, 0, false)
	if a := h.s.RQ(1).Avg(); a.LoadAvg != want.LoadAvg+r.se.Avg().LoadAvg || a.LastUpdateTime != want.LastUpdateTime {
		t.Errorf("after the enqueue: CPU 1's load_avg %d at %d, want %d + r's %d at %d",
			a.LoadAvg, a.LastUpdateTime, want.LoadAvg, r.se.Avg().LoadAvg, want.LastUpdateTime)
	}
}
