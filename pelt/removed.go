package pelt

// Removed is cfs_rq->removed: load that left a queue while the queue could
// not be updated (a sleeping task migrating away, a task exiting), waiting
// to be taken off at the queue's next update.
type Removed struct {
	NR          uint64 // nr: entities removed since the last update
	LoadAvg     uint64 // load_avg
	UtilAvg     uint64 // util_avg
	RunnableAvg uint64 // runnable_avg
}

// Add is the accumulation half of remove_entity_load_avg: the entity's
// averages are added to the queue's removed accumulators (the sums are not;
// they are rebuilt from the averages when applied). The caller first Syncs
// the entity to the queue's last_update_time, as the kernel does.
func (r *Removed) Add(se *Avg) {
	r.NR++
	r.UtilAvg += se.UtilAvg
	r.LoadAvg += se.LoadAvg
	r.RunnableAvg += se.RunnableAvg
}

// ApplyRemoved is the removed-load half of update_cfs_rq_load_avg, run
// before the queue itself is aged. If anything was removed (NR ≠ 0), each
// accumulated average r comes off q through the clamped primitive, its sum
// as r·D with D q's current divider:
//
//	__update_sa(load, −r, −r·D), __update_sa(util, −r, −r·D), __update_sa(runnable, −r, −r·D)
//
// (negations in unsigned arithmetic, so the util sum delta is −r·D modulo
// 2^32, read as an int). r is then zeroed. The returned prop is what the
// caller passes to add_tg_cfs_propagate: the removed runnable_avg stands in
// for the unweighted removed load, −(long)(runnable·D) >> 10 with an
// arithmetic shift (rounding toward −∞). applied reports that the kernel's
// decayed flag is set; the caller then propagates even if prop is 0.
func (q *Avg) ApplyRemoved(r *Removed) (prop int64, applied bool) {
	if r.NR == 0 {
		return 0, false
	}
	d := q.Divider()
	load, util, runnable := r.LoadAvg, r.UtilAvg, r.RunnableAvg
	*r = Removed{}
	q.AddLoad(int64(-load), int64(-load*d))
	q.AddUtil(int64(-util), int64(-util*d))
	q.AddRunnable(int64(-runnable), int64(-runnable*d))
	return -int64(runnable*d) >> CapacityShift, true
}
