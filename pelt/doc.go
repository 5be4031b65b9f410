// Package pelt models the Linux kernel's per-entity load tracking (PELT)
// arithmetic bit for bit: the decay table and accumulation of
// kernel/sched/pelt.c, the divider and util_est flag handling of pelt.h,
// the generated constants of sched-pelt.h, and the PELT primitives of
// kernel/sched/fair.c (mainline 673dab7eac16): the clamped sum/average
// updates, enqueue/dequeue of an entity's load into its queue, attach,
// detach, removed load, sync, reweight, the initial values of a new task,
// group propagation, task-group contributions and util_est.
//
// # Units
//
// Time is the PELT clock in nanoseconds, as the caller passes it. The
// arithmetic works in units of 1024 ns (about a microsecond); a period is
// 1024 units (1048576 ns, about a millisecond). A signal is a geometric
// series over periods with y^32 = 1/2: what happened one period ago weighs
// y ≈ 0.9786, 32 periods ago 1/2, and the series of a signal that was
// always 1 converges to LoadAvgMax (47742) units. Each Avg keeps three such
// sums (load, runnable, util) and the averages derived from them at the
// last period boundary:
//
//	load_avg     = w · load_sum / divider        (w the entity's weight, 1 for a queue)
//	runnable_avg = runnable_sum / divider        (runnable_sum carries a factor 1024)
//	util_avg     = util_sum / divider            (util_sum carries a factor 1024)
//
// with divider = MinDivider + period_contrib, the largest sum reachable at
// the current position inside the period. A task that always runs thus has
// util_avg 1024 (SCHED_CAPACITY_SCALE).
//
// Every quantity is an integer with the width of its kernel field (u64
// sums, a u32 util_sum, u32 period_contrib and util_est, unsigned long
// averages on a 64-bit kernel), and every operation wraps, truncates and
// clamps where the kernel's C does. Where the kernel would divide by zero
// (inputs it never produces, such as a zero weight), the quotient is 0 and
// nothing panics.
//
// # The entry points
//
//	DecayLoad                      decay_load
//	Avg.UpdateLoadSum              ___update_load_sum with accumulate_sum
//	Avg.UpdateLoadAvg              ___update_load_avg
//	Avg.UpdateEntity               __update_load_avg_se (with cfs_se_util_change)
//	Avg.UpdateQueue                __update_load_avg_cfs_rq
//	Avg.UpdateBlocked, Avg.Sync    __update_load_avg_blocked_se, sync_entity_load_avg
//	Avg.AddLoad/AddRunnable/AddUtil  __update_sa (add_positive, then the sum floor)
//	Avg.EnqueueLoad, DequeueLoad   enqueue_load_avg, dequeue_load_avg
//	Avg.Attach, Avg.Detach         attach_entity_load_avg, detach_entity_load_avg
//	Removed, Avg.ApplyRemoved      remove_entity_load_avg, the removed-load part of update_cfs_rq_load_avg
//	Avg.Reweight                   reweight_entity's load_avg recomputation
//	NewTaskAvg, PostInitUtilAvg(Capacity)  init_entity_runnable_average, post_init_entity_util_avg
//	PropagateUtil/Runnable/Load    update_tg_cfs_util, _runnable, _load
//	Propagation, PropagateEntity   add_tg_cfs_propagate, propagate_entity_load_avg
//	TGContrib                      update_tg_load_avg
//	Avg.UtilEstUpdate, UtilEstEnqueue, UtilEstDequeue   util_est_update, util_est_enqueue/dequeue
//
// The package holds no state of its own: a kernel sched_entity or cfs_rq
// keeps an Avg (and a queue its Removed, Propagation and TGContrib) and the
// caller sequences the calls as fair.c's update_load_avg(cfs_rq, se, flags)
// does, with now the queue's PELT clock and w = se_weight(se):
//
//	if se.LastUpdateTime != 0 && flags&SKIP_AGE_LOAD == 0 {
//		se.UpdateEntity(now, onRq, seRunnable, isHCurr, w)
//	}
//	prop, decayed := q.ApplyRemoved(&removed) // update_cfs_rq_load_avg
//	if decayed {
//		qProp.Add(prop)
//	}
//	if q.UpdateQueue(now, qWeight, qNrRunnable, qHasHCurr) {
//		decayed = true
//	}
//	if isGroup && PropagateEntity(q, &qProp, se, w, g, &gProp, gWeight) {
//		decayed = true
//	}
//	switch {
//	case se.LastUpdateTime == 0 && flags&DO_ATTACH != 0:
//		qProp.Add(q.Attach(se, w)) // then update_tg_load_avg (TGContrib.Update)
//	case flags&DO_DETACH != 0:
//		qProp.Add(q.Detach(se, w)) // then update_tg_load_avg
//	case decayed && flags&UPDATE_TG != 0:
//		// update_tg_load_avg
//	}
//	if flags&UPDATE_UTIL_EST != 0 {
//		se.UtilEstUpdate()
//	}
//
// Nothing allocates.
//
// # What is not modelled
//
// Frequency and capacity invariance: the caller passes the PELT clock
// (cfs_rq_clock_pelt), which on a full-capacity CPU at a fixed frequency is
// the task clock; the package never scales time. Bandwidth throttling (the
// frozen PELT clock of a throttled queue) is the caller's clock too. The
// RT, deadline, IRQ and hardware-pressure signals of pelt.c, which use the
// same arithmetic on other inputs, are not provided. The UTIL_EST feature
// test is the caller's for util_est_update/enqueue/dequeue; the one place it
// reaches into the sums (cfs_se_util_change) has Avg.UpdateEntityUtilEst.
package pelt
