package smp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// BenchmarkWakeupPlacement measures TryToWakeUp — select_task_rq_fair
// with its idle scans, the migration and the enqueue — in a steady state
// of wake, run and block cycles, as a simulator drives it, on machines of
// 8, 64 and 1024 CPUs with SMT (1×1×4×2, 2×1×16×2, 4×2×64×2).
//
// Each op wakes the next of a ring of sleepers (the waker is a hog, as a
// pipe write from a busy CPU would be), reschedules the CPUs smp flagged,
// lets the woken sleeper run and blocks a sleeper again. The clock
// advances 10 µs per op (a jiffy per 100 ops), so PELT signals and the
// wakee statistics evolve as they would.
//
//   - spare: a hog on one thread of every core (pinned: no core is ever
//     wholly idle, so has_idle_cores soon reads 0), as many sleepers as
//     CPUs, woken in a pseudo-random order, a quarter of the CPUs' worth of
//     them running at once (each op blocks the one that has run longest).
//     A sleeper's previous CPU is often taken by another, and the wakeup
//     scans the LLC for an idle CPU, which is found a few CPUs on.
//   - busy: a hog on every CPU, a sixteenth of the CPUs' worth of
//     sleepers. No CPU is ever idle: every wakeup scans nr_idle_scan CPUs
//     of its LLC (8, 32 and 128 here: a warm start's value, which periodic
//     balancing lowers as utilisation rises) and stays on its target; the
//     sleeper then runs once its CPU's tick lets it, and blocks. This is
//     the kernel's own scan growing with the LLC.
//
// ns/op is the whole cycle (wake, schedule, ticks, block, the clock);
// wakeup-ns/op times TryToWakeUp alone (with the overhead of one clock
// read); allocs/op is 0 in the steady state.
func BenchmarkWakeupPlacement(b *testing.B) {
	for _, busy := range []bool{false, true} {
		for _, m := range []topology.Machine{
			{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2},
			{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 16, ThreadsPerCore: 2},
			{Packages: 4, LLCsPerPackage: 2, CoresPerLLC: 64, ThreadsPerCore: 2},
		} {
			name := map[bool]string{false: "spare", true: "busy"}[busy]
			b.Run(fmt.Sprintf("%s/cpus=%d", name, m.NumCPUs()), func(b *testing.B) {
				w := newWakeBench(b, m, busy)
				for range 4 * len(w.sleepers) {
					w.cycle() // reach the steady state
				}
				b.ReportAllocs()
				w.wakeNs, w.stacked = 0, 0
				b.ResetTimer()
				for b.Loop() {
					w.cycle()
				}
				b.ReportMetric(float64(w.wakeNs)/float64(b.N), "wakeup-ns/op")
				b.ReportMetric(float64(w.stacked)/float64(b.N), "stacked/op")
			})
		}
	}
}

// wakeBench is the steady state of BenchmarkWakeupPlacement.
type wakeBench struct {
	b        *testing.B
	sys      *smp.System
	now      uint64
	hogs     []*smp.Task
	sleepers []*smp.Task
	depth    int // sleepers running at once
	i        int
	running  []*smp.Task // the sleepers woken and not yet blocked, oldest first
	rng      uint64      // xorshift state of the wakeup order
	wakeNs   int64
	stacked  int // wakeups that did not get to run at once
}

