package pelt

// UpdateLoadSum is ___update_load_sum: it folds the time since
// LastUpdateTime into the three sums, with load, runnable and running the
// state that held during that whole interval (the caller updates before it
// changes the state). It reports whether a period boundary was crossed;
// only then do the averages change (UpdateLoadAvg).
//
// Time is consumed in whole 1024-ns units: the remainder stays pending in
// the gap between now and LastUpdateTime. A clock that went backwards
// resets LastUpdateTime to now and changes nothing else. A zero load
// forces runnable and running to zero (an entity that is not queued
// accumulates nothing).
func (a *Avg) UpdateLoadSum(now, load, runnable uint64, running bool) bool {
	delta := now - a.LastUpdateTime
	if int64(delta) < 0 {
		a.LastUpdateTime = now
		return false
	}
	delta >>= 10
	if delta == 0 {
		return false
	}
	a.LastUpdateTime += delta << 10
	if load == 0 {
		runnable = 0
		running = false
	}
	return a.accumulate(delta, load, runnable, running) != 0
}

// accumulate is accumulate_sum for delta units. Let d1 be the part of the
// old period that was still missing (1024 − period_contrib), p the number
// of period boundaries crossed, and d3 the units of the new, unfinished
// period. Everything already in the sums is p periods older, and the new
// interval contributes
//
//	d1·y^p + 1024·(y^1 + … + y^(p−1)) + d3·y^0
//
// where the middle term is LoadAvgMax·(1 − y^p) − 1024, computed as
// LoadAvgMax − decay(LoadAvgMax, p) − 1024 (__accumulate_pelt_segments).
// Without a boundary (p = 0) the contribution is delta itself.
//
// The kernel returns p as a u32; so does accumulate, which makes an update
// that crosses an exact multiple of 2^32 periods (about 52 days) report no
// boundary, as the kernel's does.
func (a *Avg) accumulate(delta, load, runnable uint64, running bool) uint32 {
	contrib := uint32(delta) // p = 0 ⇒ delta < 1024
	delta += uint64(a.PeriodContrib)
	periods := delta / 1024
	if periods != 0 {
		a.LoadSum = DecayLoad(a.LoadSum, periods)
		a.RunnableSum = DecayLoad(a.RunnableSum, periods)
		a.UtilSum = uint32(DecayLoad(uint64(a.UtilSum), periods))
		delta %= 1024
		if load != 0 {
			// With load 0, runnable and running are 0 too and contrib is
			// not used: the kernel skips the computation, and so do we.
			contrib = segments(periods, 1024-a.PeriodContrib, uint32(delta))
		}
	}
	a.PeriodContrib = uint32(delta)
	if load != 0 {
		a.LoadSum += load * uint64(contrib)
	}
	if runnable != 0 {
		a.RunnableSum += runnable * uint64(contrib) << CapacityShift
	}
	if running {
		a.UtilSum += contrib << CapacityShift // u32, as util_sum
	}
	return uint32(periods)
}

// segments is __accumulate_pelt_segments: c1 + c2 + c3 in 32 bits, with
// c1 = d1·y^p, c2 = 1024·Σ_{n=1}^{p−1} y^n = LoadAvgMax − LoadAvgMax·y^p − 1024
// and c3 = d3.
func segments(periods uint64, d1, d3 uint32) uint32 {
	c1 := uint32(DecayLoad(uint64(d1), periods))
	c2 := uint32(LoadAvgMax - DecayLoad(LoadAvgMax, periods) - 1024)
	return c1 + c2 + d3
}

// UpdateLoadAvg is ___update_load_avg: the averages from the sums, each
// divided by the divider of the current position in the period (so that a
// signal that has always been 1 reads exactly w, or 1024, and does not dip
// at the start of each period). w weighs load_avg: the entity's
// scale_load_down(weight), 1 for a queue whose load_sum is already weighted.
func (a *Avg) UpdateLoadAvg(w uint64) {
	d := a.divider()
	a.LoadAvg = div(w*a.LoadSum, uint64(d))
	a.RunnableAvg = div(a.RunnableSum, uint64(d))
	if d != 0 {
		a.UtilAvg = uint64(a.UtilSum / d)
	} else {
		a.UtilAvg = 0
	}
}

// UpdateEntity is the arithmetic of __update_load_avg_se with the UTIL_EST
// feature on (the kernel's default): the sums, then, if a period boundary
// was crossed, the averages with weight w and cfs_se_util_change (which
// clears util_est's UtilAvgUnchanged flag: util_avg has moved since the
// last util_est sample). It returns whether the averages were recomputed.
//
// The inputs, as fair.c passes them: load = se.on_rq (0 or 1); runnable =
// se_runnable(se) (a task: 1 while queued and not delayed; a group entity:
// its runnable_weight, the h_nr_runnable of its queue); running = whether
// the entity is its queue's h_curr; w = se_weight(se).
func (a *Avg) UpdateEntity(now, load, runnable uint64, running bool, w uint64) bool {
	return a.UpdateEntityUtilEst(now, load, runnable, running, w, true)
}

// UpdateEntityUtilEst is UpdateEntity with the UTIL_EST feature given:
// with utilEst false the flag in util_est is left alone, as the kernel's
// sched_feat(UTIL_EST) test in cfs_se_util_change does.
func (a *Avg) UpdateEntityUtilEst(now, load, runnable uint64, running bool, w uint64, utilEst bool) bool {
	if !a.UpdateLoadSum(now, load, runnable, running) {
		return false
	}
	a.UpdateLoadAvg(w)
	if utilEst {
		a.utilChanged()
	}
	return true
}

// utilChanged is cfs_se_util_change without the feature test: clear the
// UtilAvgUnchanged flag if it is set.
func (a *Avg) utilChanged() {
	if a.UtilEst&UtilAvgUnchanged != 0 {
		a.UtilEst &^= UtilAvgUnchanged
	}
}

// UpdateQueue is the arithmetic of __update_load_avg_cfs_rq: load =
// scale_load_down(cfs_rq.load.weight), runnable = cfs_rq.h_nr_runnable,
// running = whether the queue has an h_curr; the averages use w = 1 since
// the queue's load_sum is already weighted. It returns whether the
// averages were recomputed.
func (a *Avg) UpdateQueue(now, load, runnable uint64, running bool) bool {
	if !a.UpdateLoadSum(now, load, runnable, running) {
		return false
	}
	a.UpdateLoadAvg(1)
	return true
}

// UpdateBlocked is __update_load_avg_blocked_se: a blocked entity (all
// inputs 0) decays to now; the averages use its weight w.
func (a *Avg) UpdateBlocked(now, w uint64) bool {
	if !a.UpdateLoadSum(now, 0, 0, false) {
		return false
	}
	a.UpdateLoadAvg(w)
	return true
}

// Sync is sync_entity_load_avg: decay a blocked entity to its queue's
// last_update_time (lastUpdate), so that its averages are comparable with
// the queue's.
func (se *Avg) Sync(lastUpdate, w uint64) {
	se.UpdateBlocked(lastUpdate, w)
}
