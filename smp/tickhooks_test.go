package smp

import "testing"

// The tick tests one flag, tickHooks, for the features whose tick work it
// guards (asymmetric capacities, EAS, core scheduling): the flag must be
// asym || easOn || core.on at every tick, set at New and kept as core
// scheduling switches on and off.
func TestTickHooksFollowTheFeatures(t *testing.T) {
	want := func(s *System) bool { return s.asym || s.easOn || s.core.on }

	s := newCoreSystem(t, oneCore2)
	if s.tickHooks || want(s) {
		t.Fatalf("symmetric machine without core scheduling: tickHooks %v, features %v, want both false", s.tickHooks, want(s))
	}
	a := csTask(t, s, "a", 0)
	tag(t, s, a)
	if !s.core.on || !s.tickHooks {
		t.Fatalf("after the first cookie: core.on %v, tickHooks %v, want both true", s.core.on, s.tickHooks)
	}
	if err := s.CoreShare(0, a); err != nil { // the last cookie freed
		t.Fatal(err)
	}
	if s.core.on || s.tickHooks {
		t.Fatalf("after the last cookie: core.on %v, tickHooks %v, want both false", s.core.on, s.tickHooks)
	}

	h := newPresetHarness(t, "rb5")
	if !h.s.asym || !h.s.tickHooks {
		t.Fatalf("rb5 (asymmetric): asym %v, tickHooks %v, want both true", h.s.asym, h.s.tickHooks)
	}
}
