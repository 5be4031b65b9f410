package fairclass_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/google/btree"
	"github.com/schedmodel/fairclass/eevdf"
)

// The pick path under a steady load: n CPU-bound entities with a
// fixed-seed mix of nice values {−5, 0, 5} and slices {0.1, 0.7, 3 ms};
// each iteration runs the current entity for one slice, then schedules
// (charge, deadline renewal, pick, put the previous entity back, install
// the next one). Two eevdf timelines are measured against two naive EEVDF
// pickers that keep the same sums but scan for the first eligible entity
// in deadline order: an ordered set (google/btree) and a plain slice.

var sizes = []int{1, 2, 4, 16, 64, 256, 1024, 4096, 16384, 65536}

var (
	mixNice  = []int{-5, 0, 5}
	mixSlice = []uint64{100000, 700000, 3000000}
)

func entityMix(n int) (nices []int, slices []uint64) {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	for i := 0; i < n; i++ {
		nices = append(nices, mixNice[rng.IntN(3)])
		slices = append(slices, mixSlice[rng.IntN(3)])
	}
	return nices, slices
}

func newLoadedRq(b *testing.B, backend eevdf.Backend, n int) *eevdf.CfsRq {
	rq, err := eevdf.NewCfsRq(eevdf.WithTimeline(backend))
	if err != nil {
		b.Fatal(err)
	}
	nices, slices := entityMix(n)
	for i := 0; i < n; i++ {
		se, err := eevdf.NewEntity(fmt.Sprint(i), eevdf.WithNice(nices[i]), eevdf.WithSlice(slices[i]))
		if err != nil {
			b.Fatal(err)
		}
		if err := rq.Enqueue(se, eevdf.EnqueueInitial); err != nil {
			b.Fatal(err)
		}
	}
	rq.PickNext()
	return rq
}

// runSlices runs iters rounds of "run curr for its slice, schedule".
func runSlices(rq *eevdf.CfsRq, now *uint64, iters int) {
	for i := 0; i < iters; i++ {
		*now += rq.Curr().Slice()
		rq.SetClock(*now)
		rq.PickNext()
	}
}

func BenchmarkPick(b *testing.B) {
	for _, bk := range []eevdf.Backend{eevdf.BTree, eevdf.RBTree} {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%v/n=%d", bk, n), func(b *testing.B) {
				rq := newLoadedRq(b, bk, n)
				var now uint64
				runSlices(rq, &now, 4*n+1000) // reach the steady state
				before := rq.Stats()
				b.ReportAllocs()
				b.ResetTimer()
				runSlices(rq, &now, b.N)
				b.StopTimer()
				st := rq.Stats()
				b.ReportMetric(float64(st.Visited-before.Visited)/float64(b.N), "visited/pick")
				b.ReportMetric(float64(st.Descents-before.Descents)/float64(b.N), "descents/pick")
			})
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("googlebtree-scan/n=%d", n), func(b *testing.B) {
			benchNaive(b, n, newTreeScan())
		})
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("slice-scan/n=%d", n), func(b *testing.B) {
			if n > 16384 && testing.Short() {
				// Reaching the steady state takes a quarter of a
				// million picks of about 0.4 ms each.
				b.Skip("-short: the slice scan of 65536 entities takes two minutes to settle")
			}
			benchNaive(b, n, &sliceScan{})
		})
	}
}

// The naive pickers share this entity and the kernel's weighted sums
// (keys relative to a fixed zero, full weights), so that they compute the
// same schedule as the model up to its rounding details; they differ only
// in how they find the first eligible entity.

type naiveEntity struct {
	vruntime, deadline uint64
	w                  int64 // full weight (nice 0 = 1048576)
	vslice             uint64
	slice              uint64
	seq                uint64
}

type naiveQueue interface {
	insert(e *naiveEntity)
	erase(e *naiveEntity)
	// first returns the first entity in deadline order with eligible(e).
	first(eligible func(*naiveEntity) bool) (*naiveEntity, int)
}

type treeScan struct{ t *btree.BTreeG[*naiveEntity] }

func newTreeScan() *treeScan {
	return &treeScan{btree.NewG(32, func(a, b *naiveEntity) bool {
		if d := int64(a.deadline - b.deadline); d != 0 {
			return d < 0
		}
		return a.seq < b.seq
	})}
}

