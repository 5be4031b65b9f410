package topology

import (
	"errors"
	"testing"
)

// TestA2 is KERNEL-SPEC-SMP §6.1 A2 (KERNEL-SPEC §2.4): the base slice is
// 0.7 ms × (1 + ilog2(min(N, 8))): 0.7, 1.4, 2.1 and 2.8 ms for N = 1, 2,
// 4 and 8 or more, and flat in between.
func TestA2BaseSliceScalesWithTheCPUCount(t *testing.T) {
	tests := []struct {
		name  string
		m     Machine
		slice uint64
	}{
		{"one CPU keeps 0.7 ms", Machine{1, 1, 1, 1, Linear}, 700000},
		{"two CPUs double it to 1.4 ms", Machine{1, 1, 2, 1, Linear}, 1400000},
		{"three CPUs still 1.4 ms", Machine{1, 1, 3, 1, Linear}, 1400000},
		{"four CPUs give 2.1 ms", Machine{1, 1, 2, 2, Linear}, 2100000},
		{"seven CPUs still 2.1 ms", Machine{7, 1, 1, 1, Linear}, 2100000},
		{"eight CPUs give 2.8 ms", Machine{1, 1, 8, 1, Linear}, 2800000},
		{"sixteen CPUs stay at 2.8 ms", Machine{2, 1, 4, 2, X86}, 2800000},
		{"1024 CPUs stay at 2.8 ms", Machine{2, 4, 64, 2, Linear}, 2800000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := mustBuild(t, tc.m)
			if got := top.BaseSlice(); got != tc.slice {
				t.Errorf("BaseSlice() = %d ns, want %d", got, tc.slice)
			}
			if got := BaseSliceFor(tc.m.NumCPUs()); got != tc.slice {
				t.Errorf("BaseSliceFor(%d) = %d ns, want %d", tc.m.NumCPUs(), got, tc.slice)
			}
		})
	}
}

func TestSchedFactorUnderEachScaling(t *testing.T) {
	tests := []struct {
		cpus              int
		none, log, linear uint64
	}{
		{0, 1, 1, 1}, // below 1 is taken as 1
		{1, 1, 1, 1},
		{2, 1, 2, 2},
		{3, 1, 2, 3},
		{4, 1, 3, 4},
		{5, 1, 3, 5},
		{8, 1, 4, 8},
		{64, 1, 4, 8},
	}
	for _, tc := range tests {
		if got := SchedFactor(tc.cpus, ScalingNone); got != tc.none {
			t.Errorf("NONE, %d CPUs: %d", tc.cpus, got)
		}
		if got := SchedFactor(tc.cpus, ScalingLog); got != tc.log {
			t.Errorf("LOG, %d CPUs: %d", tc.cpus, got)
		}
		if got := SchedFactor(tc.cpus, ScalingLinear); got != tc.linear {
			t.Errorf("LINEAR, %d CPUs: %d", tc.cpus, got)
		}
	}
}

// max_load_balance_interval = HZ·N/10 jiffies.
func TestMaxLoadBalanceIntervalIsATenthOfHZPerCPU(t *testing.T) {
	tests := []struct {
		m    Machine
		hz   int
		want uint64
	}{
		{Machine{1, 1, 1, 1, Linear}, 1000, 100},
		{Machine{1, 1, 4, 2, Linear}, 1000, 800},
		{Machine{1, 1, 4, 2, Linear}, 250, 200},
		{Machine{1, 1, 3, 1, Linear}, 100, 30},
		{Machine{1, 1, 1, 1, Linear}, 4, 0}, // ⌊4/10⌋
		{Machine{2, 4, 64, 2, Linear}, 1000, 102400},
		{Machine{1, 1, 1, 1, Linear}, 0, 0},
	}
	for _, tc := range tests {
		if got := mustBuild(t, tc.m).MaxLoadBalanceInterval(tc.hz); got != tc.want {
			t.Errorf("%v at HZ=%d: %d, want %d", tc.m, tc.hz, got, tc.want)
		}
	}
}

