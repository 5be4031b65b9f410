package eevdf

import "testing"

// z0 is Z, the initial zero_vruntime.
var z0 uint64 = initialZeroVruntime // a variable: the sums below wrap

// CS4 of KERNEL-SPEC-CORESCHED: cfs_prio_less's arithmetic, its §9
// example 2 (a)–(c). Vruntimes are offsets from Z = init_cfs_rq's
// zero_vruntime; a snapshot never taken is 0.
func TestCfsPrioLessExample2(t *testing.T) {
	ent := func(v uint64) *SchedEntity {
		se, err := NewEntity("t")
		if err != nil {
			t.Fatal(err)
		}
		se.vruntime = z0 + v
		return se
	}
	zfiA, zfiB := z0+1_000_000, z0+8_000_000
	tests := []struct {
		name       string
		va, vb     uint64
		zfiA, zfiB uint64
		aLoses     bool
		bLoses     bool
	}{
		// (a): n(a) = 4,300,000, n(b) = 700,000: a loses by 3,600,000
		// although its raw vruntime is 3.4 ms smaller.
		{"a loses against the snapshots", 5_300_000, 8_700_000, zfiA, zfiB, true, false},
		{"3,600,000 less makes a tie", 5_300_000, 8_700_000 + 3_600_000, zfiA, zfiB, false, false},
		{"3,599,999 less still loses", 5_300_000, 8_700_000 + 3_599_999, zfiA, zfiB, true, false},
		// (b): snapshots refreshed to Z+5 ms and Z+9 ms: n(a) = 300,000,
		// n(b) = −300,000, b still wins by 600,000.
		{"refreshed: b still wins", 5_300_000, 8_700_000, z0 + 5_000_000, z0 + 9_000_000, true, false},
		{"refreshed: 600,000 is the margin", 5_300_000, 8_700_000 + 600_000, z0 + 5_000_000, z0 + 9_000_000, false, false},
		// (c): rq1 never snapshotted (0): n(b) = 8,700,000 − 1,048,576 =
		// 7,651,424 against n(a) = 4,300,000: a wins by 3,351,424.
		{"never snapshotted: a wins", 5_300_000, 8_700_000, zfiA, 0, false, true},
		{"never snapshotted: 3,351,424 is the margin", 5_300_000 + 3_351_424, 8_700_000, zfiA, 0, false, false},
		{"never snapshotted: one more and a loses", 5_300_000 + 3_351_425, 8_700_000, zfiA, 0, true, false},
		// Equal snapshots: the plain vruntime order, ties not lower.
		{"one queue: vruntime order", 100, 200, z0, z0, false, true},
		{"one queue: a tie", 100, 100, z0, z0, false, false},
	}
	for _, tc := range tests {
		a, b := ent(tc.va), ent(tc.vb)
		if got := CfsPrioLess(a, tc.zfiA, b, tc.zfiB); got != tc.aLoses {
			t.Errorf("%s: CfsPrioLess(a, b) = %v, want %v", tc.name, got, tc.aLoses)
		}
		if got := CfsPrioLess(b, tc.zfiB, a, tc.zfiA); got != tc.bLoses {
			t.Errorf("%s: CfsPrioLess(b, a) = %v, want %v", tc.name, got, tc.bLoses)
		}
	}
	if CfsPrioLess(nil, 0, ent(0), 0) || CfsPrioLess(ent(0), 0, nil, 0) {
		t.Error("a nil entity compared")
	}
}

// ReschedCurr sets the flag the picks clear.
func TestReschedCurr(t *testing.T) {
	rq, err := NewCfsRq()
	if err != nil {
		t.Fatal(err)
	}
	rq.ReschedCurr()
	if !rq.NeedResched() {
		t.Fatal("ReschedCurr did not set need-resched")
	}
	rq.PutPrev()
	if rq.NeedResched() {
		t.Fatal("PutPrev left need-resched set")
	}
}
