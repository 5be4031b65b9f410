package pelt

import (
	"math"
	"math/big"
	"testing"
)

// The fuzzers compare the package with the arbitrary-precision reference
// of oracle_test.go on states and inputs decoded from bytes — plausible
// ones and absurd ones (period_contrib above 1023, sums near 2^64, zero
// and huge weights, clocks that jump by years or go backwards). Nothing may
// panic, and every field must match the reference after every step.

// reader hands out bytes, then zeros.
type reader struct {
	b []byte
	i int
}

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *reader) done() bool { return r.i >= len(r.b) }

func (r *reader) u64() uint64 {
	var v uint64
	for i := 0; i < 8; i++ {
		v = v<<8 | uint64(r.byte())
	}
	return v
}

// value draws a number biased towards the ones that matter to PELT.
func (r *reader) value() uint64 {
	switch sel := r.byte(); sel % 8 {
	case 0:
		return uint64(r.byte())
	case 1:
		return (uint64(r.byte())<<8 | uint64(r.byte())) << (sel / 8 % 40)
	case 2:
		return r.u64()
	case 3:
		specials := [...]uint64{0, 1, 2, 15, 335, 1024, 88761, MinDivider, LoadAvgMax,
			1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64, 2016, 2017}
		return specials[int(sel/8)%len(specials)]
	default:
		return uint64(r.byte())<<8 | uint64(r.byte())
	}
}

func (r *reader) avg() Avg {
	return Avg{
		LastUpdateTime: r.value(), LoadSum: r.value(), RunnableSum: r.value(),
		UtilSum: uint32(r.value()), PeriodContrib: uint32(r.value()),
		LoadAvg: r.value(), RunnableAvg: r.value(), UtilAvg: r.value(), UtilEst: uint32(r.value()),
	}
}

func FuzzDecayLoad(f *testing.F) {
	f.Add(uint64(1024), uint64(1))
	f.Add(uint64(47742), uint64(32))
	f.Add(uint64(math.MaxUint64), uint64(31))
	f.Add(uint64(math.MaxUint64), uint64(2016))
	f.Add(uint64(1<<63), uint64(2017))
	f.Fuzz(func(t *testing.T, val, n uint64) {
		got := DecayLoad(val, n)
		want := refDecay(bu(val), n)
		if !want.IsUint64() || got != want.Uint64() {
			t.Fatalf("DecayLoad(%d, %d) = %d, reference %s", val, n, got, want)
		}
		if got > val {
			t.Fatalf("DecayLoad(%d, %d) = %d grew", val, n, got)
		}
		if n <= maxDecayPeriods && n%7 == 0 {
			checkDecayBound(t, val, n)
		}
	})
}

// FuzzPELT drives one Avg through a sequence of updates. Each step is 6
// bytes: the kind of update (entity with or without UTIL_EST, queue,
// blocked), a time step and its scale (up to years, or backwards), the
// load, runnable and running inputs and the weight.
func FuzzPELT(f *testing.F) {
	f.Add([]byte{}, []byte{0, 0, 4, 0, 1, 1})
	f.Add([]byte{3, 0, 1, 0, 0, 0, 0, 0}, []byte{0, 7, 208, 1, 1, 1, 0, 7, 208, 0, 0, 0})
	f.Add([]byte{2, 255, 255, 255, 255, 255, 255, 255, 255}, []byte{4, 255, 255, 3, 3, 3, 5, 1, 0, 2, 2, 2})
	f.Fuzz(func(t *testing.T, state, program []byte) {
		a := (&reader{b: state}).avg()
		p := &reader{b: program}
		for step := 0; !p.done() && step < 256; step++ {
			kind := p.byte()
			dt := uint64(p.byte())<<8 | uint64(p.byte())
			switch kind >> 3 % 6 {
			case 0: // ns
			case 1:
				dt *= unitNs
			case 2:
				dt *= periodNs
			case 3:
				dt <<= 40 // up to about 2^56 ns: years, past every horizon
			case 4:
				dt = -dt // the clock goes back
			case 5:
				dt = dt<<32 | dt<<16 | dt
			}
			now := a.LastUpdateTime + dt
			sel := p.byte()
			inputs := [...]uint64{0, 1, 2, 1024, 3, 88761, 1 << 20, math.MaxUint64}
			load := inputs[sel&7]
			runnable := inputs[sel>>3&7]
			running := sel&0x40 != 0
			w := inputs[p.byte()&7]
			before := a
			var got, want Avg
			var gotOK, wantOK bool
			switch kind % 4 {
			case 0, 1:
				utilEst := kind%4 == 0
				gotOK = a.UpdateEntityUtilEst(now, load, runnable, running, w, utilEst)
				got = a
				want, wantOK = refUpdateEntity(before, now, load, runnable, running, w, utilEst)
			case 2:
				gotOK = a.UpdateQueue(now, load, runnable, running)
				got = a
				want, wantOK = refUpdateLoadSum(before, now, load, runnable, running)
				if wantOK {
					want = refUpdateLoadAvg(want, 1)
				}
			case 3:
				gotOK = a.UpdateBlocked(now, w)
				got = a
				want, wantOK = refUpdateLoadSum(before, now, 0, 0, false)
				if wantOK {
					want = refUpdateLoadAvg(want, w)
				}
			}
			if got != want || gotOK != wantOK {
				t.Fatalf("step %d kind %d from %+v\nnow %d load %d runnable %d running %v w %d\ngot  %+v %v\nwant %+v %v",
					step, kind%4, before, now, load, runnable, running, w, got, gotOK, want, wantOK)
			}
			if gotOK && a.PeriodContrib >= 1024 {
				t.Fatalf("period_contrib %d after a boundary", a.PeriodContrib)
			}
		}
	})
}

