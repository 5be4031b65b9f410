package pelt

// The __update_sa primitive and the load moves built on it.
//
// A queue's sums and averages are changed directly (not through the
// series) whenever an entity's contribution enters or leaves. Each change
// is add_positive on the average and on the sum — the delta is converted
// to the signed type of the field (long, s64, or int for the u32 util_sum),
// added with wrap-around, and a negative delta whose result wrapped past
// zero leaves zero instead — followed by a floor on the sum:
//
//	sum = max(sum, avg · MinDivider)
//
// computed in the sum's own type (so for util_sum the product is truncated
// to 32 bits first). The floor exists because an entity's sum can exceed
// its share of the queue's by rounding; removing many such entities
// between two period boundaries could otherwise zero a sum whose average is
// still positive. MinDivider is the smallest divider any period_contrib can
// give, so avg·MinDivider is a lower bound the true sum always meets.

// addPositive64 is add_positive on an unsigned long or u64 field.
func addPositive64(p *uint64, delta int64) {
	v := *p
	r := v + uint64(delta)
	if delta < 0 && r > v {
		r = 0
	}
	*p = r
}

// addPositive32 is add_positive on a u32 field (util_sum): the delta is an
// int, so a wider delta is truncated to 32 bits first.
func addPositive32(p *uint32, delta int32) {
	v := *p
	r := v + uint32(delta)
	if delta < 0 && r > v {
		r = 0
	}
	*p = r
}

// AddLoad is __update_sa(sa, load, dAvg, dSum).
func (a *Avg) AddLoad(dAvg, dSum int64) {
	addPositive64(&a.LoadAvg, dAvg)
	addPositive64(&a.LoadSum, dSum)
	a.LoadSum = max(a.LoadSum, a.LoadAvg*MinDivider)
}

// AddRunnable is __update_sa(sa, runnable, dAvg, dSum).
func (a *Avg) AddRunnable(dAvg, dSum int64) {
	addPositive64(&a.RunnableAvg, dAvg)
	addPositive64(&a.RunnableSum, dSum)
	a.RunnableSum = max(a.RunnableSum, a.RunnableAvg*MinDivider)
}

// AddUtil is __update_sa(sa, util, dAvg, dSum). util_sum is a u32, so dSum
// is taken modulo 2^32 as a signed int, and the floor util_avg·MinDivider
// is truncated to 32 bits, as the kernel's typed macro does.
func (a *Avg) AddUtil(dAvg, dSum int64) {
	addPositive64(&a.UtilAvg, dAvg)
	addPositive32(&a.UtilSum, int32(dSum))
	a.UtilSum = max(a.UtilSum, uint32(a.UtilAvg*MinDivider))
}

// EnqueueLoad is enqueue_load_avg: the entity's load joins the queue's,
// load_avg as it is and load_sum weighted (seWeight =
// scale_load_down(se.load.weight)), through AddLoad.
func (q *Avg) EnqueueLoad(se *Avg, seWeight uint64) {
	q.AddLoad(int64(se.LoadAvg), int64(seWeight*se.LoadSum))
}

// DequeueLoad is dequeue_load_avg: the inverse of EnqueueLoad, clamped at
// zero by AddLoad.
func (q *Avg) DequeueLoad(se *Avg, seWeight uint64) {
	q.AddLoad(int64(-se.LoadAvg), int64(seWeight*-se.LoadSum))
}

// Reweight is the PELT part of reweight_entity between its
// dequeue_load_avg and enqueue_load_avg (the caller's, with the old and the
// new weight): load_avg is recomputed from the unweighted load_sum with the
// new weight w and the entity's own divider, w·load_sum/divider, so that
// the entity's history counts at its new weight.
func (se *Avg) Reweight(w uint64) {
	se.LoadAvg = div(w*se.LoadSum, se.Divider())
}
