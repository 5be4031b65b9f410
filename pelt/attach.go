package pelt

// Attach is attach_entity_load_avg: the entity se (weight seWeight)
// joins queue q with the averages it carries, and q takes its sums from
// them. It returns the amount the caller passes to add_tg_cfs_propagate on
// q (se's new load_sum; see Propagation).
//
// The entity adopts the queue's clock and position in the period
// (last_update_time, period_contrib), so that both decay in step from now
// on. Its sums are rebuilt from its averages with q's divider D:
// util_sum = util_avg·D (in 32 bits), runnable_sum = runnable_avg·D and,
// since load_avg = w·load_sum/D, load_sum = load_avg·D/w — taken as 1 when
// that quotient would be below 1 (w ≥ load_avg·D), so that a non-zero
// load_avg never comes with a zero load_sum. The division is the kernel's
// div_u64, by the low 32 bits of w. Then the load enters q through
// EnqueueLoad and util and runnable are added to q unclamped.
func (q *Avg) Attach(se *Avg, seWeight uint64) int64 {
	d := q.Divider()
	se.LastUpdateTime = q.LastUpdateTime
	se.PeriodContrib = q.PeriodContrib
	se.UtilSum = uint32(se.UtilAvg * d)
	se.RunnableSum = se.RunnableAvg * d
	se.LoadSum = se.LoadAvg * d
	if seWeight < se.LoadSum {
		se.LoadSum = div(se.LoadSum, uint64(uint32(seWeight)))
	} else {
		se.LoadSum = 1
	}
	q.EnqueueLoad(se, seWeight)
	q.UtilAvg += se.UtilAvg
	q.UtilSum += se.UtilSum
	q.RunnableAvg += se.RunnableAvg
	q.RunnableSum += se.RunnableSum
	return int64(se.LoadSum)
}

// Detach is detach_entity_load_avg: the entity's load, util and runnable
// leave q through the clamped primitives (DequeueLoad, AddUtil,
// AddRunnable). It returns the amount the caller passes to
// add_tg_cfs_propagate on q: −load_sum, negated as a u64 and read as a
// long.
func (q *Avg) Detach(se *Avg, seWeight uint64) int64 {
	q.DequeueLoad(se, seWeight)
	q.AddUtil(int64(-se.UtilAvg), int64(-se.UtilSum))
	q.AddRunnable(int64(-se.RunnableAvg), int64(-se.RunnableSum))
	return int64(-se.LoadSum)
}

// PostInitUtilAvg is post_init_entity_util_avg for a fair task about to be
// enqueued for the first time on queue q (its own queue: the root queue or
// its group's), on a CPU of capacity 1024.
//
// A new task gets a share of the capacity its queue does not use yet,
// capped at half of it: cap = (1024 − q.util_avg)/2 (signed, truncated).
// If cap > 0 the task's util_avg is q.util_avg·seWeight/(q.load_avg + 1) —
// the queue's utilization per unit of load, times the task's weight — at
// most cap, or cap itself on an idle queue. So successive forks on an empty
// CPU start at 512, 256, 128, … . A cap of 0 or less leaves util_avg as it
// is (0 for a new task). runnable_avg starts equal to util_avg. The
// attach at the first enqueue then rebuilds the sums from these averages.
func PostInitUtilAvg(q *Avg, se *Avg, seWeight uint64) {
	PostInitUtilAvgCapacity(q, se, seWeight, CapacityScale)
}

// PostInitUtilAvgCapacity is PostInitUtilAvg on a CPU of capacity
// cpuScale (arch_scale_cpu_capacity): cap = (cpuScale − q.util_avg)/2,
// the rest as there. On a little CPU a new task so starts at half of
// that CPU's spare capacity, not of 1024's.
func PostInitUtilAvgCapacity(q *Avg, se *Avg, seWeight, cpuScale uint64) {
	c := int64(cpuScale-q.UtilAvg) / 2 // the kernel's long: a negative difference stays negative
	if c > 0 {
		if q.UtilAvg != 0 {
			se.UtilAvg = min(div(q.UtilAvg*seWeight, q.LoadAvg+1), uint64(c))
		} else {
			se.UtilAvg = uint64(c)
		}
	}
	se.RunnableAvg = se.UtilAvg
}
