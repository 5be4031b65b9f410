package eevdf_test

import (
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

// KERNEL-SPEC §2.15.3: a nice-0 task sleeps with lag −266667 and is
// reniced to 5, then to 10, while asleep. The modelled kernel rescales
// once, at the wakeup: −266667·1048576/112640 = −2482427 (truncated). v7.1
// rescaled at each change: −815125 (·1048576/343040), then −2482426
// (·343040/112640).
func TestReniceWhileAsleepRescales(t *testing.T) {
	for _, tc := range []struct {
		kernel                eevdf.Kernel
		after5, after10, woke int64
	}{
		{eevdf.KernelV73, -266667, -266667, -2482427},
		{eevdf.KernelV71, -815125, -2482426, -2482426},
	} {
		b := newBench(t, eevdf.RBTree, eevdf.WithKernel(tc.kernel))
		a, s := b.entity("A"), b.entity("S")
		b.new(a)
		eevdf.SetVLag(s, -266667)
		if err := b.rq.SetNice(s, 5); err != nil {
			t.Fatal(err)
		}
		if s.VLag() != tc.after5 {
			t.Errorf("%v: after renice 5 vlag %d, want %d", tc.kernel, s.VLag(), tc.after5)
		}
		b.rq.SetNice(s, 10)
		if s.VLag() != tc.after10 {
			t.Errorf("%v: after renice 10 vlag %d, want %d", tc.kernel, s.VLag(), tc.after10)
		}
		b.wakeup(s)
		if s.VLag() != tc.woke {
			t.Errorf("%v: after the wakeup vlag %d, want %d", tc.kernel, s.VLag(), tc.woke)
		}
	}
}

// KERNEL-SPEC §11.11 under the v7.1 rules: the short-slice task created
// while B runs does not preempt (the SHORT pick returns B and v7.1 has no
// eligibility rule), B's protection stays min(350000, 200000 + 300000), and
// the next schedule keeps B (eligible and protected).
func TestWorkedReplayV71(t *testing.T) {
	for _, bk := range backends {
		b := newBench(t, bk, eevdf.WithKernel(eevdf.KernelV71))
		a, bb, c := b.entity("A"), b.entity("B"), b.entity("C", eevdf.WithSlice(300000))
		b.new(a)
		b.new(bb)
		b.schedule()
		b.at(700000).tick()
		wantPick(t, b.schedule(), bb)
		b.at(900000)
		b.new(c)
		if b.rq.NeedResched() || b.rq.NextBuddy() != nil {
			t.Fatalf("v7.1: resched %v buddy %v; want no preemption", b.rq.NeedResched(), b.rq.NextBuddy())
		}
		want(t, bb, 200000, 350000, 350000)
		wantPick(t, b.schedule(), bb)
	}
}

func TestParseKernel(t *testing.T) {
	for _, k := range []eevdf.Kernel{eevdf.KernelV73, eevdf.KernelV71, eevdf.KernelV70, eevdf.KernelV618, eevdf.KernelV612, eevdf.KernelV66} {
		if got, err := eevdf.ParseKernel(k.String()); err != nil || got != k {
			t.Errorf("ParseKernel(%q) = %v, %v", k, got, err)
		}
	}
	if _, err := eevdf.ParseKernel("v5.15"); err == nil {
		t.Error("v5.15 accepted")
	}
}
