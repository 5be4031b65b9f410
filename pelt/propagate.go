package pelt

// Group propagation: a group entity se stands for its own queue g in the
// parent queue q. When g's load changes by attach, detach or removal, the
// change is recorded on g (Propagation) and applied to se and q at se's
// next update (propagate_entity_load_avg), one level per update.

// Propagation is a queue's pending propagation: cfs_rq->propagate and
// cfs_rq->prop_runnable_sum.
type Propagation struct {
	Pending     bool  // propagate
	RunnableSum int64 // prop_runnable_sum: the unweighted load_sum change not yet propagated
}

// Add is add_tg_cfs_propagate: mark the queue and accumulate x (with
// wrap-around, as the kernel's long does).
func (p *Propagation) Add(x int64) {
	p.Pending = true
	p.RunnableSum += x
}

// PropagateEntity is propagate_entity_load_avg for a group entity se
// (weight seWeight) in queue q, whose own queue is g (gWeight =
// scale_load_down(g's load.weight)); qp and gp are the two queues'
// Propagations. If g has nothing pending it returns false. Otherwise it
// clears g's flag, forwards g's runnable-sum change to q, then applies
// PropagateUtil, PropagateRunnable and PropagateLoad in the kernel's order
// (the last consumes and zeroes g's runnable sum), and returns true: the
// caller's decayed flag.
func PropagateEntity(q *Avg, qp *Propagation, se *Avg, seWeight uint64, g *Avg, gp *Propagation, gWeight uint64) bool {
	if !gp.Pending {
		return false
	}
	gp.Pending = false
	qp.Add(gp.RunnableSum)
	PropagateUtil(q, se, g)
	PropagateRunnable(q, se, g)
	rs := gp.RunnableSum
	gp.RunnableSum = 0
	PropagateLoad(q, se, seWeight, g, gWeight, rs)
	return true
}

// PropagateUtil is update_tg_cfs_util: the group entity takes its queue's
// util_avg, and its util_sum is rebuilt with the parent's divider D (in 32
// bits, util_sum's width). The parent q changes by the difference in
// avg and in sum through AddUtil. Nothing happens if the averages are
// already equal.
func PropagateUtil(q, se, g *Avg) {
	dAvg := int64(g.UtilAvg - se.UtilAvg)
	if dAvg == 0 {
		return
	}
	d := q.Divider()
	se.UtilAvg = g.UtilAvg
	newSum := uint32(se.UtilAvg * d)
	dSum := int64(newSum) - int64(se.UtilSum)
	se.UtilSum = newSum
	q.AddUtil(dAvg, dSum)
}

// PropagateRunnable is update_tg_cfs_runnable, the same for runnable. The
// kernel computes the new runnable_sum in a u32 variable, so it is
// truncated to 32 bits here too (a group with more than about 87 runnable
// tasks wraps it).
func PropagateRunnable(q, se, g *Avg) {
	dAvg := int64(g.RunnableAvg - se.RunnableAvg)
	if dAvg == 0 {
		return
	}
	d := q.Divider()
	se.RunnableAvg = g.RunnableAvg
	newSum := uint32(se.RunnableAvg * d)
	dSum := int64(newSum) - int64(se.RunnableSum)
	se.RunnableSum = uint64(newSum)
	q.AddRunnable(dAvg, dSum)
}

// PropagateLoad is update_tg_cfs_load: the group entity's unweighted
// load_sum (a time fraction) is re-estimated from runnableSum, the change
// of g's unweighted load recorded since the last propagation (the caller
// reads g's prop_runnable_sum and zeroes it; 0 means nothing to do).
//
// With D the parent's divider:
//   - a gain (runnableSum ≥ 0) is added to se's load_sum, capped at D
//     (a fraction cannot exceed "always");
//   - a loss estimates g's fraction as its weighted load_sum per unit of
//     weight, g.load_sum/gWeight (0 if gWeight is 0), and takes the smaller
//     of that and se's current load_sum.
//
// The estimate is raised to at least se's running fraction util_sum >> 10
// (an entity runs only while runnable). Then load_sum = seWeight·r,
// load_avg = load_sum/D; if load_avg is unchanged nothing is written,
// else se takes r and the new load_avg and q changes by the differences
// through AddLoad. The kernel's signed/unsigned mix is kept: r is a long,
// the gain is added as u64, the cap and the floor compare signed, and the
// division by gWeight uses its low 32 bits.
func PropagateLoad(q, se *Avg, seWeight uint64, g *Avg, gWeight uint64, runnableSum int64) {
	if runnableSum == 0 {
		return
	}
	d := q.Divider()
	var loadSum uint64
	if runnableSum >= 0 {
		runnableSum = int64(uint64(runnableSum) + se.LoadSum)
		runnableSum = min(runnableSum, int64(d))
	} else {
		if gWeight != 0 {
			loadSum = div(g.LoadSum, uint64(uint32(gWeight)))
		}
		runnableSum = int64(min(se.LoadSum, loadSum))
	}
	runningSum := int64(se.UtilSum >> CapacityShift)
	runnableSum = max(runnableSum, runningSum)

	loadSum = seWeight * uint64(runnableSum)
	loadAvg := div(loadSum, d)
	dAvg := int64(loadAvg - se.LoadAvg)
	if dAvg == 0 {
		return
	}
	dSum := int64(loadSum - seWeight*se.LoadSum)
	se.LoadSum = uint64(runnableSum)
	se.LoadAvg = loadAvg
	q.AddLoad(dAvg, dSum)
}
