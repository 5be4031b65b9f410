package energy

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A Meter charges each CPU cost_i·u·dt at the state its domain's busiest
// CPU needs (with schedutil's 1.25 headroom), which is the state's power
// times the CPU's busy fraction u/performance_i: on §10.3's machine, CPU 0
// at util 100 for 1 s runs its domain at state 0 (125 ≤ 256): 3906·100·10⁹
// cost·util·ns = 39 060 µJ (0.1 W · 100/256 = 39 062.5 µJ before the
// cost's flooring); CPU 2 at 300 (375 ≤ 512, state 0): 7812·300 → 234 360
// µJ; then CPU 3 at 900 for 0.5 s needs 1125 → the top state (cost 15 625):
// 703 125 µJ.
func TestMeterChargesTheStateSchedutilWouldPick(t *testing.T) {
	mt := NewMeter(Synthetic2x2())
	if err := mt.Add(1e9, []uint64{100, 0, 300, 0}); err != nil {
		t.Fatal(err)
	}
	if err := mt.Add(5e8, []uint64{0, 0, 0, 900}); err != nil {
		t.Fatal(err)
	}
	want := []float64{39060, 0, 234360, 703125}
	for c, w := range want {
		if got := mt.CPUMicrojoules(c); got != w {
			t.Errorf("CPU %d: %v µJ, want %v", c, got, w)
		}
	}
	if got := mt.DomainMicrojoules(1); got != 234360+703125 {
		t.Errorf("big domain: %v µJ", got)
	}
	if !slices.Equal(mt.Residency(0), []uint64{15e8, 0}) || !slices.Equal(mt.Residency(1), []uint64{1e9, 5e8}) {
		t.Errorf("residency %v %v", mt.Residency(0), mt.Residency(1))
	}
	r := mt.Report()
	if r.ElapsedNs != 15e8 || r.TotalUJ != 39060+234360+703125 || len(r.CPUs) != 4 || r.Domains[1].Residency[1] != (StateSeconds{2000000, 5e8}) {
		t.Errorf("report %+v", r)
	}
	if err := mt.Add(1, []uint64{1}); !errors.Is(err, ErrBadModel) || mt.Elapsed() != 15e8 {
		t.Errorf("a short utilisation list: %v", err)
	}
	if mt.CPUMicrojoules(9) != 0 || mt.DomainMicrojoules(-1) != 0 || mt.Residency(5) != nil {
		t.Error("bad ids answer non-zero")
	}
	utils := []uint64{10, 20, 30, 40}
	if n := testing.AllocsPerRun(100, func() { _ = mt.Add(4e6, utils) }); n != 0 {
		t.Errorf("Add allocates %v times", n)
	}
}

// The 128-bit sums do not wrap where 64 bits would: a full prime CPU of
// the RB5 for a day is about 1.2·10²¹ cost·util·ns.
func TestMeterSumsDoNotWrap(t *testing.T) {
	mt := NewMeter(RB5())
	utils := []uint64{0, 0, 0, 0, 0, 0, 0, 1024}
	for range 24 {
		_ = mt.Add(3600e9, utils)
	}
	want := 13581.0 * 1024 * 86400e9 * 1e-10
	if got := mt.CPUMicrojoules(7); got < want*0.999999 || got > want*1.000001 {
		t.Errorf("a day at the top state: %v µJ, want %v", got, want)
	}
}

// A utilisation above the capacity counts as the capacity, however large:
// the headroom is added after the cap, so that a value near 2⁶⁴ cannot wrap
// around to a small one and pick the cheapest state.
func TestMeterHugeUtilisationIsTheCapacity(t *testing.T) {
	for _, u := range []uint64{1024, 5000, 1<<64 - 1, 14757395258967641293} {
		mt := NewMeter(Synthetic2x2())
		if err := mt.Add(1000, []uint64{0, 0, 0, u}); err != nil {
			t.Fatal(err)
		}
		if got := mt.Residency(1); !slices.Equal(got, []uint64{0, 1000}) {
			t.Errorf("utilisation %d: residency %v, want the top state's [0 1000]", u, got)
		}
	}
}

// A Meter of no model answers zero and refuses Add, without panicking.
func TestMeterWithoutAModel(t *testing.T) {
	for _, mt := range []*Meter{NewMeter(nil), {}, nil} {
		if err := mt.Add(1, []uint64{1}); !errors.Is(err, ErrBadModel) {
			t.Errorf("Add: %v, want ErrBadModel", err)
		}
		if mt.Elapsed() != 0 || mt.CPUMicrojoules(0) != 0 || mt.DomainMicrojoules(0) != 0 || mt.Residency(0) != nil {
			t.Error("a Meter without a model reports something")
		}
		if r := mt.Report(); r.ElapsedNs != 0 || r.TotalUJ != 0 || r.CPUs != nil || r.Domains != nil {
			t.Errorf("Report %+v", r)
		}
	}
}

// Of several unknown keys, the error names the same one every time (the
// first in sorted order), not whichever a map iteration meets first.
func TestLoadUnknownKeysDeterministic(t *testing.T) {
	var first string
	for i := range 50 {
		_, err := LoadBytes([]byte(`{"domains": [], "zzz": 1, "aaa": 2, "mmm": 3}`))
		if !errors.Is(err, ErrBadModel) {
			t.Fatalf("unknown keys: %v", err)
		}
		if i == 0 {
			first = err.Error()
		} else if err.Error() != first {
			t.Fatalf("the error changes: %q, then %q", first, err.Error())
		}
	}
	if !strings.Contains(first, `"aaa"`) {
		t.Errorf("error %q does not name the first key in sorted order", first)
	}
}