// FuzzPrimitives applies random fair.c primitives to a queue, its group
// queue and three entities, and compares every field with the reference
// after every operation.
func FuzzPrimitives(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{5, 0, 3, 0x0b, 0x04, 6, 0, 3, 0x0b, 0x04})
	f.Add([]byte{7, 1, 7, 2, 8, 11, 0, 3, 0x5b, 200, 3, 0x0b})
	f.Fuzz(func(t *testing.T, program []byte) {
		r := &reader{b: program}
		var impl, ref world
		impl.q, impl.g = r.avg(), r.avg()
		for i := range impl.se {
			impl.se[i] = r.avg()
		}
		ref = impl
		for step := 0; !r.done() && step < 128; step++ {
			op := r.byte()
			i := int(r.byte()) % len(impl.se)
			w := r.value()
			before := impl
			desc := impl.apply(op, i, w, r, &ref)
			if impl != ref {
				t.Fatalf("step %d: %s on entity %d, w %d\nfrom %+v\ngot  %+v\nwant %+v", step, desc, i, w, before, impl, ref)
			}
		}
	})
}

type world struct {
	q, g      Avg
	se        [3]Avg
	removed   Removed
	qp, gp    Propagation
	tg        TGContrib
	ret       int64 // the last int64 an operation returned
	retOK     bool
	dl, dr    int64
	published bool
}

