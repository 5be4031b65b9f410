package pelt

// An independent reference for the package's arithmetic, used by the
// table tests and the fuzzers. It follows the kernel's C line by line, but
// computes every expression exactly with math/big and then wraps it
// explicitly to the width of the C type it is stored in (u64, u32, long,
// int). Its decay table is not the package's: it is computed here from
// its definition, ⌊(2^32 − 1)·2^(−k/32)⌋, with 256-bit floats.
//
// The implementation under test uses native wrap-around and 128-bit
// products instead; any place where one of the two gets a width, a sign or
// an order of operations wrong shows up as a difference.

import (
	"math/big"
)

func bu(x uint64) *big.Int { return new(big.Int).SetUint64(x) }
func bi(x int64) *big.Int  { return big.NewInt(x) }

func badd(x, y *big.Int) *big.Int { return new(big.Int).Add(x, y) }
func bsub(x, y *big.Int) *big.Int { return new(big.Int).Sub(x, y) }
func bmul(x, y *big.Int) *big.Int { return new(big.Int).Mul(x, y) }
func bneg(x *big.Int) *big.Int    { return new(big.Int).Neg(x) }

// bquo is unsigned division of non-negative values; 0 for a zero divisor
// (the package's convention where the kernel would trap).
func bquo(x, y *big.Int) *big.Int {
	if y.Sign() == 0 {
		return new(big.Int)
	}
	return new(big.Int).Quo(x, y)
}

// wrapU reduces x modulo 2^bits into [0, 2^bits): the value an unsigned C
// variable of that width holds.
func wrapU(x *big.Int, bits uint) *big.Int {
	m := new(big.Int).Lsh(big.NewInt(1), bits)
	r := new(big.Int).Mod(x, m) // Mod is Euclidean: r ≥ 0
	return r
}

// wrapS is the value a signed two's-complement C variable of that width
// holds after x is converted to it.
func wrapS(x *big.Int, bits uint) *big.Int {
	r := wrapU(x, bits)
	half := new(big.Int).Lsh(big.NewInt(1), bits-1)
	if r.Cmp(half) >= 0 {
		r.Sub(r, new(big.Int).Lsh(big.NewInt(1), bits))
	}
	return r
}

func u64(x *big.Int) uint64 { return wrapU(x, 64).Uint64() }
func u32(x *big.Int) uint32 { return uint32(wrapU(x, 32).Uint64()) }
func s64(x *big.Int) int64  { return wrapS(x, 64).Int64() }

func bmax(x, y *big.Int) *big.Int {
	if x.Cmp(y) >= 0 {
		return x
	}
	return y
}

func bmin(x, y *big.Int) *big.Int {
	if x.Cmp(y) <= 0 {
		return x
	}
	return y
}

// refInv is the decay table from its definition.
var refInv = func() [32]*big.Int {
	const prec = 256
	half := new(big.Float).SetPrec(prec).SetFloat64(0.5)
	// y = 2^(−1/32): Newton's method on x^32 = 1/2.
	y := new(big.Float).SetPrec(prec).SetFloat64(0.978572062087700)
	for i := 0; i < 60; i++ {
		p := new(big.Float).SetPrec(prec).SetFloat64(1)
		for j := 0; j < 31; j++ {
			p.Mul(p, y)
		}
		num := new(big.Float).SetPrec(prec).Mul(p, y)
		num.Sub(num, half)
		den := new(big.Float).SetPrec(prec).Mul(p, new(big.Float).SetPrec(prec).SetInt64(32))
		y.Sub(y, num.Quo(num, den))
	}
	var t [32]*big.Int
	scale := new(big.Float).SetPrec(prec).SetUint64(1<<32 - 1)
	yk := new(big.Float).SetPrec(prec).SetFloat64(1)
	for k := 0; k < 32; k++ {
		v := new(big.Float).SetPrec(prec).Mul(scale, yk)
		t[k], _ = v.Int(nil) // truncates toward zero: the floor of a positive value
		yk.Mul(yk, y)
	}
	return t
}()

// refDecay is decay_load.
func refDecay(val *big.Int, n uint64) *big.Int {
	if n > 32*63 {
		return new(big.Int)
	}
	v := new(big.Int).Rsh(val, uint(n/32)) // val >>= n/32
	v.Mul(v, refInv[n%32])                 // exact product
	return v.Rsh(v, 32)                    // >> 32
}

