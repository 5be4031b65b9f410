package main

import (
	"testing"
	"time"

	"github.com/schedmodel/fairclass/sim"
)

// P7 of KERNEL-SPEC-PREEMPT §10.3: seed 002's configuration on the RB5
// preset with full preemption, HZ 250, a timer slack of 50 µs and a
// wakeup path c of about 6 µs (a 4 µs wakeup cost and the 2 µs switch)
// gives a cyclictest median within 55–60 µs (the thread: 57–58 µs), and a
// p90 at most about 8 µs above it (the thread: 3–7 µs), in every one of
// 10 seeds. The samples are 50 µs of slack, 4 µs to the preemption and
// 2 µs of switch, 56 µs, unless a tick lands inside the slack (1.25 % of
// them at HZ 250, earlier) or hackbench holds the CPU (the tail). The
// seeds' verdicts are the full run's (docs/seeds.md); here each seed runs
// 1 s of the patch's side (custom slices, PREEMPT_FLUSH_DELAYED on), 3
// seeds with -short.
func TestP7SeedMedianOnRB5(t *testing.T) {
	seeds := 10
	if testing.Short() {
		seeds = 3
	}
	if rb5.hz != 250 || rb5.timerSlack != 50*time.Microsecond || rb5.wakeupCost+rb5.switchCost != 6*time.Microsecond || rb5.preset != "rb5" {
		t.Fatalf("the RB5 runs at HZ %d, slack %v, wakeup path %v + %v, preset %q", rb5.hz, rb5.timerSlack, rb5.wakeupCost, rb5.switchCost, rb5.preset)
	}
	var cfgs []sim.Config
	for k := 0; k < seeds; k++ {
		cfgs = append(cfgs, latencyConfig(rb5, uint64(1+k), time.Second, seed002Columns()[2]))
	}
	reports, err := sim.Sweep(cfgs, sim.SweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range reports {
		if r.Preempt != "" || r.TickNs != 4000000 || r.TimerSlackNs != 50000 {
			t.Errorf("seed %d: preemption %q, tick %d ns, slack %d ns; want full, 4000000, 50000", k+1, r.Preempt, r.TickNs, r.TimerSlackNs)
		}
		l := r.Workloads[0].Latency
		t.Logf("seed %d: %d samples, p50 %d ns, p90 %d ns, p99 %d ns, max %d ns", k+1, l.Count, l.P50, l.P90, l.P99, l.Max)
		if l.P50 < 55000 || l.P50 > 60000 {
			t.Errorf("seed %d: median %d ns, want 55–60 µs", k+1, l.P50)
		}
		if l.P90-l.P50 > 8000 {
			t.Errorf("seed %d: p90 %d ns is %d ns above the median, want at most 8 µs", k+1, l.P90, l.P90-l.P50)
		}
	}
}