func (q *treeScan) insert(e *naiveEntity) { q.t.ReplaceOrInsert(e) }
func (q *treeScan) erase(e *naiveEntity)  { q.t.Delete(e) }
func (q *treeScan) first(eligible func(*naiveEntity) bool) (best *naiveEntity, visited int) {
	q.t.Ascend(func(e *naiveEntity) bool {
		visited++
		if eligible(e) {
			best = e
			return false
		}
		return true
	})
	return best, visited
}

type sliceScan struct{ es []*naiveEntity }

func (q *sliceScan) insert(e *naiveEntity) { q.es = append(q.es, e) }
func (q *sliceScan) erase(e *naiveEntity) {
	for i, x := range q.es {
		if x == e {
			q.es[i] = q.es[len(q.es)-1]
			q.es = q.es[:len(q.es)-1]
			return
		}
	}
}
func (q *sliceScan) first(eligible func(*naiveEntity) bool) (best *naiveEntity, visited int) {
	for _, e := range q.es {
		visited++
		if eligible(e) && (best == nil || int64(e.deadline-best.deadline) < 0 ||
			e.deadline == best.deadline && e.seq < best.seq) {
			best = e
		}
	}
	return best, visited
}

// naiveSums are the kernel's weighted sums, keys relative to 0.
type naiveSums struct {
	sumWV int64 // Σ w·v over the queue (curr excluded)
	sumW  int64
	seq   uint64
}

// eligible is vruntime_eligible without curr (it is back in the queue
// when the pick runs).
func (s *naiveSums) eligible(e *naiveEntity) bool {
	return s.sumWV >= int64(e.vruntime)*s.sumW
}

func benchNaive(b *testing.B, n int, q naiveQueue) {
	var s naiveSums
	add := func(e *naiveEntity) {
		s.seq++
		e.seq = s.seq
		s.sumWV += int64(e.vruntime) * e.w
		s.sumW += e.w
		q.insert(e)
	}
	remove := func(e *naiveEntity) {
		q.erase(e)
		s.sumWV -= int64(e.vruntime) * e.w
		s.sumW -= e.w
	}
	nices, slices := entityMix(n)
	for i := 0; i < n; i++ {
		w := int64(eevdf.NiceWeight(nices[i])) << 10
		e := &naiveEntity{w: w, slice: slices[i], vslice: slices[i] * (1 << 20) / uint64(w)}
		e.deadline = e.vslice / 2
		add(e)
	}
	eligible := s.eligible
	curr, _ := q.first(eligible)
	remove(curr)
	var visited int
	step := func() {
		curr.vruntime += curr.vslice // one slice of real time
		curr.deadline = curr.vruntime + curr.vslice
		add(curr)
		next, v := q.first(eligible)
		visited += v
		remove(next)
		curr = next
	}
	for i := 0; i < 4*n+1000; i++ {
		step()
	}
	visited = 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
	b.StopTimer()
	b.ReportMetric(float64(visited)/float64(b.N), "visited/pick")
}

var backendsUnderTest = []eevdf.Backend{eevdf.BTree, eevdf.RBTree}

// BenchmarkEnqueueDequeue is sleep/wake churn on a loaded queue: the
// running entity sleeps (it may stay queued as delayed), the next one is
// picked, and the entity that slept longest wakes up.
func BenchmarkEnqueueDequeue(b *testing.B) {
	for _, bk := range backendsUnderTest {
		for _, n := range []int{16, 256, 4096, 65536} {
			b.Run(fmt.Sprintf("%v/n=%d", bk, n), func(b *testing.B) {
				rq := newLoadedRq(b, bk, n)
				var now uint64
				// A ring of sleepers: the oldest wakes when a quarter of the
				// entities sleep.
				ring := make([]*eevdf.SchedEntity, n/4+1)
				head, count := 0, 0
				step := func() {
					now += 50000
					rq.SetClock(now)
					curr := rq.Curr()
					if _, err := rq.Dequeue(curr, eevdf.DequeueSleep); err != nil {
						b.Fatal(err)
					}
					rq.PickNext()
					ring[(head+count)%len(ring)] = curr
					count++
					if count == len(ring) {
						se := ring[head]
						head = (head + 1) % len(ring)
						count--
						flags := eevdf.EnqueueWakeup
						if se.Delayed() {
							flags = eevdf.EnqueueDelayed
						}
						if err := rq.Enqueue(se, flags); err != nil {
							b.Fatal(err)
						}
						rq.WakeupPreempt(se, eevdf.WFTTWU)
					}
					if rq.Curr() == nil {
						rq.PickNext()
					}
				}
				for i := 0; i < 2*n+1000; i++ {
					step()
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					step()
				}
			})
		}
	}
}

