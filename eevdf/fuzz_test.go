package eevdf

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/btree"
	"github.com/schedmodel/fairclass/features"
)

// The runqueue fuzzer: bytes decode into a feature set, a backend and a
// sequence of operations (the scenario language's, plus migrations and
// yield_to). After every step the harness runs Check and compares the
// pick, with and without protection, with an oracle: an ordered set
// (google/btree) scanned for the first eligible entity, eligibility
// computed from scratch with big integers, then the curr/buddy/protection
// rules of pick_eevdf. It also checks the lag clamp at every dequeue and
// the invariants of the seed toggles.

// fuzzFeatures are the toggles the fuzzer flips.
var fuzzFeatures = []features.Feature{
	features.PlaceLag, features.PlaceDeadlineInitial, features.PlaceRelDeadline,
	features.RunToParity, features.PreemptShort, features.NextBuddy, features.PickBuddy,
	features.DelayDequeue, features.DelayZero, features.WakeupPreemption,
	features.DelayLagFloor, features.DelayLagFloorPosted, features.PreemptFlushDelayed,
	features.PlaceJoinLag, features.ParanoidAvg,
}

type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *byteReader) done() bool { return r.i >= len(r.b) }

func (r *byteReader) u16() uint64 { return uint64(r.next())<<8 | uint64(r.next()) }

// harness drives one runqueue and checks it.
type harness struct {
	t       testing.TB
	rq      *CfsRq
	ents    []*SchedEntity
	created []bool
	// sleepLag is the lag a delayed entity recorded when it went to
	// sleep (valid while it is delayed and not re-saved by a change).
	sleepLag  map[*SchedEntity]int64
	hasFloor  map[*SchedEntity]bool
	log       []string
	clock     uint64
	yieldMode features.Feature
}

func newHarness(t testing.TB, data []byte) (*harness, *byteReader) {
	return newHarnessOn(t, data, -1)
}

// newHarnessOn is newHarness with the timeline backend forced (unless
// backend < 0), for the differential fuzz target.
func newHarnessOn(t testing.TB, data []byte, backend int) (*harness, *byteReader) {
	r := &byteReader{b: data}
	fs := features.Default()
	mask := r.u16()<<8 | uint64(r.next())
	for i, f := range fuzzFeatures {
		if mask&(1<<i) != 0 {
			fs = fs.Toggle(f, !fs.Has(f))
		}
	}
	if fs.Has(features.PlaceJoinLag) {
		fs = fs.Without(features.ParanoidAvg) // unsupported together
	}
	yield := []features.Feature{0, features.YieldBumpDeadline, features.YieldClampDeadline, features.YieldForfeitAlways}[r.next()%4]
	if yield != 0 {
		fs = fs.With(yield)
	}
	b := Backend(r.next() % 2)
	if backend >= 0 {
		b = Backend(backend)
	}
	opts := []Option{WithFeatures(fs), WithTimeline(b)}
	if k := r.next(); k < 3 {
		opts = append(opts, WithKernel(Kernel(k)))
	} else if k&1 == 1 {
		opts = append(opts, WithPELT(true)) // no EEVDF effect; the timelines must still agree
	}
	if r.next()%4 == 0 {
		opts = append(opts, WithTickNsec(TickNsecForHZ(250)), WithBaseSlice(3000000))
	}
	rq, err := NewCfsRq(opts...)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, rq: rq, sleepLag: map[*SchedEntity]int64{}, hasFloor: map[*SchedEntity]bool{}, yieldMode: yield}
	n := 2 + int(r.next()%10)
	for i := 0; i < n; i++ {
		opts := fuzzEntityOptions(r)
		se, err := NewEntity(fmt.Sprintf("T%d", i), append(opts, WithDefaultSlice(rq.baseSlice))...)
		if err != nil {
			t.Fatal(err)
		}
		h.ents = append(h.ents, se)
		h.created = append(h.created, false)
	}
	h.logf("features %s, backend %v, kernel %v, %d tasks", fs.Diff(features.Default()), rq.backend, rq.kernel, n)
	return h, r
}