// apply runs operation op on the implementation (w) and on the reference
// (ref), reading any further parameters from r once for both.
func (w *world) apply(op byte, i int, weight uint64, r *reader, ref *world) string {
	switch op % 20 {
	case 0:
		dAvg, dSum := int64(r.value()), int64(r.value())
		w.q.AddLoad(dAvg, dSum)
		refLoad(&ref.q, bi(dAvg), bi(dSum))
		return "AddLoad"
	case 1:
		dAvg, dSum := int64(r.value()), int64(r.value())
		w.q.AddRunnable(dAvg, dSum)
		refRunnable(&ref.q, bi(dAvg), bi(dSum))
		return "AddRunnable"
	case 2:
		dAvg, dSum := int64(r.value()), int64(r.value())
		w.q.AddUtil(dAvg, dSum)
		refUtil(&ref.q, bi(dAvg), bi(dSum))
		return "AddUtil"
	case 3:
		w.q.EnqueueLoad(&w.se[i], weight)
		refEnqueueLoad(&ref.q, &ref.se[i], weight)
		return "EnqueueLoad"
	case 4:
		w.q.DequeueLoad(&w.se[i], weight)
		refDequeueLoad(&ref.q, &ref.se[i], weight)
		return "DequeueLoad"
	case 5:
		w.ret = w.q.Attach(&w.se[i], weight)
		w.qp.Add(w.ret)
		ref.ret = refAttach(&ref.q, &ref.se[i], weight)
		ref.qp.Pending, ref.qp.RunnableSum = true, s64(badd(bi(ref.qp.RunnableSum), bi(ref.ret)))
		return "Attach"
	case 6:
		w.ret = w.q.Detach(&w.se[i], weight)
		w.qp.Add(w.ret)
		ref.ret = refDetach(&ref.q, &ref.se[i], weight)
		ref.qp.Pending, ref.qp.RunnableSum = true, s64(badd(bi(ref.qp.RunnableSum), bi(ref.ret)))
		return "Detach"
	case 7:
		w.removed.Add(&w.se[i])
		rr := &ref.removed
		rr.NR++
		rr.LoadAvg = u64(badd(bu(rr.LoadAvg), bu(ref.se[i].LoadAvg)))
		rr.UtilAvg = u64(badd(bu(rr.UtilAvg), bu(ref.se[i].UtilAvg)))
		rr.RunnableAvg = u64(badd(bu(rr.RunnableAvg), bu(ref.se[i].RunnableAvg)))
		return "Removed.Add"
	case 8:
		w.ret, w.retOK = w.q.ApplyRemoved(&w.removed)
		ref.ret, ref.retOK = refApplyRemoved(&ref.q, &ref.removed)
		return "ApplyRemoved"
	case 9:
		PropagateUtil(&w.q, &w.se[i], &w.g)
		refPropagateUtil(&ref.q, &ref.se[i], &ref.g)
		return "PropagateUtil"
	case 10:
		PropagateRunnable(&w.q, &w.se[i], &w.g)
		refPropagateRunnable(&ref.q, &ref.se[i], &ref.g)
		return "PropagateRunnable"
	case 11:
		gw, rs := r.value(), int64(r.value())
		PropagateLoad(&w.q, &w.se[i], weight, &w.g, gw, rs)
		refPropagateLoad(&ref.q, &ref.se[i], weight, &ref.g, gw, rs)
		return "PropagateLoad"
	case 12:
		PostInitUtilAvg(&w.q, &w.se[i], weight)
		refPostInit(&ref.q, &ref.se[i], weight)
		return "PostInitUtilAvg"
	case 13:
		w.se[i].Reweight(weight)
		refReweight(&ref.se[i], weight)
		return "Reweight"
	case 14:
		w.se[i].UtilEstUpdate()
		refUtilEstUpdate(&ref.se[i])
		return "UtilEstUpdate"
	case 15:
		UtilEstEnqueue(&w.q, &w.se[i])
		ref.q.UtilEst = u32(badd(bu(uint64(ref.q.UtilEst)), bu(uint64(ref.se[i].UtilEst&^UtilAvgUnchanged))))
		return "UtilEstEnqueue"
	case 16:
		UtilEstDequeue(&w.q, &w.se[i])
		e := uint64(ref.se[i].UtilEst &^ UtilAvgUnchanged)
		ref.q.UtilEst = uint32(bsub(bu(uint64(ref.q.UtilEst)), bmin(bu(uint64(ref.q.UtilEst)), bu(e))).Uint64())
		return "UtilEstDequeue"
	case 17:
		now := weight
		w.dl, w.dr, w.published = w.tg.Update(&w.q, now)
		refTG(ref, now)
		return "TGContrib.Update"
	case 18:
		gw := r.value()
		w.retOK = PropagateEntity(&w.q, &w.qp, &w.se[i], weight, &w.g, &w.gp, gw)
		ref.retOK = false
		if ref.gp.Pending {
			ref.gp.Pending = false
			ref.qp.Pending, ref.qp.RunnableSum = true, s64(badd(bi(ref.qp.RunnableSum), bi(ref.gp.RunnableSum)))
			refPropagateUtil(&ref.q, &ref.se[i], &ref.g)
			refPropagateRunnable(&ref.q, &ref.se[i], &ref.g)
			rs := ref.gp.RunnableSum
			ref.gp.RunnableSum = 0
			refPropagateLoad(&ref.q, &ref.se[i], weight, &ref.g, gw, rs)
			ref.retOK = true
		}
		return "PropagateEntity"
	default:
		// Make g's propagation pending with an arbitrary sum, so that
		// PropagateEntity has work.
		x := int64(r.value())
		w.gp.Add(x)
		ref.gp.Pending, ref.gp.RunnableSum = true, s64(badd(bi(ref.gp.RunnableSum), bi(x)))
		return "Propagation.Add"
	}
}

// refTG is update_tg_load_avg on the reference world.
func refTG(ref *world, now uint64) {
	ref.dl, ref.dr, ref.published = 0, 0, false
	c := &ref.tg
	if wrapU(bsub(bu(now), bu(c.LastUpdate)), 64).Cmp(bi(1000000)) < 0 {
		return
	}
	dl := wrapS(bsub(bu(ref.q.LoadAvg), bu(c.LoadAvg)), 64)
	dr := wrapS(bsub(bu(ref.q.RunnableAvg), bu(c.RunnableAvg)), 64)
	abs := func(x *big.Int) *big.Int { // abs() on a long, then compared unsigned
		return wrapU(wrapS(new(big.Int).Abs(x), 64), 64)
	}
	if abs(dl).Cmp(bquo(bu(c.LoadAvg), bi(64))) > 0 || abs(dr).Cmp(bquo(bu(c.RunnableAvg), bi(64))) > 0 {
		c.LoadAvg, c.RunnableAvg, c.LastUpdate = ref.q.LoadAvg, ref.q.RunnableAvg, now
		ref.dl, ref.dr, ref.published = dl.Int64(), dr.Int64(), true
	}
}
