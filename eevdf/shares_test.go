package eevdf

import "testing"

// The five share functions of KERNEL-SPEC-GROUPS §2.4, evaluated on a
// group queue in a chosen state. With S = tg->shares (scaled), N the
// online CPUs, L = tg->load_avg, c = this queue's published contribution,
// and the queue's load = max(scale_load_down(load.weight), load_avg):
//
//	tgw    = L − c + load
//	smp(T, M) = clamp(⌊T·load / tgw⌋, MIN_SHARES = 2, M)
//	up     = S
//	smp    = smp(S, S)
//	concur = smp(nr·S, nr·S), nr = min(max(1, ⌊R/1024⌋), N)   (R = tg->runnable_avg)
//	max    = smp(S·N, 90891264)
//	tasks  = smp(nr·S, nr·S), nr = max(1, ⌊R/1024⌋)
//
// On one CPU of a machine whose other CPUs never ran the group, L = c and
// tgw = load, so smp(T, M) = min(T, M) exactly (§3.1). Every row's
// comment is its derivation.
func TestShareFunctions(t *testing.T) {
	const (
		nice0 = 1 << 20     // cpu.weight 100
		w50   = 524288      // cpu.weight 50: ⌊(50·1024 + 50)/100⌋ = 512, scaled
		w3000 = 31457280    // cpu.weight 3000: ⌊(3000·1024 + 50)/100⌋ = 30720, scaled
		w10k  = 104857600   // cpu.weight 10000: 102400, scaled
		wMin  = 2048        // the smallest shares, scale_load(MIN_SHARES)
		cap   = 88761 << 10 // mode max's bound, the nice −20 weight: 90891264
	)
	tests := []struct {
		name    string
		mode    CgroupMode
		cpus    int
		shares  uint64
		qWeight uint64 // the group queue's load.weight
		qAvg    uint64 // the group queue's load_avg
		tgLoad  int64  // tg->load_avg
		contrib uint64 // this queue's tg_load_avg_contrib
		tgRun   int64  // tg->runnable_avg
		want    uint64
	}{
		// up: S whatever the load, the CPUs and the runnable tasks.
		{"up is the shares", ModeUp, 1, w50, 2 * nice0, 0, 0, 0, 0, w50},
		{"up ignores other CPUs' load", ModeUp, 4, w50, nice0, 0, 5000, 1024, 5000, w50},
		{"up has no cap", ModeUp, 1, w10k, nice0, 0, 0, 0, 0, w10k},

		// smp: load = max(2^21 >> 10, 0) = 2048 = tgw → S·2048/2048 = S.
		{"smp on one CPU is the shares", ModeSMP, 1, nice0, 2 * nice0, 0, 0, 0, 0, nice0},
		// online CPUs alone change nothing while only this CPU contributes:
		// tgw = 1024 − 1024 + 1024 = load.
		{"smp ignores online_cpus", ModeSMP, 4, w50, nice0, 0, 1024, 1024, 0, w50},
		// load = max(1024, 512) = 1024; tgw = 3072 − 1024 + 1024 = 3072;
		// ⌊2^20·1024/3072⌋ = ⌊349525.33⌋ = 349525.
		{"smp takes this CPU's part of the group's load", ModeSMP, 2, nice0, nice0, 512, 3072, 1024, 0, 349525},
		// load = max(1024, 2048) = 2048 (the average wins); tgw = 4096 −
		// 2048 + 2048 = 4096; 2^20·2048/4096 = 524288.
		{"smp's load is the larger of weight and average", ModeSMP, 2, nice0, nice0, 2048, 4096, 2048, 0, 524288},
		// tgw = 2^21 − 0 + 1024 = 2098176; ⌊2048·1024/2098176⌋ = 0 →
		// clamped up to MIN_SHARES.
		{"smp is floored at MIN_SHARES", ModeSMP, 2, wMin, nice0, 0, 1 << 21, 0, 0, 2},

		// concur: R = 3072 → 3 tasks; N = 1 → nr = 1 → S (§3.1).
		{"concur on one CPU is the shares", ModeConcur, 1, nice0, 3 * nice0, 0, 3072, 3072, 3072, nice0},
		// N = 2: nr = min(3, 2) = 2 → 2S = 2097152.
		{"concur counts the online CPUs", ModeConcur, 2, nice0, 3 * nice0, 0, 3072, 3072, 3072, 2 * nice0},
		// N = 4, R = 4095: ⌊4095/1024⌋ = 3 → nr = min(3, 4) = 3 → 3S.
		{"concur counts at most the group's runnable tasks", ModeConcur, 4, w50, 3 * nice0, 0, 3072, 3072, 4095, 3 * w50},
		// N = 4, R = 1023: max(1, 0) = 1 → S.
		{"concur counts at least one task", ModeConcur, 4, w50, nice0, 0, 0, 0, 1023, w50},
		// N = 2, R = 2048 → nr = 2, T = 2^21; load 1024, tgw = 3072 −
		// 1024 + 1024 = 3072; ⌊2^21·1024/3072⌋ = ⌊699050.67⌋ = 699050.
		{"concur with load on other CPUs", ModeConcur, 2, nice0, nice0, 0, 3072, 1024, 2048, 699050},

		// max: T = S·N, M = 90891264.
		{"max on one CPU is the shares below the cap", ModeMax, 1, nice0, nice0, 0, 0, 0, 0, nice0},
		// 104857600 > 90891264 → the cap.
		{"max caps cpu.weight 10000 at the nice -20 weight", ModeMax, 1, w10k, nice0, 0, 0, 0, 0, cap},
		// N = 4: 4·2^20 = 4194304 < cap.
		{"max multiplies the shares by online_cpus", ModeMax, 4, nice0, nice0, 0, 0, 0, 0, 4 * nice0},
		// N = 4: 4·31457280 = 125829120 > cap → 90891264.
		{"max caps the shares times online_cpus", ModeMax, 4, w3000, nice0, 0, 0, 0, 0, cap},
		// N = 2: T = 2^21; tgw = 2048 − 1024 + 1024 = 2048;
		// 2^21·1024/2048 = 2^20.
		{"max with load on other CPUs", ModeMax, 2, nice0, nice0, 0, 2048, 1024, 0, nice0},
		// It ignores the runnable tasks: R = 5120 would make 5 in tasks.
		{"max ignores the runnable tasks", ModeMax, 1, w50, nice0, 0, 0, 0, 5120, w50},

		// tasks: R = 3072 → nr = 3, whatever N → 3S.
		{"tasks counts the runnable tasks on one CPU", ModeTasks, 1, nice0, 3 * nice0, 0, 3072, 3072, 3072, 3 * nice0},
		// R = 5120 → 5 tasks; N = 2 is not a bound here → 5·524288.
		{"tasks ignores online_cpus", ModeTasks, 2, w50, nice0, 0, 0, 0, 5120, 5 * w50},
		// R = 512 → max(1, 0) = 1 → S.
		{"tasks counts at least one task", ModeTasks, 1, nice0, nice0, 0, 0, 0, 512, nice0},
		// R = 2048 → T = 2^21; load = max(2048, 0) = 2048 (two tasks);
		// tgw = 6144 − 2048 + 2048 = 6144; ⌊2^21·2048/6144⌋ = ⌊699050.67⌋.
		{"tasks with load on other CPUs", ModeTasks, 2, nice0, 2 * nice0, 0, 6144, 2048, 2048, 699050},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &Hierarchy{mode: tc.mode, onlineCPUs: tc.cpus}
			tg := &TaskGroup{h: h, name: "G", shares: tc.shares, loadAvg: tc.tgLoad, runnableAvg: tc.tgRun}
			g := &groupRq{tg: tg}
			g.q.loadWeight = tc.qWeight
			g.q.avg.LoadAvg = tc.qAvg
			g.q.tg.LoadAvg = tc.contrib
			if got := g.calcShares(); got != tc.want {
				t.Errorf("%v on %d CPUs: %d, want %d", tc.mode, tc.cpus, got, tc.want)
			}
		})
	}
}