// refUpdateLoadSum is ___update_load_sum with accumulate_sum.
func refUpdateLoadSum(a Avg, now, load, runnable uint64, running bool) (Avg, bool) {
	delta := wrapU(bsub(bu(now), bu(a.LastUpdateTime)), 64) // u64 delta
	if wrapS(delta, 64).Sign() < 0 {                        // (s64)delta < 0
		a.LastUpdateTime = now
		return a, false
	}
	delta.Rsh(delta, 10)
	if delta.Sign() == 0 {
		return a, false
	}
	a.LastUpdateTime = u64(badd(bu(a.LastUpdateTime), new(big.Int).Lsh(delta, 10)))
	if load == 0 {
		runnable, running = 0, false
	}
	// accumulate_sum(delta, sa, load, runnable, running)
	contrib := wrapU(delta, 32)                      // u32 contrib = (u32)delta
	delta = badd(delta, bu(uint64(a.PeriodContrib))) // u64
	periods := bquo(delta, bi(1024))
	if periods.Sign() != 0 {
		p := periods.Uint64()
		a.LoadSum = u64(refDecay(bu(a.LoadSum), p))
		a.RunnableSum = u64(refDecay(bu(a.RunnableSum), p))
		a.UtilSum = u32(refDecay(bu(uint64(a.UtilSum)), p))
		delta = new(big.Int).Mod(delta, bi(1024))
		if load != 0 {
			d1 := wrapU(bsub(bi(1024), bu(uint64(a.PeriodContrib))), 32) // u32 d1
			c1 := wrapU(refDecay(d1, p), 32)
			c2 := wrapU(bsub(bsub(bi(47742), refDecay(bi(47742), p)), bi(1024)), 32)
			c3 := wrapU(delta, 32)
			contrib = wrapU(badd(badd(c1, c2), c3), 32)
		}
	}
	a.PeriodContrib = u32(delta)
	if load != 0 {
		a.LoadSum = u64(badd(bu(a.LoadSum), bmul(bu(load), contrib)))
	}
	if runnable != 0 {
		prod := wrapU(bmul(bu(runnable), contrib), 64) // unsigned long product
		a.RunnableSum = u64(badd(bu(a.RunnableSum), new(big.Int).Lsh(prod, 10)))
	}
	if running {
		a.UtilSum = u32(badd(bu(uint64(a.UtilSum)), wrapU(new(big.Int).Lsh(contrib, 10), 32)))
	}
	return a, wrapU(periods, 32).Sign() != 0 // accumulate_sum returns a u32
}

// refUpdateLoadAvg is ___update_load_avg.
func refUpdateLoadAvg(a Avg, w uint64) Avg {
	div := wrapU(badd(bi(46718), bu(uint64(a.PeriodContrib))), 32) // u32 divider
	a.LoadAvg = u64(bquo(wrapU(bmul(bu(w), bu(a.LoadSum)), 64), div))
	a.RunnableAvg = u64(bquo(bu(a.RunnableSum), div))
	a.UtilAvg = u64(bquo(bu(uint64(a.UtilSum)), div))
	return a
}

// refUpdateEntity is __update_load_avg_se with cfs_se_util_change.
func refUpdateEntity(a Avg, now, load, runnable uint64, running bool, w uint64, utilEst bool) (Avg, bool) {
	a, ok := refUpdateLoadSum(a, now, load, runnable, running)
	if !ok {
		return a, false
	}
	a = refUpdateLoadAvg(a, w)
	if utilEst && a.UtilEst&0x80000000 != 0 {
		a.UtilEst &^= 0x80000000
	}
	return a, true
}

// refAddPositive is add_positive on a field of the given unsigned width:
// the delta is converted to the field's signed type.
func refAddPositive(v, delta *big.Int, bits uint) *big.Int {
	d := wrapS(delta, bits)
	res := wrapU(badd(v, d), bits)
	if d.Sign() < 0 && res.Cmp(v) > 0 {
		return new(big.Int)
	}
	return res
}

// refUpdateSA is __update_sa on one signal: avg is an unsigned long, sum
// has sumBits; the floor is computed in the sum's type.
func refUpdateSA(avg, sum *uint64, sumBits uint, dAvg, dSum *big.Int) {
	a := refAddPositive(bu(*avg), dAvg, 64)
	s := refAddPositive(bu(*sum), dSum, sumBits)
	floor := wrapU(bmul(a, bi(46718)), 64) // unsigned long product
	floor = wrapU(floor, sumBits)          // max_t(typeof(sum), …)
	*avg = a.Uint64()
	*sum = bmax(s, floor).Uint64()
}

func refLoad(q *Avg, dAvg, dSum *big.Int) {
	refUpdateSA(&q.LoadAvg, &q.LoadSum, 64, dAvg, dSum)
}

func refRunnable(q *Avg, dAvg, dSum *big.Int) {
	refUpdateSA(&q.RunnableAvg, &q.RunnableSum, 64, dAvg, dSum)
}

