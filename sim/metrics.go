package sim

import (
	"slices"
)

// LatencySummary summarises latency samples, in nanoseconds. Percentiles
// are exact, by the nearest-rank rule over every sample kept: Pq is the
// smallest sample x such that at least q·N samples are ≤ x, i.e. the
// ⌈q·N⌉-th smallest (1-based).
type LatencySummary struct {
	Count uint64  `json:"count"`    // samples
	Min   uint64  `json:"min_ns"`   // smallest
	Avg   float64 `json:"avg_ns"`   // mean
	P50   uint64  `json:"p50_ns"`   // median
	P90   uint64  `json:"p90_ns"`   // 90th percentile
	P99   uint64  `json:"p99_ns"`   // 99th percentile
	P999  uint64  `json:"p99_9_ns"` // 99.9th percentile
	Max   uint64  `json:"max_ns"`   // largest
}

// Summarize returns the summary of samples (nanoseconds); it does not
// modify samples. An empty slice gives the zero summary.
func Summarize(samples []uint64) LatencySummary {
	n := uint64(len(samples))
	if n == 0 {
		return LatencySummary{}
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	var sum float64
	for _, v := range sorted {
		sum += float64(v)
	}
	return LatencySummary{
		Count: n,
		Min:   sorted[0],
		Avg:   sum / float64(n),
		P50:   rank(sorted, 50, 100),
		P90:   rank(sorted, 90, 100),
		P99:   rank(sorted, 99, 100),
		P999:  rank(sorted, 999, 1000),
		Max:   sorted[n-1],
	}
}

// Percentile returns the nearest-rank q-quantile (0 < num/den ≤ 1) of
// samples: the ⌈N·num/den⌉-th smallest. It returns 0 for no samples.
func Percentile(samples []uint64, num, den uint64) uint64 {
	if len(samples) == 0 || den == 0 || num == 0 || num > den {
		return 0
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	return rank(sorted, num, den)
}

// rank is the ⌈N·num/den⌉-th smallest of sorted (integer arithmetic, so
// that P99.9 of 1000 samples is exactly the 999th).
func rank(sorted []uint64, num, den uint64) uint64 {
	n := uint64(len(sorted))
	r := (n*num + den - 1) / den
	if r < 1 {
		r = 1
	}
	return sorted[r-1]
}

// shareSeries samples every task's cumulative CPU time at a fixed interval,
// for plots of the runtime share over time.
type shareSeries struct {
	interval uint64
	times    []uint64
	runtime  [][]uint64 // [sample][task]
}

// sampleShares records every task's CPU time up to now.
func (s *Sim) sampleShares() {
	row := make([]uint64, len(s.tasks))
	for i := range s.tasks {
		row[i] = s.runtimeNow(int32(i))
	}
	s.series.times = append(s.series.times, s.now)
	s.series.runtime = append(s.series.runtime, row)
}

// runtimeNow is t's CPU time including the current stint if it runs.
func (s *Sim) runtimeNow(ti int32) uint64 {
	t := &s.tasks[ti]
	r := t.runtime
	if t.state == stRunning {
		r += s.clock(&s.cpus[t.runCPU]) - t.tcIn
	}
	return r
}

// traceSlice is one stretch of a task running on a CPU.
type traceSlice struct {
	cpu, task  int32
	start, end uint64
}

// traceFlow is a migration arrow: task ran [fromStart, fromEnd) on CPU
// from, and next [toStart, toEnd) on CPU to.
type traceFlow struct {
	task               int32
	from, to           int32
	fromStart, fromEnd uint64
	toStart, toEnd     uint64
}

// endSlice records the running slice of task ti on c, ended at end, and
// the migration arrow into it if it began on another CPU than the
// task's previous slice.
// A slice of no length is not drawn, and is not an arrow's end.
func (s *Sim) endSlice(c *cpu, ti int32, end uint64) {
	t := &s.tasks[ti]
	if end <= t.traceStart {
		return
	}
	s.trace = append(s.trace, traceSlice{cpu: c.id, task: ti, start: t.traceStart, end: end})
	if t.flowPending {
		t.flowPending = false
		s.flows = append(s.flows, traceFlow{task: ti, from: t.flowFrom, to: c.id,
			fromStart: t.flowStart, fromEnd: t.flowEnd, toStart: t.traceStart, toEnd: end})
	}
	t.lastCPU, t.lastStart, t.lastEnd = c.id, t.traceStart, end
}
