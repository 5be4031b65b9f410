package eevdf

import (
	"errors"
	"testing"
)

func newCapRq(t *testing.T, c uint64) *CfsRq {
	t.Helper()
	rq, err := NewCfsRq(WithPELT(true), WithCapacity(c))
	if err != nil {
		t.Fatal(err)
	}
	return rq
}

// startHog forks a task at clock t0 and runs it.
func startHog(t *testing.T, rq *CfsRq, t0 uint64) *SchedEntity {
	t.Helper()
	se, err := NewEntity("hog")
	must(t, err)
	must(t, rq.SetClock(t0))
	must(t, rq.Enqueue(se, EnqueueInitial))
	if rq.PickNext() != se {
		t.Fatal("hog not picked")
	}
	return se
}

// AS14: 1 ms of running on a capacity-284 CPU adds ⌊1 000 000·284/1024⌋ =
// 277 343 ns of PELT time in one clock update, 4·⌊250 000·284/1024⌋ =
// 4·69 335 = 277 340 ns in four; idle entry syncs the PELT clock to the
// task clock; on a 1024 CPU the PELT clock is the task clock.
func TestPELTClockScaledByCapacity(t *testing.T) {
	const t0 = 1_000_000
	rq := newCapRq(t, 284)
	startHog(t, rq, t0)
	if got := rq.PELTClock(); got != t0 {
		t.Fatalf("PELT clock at the start %d, want %d (synced while idle)", got, t0)
	}
	must(t, rq.SetClock(t0+1_000_000))
	if got := rq.PELTClock() - t0; got != 277343 {
		t.Errorf("one update: +%d, want 277343", got)
	}
	rq4 := newCapRq(t, 284)
	startHog(t, rq4, t0)
	for i := uint64(1); i <= 4; i++ {
		must(t, rq4.SetClock(t0+i*250_000))
	}
	if got := rq4.PELTClock() - t0; got != 277340 {
		t.Errorf("four updates: +%d, want 277340", got)
	}
	// The hog sleeps: the CPU goes idle and its PELT clock catches up
	// (util_sum is far below the saturation bound after 1 ms).
	se := rq.Curr()
	if _, err := rq.Dequeue(se, DequeueSleep); err != nil {
		t.Fatal(err)
	}
	if rq.PickNext() != nil {
		t.Fatal("not idle")
	}
	if got := rq.PELTClock(); got != t0+1_000_000 || rq.LostIdleTime() != 0 {
		t.Errorf("after idle entry: PELT clock %d, lost %d; want %d, 0", got, rq.LostIdleTime(), t0+1_000_000)
	}
	full := newCapRq(t, 1024)
	startHog(t, full, t0)
	must(t, full.SetClock(t0+1_000_000))
	if full.PELTClock() != full.Clock() || full.Capacity() != 1024 {
		t.Errorf("capacity 1024: PELT clock %d, task clock %d", full.PELTClock(), full.Clock())
	}
}

// §1.6 rule 5: a hog on a little CPU that never idles climbs towards util
// 1024, not 284: its PELT clock runs slower, but it runs all of it. After
// 2 s of wall time (≈ 555 ms of PELT time, many half-lives) its util_avg
// is within a percent of 1024; and when it finally sleeps, the idle entry
// counts the saturated gap as lost idle time, not idle.
func TestHogOnLittleCPUReaches1024(t *testing.T) {
	rq := newCapRq(t, 284)
	se := startHog(t, rq, 1_000_000)
	for now := uint64(1_000_000); now <= 2_001_000_000; now += 4_000_000 {
		must(t, rq.SetClock(now))
		rq.Tick()
	}
	if u := se.Avg().UtilAvg; u < 1014 {
		t.Errorf("hog util %d on a 284 CPU, want about 1024", u)
	}
	if u := rq.Avg().UtilAvg; u < 1014 {
		t.Errorf("CPU util %d, want about 1024 (capped to 284 only by cpu_util)", u)
	}
	// 500 updates of 4 ms, each ⌊4 000 000·284/1024⌋ = 1 109 375 ns.
	gap := rq.Clock() - rq.PELTClock()
	if gap != 2_000_000_000-500*1_109_375 {
		t.Errorf("PELT clock %d behind the task clock, want %d", gap, 2_000_000_000-500*1_109_375)
	}
	if _, err := rq.Dequeue(se, DequeueSleep); err != nil {
		t.Fatal(err)
	}
	rq.PickNext()
	if rq.LostIdleTime() != gap || rq.PELTClock() != rq.Clock()-gap {
		t.Errorf("lost idle time %d, want the gap %d", rq.LostIdleTime(), gap)
	}
}

// AS16: a task forked on an idle CPU of capacity 284 starts at util
// ⌊(284 − 0)/2⌋ = 142; on a 1024 CPU at 512.
func TestNewTaskUtilOnLittleCPU(t *testing.T) {
	for _, tc := range []struct{ c, want uint64 }{{284, 142}, {871, 435}, {1024, 512}} {
		rq := newCapRq(t, tc.c)
		se := startHog(t, rq, 1000)
		if u := se.Avg().UtilAvg; u != tc.want {
			t.Errorf("capacity %d: initial util %d, want %d", tc.c, u, tc.want)
		}
	}
	if _, err := NewCfsRq(WithCapacity(0)); !errors.Is(err, ErrBadOption) {
		t.Errorf("capacity 0: %v", err)
	}
	if _, err := NewCfsRq(WithCapacity(1025)); !errors.Is(err, ErrBadOption) {
		t.Errorf("capacity 1025: %v", err)
	}
}