func refUtil(q *Avg, dAvg, dSum *big.Int) {
	us := uint64(q.UtilSum)
	refUpdateSA(&q.UtilAvg, &us, 32, dAvg, dSum)
	q.UtilSum = uint32(us)
}

// refEnqueueLoad and refDequeueLoad: the deltas are the C expressions
// se->avg.load_avg, se_weight(se) * se->avg.load_sum and their negations,
// evaluated in unsigned long.
func refEnqueueLoad(q, se *Avg, w uint64) {
	refLoad(q, bu(se.LoadAvg), wrapU(bmul(bu(w), bu(se.LoadSum)), 64))
}

func refDequeueLoad(q, se *Avg, w uint64) {
	negAvg := wrapU(bneg(bu(se.LoadAvg)), 64)
	negSum := wrapU(bneg(bu(se.LoadSum)), 64)
	refLoad(q, negAvg, wrapU(bmul(bu(w), negSum), 64))
}

// refAttach is attach_entity_load_avg; it returns add_tg_cfs_propagate's
// argument.
func refAttach(q, se *Avg, w uint64) int64 {
	div := wrapU(badd(bi(46718), bu(uint64(q.PeriodContrib))), 32)
	se.LastUpdateTime = q.LastUpdateTime
	se.PeriodContrib = q.PeriodContrib
	se.UtilSum = u32(bmul(bu(se.UtilAvg), div))
	se.RunnableSum = u64(bmul(bu(se.RunnableAvg), div))
	ls := wrapU(bmul(bu(se.LoadAvg), div), 64)
	if bu(w).Cmp(ls) < 0 {
		ls = bquo(ls, wrapU(bu(w), 32)) // div_u64: a u32 divisor
	} else {
		ls = bi(1)
	}
	se.LoadSum = ls.Uint64()
	refEnqueueLoad(q, se, w)
	q.UtilAvg = u64(badd(bu(q.UtilAvg), bu(se.UtilAvg)))
	q.UtilSum = u32(badd(bu(uint64(q.UtilSum)), bu(uint64(se.UtilSum))))
	q.RunnableAvg = u64(badd(bu(q.RunnableAvg), bu(se.RunnableAvg)))
	q.RunnableSum = u64(badd(bu(q.RunnableSum), bu(se.RunnableSum)))
	return s64(bu(se.LoadSum)) // (long)se->avg.load_sum
}

// refDetach is detach_entity_load_avg.
func refDetach(q, se *Avg, w uint64) int64 {
	refDequeueLoad(q, se, w)
	refUtil(q, wrapU(bneg(bu(se.UtilAvg)), 64), wrapU(bneg(bu(uint64(se.UtilSum))), 32))
	refRunnable(q, wrapU(bneg(bu(se.RunnableAvg)), 64), wrapU(bneg(bu(se.RunnableSum)), 64))
	return s64(wrapU(bneg(bu(se.LoadSum)), 64))
}

// refApplyRemoved is the removed branch of update_cfs_rq_load_avg.
func refApplyRemoved(q *Avg, r *Removed) (int64, bool) {
	if r.NR == 0 {
		return 0, false
	}
	div := wrapU(badd(bi(46718), bu(uint64(q.PeriodContrib))), 32)
	load, util, runnable := bu(r.LoadAvg), bu(r.UtilAvg), bu(r.RunnableAvg)
	*r = Removed{}
	negMul := func(x *big.Int) (*big.Int, *big.Int) { // -r and -r*divider, unsigned long
		n := wrapU(bneg(x), 64)
		return n, wrapU(bmul(n, div), 64)
	}
	da, ds := negMul(load)
	refLoad(q, da, ds)
	da, ds = negMul(util)
	refUtil(q, da, ds)
	da, ds = negMul(runnable)
	refRunnable(q, da, ds)
	prod := wrapS(bmul(runnable, div), 64) // (long)(removed_runnable * divider)
	neg := wrapS(bneg(prod), 64)
	// Arithmetic right shift: floor division by 1024.
	shifted := new(big.Int).Rsh(neg, 10) // big.Int Rsh on negatives rounds toward −∞
	return shifted.Int64(), true
}

// refPropagateUtil / Runnable / Load are update_tg_cfs_util / _runnable /
// _load.
func refPropagateUtil(q, se, g *Avg) {
	dAvg := wrapS(bsub(bu(g.UtilAvg), bu(se.UtilAvg)), 64) // long
	if dAvg.Sign() == 0 {
		return
	}
	div := wrapU(badd(bi(46718), bu(uint64(q.PeriodContrib))), 32)
	se.UtilAvg = g.UtilAvg
	newSum := wrapU(bmul(bu(se.UtilAvg), div), 32) // u32 new_sum
	dSum := wrapS(bsub(newSum, bu(uint64(se.UtilSum))), 64)
	se.UtilSum = uint32(newSum.Uint64())
	refUtil(q, dAvg, dSum)
}

