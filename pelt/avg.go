package pelt

// Avg is struct sched_avg: the PELT state of one scheduling entity or one
// queue (cfs_rq).
//
// The sums are geometric series over periods (see the package comment);
// LoadSum is unweighted for an entity (a time fraction; the weight enters
// load_avg) and weighted for a queue (the sum of its entities'
// weight·load_sum). RunnableSum and UtilSum carry a factor 1024. The
// averages are recomputed from the sums only when an update crosses a
// period boundary; the add/remove primitives keep each queue sum at least
// its average times MinDivider.
//
// LastUpdateTime 0 means "not attached" to a queue, as in the kernel: the
// next enqueue attaches the entity (Attach) instead of ageing it.
type Avg struct {
	LastUpdateTime uint64 // last_update_time: PELT clock (ns) of the last full unit folded in
	LoadSum        uint64 // load_sum
	RunnableSum    uint64 // runnable_sum
	UtilSum        uint32 // util_sum
	PeriodContrib  uint32 // period_contrib: units already elapsed in the current period, 0..1023
	LoadAvg        uint64 // load_avg
	RunnableAvg    uint64 // runnable_avg
	UtilAvg        uint64 // util_avg
	UtilEst        uint32 // util_est, with the UtilAvgUnchanged flag bit
}

// NewTaskAvg is init_entity_runnable_average for a task: everything zero
// except load_avg, which starts at the task's weight (seWeight =
// scale_load_down(se.load.weight)) so that a new task looks fully loaded
// until it has a history. A new group entity starts from the zero Avg.
func NewTaskAvg(seWeight uint64) Avg {
	return Avg{LoadAvg: seWeight}
}

// Divider is get_pelt_divider: MinDivider + period_contrib, the largest
// value a sum can hold at this point of the current period. The kernel adds
// in 32 bits; so does Divider.
func (a *Avg) Divider() uint64 {
	return uint64(a.divider())
}

func (a *Avg) divider() uint32 {
	return uint32(MinDivider) + a.PeriodContrib
}

// IsDecayed is load_avg_is_decayed without its warning: all three sums
// have decayed to 0.
func (a *Avg) IsDecayed() bool {
	return a.LoadSum == 0 && a.UtilSum == 0 && a.RunnableSum == 0
}

// div is n/d, or 0 where the kernel would divide by zero.
func div(n, d uint64) uint64 {
	if d == 0 {
		return 0
	}
	return n / d
}
