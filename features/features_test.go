package features

import (
	"errors"
	"sort"
	"strings"
	"testing"
)

func TestDefaultsMatchKernel(t *testing.T) {
	// features.h as of the modelled kernel, plus the seed toggles' defaults.
	want := map[Feature]bool{
		PlaceLag: true, PlaceDeadlineInitial: true, PlaceRelDeadline: true,
		RunToParity: true, PreemptShort: true, NextBuddy: false, PickBuddy: true,
		CacheHotBuddy: true, DelayDequeue: true, DelayZero: true, ParanoidAvg: false,
		WakeupPreemption: true, HRTick: false, HRTickDL: false, NonTaskCapacity: true,
		TTWUQueue: true, SISUtil: true, WarnDoubleClock: false, RTPushIPI: true,
		RTRuntimeShare: false, LBMin: false, AttachAgeLoad: true, WAIdle: true,
		WAWeight: true, WABias: true, UtilEst: true, LatencyWarn: false,
		NIRandom: true, NIRate: true,
		DelayLagFloor: true, DelayLagFloorPosted: false, PreemptFlushDelayed: true,
		PlaceJoinLag: false, YieldBumpDeadline: false, YieldClampDeadline: false,
		YieldForfeitAlways: false,
	}
	if len(want) != int(numFeatures) {
		t.Fatalf("test covers %d features, package has %d", len(want), numFeatures)
	}
	d := Default()
	for f, on := range want {
		if d.Has(f) != on || f.Default() != on {
			t.Errorf("%v: default %v, want %v", f, d.Has(f), on)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		on, off  []Feature
	}{
		{"empty input is the defaults", "", []Feature{PlaceLag, RunToParity}, []Feature{NextBuddy}},
		{"NO_ prefix turns a feature off", "NO_RUN_TO_PARITY PLACE_LAG", []Feature{PlaceLag}, []Feature{RunToParity}},
		{"later tokens win", "NO_PLACE_LAG PLACE_LAG NEXT_BUDDY", []Feature{PlaceLag, NextBuddy}, nil},
		{"seed toggles parse", "PLACE_JOIN_LAG NO_DELAY_LAG_FLOOR YIELD_BUMP_DEADLINE", []Feature{PlaceJoinLag, YieldBumpDeadline}, []Feature{DelayLagFloor}},
		{"whitespace is free", "  NO_DELAY_ZERO\tNO_DELAY_DEQUEUE\n", nil, []Feature{DelayZero, DelayDequeue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.on {
				if !s.Has(f) {
					t.Errorf("%v off, want on", f)
				}
			}
			for _, f := range tt.off {
				if s.Has(f) {
					t.Errorf("%v on, want off", f)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	_, err := Parse("PLACE_LAG NO_SUCH_THING")
	var ue *UnknownError
	if !errors.As(err, &ue) || ue.Token != "NO_SUCH_THING" {
		t.Fatalf("err = %v, want UnknownError for NO_SUCH_THING", err)
	}
	for _, n := range []string{"PLACE_LAG", "RUN_TO_PARITY", "PLACE_JOIN_LAG", "YIELD_FORFEIT_ALWAYS"} {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error does not list valid name %s: %v", n, err)
		}
	}
	if _, err := Parse("YIELD_BUMP_DEADLINE YIELD_FORFEIT_ALWAYS"); err == nil ||
		!strings.Contains(err.Error(), "YIELD_BUMP_DEADLINE and YIELD_FORFEIT_ALWAYS") {
		t.Fatalf("two yield variants: err = %v", err)
	}
	if _, err := Parse("place_lag"); err == nil {
		t.Fatal("lower-case token accepted; debugfs names are upper case")
	}
}

func TestStringRoundTrip(t *testing.T) {
	s, err := Parse("NO_RUN_TO_PARITY PLACE_JOIN_LAG NO_DELAY_ZERO")
	if err != nil {
		t.Fatal(err)
	}
	str := s.String()
	if !strings.HasPrefix(str, "PLACE_LAG PLACE_DEADLINE_INITIAL PLACE_REL_DEADLINE NO_RUN_TO_PARITY ") {
		t.Errorf("String() = %q", str)
	}
	back, err := None().Apply(str)
	if err != nil || back != s {
		t.Errorf("Apply(String()) = %v, %v; want %v", back, err, s)
	}
	if d := s.Diff(Default()); d != "NO_RUN_TO_PARITY NO_DELAY_ZERO PLACE_JOIN_LAG" {
		t.Errorf("Diff = %q", d)
	}
	if back, _ := Parse(s.Diff(Default())); back != s {
		t.Errorf("Parse(Diff) = %v, want %v", back, s)
	}
}

func TestLookupAndNames(t *testing.T) {
	for _, f := range All() {
		g, ok := Lookup(f.String())
		if !ok || g != f {
			t.Errorf("Lookup(%q) = %v, %v", f.String(), g, ok)
		}
	}
	if _, ok := Lookup("NO_PLACE_LAG"); ok {
		t.Error("Lookup accepts a NO_ prefix; it takes bare names")
	}
	if !YieldBumpDeadline.Seed() || PlaceLag.Seed() {
		t.Error("Seed() misclassifies")
	}
}

func TestPresets(t *testing.T) {
	for _, k := range []string{"v7.3", "v7.1"} {
		if s, err := Preset(k); err != nil || s != Default() {
			t.Errorf("Preset(%s) = %v, %v", k, s.Diff(Default()), err)
		}
	}
	s, err := Preset("v7.0")
	if err != nil || s.Diff(Default()) != "NO_NI_RATE NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED" {
		t.Errorf("Preset(v7.0) = %q, %v", s.Diff(Default()), err)
	}
	if _, err := Preset("v5.15"); err == nil {
		t.Error("unknown preset accepted")
	}
}

// UnknownError's message names the token as written and lists every
// feature name once, in sorted order.
func TestUnknownErrorListsValidNamesSorted(t *testing.T) {
	_, err := Parse("NO_PLACE_LAGG")
	msg := err.Error()
	prefix := `features: unknown feature "NO_PLACE_LAGG"; valid names (each may take a NO_ prefix): `
	if !strings.HasPrefix(msg, prefix) {
		t.Fatalf("message %q", msg)
	}
	listed := strings.Fields(strings.TrimPrefix(msg, prefix))
	if len(listed) != len(All()) || !sort.StringsAreSorted(listed) {
		t.Errorf("listed %d names (sorted %v), want %d sorted", len(listed), sort.StringsAreSorted(listed), len(All()))
	}
	for _, f := range All() {
		if i := sort.SearchStrings(listed, f.String()); i == len(listed) || listed[i] != f.String() {
			t.Errorf("%s missing from the list", f)
		}
	}
}

// The presets follow each version's features.h (KERNEL-SPEC-LTS Part II
// §2.1): 29 SCHED_FEATs in v7.1, 27 in v7.0, 26 in v6.18.
func TestPresetFeatureLists(t *testing.T) {
	for _, c := range []struct {
		kernel string
		n      int
		diff   string
	}{
		{"v7.1", 29, ""},
		{"v7.0", 27, "NO_NI_RATE NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED"},
		{"v6.18", 26, "NO_NI_RANDOM NO_NI_RATE NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED"},
		{"v6.12", 25, "NO_PICK_BUDDY NO_NI_RANDOM NO_NI_RATE NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED"},
		{"v6.6", 21, "NO_PLACE_REL_DEADLINE NO_PREEMPT_SHORT NO_PICK_BUDDY NO_DELAY_DEQUEUE NO_DELAY_ZERO NO_NI_RANDOM NO_NI_RATE NO_DELAY_LAG_FLOOR NO_PREEMPT_FLUSH_DELAYED"},
	} {
		s, err := Preset(c.kernel)
		if err != nil || s.Diff(Default()) != c.diff {
			t.Errorf("Preset(%s) = %q, %v; want %q", c.kernel, s.Diff(Default()), err, c.diff)
		}
		n := 0
		for _, f := range All() {
			if !f.Seed() && Exists(c.kernel, f) {
				n++
			} else if !f.Seed() && s.Has(f) {
				t.Errorf("Preset(%s) has %v, which that version lacks", c.kernel, f)
			}
		}
		if n != c.n {
			t.Errorf("%s has %d features, want %d", c.kernel, n, c.n)
		}
	}
	if Exists("v5.15", PlaceLag) || !Exists("v6.18", DelayLagFloor) {
		t.Error("Exists: unknown version or seed toggle misclassified")
	}
}
