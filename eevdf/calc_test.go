package eevdf

import (
	"math"
	"testing"
)

// KERNEL-SPEC §2.2: calc_delta_fair of a task of the given nice, with the
// modelled kernel's division and with v7.0's fixed point.
func TestCalcDeltaFairVectors(t *testing.T) {
	tests := []struct {
		nice            int
		delta, div, fix uint64
	}{
		{0, 123456789, 123456789, 123456789},
		{1, 1000000, 1248780, 1248780},
		{5, 2800000, 8558805, 8558806},
		{9, 2800000, 20928467, 20928466},
		{13, 700000, 12800000, 12799999},
		{19, 2100000, 143360000, 143359999},
		{-20, 1000000, 11536, 11536},
	}
	for _, tt := range tests {
		se, err := NewEntity("t", WithNice(tt.nice))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			mode Arithmetic
			want uint64
		}{{Division, tt.div}, {FixedPoint, tt.fix}} {
			rq := &CfsRq{arith: c.mode}
			if got := rq.calcDeltaFair(tt.delta, se); got != c.want {
				t.Errorf("nice %d delta %d mode %d: got %d, want %d", tt.nice, tt.delta, c.mode, got, c.want)
			}
		}
	}
}

func TestCalcDeltaDivisionWrapsLikeTheKernel(t *testing.T) {
	// delta·2^20 overflows u64 above 2^44 ns; the kernel's product wraps.
	delta := uint64(1)<<44 + 12345
	lw := loadWeight{weight: scaleLoad(820)}
	want := (delta * Nice0Load) / lw.weight // wrapped product
	if got := calcDelta(Division, delta, Nice0Load, lw); got != want {
		t.Fatalf("got %d, want wrapped %d", got, want)
	}
	if want >= delta {
		t.Fatalf("test premise: the wrapped result %d should be far below %d", want, delta)
	}
}

func TestWeightTables(t *testing.T) {
	if NiceWeight(0) != 1024 || NiceWeight(-20) != 88761 || NiceWeight(19) != 15 || NiceWeight(20) != 0 {
		t.Fatal("nice table")
	}
	// The wmult table is 2^32/weight rounded, not always floored (nice -18).
	for i, w := range prioToWeight {
		exact := float64(1<<32) / float64(w)
		if d := math.Abs(float64(prioToWmult[i]) - exact); d > 1 {
			t.Errorf("nice %d: wmult %d, 2^32/w = %.1f", i-20, prioToWmult[i], exact)
		}
	}
	if prioToWmult[2] != 76040 {
		t.Error("nice -18 wmult must be the kernel's 76040")
	}
	if scaleLoadDown(0) != 0 || scaleLoadDown(1) != 2 || scaleLoadDown(3072) != 3 || scaleLoad(1024) != Nice0Load {
		t.Error("scale_load / scale_load_down")
	}
	lw := setLoadWeight(PolicyIdle, -20)
	if lw.weight != 3072 || lw.inv != 1431655765 {
		t.Errorf("SCHED_IDLE weight %+v", lw)
	}
}

func TestModularComparisons(t *testing.T) {
	near := ^uint64(0) - 10 // just below the wrap
	past := uint64(5)       // just past it: later in modular order
	if !vBefore(near, past) || vBefore(past, near) {
		t.Error("vBefore across the wrap")
	}
	if minVruntime(past, near) != near || maxVruntime(near, past) != past {
		t.Error("min/max across the wrap")
	}
	a, b := &SchedEntity{deadline: near}, &SchedEntity{deadline: past}
	if !entityBefore(a, b) || entityBefore(b, a) || entityBefore(a, a) {
		t.Error("entityBefore")
	}
}

func TestGeMul128(t *testing.T) {
	tests := []struct {
		avg, key, load int64
		want           bool
	}{
		{0, 0, 0, true},
		{5, 1, 5, true},
		{4, 1, 5, false},
		{-5, -1, 5, true},
		{-6, -1, 5, false},
		// key·load overflows int64: 2^62 · 8 = 2^65.
		{math.MaxInt64, 1 << 62, 8, false},
		{math.MinInt64, -(1 << 62), 8, true},
		{math.MinInt64, -(1 << 62), 1, false},
	}
	for _, tt := range tests {
		if got := geMul128(tt.avg, tt.key, tt.load); got != tt.want {
			t.Errorf("geMul128(%d, %d, %d) = %v", tt.avg, tt.key, tt.load, got)
		}
	}
}
