package eevdf_test

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// FuzzLagLimit drives a runqueue through the public API only — WakeUpNew,
// Wakeup, Sleep, PickNext, Tick, Yield, SetNice, SetSlice, SetFeatures and
// clock advances, the feature set chosen from the input and toggled at run
// time — and checks, after every operation, Check and the bound LagLimit
// states on every lag a dequeue in that operation saved.
//
// Which dequeues an operation made is read from the entities' state before
// and after it: an entity that was queued and no longer is has been
// dequeued (its own sleep, or the completion of its delayed dequeue by a
// pick, in Sleep, PickNext, Yield's pick or a wakeup check that flushes);
// one that became delayed slept without leaving. The bound is the
// LagLimit computed just before the operation — exactly the one the
// dequeue used when the entity is the sleeper of a Sleep (Dequeue is
// Sleep's first step and its charge of curr cannot change a slice). A
// delayed dequeue completed later in the operation uses the queue as it is
// then: smaller after departures (the limit only shrinks as entities
// leave), but larger after a Wakeup enqueued a longer slice before its
// check flushed; max(limit before, limit after) covers both, the wakee
// being still queued after the operation.
//
// What holds, by floor toggle (see LagLimit):
//   - a lag saved at a real removal of an entity that was not delayed, or
//     of a delayed one without the merged DELAY_LAG_FLOOR: |vlag| ≤ limit;
//     under DELAY_ZERO a completed delayed dequeue also leaves vlag ≤ 0;
//   - a delayed dequeue completed under DELAY_LAG_FLOOR (merged, not the
//     posted form): vlag = max(clamped, saved) then min(…, 0) under
//     DELAY_ZERO. So −limit ≤ vlag, vlag ≥ the saved value (min(saved, 0)
//     under DELAY_ZERO), and vlag ≤ 0 under DELAY_ZERO, vlag ≤
//     max(limit, saved) without: a positive lag re-saved while delayed
//     (by a nice or slice change) may exceed a limit that shrank since, so
//     |vlag| ≤ limit is not the property there;
//   - a sleep that is delayed records its clamped lag (|vlag| ≤ limit)
//     under either floor toggle, and nothing under NO_DELAY_LAG_FLOOR
//     (vlag keeps its previous value);
//   - a nice or slice change of a queued entity that is not delayed saves
//     its lag at the old weight and restores it rescaled to the new one
//     (w·vlag kept, truncated): |vlag_after|·w_after ≤ limit_before·w_before.
//
// A SetFeatures write changes no state at all (Snapshot unchanged), and an
// invalid set (two yield variants) is refused with ErrBadOption and leaves
// the features as they were.
func FuzzLagLimit(f *testing.F) {
	for _, s := range lagLimitSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runLagLimit(t, data)
	})
}

// TestLagLimitProperties runs FuzzLagLimit's body on random inputs from a
// fixed seed, so that every test run checks the property.
func TestLagLimitProperties(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 30
	}
	rng := rand.New(rand.NewPCG(20261203, 5))
	for i := 0; i < n; i++ {
		b := make([]byte, 100+rng.IntN(2500))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		runLagLimit(t, b)
	}
}

