package pelt

// tgUpdateInterval is the rate limit of update_tg_load_avg: NSEC_PER_MSEC.
const tgUpdateInterval = 1000000

// TGContrib is a group queue's published contribution to its task group's
// totals: cfs_rq->tg_load_avg_contrib, tg_runnable_avg_contrib and
// last_update_tg_load_avg.
type TGContrib struct {
	LoadAvg     uint64 // tg_load_avg_contrib
	RunnableAvg uint64 // tg_runnable_avg_contrib
	LastUpdate  uint64 // last_update_tg_load_avg (rq_clock, ns)
}

// Update is update_tg_load_avg for a queue q of a non-root group on an
// active CPU (the caller skips the root queue and inactive CPUs); now is
// rq_clock, not the PELT clock. At most once per millisecond, and only
// when the queue's load_avg or runnable_avg has moved by more than 1/64 of
// what it last published (|Δ| > contrib/64, integer division), the queue
// publishes: Update records the new contributions and the time and
// returns the deltas the caller adds to tg.load_avg and tg.runnable_avg,
// with published true. Otherwise nothing changes.
//
// The deltas are the unsigned differences read as longs; their magnitudes
// compare as the kernel's abs() and unsigned comparison do.
func (c *TGContrib) Update(q *Avg, now uint64) (dLoad, dRunnable int64, published bool) {
	if now-c.LastUpdate < tgUpdateInterval {
		return 0, 0, false
	}
	dl := int64(q.LoadAvg - c.LoadAvg)
	dr := int64(q.RunnableAvg - c.RunnableAvg)
	if absLong(dl) > c.LoadAvg/64 || absLong(dr) > c.RunnableAvg/64 {
		c.LoadAvg = q.LoadAvg
		c.RunnableAvg = q.RunnableAvg
		c.LastUpdate = now
		return dl, dr, true
	}
	return 0, 0, false
}

// absLong is abs() on a long, compared as an unsigned long: the most
// negative long stays itself, which reads as 2^63.
func absLong(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}