// fuzzEntityOptions decodes one task's attributes: a nice value, a custom
// slice or a policy, or none.
func fuzzEntityOptions(r *byteReader) []EntityOption {
	switch k := r.next(); k % 4 {
	case 1:
		return []EntityOption{WithNice(int(k/4)%40 - 20)}
	case 2:
		return []EntityOption{WithSlice(uint64(r.next()) * 40000)}
	case 3:
		return []EntityOption{WithPolicy(Policy(k / 4 % 3))}
	}
	return nil
}

func (h *harness) logf(format string, args ...any) {
	h.log = append(h.log, fmt.Sprintf(format, args...))
}

func (h *harness) fail(format string, args ...any) {
	h.t.Helper()
	msg := fmt.Sprintf(format, args...)
	start := max(1, len(h.log)-40)
	msg += "\n\t" + h.log[0]
	for _, l := range h.log[start:] {
		msg += "\n\t" + l
	}
	h.t.Fatal(msg)
}

// pick returns an entity chosen by b among those satisfying ok, or nil.
func (h *harness) pick(b byte, ok func(i int, se *SchedEntity) bool) (int, *SchedEntity) {
	n := len(h.ents)
	for k := 0; k < n; k++ {
		i := (int(b) + k) % n
		if ok(i, h.ents[i]) {
			return i, h.ents[i]
		}
	}
	return -1, nil
}