// lagLimitSeeds: two hand-shaped inputs and a few random ones.
func lagLimitSeeds() [][]byte {
	seeds := [][]byte{
		// Defaults, B-tree, 4 tasks of nice 0: new ×4, then rounds of
		// tick, schedule, sleep, wakeup.
		{0, 0, 0, 0, 0, 4, 0, 0, 0, 0,
			0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 3, 0, 0,
			4, 0, 200, 3, 0, 0, 2, 0, 50, 1, 0, 9, 4, 0, 200, 3, 0, 0, 2, 0, 9, 1, 1, 30, 1, 2, 30},
		// NO_DELAY_ZERO, a 3 ms slice and nice 10 among the tasks, long
		// runs before sleeps, a renice and a slice change of queued tasks,
		// and RUN_TO_PARITY toggled at run time.
		{0x02, 0x00, 0, 1, 1, 5, 0, 2, 75, 1, 40, 0,
			0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 3, 0, 0,
			8, 0, 40, 4, 0, 1, 2, 0, 1, 6, 1, 5, 7, 2, 100, 9, 3, 0, 4, 0, 90, 3, 0, 0, 2, 0, 0, 1, 3, 5},
	}
	// TestLagLimitMergedFloorCanExceed's sequence (clock in steps of 9973
	// ns): NO_DELAY_ZERO; E (T0), A and L (T2, a 10 ms slice); E sleeps
	// delayed after 299190 ns, A runs 30 ms without a pick, which turns
	// E's lag positive; E's nice change re-saves it (about 12.2 ms at nice
	// 1), L's slice change shrinks E's limit to 2122926, and the pick
	// completes E's dequeue above it: the case where |vlag| ≤ LagLimit
	// does not hold.
	seeds = append(seeds, []byte{0x00, 0x01, 0, 0, 0, 1, 0, 0, 2, 250,
		0, 0, 0, 0, 1, 0, 0, 2, 0, 3, 0, 0, 2, 0, 30, 8, 120, 0, 6, 0, 0, 21, 7, 2, 0, 0, 3, 0, 0})
	rng := rand.New(rand.NewPCG(3, 12))
	for i := 0; i < 6; i++ {
		b := make([]byte, 64+rng.IntN(700))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// lagToggles are the features the input toggles (against the defaults)
// before the run; runToggles those an operation may flip during it.
// PLACE_JOIN_LAG and PARANOID_AVG are chosen once: PLACE_JOIN_LAG's
// sum_jlag is only meaningful when it counted every join, and the two
// together are unsupported (KERNEL-SPEC §8c).
var (
	lagToggles = []features.Feature{
		features.PlaceLag, features.PlaceDeadlineInitial, features.PlaceRelDeadline,
		features.RunToParity, features.PreemptShort, features.NextBuddy, features.PickBuddy,
		features.DelayDequeue, features.DelayZero, features.WakeupPreemption,
		features.DelayLagFloor, features.DelayLagFloorPosted, features.PreemptFlushDelayed,
		features.PlaceJoinLag, features.ParanoidAvg,
	}
	runToggles = append(lagToggles[:13:13],
		features.YieldBumpDeadline, features.YieldClampDeadline, features.YieldForfeitAlways)
)

// lagInput reads the fuzzer's bytes (zeros past the end).
type lagInput struct {
	b []byte
	i int
}

func (r *lagInput) next() byte {
	if r.i >= len(r.b) {
		r.i++
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *lagInput) done() bool { return r.i >= len(r.b) }

// lagRun is one fuzzed runqueue and its tasks.
type lagRun struct {
	t       *testing.T
	rq      *eevdf.CfsRq
	ents    []*eevdf.SchedEntity
	created []bool
	clock   uint64
	log     []string
}

func (h *lagRun) fail(format string, args ...any) {
	h.t.Helper()
	msg := fmt.Sprintf(format, args...)
	for _, l := range h.log[max(0, len(h.log)-30):] {
		msg += "\n\t" + l
	}
	h.t.Fatal(msg)
}

// entityState is what the checks read of an entity before an operation.
type entityState struct {
	onRq, delayed bool
	vlag, limit   int64
	weight        uint64
}

func runLagLimit(t *testing.T, data []byte) {
	r := &lagInput{b: data}
	fs := features.Default()
	mask := uint32(r.next()) | uint32(r.next())<<8
	for i, f := range lagToggles {
		if mask&(1<<i) != 0 {
			fs = fs.Toggle(f, !fs.Has(f))
		}
	}
	if fs.Has(features.PlaceJoinLag) {
		fs = fs.Without(features.ParanoidAvg)
	}
	if y := r.next() % 4; y != 0 {
		fs = fs.With(runToggles[12+y])
	}
	opts := []eevdf.Option{eevdf.WithFeatures(fs), eevdf.WithTimeline(eevdf.Backend(r.next() % 2))}
	switch r.next() % 4 {
	case 1:
		opts = append(opts, eevdf.WithTickNsec(eevdf.TickNsecForHZ(250)))
	case 2:
		opts = append(opts, eevdf.WithBaseSlice(3000000))
	}
	rq, err := eevdf.NewCfsRq(opts...)
	if err != nil {
		t.Fatal(err)
	}
	h := &lagRun{t: t, rq: rq}
	n := 2 + int(r.next()%9)
	for i := 0; i < n; i++ {
		var eo []eevdf.EntityOption
		switch k := r.next(); k % 4 {
		case 1:
			eo = append(eo, eevdf.WithNice(int(k/4)%40-20))
		case 2:
			eo = append(eo, eevdf.WithSlice(uint64(r.next())*40000))
		case 3:
			eo = append(eo, eevdf.WithWeight(uint64(k)*64+1))
		}
		se, err := eevdf.NewEntity(fmt.Sprintf("T%d", i), append(eo, eevdf.WithDefaultSlice(rq.BaseSlice()))...)
		if err != nil {
			t.Fatal(err)
		}
		h.ents = append(h.ents, se)
		h.created = append(h.created, false)
	}
	h.log = append(h.log, fmt.Sprintf("features %q, %d tasks", fs.Diff(features.Default()), n))
	for steps := 0; !r.done() && steps < 3000; steps++ {
		h.step(r)
	}
}

// pick returns the first entity from index b on that satisfies ok.
func (h *lagRun) pick(b byte, ok func(i int, se *eevdf.SchedEntity) bool) *eevdf.SchedEntity {
	for k := range h.ents {
		i := (int(b) + k) % len(h.ents)
		if ok(i, h.ents[i]) {
			return h.ents[i]
		}
	}
	return nil
}

func (h *lagRun) step(r *lagInput) {
	rq := h.rq
	op, arg := r.next()%10, r.next()
	h.clock += uint64(r.next()) * 9973
	if op == 8 { // a long run of curr
		h.clock += uint64(arg) * 250000
	}
	if err := rq.SetClock(h.clock); err != nil {
		h.fail("SetClock: %v", err)
	}
	before := make([]entityState, len(h.ents))
	for i, se := range h.ents {
		before[i] = entityState{se.OnRq(), se.Delayed(), se.VLag(), rq.LagLimit(se), se.EffectiveWeight()}
	}
	curr := rq.Curr()
	var sleeper, changed *eevdf.SchedEntity
	feat := rq.Features()
	switch op {
	case 0:
		if se := h.pick(arg, func(i int, _ *eevdf.SchedEntity) bool { return !h.created[i] }); se != nil {
			h.log = append(h.log, fmt.Sprintf("%d new %s", h.clock, se.Name()))
			h.must(rq.WakeUpNew(se))
			h.created[indexOfEntity(h.ents, se)] = true
		}
	case 1:
		if se := h.pick(arg, func(i int, se *eevdf.SchedEntity) bool {
			return h.created[i] && (se.Delayed() || !se.OnRq()) && se != curr
		}); se != nil {
			wf := eevdf.WakeFlags(0)
			if arg&0x80 != 0 {
				wf = eevdf.WFSync
			}
			h.log = append(h.log, fmt.Sprintf("%d wakeup %s (delayed %v)", h.clock, se.Name(), se.Delayed()))
			h.must(rq.Wakeup(se, wf))
		}
	case 2:
		h.log = append(h.log, fmt.Sprintf("%d sleep %v", h.clock, curr))
		sleeper = curr
		_, err := rq.Sleep()
		if curr == nil {
			if !errors.Is(err, eevdf.ErrIdle) {
				h.fail("Sleep with nothing running: %v", err)
			}
		} else {
			h.must(err)
		}
	case 3:
		h.log = append(h.log, fmt.Sprintf("%d schedule", h.clock))
		rq.PickNext()
	case 4, 8:
		h.log = append(h.log, fmt.Sprintf("%d tick", h.clock))
		rq.Tick()
	case 5:
		h.log = append(h.log, fmt.Sprintf("%d yield", h.clock))
		rq.Yield()
		rq.PickNext()
	case 6:
		se := h.pick(arg, func(int, *eevdf.SchedEntity) bool { return true })
		nice := int(r.next())%40 - 20
		if nice != se.Nice() { // else SetNice does nothing
			changed = se
		}
		h.log = append(h.log, fmt.Sprintf("%d renice %s %d", h.clock, se.Name(), nice))
		h.must(rq.SetNice(se, nice))
	case 7:
		se := h.pick(arg, func(int, *eevdf.SchedEntity) bool { return true })
		ns := uint64(r.next()) * 20000
		if ns != se.Slice() && se.Policy() != eevdf.PolicyIdle { // else SetSlice does nothing
			changed = se
		}
		h.log = append(h.log, fmt.Sprintf("%d slice %s %d", h.clock, se.Name(), ns))
		h.must(rq.SetSlice(se, ns))
	case 9:
		f := runToggles[int(arg)%len(runToggles)]
		next := feat.Toggle(f, !feat.Has(f))
		h.log = append(h.log, fmt.Sprintf("%d features %s", h.clock, next.Diff(feat)))
		snap := rq.Snapshot()
		err := rq.SetFeatures(next)
		if next.Validate() != nil {
			if !errors.Is(err, eevdf.ErrBadOption) || rq.Features() != feat {
				h.fail("SetFeatures of an invalid set: %v, features %s", err, rq.Features().Diff(feat))
			}
		} else if err != nil || rq.Features() != next {
			h.fail("SetFeatures: %v", err)
		}
		if diff := cmp.Diff(snap, rq.Snapshot()); diff != "" {
			h.fail("SetFeatures changed the runqueue:\n%s", diff)
		}
	}
	if err := rq.Check(); err != nil {
		h.fail("Check: %v", err)
	}
	h.checkLags(feat, before, sleeper, changed)
}

// checkLags asserts the bounds on every lag the operation saved.
func (h *lagRun) checkLags(feat features.Set, before []entityState, sleeper, changed *eevdf.SchedEntity) {
	floorFinal := feat.Has(features.DelayLagFloor) && !feat.Has(features.DelayLagFloorPosted)
	floorOff := !feat.Has(features.DelayLagFloor) && !feat.Has(features.DelayLagFloorPosted)
	zero := feat.Has(features.DelayZero)
	for i, se := range h.ents {
		b := before[i]
		vlag := se.VLag()
		limit := max(b.limit, h.rq.LagLimit(se))
		if se == sleeper {
			limit = b.limit // Sleep's Dequeue used exactly the limit before it
		}
		switch {
		case b.onRq && !se.OnRq() && b.delayed && floorFinal:
			// The merged floor: max(clamped, saved), capped at 0 under
			// DELAY_ZERO.
			floor := b.vlag
			if zero {
				floor = min(floor, 0)
			}
			hi := max(limit, b.vlag)
			if zero {
				hi = 0
			}
			if vlag < -limit || vlag < floor || vlag > hi {
				h.fail("%s left the delayed state with lag %d: want within [max(−%d, %d), %d]", se.Name(), vlag, limit, floor, hi)
			}
		case b.onRq && !se.OnRq():
			if vlag > limit || vlag < -limit {
				h.fail("%s dequeued with lag %d outside ±%d (limit before %d)", se.Name(), vlag, limit, b.limit)
			}
			if b.delayed && zero && vlag > 0 {
				h.fail("%s left the delayed state with lag %d > 0 under DELAY_ZERO", se.Name(), vlag)
			}
		case b.onRq && !b.delayed && se.Delayed() && floorOff:
			if vlag != b.vlag {
				h.fail("%s: a delayed sleep under NO_DELAY_LAG_FLOOR changed vlag %d to %d", se.Name(), b.vlag, vlag)
			}
		case b.onRq && !b.delayed && se.Delayed():
			if vlag > b.limit || vlag < -b.limit {
				h.fail("%s slept delayed with lag %d outside ±%d", se.Name(), vlag, b.limit)
			}
		case se == changed && b.onRq && !b.delayed && se.OnRq():
			// |vlag|·w_after ≤ limit·w_before, in 128 bits.
			ahi, alo := bits.Mul64(uint64(max(vlag, -vlag)), se.EffectiveWeight())
			bhi, blo := bits.Mul64(uint64(b.limit), b.weight)
			if ahi > bhi || ahi == bhi && alo > blo {
				h.fail("%s: after a change of weight %d→%d its lag %d exceeds the rescaled limit %d·%d/%d",
					se.Name(), b.weight, se.EffectiveWeight(), vlag, b.limit, b.weight, se.EffectiveWeight())
			}
		}
	}
}

func (h *lagRun) must(err error) {
	h.t.Helper()
	if err != nil {
		h.fail("%v", err)
	}
}

func indexOfEntity(ents []*eevdf.SchedEntity, se *eevdf.SchedEntity) int {
	for i, e := range ents {
		if e == se {
			return i
		}
	}
	return -1
}
