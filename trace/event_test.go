package trace

import "testing"

// TestDecodeState: the prev_state tables of TRACE-REPLAY.md Part I §2, for
// each era, including the values seen in the captures.
func TestDecodeState(t *testing.T) {
	tests := []struct {
		raw  int64
		era  Era
		want string
	}{
		{0, EraReport, "R"},
		{1, EraReport, "S"},
		{2, EraReport, "D"},
		{4, EraReport, "T"},
		{8, EraReport, "t"},
		{16, EraReport, "X"},
		{32, EraReport, "Z"},
		{64, EraReport, "P"},
		{128, EraReport, "I"},
		{256, EraReport, "R+"},
		{512, EraReport, "R?"},
		{0, EraLegacy, "R"},
		{1, EraLegacy, "S"},
		{64, EraLegacy, "x"},
		{130, EraLegacy, "D|K"},
		{258, EraLegacy, "D|W"},
		{512, EraLegacy, "P"},
		{1024, EraLegacy, "N"},
		{2048, EraLegacy, "R+"},
		{4096, EraLegacy, "R+"},
		{8192, EraLegacy, "R?"},
		{128, EraAuto, "I"},
	}
	for _, tc := range tests {
		if got := DecodeState(tc.raw, tc.era).String(); got != tc.want {
			t.Errorf("DecodeState(%d, %v) = %s, want %s", tc.raw, tc.era, got, tc.want)
		}
	}
}

func TestStateLetters(t *testing.T) {
	for _, s := range []string{"R", "R+", "S", "D", "D|K", "D|W", "x", "I", "P", "X", "Z", "T", "t", "N", "n", "W", "K"} {
		st, ok := parseStateLetters([]byte(s))
		if !ok || st.String() != s {
			t.Errorf("%q parses to %v, %v", s, st, ok)
		}
	}
	for _, s := range []string{"", "+", "Q", "S|", "|S", "S||D", "R++"} {
		if st, ok := parseStateLetters([]byte(s)); ok {
			t.Errorf("%q parses to %v, want an error", s, st)
		}
	}
	if s := StateSleeping; s.Runnable() || s.Preempted() || s.Exited() {
		t.Errorf("S: runnable/preempted/exited")
	}
	if s := StatePreempted; !s.Runnable() || !s.Preempted() {
		t.Errorf("R+ not runnable and preempted")
	}
	if !StateZombie.Exited() || !StateDying.Exited() || !StateDead.Exited() {
		t.Errorf("Z, x, X not exited")
	}
}

func TestEraOf(t *testing.T) {
	tests := []struct {
		release string
		want    Era
		ok      bool
	}{
		{"5.10.43-android12-9-00031-g5b153f189546-ab7618735", EraReport, true},
		{"4.19.113-22067904", EraReport, true},
		{"4.14.0", EraReport, true},
		{"4.13.16", EraLegacy, true},
		{"4.9.112-perf", EraLegacy, true},
		{"3.18.71", EraLegacy, true},
		{"7.1.3", EraReport, true},
		{"", EraAuto, false},
		{"linux", EraAuto, false},
		{"6", EraAuto, false},
	}
	for _, tc := range tests {
		if got, ok := EraOf(tc.release); got != tc.want || ok != tc.ok {
			t.Errorf("EraOf(%q) = %v, %v; want %v, %v", tc.release, got, ok, tc.want, tc.ok)
		}
	}
}

func TestKindNames(t *testing.T) {
	for name, k := range kindByName {
		if k.String() != name {
			t.Errorf("%v named %q", k, name)
		}
	}
	if KindLost.String() != "lost_events" || Kind(200).String() != "Kind(200)" {
		t.Errorf("names of KindLost, Kind(200): %q %q", KindLost, Kind(200))
	}
}