func (h *harness) step(r *byteReader) {
	rq := h.rq
	op := r.next() % 13
	arg := r.next()
	h.clock += uint64(r.next()) * uint64(r.next()) * 97
	if err := rq.SetClock(h.clock); err != nil {
		h.fail("SetClock: %v", err)
	}
	curr := rq.curr
	switch op {
	case 0: // new
		if _, se := h.pick(arg, func(i int, _ *SchedEntity) bool { return !h.created[i] }); se != nil {
			h.logf("%d new %s", h.clock, se.name)
			h.created[indexOf(h.ents, se)] = true
			vj := h.vPlusJ()
			h.must(rq.Enqueue(se, EnqueueInitial))
			h.checkVPlusJ(vj, 3, "join of "+se.name)
			rq.WakeupPreempt(se, WFFork)
		}
	case 1: // wakeup
		if _, se := h.pick(arg, func(i int, se *SchedEntity) bool {
			return h.created[i] && (se.delayed || !se.onRq) && se != curr
		}); se != nil {
			h.logf("%d wakeup %s (delayed %v)", h.clock, se.name, se.delayed)
			if se.delayed {
				h.must(rq.Enqueue(se, EnqueueDelayed))
				h.checkFloor(se, "requeue")
			} else {
				vj := h.vPlusJ()
				h.must(rq.Enqueue(se, EnqueueWakeup))
				h.checkVPlusJ(vj, 3, "join of "+se.name)
			}
			rq.WakeupPreempt(se, WFTTWU)
		}
	case 2: // sleep, then schedule
		if curr != nil {
			h.logf("%d sleep %s", h.clock, curr.name)
			limit := rq.lagLimit(curr)
			vj, clamped := h.vPlusJ(), h.rawLagClamped(curr)
			tol := h.leaveTolerance(curr)
			dequeued, err := rq.Dequeue(curr, DequeueSleep)
			h.must(err)
			if dequeued && !clamped {
				h.checkVPlusJ(vj, tol, "leave of "+curr.name)
			}
			if dequeued || rq.floorMode() != floorOff {
				// v7.0 records nothing when the sleep is delayed.
				h.checkClamp(curr, limit)
			}
			if !dequeued {
				h.sleepLag[curr], h.hasFloor[curr] = curr.vlag, rq.floorMode() != floorOff
			}
			h.schedule()
		}
	case 3:
		h.schedule()
	case 4: // tick
		h.logf("%d tick", h.clock)
		rq.Tick()
	case 5: // yield, then schedule
		if curr != nil {
			h.logf("%d yield %s", h.clock, curr.name)
			rq.Yield()
			h.schedule()
		}
	case 6: // renice
		_, se := h.pick(arg, func(int, *SchedEntity) bool { return true })
		nice := int(r.next())%40 - 20
		h.logf("%d renice %s %d", h.clock, se.name, nice)
		h.must(rq.SetNice(se, nice))
		delete(h.hasFloor, se) // a save re-records the lag (with the clamps)
	case 7: // slice
		_, se := h.pick(arg, func(int, *SchedEntity) bool { return true })
		ns := uint64(r.next()) * 20000
		h.logf("%d slice %s %d", h.clock, se.name, ns)
		h.must(rq.SetSlice(se, ns))
		delete(h.hasFloor, se)
	case 8: // forcepick
		if _, se := h.pick(arg, func(_ int, se *SchedEntity) bool { return se.onRq && !se.delayed }); se != nil {
			h.logf("%d forcepick %s", h.clock, se.name)
			h.must(rq.SetNext(se))
		}
	case 9: // migrate away and back: dequeue without sleep, enqueue migrated
		if _, se := h.pick(arg, func(_ int, se *SchedEntity) bool { return se.onRq && !se.delayed && se != curr }); se != nil {
			h.logf("%d migrate %s", h.clock, se.name)
			limit := rq.lagLimit(se)
			_, err := rq.Dequeue(se, 0)
			h.must(err)
			h.checkClamp(se, limit)
			h.must(rq.Enqueue(se, EnqueueWakeup|EnqueueMigrated))
			rq.WakeupPreempt(se, WFTTWU|WFMigrated)
		}
	case 10: // yield_to
		if curr != nil {
			_, se := h.pick(arg, func(int, *SchedEntity) bool { return true })
			h.logf("%d yield_to %s -> %s", h.clock, curr.name, se.name)
			rq.YieldTo(se)
			h.schedule()
		}
	case 11: // a blocking dequeue in a special state: never delayed
		if curr != nil {
			h.logf("%d sleep-special %s", h.clock, curr.name)
			if !curr.delayed {
				dequeued, err := rq.Dequeue(curr, DequeueSleep|DequeueSpecial)
				h.must(err)
				if !dequeued {
					h.fail("DequeueSpecial was delayed")
				}
				h.schedule()
			}
		}
	case 12: // sync wakeup
		if _, se := h.pick(arg, func(i int, se *SchedEntity) bool { return h.created[i] && !se.onRq && se != curr }); se != nil {
			h.logf("%d wakeup-sync %s", h.clock, se.name)
			h.must(rq.Enqueue(se, EnqueueWakeup))
			rq.WakeupPreempt(se, WFTTWU|WFSync|WakeFlags(arg&1)*WFRqSelected)
		}
	}
	if err := rq.Check(); err != nil {
		h.fail("Check: %v", err)
	}
	h.comparePick()
}

func indexOf(ents []*SchedEntity, se *SchedEntity) int {
	for i, e := range ents {
		if e == se {
			return i
		}
	}
	return -1
}

func (h *harness) must(err error) {
	h.t.Helper()
	if err != nil {
		h.fail("%v", err)
	}
}

// schedule runs PickNext and checks the delayed entities it flushed.
func (h *harness) schedule() {
	h.logf("%d schedule", h.clock)
	delayed := h.delayedSet()
	h.rq.PickNext()
	h.checkFlushed(delayed, "pick")
}

func (h *harness) delayedSet() []*SchedEntity {
	var d []*SchedEntity
	for _, se := range h.ents {
		if se.delayed {
			d = append(d, se)
		}
	}
	return d
}

func (h *harness) checkFlushed(before []*SchedEntity, where string) {
	for _, se := range before {
		if !se.delayed {
			h.checkFloor(se, where)
		}
	}
}