// BenchmarkTick is task_tick_fair on a loaded queue, followed by the
// reschedule it asks for, with the clock advancing one 1 ms tick at a time.
func BenchmarkTick(b *testing.B) {
	for _, bk := range backendsUnderTest {
		for _, n := range []int{16, 4096} {
			b.Run(fmt.Sprintf("%v/n=%d", bk, n), func(b *testing.B) {
				rq := newLoadedRq(b, bk, n)
				var now uint64
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					now += 1000000
					rq.SetClock(now)
					rq.Tick()
					if rq.NeedResched() {
						rq.PickNext()
					}
				}
			})
		}
	}
}

// BenchmarkPickPath measures pick_task_fair (charge curr, pick_eevdf,
// nothing installed) on each path of the kernel's pick:
//
//   - single: one queued entity, returned without a test;
//   - protected: curr eligible and inside its protected slice;
//   - leftmost: the first entity of the timeline is eligible;
//   - descent: the leftmost is not eligible, the heap descent runs.
func BenchmarkPickPath(b *testing.B) {
	for _, bk := range backendsUnderTest {
		for _, n := range []int{16, 4096, 65536} {
			for _, path := range []string{"single", "protected", "leftmost", "descent"} {
				if path == "single" && n != 16 {
					continue
				}
				b.Run(fmt.Sprintf("%v/%s/n=%d", bk, path, n), func(b *testing.B) {
					rq, wantDescents := pickPathRq(b, bk, path, n)
					before := rq.Stats()
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						rq.PickTask()
					}
					b.StopTimer()
					if st := rq.Stats(); (st.Descents > before.Descents) != wantDescents {
						b.Fatalf("%s: %d descents in %d picks", path, st.Descents-before.Descents, b.N)
					}
				})
			}
		}
	}
}

// pickPathRq builds a runqueue whose every pick takes the given path.
func pickPathRq(b *testing.B, bk eevdf.Backend, path string, n int) (*eevdf.CfsRq, bool) {
	rq, err := eevdf.NewCfsRq(eevdf.WithTimeline(bk))
	if err != nil {
		b.Fatal(err)
	}
	mk := func(name string, opts ...eevdf.EntityOption) *eevdf.SchedEntity {
		se, err := eevdf.NewEntity(name, opts...)
		if err != nil {
			b.Fatal(err)
		}
		if err := rq.Enqueue(se, eevdf.EnqueueInitial); err != nil {
			b.Fatal(err)
		}
		return se
	}
	switch path {
	case "single":
		mk("only")
		rq.PickNext()
		return rq, false
	case "protected", "leftmost":
		// All at V; the first picked is protected up to its deadline. For
		// the leftmost path, curr is not protected: its protection is
		// cancelled by having it run past it.
		for i := 0; i < n; i++ {
			mk(fmt.Sprint(i))
		}
		rq.PickNext()
		if path == "leftmost" {
			rq.SetClock(350000) // curr reaches its deadline: renewed, unprotected, ineligible
			rq.UpdateCurr()
		}
		return rq, false
	case "descent":
		// n long-slice entities at V with far deadlines, and one 0.1 ms
		// entity that ran ahead: its deadline is the earliest, it is not
		// eligible, so every pick descends.
		short := mk("short", eevdf.WithSlice(100000))
		for i := 0; i < n; i++ {
			mk(fmt.Sprint(i), eevdf.WithSlice(100000000))
		}
		if err := rq.SetNext(short); err != nil {
			b.Fatal(err)
		}
		rq.SetClock(60000) // past its 50 µs first request: deadline 160000
		rq.PickNext()      // puts it back; a long-slice entity runs
		rq.SetClock(80000) // which runs past V and its protection
		rq.UpdateCurr()
		return rq, true
	}
	b.Fatalf("unknown path %s", path)
	return nil, false
}