func newWakeBench(b *testing.B, m topology.Machine, busy bool) *wakeBench {
	top, err := topology.Build(m)
	if err != nil {
		b.Fatal(err)
	}
	const t0 = 1_000_000_000
	sys, err := smp.New(top, smp.WithPreset(topology.Warm, t0))
	if err != nil {
		b.Fatal(err)
	}
	w := &wakeBench{b: b, sys: sys, now: t0, rng: 0x9e3779b97f4a7c15}
	n := top.NumCPUs()
	newTask := func(name string, opts ...smp.TaskOption) *smp.Task {
		se, err := eevdf.NewEntity(name)
		if err != nil {
			b.Fatal(err)
		}
		t, err := sys.NewTask(se, opts...)
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	// A hog on the first thread of every core, or on every CPU.
	for c := range n {
		if !busy && top.SMTMask(c).First() != c {
			continue
		}
		h := newTask(fmt.Sprintf("hog%d", c), smp.WithCPU(c), smp.WithAllowed(c))
		w.start(h)
		w.hogs = append(w.hogs, h)
	}
	sleepers, depth := n, n/4
	if busy {
		sleepers, depth = max(2, n/16), 0
	}
	// Each sleeper is forked, runs a moment and sleeps before the next
	// one is forked.
	for i := range sleepers {
		s := newTask(fmt.Sprintf("sleeper%d", i), smp.WithCPU(0))
		w.start(s)
		w.runs(s)
		w.block(s)
		w.sleepers = append(w.sleepers, s)
	}
	w.depth = depth
	return w
}

// runs lets the runnable t run: ticks of its CPU, 1 ms apart, until the
// pick is t (at once if it preempted or found its CPU idle).
func (w *wakeBench) runs(t *smp.Task) {
	for guard := 0; w.sys.Curr(t.CPU()) != t; guard++ {
		if guard == 1000 {
			w.b.Fatalf("%s never runs", t)
		}
		w.now += 1_000_000
		if err := w.sys.SetClock(w.now); err != nil {
			w.b.Fatal(err)
		}
		c := t.CPU()
		w.sys.Tick(c)
		if w.sys.RQ(c).NeedResched() || w.sys.Curr(c) == nil {
			w.sys.Schedule(c)
		}
		w.resched()
	}
}

// tick advances the clock by 10 µs.
func (w *wakeBench) tick() {
	w.now += 10_000
	if err := w.sys.SetClock(w.now); err != nil {
		w.b.Fatal(err)
	}
}

// start forks t and runs the CPU it lands on.
func (w *wakeBench) start(t *smp.Task) {
	w.tick()
	w.sys.WakeUpNew(t)
	w.resched()
}

// resched runs __schedule on every CPU smp flagged that still needs it.
func (w *wakeBench) resched() {
	for _, c := range w.sys.Resched() {
		if w.sys.RQ(c).NeedResched() {
			w.sys.Schedule(c)
		}
	}
}

// block puts t to sleep if it runs.
func (w *wakeBench) block(t *smp.Task) {
	if c := t.CPU(); w.sys.Curr(c) == t {
		if err := w.sys.Block(c); err != nil {
			w.b.Fatal(err)
		}
		w.resched()
	}
}

// cycle is one op: wake a sleeping sleeper (the next in the ring with a
// depth of 0, else a pseudo-random one), let it run, block the one woken
// longest ago once depth of them run.
func (w *wakeBench) cycle() {
	w.tick()
	n := len(w.sleepers)
	s := w.sleepers[w.i%n]
	if w.depth > 0 {
		for {
			w.rng ^= w.rng << 13
			w.rng ^= w.rng >> 7
			w.rng ^= w.rng << 17
			if s = w.sleepers[w.rng%uint64(n)]; s.Sleeping() {
				break
			}
		}
	}
	waker := w.hogs[w.i%len(w.hogs)]
	t0 := time.Now()
	cpu := w.sys.TryToWakeUp(s, waker, 0)
	w.wakeNs += time.Since(t0).Nanoseconds()
	w.resched()
	if w.sys.Curr(cpu) != s {
		w.stacked++
		w.runs(s)
	}
	w.running = append(w.running, s)
	if len(w.running) > w.depth {
		old := w.running[0]
		copy(w.running, w.running[1:])
		w.running = w.running[:len(w.running)-1]
		if w.sys.Curr(old.CPU()) != old {
			w.runs(old) // preempted meanwhile: it blocks once it runs again
		}
		w.block(old)
	}
	w.i++
}