// checkFloor: with the merged DELAY_LAG_FLOOR, an entity leaving the
// delayed state keeps at least its sleep-time lag, and at most 0 under
// DELAY_ZERO.
func (h *harness) checkFloor(se *SchedEntity, where string) {
	rec, ok := h.sleepLag[se]
	floor := h.hasFloor[se]
	delete(h.sleepLag, se)
	delete(h.hasFloor, se)
	if !ok || !floor || h.rq.floorMode() != floorFinal {
		return
	}
	if se.vlag < rec {
		h.fail("%s: %s left the delayed state with lag %d below its sleep-time lag %d", where, se.name, se.vlag, rec)
	}
	if h.rq.feat.Has(features.DelayZero) && se.vlag > 0 {
		h.fail("%s: %s left the delayed state with positive lag %d under DELAY_ZERO", where, se.name, se.vlag)
	}
}

// checkClamp: the lag saved by a dequeue lies within ±limit (the limit of
// the queue as it was before the dequeue, or as it is after).
func (h *harness) checkClamp(se *SchedEntity, before int64) {
	limit := max(before, h.rq.lagLimit(se))
	if se.vlag > limit || se.vlag < -limit {
		h.fail("%s saved lag %d outside ±%d", se.name, se.vlag, limit)
	}
}

// vPlusJ charges curr (as the operation that follows would, first) and
// returns V + J. On an empty queue it returns noVJ: J is 0 by definition
// there, but the patch never resets sum_jlag, and the residue its
// truncation left behind reappears as J at the next join.
func (h *harness) vPlusJ() int64 {
	h.rq.updateCurr()
	if h.rq.sumWeight == 0 && h.rq.currOnRq() == nil {
		return noVJ
	}
	return int64(h.rq.V()) + h.rq.avgVjlag()
}

const noVJ = -1 << 63

// rawLagClamped reports whether se's current lag is outside the clamp,
// where a leave gives back the clamped lag and V + J moves.
func (h *harness) rawLagClamped(se *SchedEntity) bool {
	h.rq.updateCurr()
	lag, limit := h.rq.Lag(se), h.rq.lagLimit(se)
	return lag >= limit || lag <= -limit
}

// leaveTolerance bounds how far a leave of se may move V + J through the
// patch's own rounding: it gives back (vlag + J)·w with V floored and J
// truncated, and the remaining weight W − w spreads that error, so it is
// amplified by w/(W − w).
func (h *harness) leaveTolerance(se *SchedEntity) int64 {
	w := h.rq.w(se)
	rest := int64(h.rq.sumWeight)
	if c := h.rq.currOnRq(); c != nil {
		rest += h.rq.w(c)
	}
	rest -= w
	if rest <= 0 {
		return 1 << 62 // the queue empties: J is reset by the arithmetic
	}
	return 3 + 2*(w+rest-1)/rest
}

// checkVPlusJ: with PLACE_JOIN_LAG (and PLACE_LAG, which places by it) a
// join or a leave leaves V + J where it was, up to the rounding of V
// (floor) and J (truncation).
func (h *harness) checkVPlusJ(before, tol int64, what string) {
	if before == noVJ || !h.rq.feat.Has(features.PlaceJoinLag) || !h.rq.feat.Has(features.PlaceLag) {
		return
	}
	after := int64(h.rq.V()) + h.rq.avgVjlag()
	if d := after - before; d > tol || d < -tol {
		h.fail("%s moved V + J by %d (tolerance %d)", what, d, tol)
	}
}