func refPropagateRunnable(q, se, g *Avg) {
	dAvg := wrapS(bsub(bu(g.RunnableAvg), bu(se.RunnableAvg)), 64)
	if dAvg.Sign() == 0 {
		return
	}
	div := wrapU(badd(bi(46718), bu(uint64(q.PeriodContrib))), 32)
	se.RunnableAvg = g.RunnableAvg
	newSum := wrapU(bmul(bu(se.RunnableAvg), div), 32) // u32 new_sum
	dSum := wrapS(bsub(newSum, wrapS(bu(se.RunnableSum), 64)), 64)
	se.RunnableSum = newSum.Uint64()
	refRunnable(q, dAvg, dSum)
}

func refPropagateLoad(q, se *Avg, w uint64, g *Avg, gw uint64, runnableSum int64) {
	rs := bi(runnableSum) // long runnable_sum
	if rs.Sign() == 0 {
		return
	}
	div := wrapU(badd(bi(46718), bu(uint64(q.PeriodContrib))), 32)
	loadSum := new(big.Int)
	if rs.Sign() >= 0 {
		rs = wrapS(badd(rs, bu(se.LoadSum)), 64) // long += u64
		rs = bmin(rs, div)                       // min_t(long, …, divider)
	} else {
		if gw != 0 {
			loadSum = bquo(bu(g.LoadSum), wrapU(bu(gw), 32)) // div_u64
		}
		rs = wrapS(bmin(bu(se.LoadSum), loadSum), 64) // min of two u64, into a long
	}
	running := bi(int64(se.UtilSum >> 10))
	rs = bmax(rs, running)
	loadSum = wrapU(bmul(bu(w), wrapU(rs, 64)), 64) // unsigned long * long
	loadAvg := bquo(loadSum, div)
	dAvg := wrapS(bsub(loadAvg, bu(se.LoadAvg)), 64)
	if dAvg.Sign() == 0 {
		return
	}
	dSum := wrapS(bsub(loadSum, wrapU(bmul(bu(w), bu(se.LoadSum)), 64)), 64)
	se.LoadSum = u64(rs)
	se.LoadAvg = loadAvg.Uint64()
	refLoad(q, dAvg, dSum)
}

// refPostInit is post_init_entity_util_avg for a fair task.
func refPostInit(q, se *Avg, w uint64) {
	c := wrapS(bsub(bi(1024), bu(q.UtilAvg)), 64) // (long)(cpu_scale − util_avg)
	c = new(big.Int).Quo(c, bi(2))                // C division truncates toward zero
	if c.Sign() > 0 {
		if q.UtilAvg != 0 {
			u := wrapU(bmul(bu(q.UtilAvg), bu(w)), 64)
			u = bquo(u, wrapU(badd(bu(q.LoadAvg), bi(1)), 64))
			if u.Cmp(c) > 0 {
				u = c
			}
			se.UtilAvg = u.Uint64()
		} else {
			se.UtilAvg = c.Uint64()
		}
	}
	se.RunnableAvg = se.UtilAvg
}

// refReweight is reweight_entity's load_avg line.
func refReweight(se *Avg, w uint64) {
	div := wrapU(badd(bi(46718), bu(uint64(se.PeriodContrib))), 32)
	se.LoadAvg = u64(bquo(wrapU(bmul(bu(w), bu(se.LoadSum)), 64), div))
}

// refUtilEstUpdate is util_est_update (after the feature and the
// task_sleep tests).
func refUtilEstUpdate(se *Avg) {
	ewma := bu(uint64(se.UtilEst))
	if se.UtilEst&0x80000000 != 0 {
		return
	}
	dequeued := wrapU(bu(se.UtilAvg), 32) // unsigned int dequeued = task_util(p)
	if ewma.Cmp(dequeued) <= 0 {
		ewma = dequeued
	} else {
		diff := wrapU(bsub(ewma, dequeued), 32)
		margin := bi(10)
		if diff.Cmp(margin) < 0 {
			// done
		} else if badd(dequeued, margin).Cmp(bu(se.RunnableAvg)) < 0 {
			// done: (dequeued + UTIL_EST_MARGIN) is a long, no wrap
		} else {
			ewma = wrapU(new(big.Int).Lsh(ewma, 2), 32)
			ewma = wrapU(bsub(ewma, diff), 32)
			ewma = new(big.Int).Rsh(ewma, 2)
		}
	}
	se.UtilEst = uint32(ewma.Uint64()) | 0x80000000
}
