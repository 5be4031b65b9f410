package pelt

// util_est: a task's estimated utilization, an exponentially weighted
// moving average of its util_avg sampled when it goes to sleep, that rises
// at once and falls slowly. The root queue keeps the sum of the estimates
// of its enqueued tasks. The UtilAvgUnchanged bit marks a task whose
// util_avg has not been recomputed since the last sample, so that a task
// sleeping again before a period boundary is not sampled twice.
//
// The UTIL_EST feature test (sched_feat(UTIL_EST)) is the caller's: with
// the feature off, the kernel calls none of these.

// UtilEstValue is _task_util_est: util_est without the flag bit.
func (a *Avg) UtilEstValue() uint64 {
	return uint64(a.UtilEst &^ UtilAvgUnchanged)
}

// TaskUtilEst is task_util_est: max(util_avg, util_est).
func TaskUtilEst(se *Avg) uint64 {
	return max(se.UtilAvg, se.UtilEstValue())
}

// UtilEstUpdate is util_est_update for a task going to sleep (fair.c calls
// it from update_load_avg with UPDATE_UTIL_EST). In the kernel's order:
//
//  1. flag set (util_avg unchanged since the last sample): nothing;
//  2. the sample is util_avg, in 32 bits; an estimate at or below it
//     jumps up to it;
//  3. an estimate within UtilEstMargin above it is kept;
//  4. so is one whose task was starved: sample + margin < runnable_avg (it
//     waited to run, so its util_avg underestimates it);
//  5. otherwise the estimate moves a quarter of the way down:
//     e = (4e − (e − sample)) / 4, in u32 arithmetic.
//
// Every case but the first stores the estimate with the flag set.
func (se *Avg) UtilEstUpdate() {
	ewma := se.UtilEst
	if ewma&UtilAvgUnchanged != 0 {
		return
	}
	dequeued := uint32(se.UtilAvg)
	switch {
	case ewma <= dequeued:
		ewma = dequeued
	case ewma-dequeued < UtilEstMargin:
	case uint64(dequeued)+UtilEstMargin < se.RunnableAvg:
	default:
		diff := ewma - dequeued
		ewma <<= UtilEstWeightShift
		ewma -= diff
		ewma >>= UtilEstWeightShift
	}
	se.UtilEst = ewma | UtilAvgUnchanged
}

// UtilEstEnqueue is util_est_enqueue: the task's estimate (flag cleared)
// joins the root queue's sum, in 32 bits.
func UtilEstEnqueue(q *Avg, se *Avg) {
	q.UtilEst += uint32(se.UtilEstValue())
}

// UtilEstDequeue is util_est_dequeue: the task's estimate leaves the root
// queue's sum, which stops at 0.
func UtilEstDequeue(q *Avg, se *Avg) {
	q.UtilEst -= min(q.UtilEst, uint32(se.UtilEstValue()))
}