// oracle computes pick_eevdf independently.
func (h *harness) oraclePick(protect bool) *SchedEntity {
	rq := h.rq
	var queued []*SchedEntity
	set := btree.NewG(8, func(a, b *SchedEntity) bool {
		if d := int64(a.deadline - b.deadline); d != 0 {
			return d < 0
		}
		return a.seq < b.seq
	})
	for _, se := range h.ents {
		if se.onRq && se.rq == rq {
			queued = append(queued, se)
			if se != rq.curr {
				set.ReplaceOrInsert(se)
			}
		}
	}
	if len(queued) == 0 {
		return nil
	}
	// eligible(v) ⇔ Σ_j w_j·(v_j − v) ≥ 0: v is not past the weighted mean.
	eligible := func(se *SchedEntity) bool {
		sum := new(big.Int)
		for _, q := range queued {
			if q == rq.curr && !q.onRq {
				continue
			}
			w := big.NewInt(int64(rq.avgWeight(q.hload)))
			d := big.NewInt(int64(q.vruntime - se.vruntime))
			sum.Add(sum, d.Mul(d, w))
		}
		return sum.Sign() >= 0
	}
	c := rq.curr
	if len(queued) == 1 {
		if c != nil && c.onRq {
			return c
		}
		first, _ := set.Min()
		return first
	}
	// v7.0's buddy test ignores protect (KERNEL-SPEC-LTS P1).
	if (protect || rq.kernel == KernelV70) && rq.feat.Has(features.PickBuddy) && rq.next != nil && eligible(rq.next) {
		return rq.next
	}
	if c != nil && (!c.onRq || !eligible(c)) {
		c = nil
	}
	if c != nil && protect && int64(c.vruntime-c.vprot) < 0 {
		return c
	}
	var best *SchedEntity
	set.Ascend(func(se *SchedEntity) bool {
		if eligible(se) {
			best = se
			return false
		}
		return true
	})
	if best == nil || (c != nil && int64(c.deadline-best.deadline) < 0) {
		best = c
	}
	return best
}

func (h *harness) comparePick() {
	for _, protect := range []bool{true, false} {
		want := h.oraclePick(protect)
		got := h.rq.pickEevdf(protect)
		if got != want {
			h.fail("pick_eevdf(protect=%v) = %v, oracle %v", protect, got, want)
		}
		if h.rq.hNrQueued > 0 && got == nil {
			h.fail("nil pick with %d queued", h.rq.hNrQueued)
		}
	}
}

func runHarness(t testing.TB, data []byte) { stepHarness(t, data, nil) }

// stepHarness runs the operation sequence data through a harness, at most
// 2000 steps, and calls after (when not nil) after each step, with the
// harness and its run queue in the state that step left.
func stepHarness(t testing.TB, data []byte, after func(h *harness, rq *CfsRq)) {
	h, r := newHarness(t, data)
	for steps := 0; !r.done() && steps < 2000; steps++ {
		h.step(r)
		if after != nil {
			after(h, h.rq)
		}
	}
}

// fuzzSeeds is a small corpus: a few hand-shaped sequences and random ones.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	// Defaults, rbtree, 4 tasks: new ×4, schedule, tick/schedule rounds, sleeps, wakeups.
	seeds = append(seeds, []byte{0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0,
		3, 0, 0, 0, 4, 0, 40, 90, 3, 0, 0, 0, 2, 0, 5, 5, 4, 0, 40, 90, 3, 0, 0, 0, 1, 0, 9, 9, 5, 0, 10, 10, 8, 1, 1, 1})
	// Mixed slices and nices, NO_DELAY_ZERO, PLACE_JOIN_LAG.
	seeds = append(seeds, []byte{0x20, 0x01, 0x00, 0, 0, 0, 5, 2, 3, 9, 1, 6, 5, 2, 100, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0,
		0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 4, 0, 30, 30, 2, 0, 3, 3, 4, 0, 3, 3, 1, 0, 1, 1, 6, 2, 7, 1, 7, 1, 9, 1})
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 8; i++ {
		b := make([]byte, 64+rng.IntN(512))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		seeds = append(seeds, b)
	}
	return seeds
}

func FuzzRunqueue(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runHarness(t, data)
	})
}

// TestRunqueueProperties runs the fuzzer's harness on random operation
// sequences from a fixed seed: deterministic, and part of every test run.
func TestRunqueueProperties(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 40
	}
	for _, b := range propertyInputs(n) {
		runHarness(t, b)
	}
}

// propertyInputs returns n random operation sequences from a fixed seed.
func propertyInputs(n int) [][]byte {
	rng := rand.New(rand.NewPCG(20261129, 7))
	var out [][]byte
	for i := 0; i < n; i++ {
		b := make([]byte, 200+rng.IntN(3000))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		out = append(out, b)
	}
	return out
}