func TestBootAndWarmPresets(t *testing.T) {
	smt := mustBuild(t, Machine{1, 2, 4, 2, Linear})
	noSMT := mustBuild(t, Machine{1, 2, 4, 1, Linear})
	tests := []struct {
		name     string
		top      *Topology
		p        Preset
		t0       uint64
		nohz     bool
		rq       RQInit
		shared   SharedInit
		sharedID int
	}{
		{"boot: idle stamps 0, nothing to scan, every CPU busy for nohz", smt, Boot, 5000000, true,
			RQInit{CPUCapacity: 1024, AvgIdle: 1000000, MaxIdleBalanceCost: 500000, Idle: true},
			SharedInit{NrBusyCPUs: 8}, 1},
		{"warm SMT: idle since T0, idle cores, scan the LLC", smt, Warm, 5000000, false,
			RQInit{CPUCapacity: 1024, AvgIdle: 1000000, MaxIdleBalanceCost: 500000, IdleStamp: 5000000, Idle: true},
			SharedInit{NrBusyCPUs: 8, HasIdleCores: true, NrIdleScan: 8}, 1},
		{"warm with NOHZ idle: in the idle mask, no busy CPU", smt, Warm, 1, true,
			RQInit{CPUCapacity: 1024, AvgIdle: 1000000, MaxIdleBalanceCost: 500000, IdleStamp: 1, Idle: true, InNohzIdleMask: true},
			SharedInit{NrBusyCPUs: 0, HasIdleCores: true, NrIdleScan: 8}, 1},
		{"warm without SMT has no idle cores to report", noSMT, Warm, 7, false,
			RQInit{CPUCapacity: 1024, AvgIdle: 1000000, MaxIdleBalanceCost: 500000, IdleStamp: 7, Idle: true},
			SharedInit{NrBusyCPUs: 4, NrIdleScan: 4}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rq, err := tc.top.InitialRQ(tc.p, tc.t0, tc.nohz)
			if err != nil || rq != tc.rq {
				t.Errorf("InitialRQ = %+v, %v; want %+v", rq, err, tc.rq)
			}
			sh, err := tc.top.InitialShared(tc.p, tc.nohz)
			if err != nil || sh != tc.shared {
				t.Errorf("InitialShared = %+v, %v; want %+v", sh, err, tc.shared)
			}
			// The boot nr_busy_cpus is the Shared object's weight.
			if s := tc.top.SharedByID(tc.sharedID); s == nil || s.Weight() != tc.top.SDLLCSize(0) {
				t.Errorf("Shared %d: %v", tc.sharedID, s)
			}
		})
	}
	if _, err := smt.InitialRQ(Warm, 0, false); !errors.Is(err, ErrBadPreset) {
		t.Errorf("warm at T0 = 0: %v", err)
	}
	if _, err := smt.InitialRQ(Preset(5), 1, false); !errors.Is(err, ErrBadPreset) {
		t.Errorf("unknown preset: %v", err)
	}
	if _, err := smt.InitialShared(Preset(-1), false); !errors.Is(err, ErrBadPreset) {
		t.Errorf("unknown preset: %v", err)
	}
	for _, p := range []Preset{Boot, Warm} {
		if got, err := ParsePreset(p.String()); err != nil || got != p {
			t.Errorf("ParsePreset(%q) = %v, %v", p, got, err)
		}
	}
	if _, err := ParsePreset("hot"); !errors.Is(err, ErrBadPreset) {
		t.Error("ParsePreset(hot)")
	}
}

// sd_init's runtime fields: balance_interval = w, the newidle ratio at 50%.
func TestDomainInitialState(t *testing.T) {
	top := mustBuild(t, Machine{2, 1, 4, 2, Linear})
	want := []uint64{2, 8, 16}
	for i, d := range top.Domains(5) {
		got := d.Init()
		if got != (DomainInit{BalanceInterval: want[i], NewidleCall: 512, NewidleSuccess: 256, NewidleRatio: 512}) {
			t.Errorf("%s: %+v", d.Name(), got)
		}
	}
}