// BenchmarkMemory reports the live heap a simulation needs, for sizing
// one: B/entity for each entity made by NewEntity with the BenchmarkPick
// mix (never queued), and B/queued for each of them queued on a runqueue
// in BenchmarkPick's steady state, beyond the entity itself (the
// timeline's nodes and spare nodes, the runqueue amortised). Each
// iteration builds the whole population; run it once:
//
//	go test -run '^$' -bench BenchmarkMemory -benchtime 1x .
func BenchmarkMemory(b *testing.B) {
	for _, bk := range backendsUnderTest {
		for _, n := range []int{4096, 65536, 1 << 20} {
			b.Run(fmt.Sprintf("%v/n=%d", bk, n), func(b *testing.B) {
				if n > 65536 && testing.Short() {
					b.Skip("-short: a million entities take a few seconds to settle")
				}
				for b.Loop() {
					perEntity, perQueued := memoryOf(b, bk, n)
					b.ReportMetric(perEntity, "B/entity")
					b.ReportMetric(perQueued, "B/queued")
				}
			})
		}
	}
}

// memoryOf measures the live heap per entity of n entities, and then per
// queued entity once they are all queued and the runqueue has settled.
func memoryOf(b *testing.B, bk eevdf.Backend, n int) (perEntity, perQueued float64) {
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	nices, slices := entityMix(n)
	ents := make([]*eevdf.SchedEntity, n)
	h0 := live()
	for i := range ents {
		se, err := eevdf.NewEntity("e", eevdf.WithNice(nices[i]), eevdf.WithSlice(slices[i]))
		if err != nil {
			b.Fatal(err)
		}
		ents[i] = se
	}
	h1 := live()
	rq, err := eevdf.NewCfsRq(eevdf.WithTimeline(bk))
	if err != nil {
		b.Fatal(err)
	}
	for _, se := range ents {
		if err := rq.Enqueue(se, eevdf.EnqueueInitial); err != nil {
			b.Fatal(err)
		}
	}
	rq.PickNext()
	var now uint64
	runSlices(rq, &now, 4*n+1000)
	h2 := live()
	runtime.KeepAlive(ents)
	runtime.KeepAlive(rq)
	return float64(h1-h0) / float64(n), float64(h2-h1) / float64(n)
}

// BenchmarkSignals is BenchmarkPick's steady state (B-tree) on a flat
// runqueue, on one that keeps PELT signals, and on one with two task
// groups (half the entities in each, which implies PELT): what the signals
// and the hierarchy cost a pick, and that a runqueue without them pays
// nothing for their existence.
func BenchmarkSignals(b *testing.B) {
	for _, mode := range []string{"flat", "pelt", "groups"} {
		for _, n := range []int{16, 1024} {
			b.Run(fmt.Sprintf("%s/n=%d", mode, n), func(b *testing.B) {
				var opts []eevdf.Option
				var groups []*eevdf.TaskGroup
				switch mode {
				case "pelt":
					opts = append(opts, eevdf.WithPELT(true))
				case "groups":
					h := eevdf.NewHierarchy()
					for _, name := range []string{"a", "b"} {
						g, err := h.NewGroup(name, nil)
						if err != nil {
							b.Fatal(err)
						}
						groups = append(groups, g)
					}
					opts = append(opts, eevdf.WithHierarchy(h))
				}
				rq, err := eevdf.NewCfsRq(opts...)
				if err != nil {
					b.Fatal(err)
				}
				nices, slices := entityMix(n)
				for i := 0; i < n; i++ {
					eo := []eevdf.EntityOption{eevdf.WithNice(nices[i]), eevdf.WithSlice(slices[i])}
					if groups != nil {
						eo = append(eo, eevdf.WithGroup(groups[i%2]))
					}
					se, err := eevdf.NewEntity(fmt.Sprint(i), eo...)
					if err != nil {
						b.Fatal(err)
					}
					if err := rq.Enqueue(se, eevdf.EnqueueInitial); err != nil {
						b.Fatal(err)
					}
				}
				now := uint64(1_000_000) // PELT: a clock of 0 reads as never updated
				rq.SetClock(now)
				rq.PickNext()
				runSlices(rq, &now, 4*n+1000)
				b.ReportAllocs()
				b.ResetTimer()
				runSlices(rq, &now, b.N)
			})
		}
	}
}
