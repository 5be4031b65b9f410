package smp

import (
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// pin restricts t to one CPU, as sched_setaffinity would while it sleeps.
func pin(t *Task, cpu int) {
	t.allowed = topology.MaskOf(t.allowed.Len(), cpu)
	t.nrAllowed = 1
}

// A9 (KERNEL-SPEC-SMP §4.3 rule 1): a sleeping task keeps its lag across a
// wakeup migration. Onto a CPU with queued load W it is placed at
// V − ℓ·(W+w)/W, and once counted V − v is ℓ again, up to the truncations
// of the inflation and of V; onto an empty CPU it is placed at V.
func TestWakeupMigrationKeepsLag(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	p := h.pinnedStart(0, eevdf.WithNice(-3)) // unequal weights: p is picked with lag
	h.pinnedStart(0)
	h.pinnedStart(1)
	h.pinnedStart(1)
	h.run(20_000_000)
	h.untilPicked(0, p)
	h.block(0)
	if p.se.Delayed() {
		h.t.Fatal("setup: the sleeper is delayed")
	}
	lag := p.se.VLag()
	if lag == 0 {
		t.Fatal("setup: the sleeper has no lag")
	}
	pin(p, 1)
	h.at(h.now + 50_000)
	if got := h.wake(p, nil, 0); got != 1 {
		t.Fatalf("woken on CPU %d, want 1", got)
	}
	rq := h.s.RQ(1)
	if d := rq.Lag(p.se) - lag; d < -2 || d > 2 {
		t.Errorf("lag after the migration %d, before %d", rq.Lag(p.se), lag)
	}
	if p.Migrations() != 1 || p.CPU() != 1 {
		t.Errorf("migrations %d, CPU %d", p.Migrations(), p.CPU())
	}

	// Onto an empty CPU: no lag to keep, vruntime = V.
	h.run(h.now + 5_000_000)
	h.untilPicked(1, p)
	h.at(h.now + 300_000)
	h.block(1)
	if p.se.Delayed() {
		h.t.Fatal("setup: the sleeper is delayed")
	}
	pin(p, 3)
	if got := h.wake(p, nil, 0); got != 3 {
		t.Fatalf("woken on CPU %d, want 3", got)
	}
	if rq := h.s.RQ(3); p.se.Vruntime() != rq.V() {
		t.Errorf("on an empty CPU: vruntime %d, V %d", p.se.Vruntime(), rq.V())
	}
}

// A9 (§4.3 rule 2): a queued task moved by the balancer (detach_task,
// attach_task) keeps deadline − vruntime exactly, and its lag up to the
// inflation's truncation.
func TestQueuedMoveKeepsRelativeDeadline(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	var tasks []*Task
	for range 3 {
		tasks = append(tasks, h.pinnedStart(0))
	}
	h.pinnedStart(1)
	h.run(7_300_000)
	var p *Task
	for _, x := range tasks {
		if h.s.Curr(0) != x {
			p = x
			break
		}
	}
	rel := int64(p.se.Deadline() - p.se.Vruntime())
	h.s.detachTask(p, 1)
	lag := p.se.VLag() // saved by the detach, after charging CPU 0's curr
	h.s.attachTask(p)
	h.check()
	if got := int64(p.se.Deadline() - p.se.Vruntime()); got != rel {
		t.Errorf("deadline − vruntime %d after the move, %d before", got, rel)
	}
	if d := h.s.RQ(1).Lag(p.se) - lag; d < -2 || d > 2 {
		t.Errorf("lag %d after the move, %d before", h.s.RQ(1).Lag(p.se), lag)
	}
	if p.se.ExecStart() != 0 {
		t.Errorf("exec_start %d after a migrating enqueue, want 0", p.se.ExecStart())
	}
}

// A9 (§4.3 rule 2) through the balancer: a newly idle CPU pulls the tail
// of a busy CPU's cfs_tasks (detach_tasks, attach_tasks); the pulled
// task's deadline − vruntime is exactly what it was while it waited.
func TestNewidlePullKeepsRelativeDeadline(t *testing.T) {
	h := newHarness(t, oneLLC4x1, noNIRandom)
	var tasks []*Task
	for _, nice := range []int{0, -2, 3} {
		tasks = append(tasks, h.pinnedStart(0, eevdf.WithNice(nice)))
	}
	h.pinnedStart(1)
	h.run(20_000_000)
	h.at(h.now + 600_000) // every waiting task is cold
	rel := map[*Task]int64{}
	for _, x := range tasks {
		free(x)
		if h.s.Curr(0) != x {
			rel[x] = int64(x.se.Deadline() - x.se.Vruntime())
		}
	}
	tail := taskOf(h.s.RQ(0).LastTask())
	if _, waits := rel[tail]; !waits {
		t.Fatalf("setup: CPU 0's tail %s runs", tail)
	}
	h.overload()
	h.block(1)
	if tail.CPU() != 1 || h.s.Curr(1) != tail || h.s.Stats().BalanceMoves != 1 {
		t.Fatalf("CPU 1 runs %v; want the pulled tail %s (moves %d)", h.s.Curr(1), tail, h.s.Stats().BalanceMoves)
	}
	if got := int64(tail.se.Deadline() - tail.se.Vruntime()); got != rel[tail] {
		t.Errorf("deadline − vruntime %d after the pull, %d while it waited", got, rel[tail])
	}
}

// A9 (§4.3 rule 2) through periodic balancing onto a busy CPU: CPU 1 runs
// one task and, at its periodic MC balance, takes a waiting task of CPU 0
// (three tasks: both groups overloaded or fully busy, migrate_load). The
// task keeps deadline − vruntime exactly and, placed among CPU 1's queued
// load, its lag up to the truncations of the inflation and of V. The ticks
// of each instant run in ascending CPU order (§7.3), so CPU 0's running
// task is charged before CPU 1 balances: the lag read after CPU 0's tick is
// the lag the detach saves.
func TestPeriodicPullKeepsLagAndRelativeDeadline(t *testing.T) {
	h := newHarness(t, topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1}, noNIRandom)
	var tasks []*Task
	for _, nice := range []int{0, -1, 1} {
		tasks = append(tasks, h.pinnedStart(0, eevdf.WithNice(nice)))
	}
	h.pinnedStart(1)
	h.run(200_000_000)
	for _, x := range tasks {
		free(x)
	}
	type before struct{ rel, lag int64 }
	for i := 0; i < 2000; i++ {
		h.at(h.now + h.s.tickNsec)
		h.s.Tick(0)
		h.resched(0)
		seen := map[*Task]before{}
		rq0 := h.s.RQ(0)
		for _, x := range tasks {
			if h.s.Curr(0) != x {
				seen[x] = before{int64(x.se.Deadline() - x.se.Vruntime()), rq0.Lag(x.se)}
			}
		}
		moves := h.s.Stats().BalanceMoves
		h.s.Tick(1)
		h.resched(1)
		h.settle()
		h.check()
		if h.s.Stats().BalanceMoves == moves {
			continue
		}
		var p *Task
		for _, x := range tasks {
			if x.CPU() == 1 {
				p = x
			}
		}
		b, waited := seen[p]
		if p == nil || !waited {
			t.Fatalf("moved %v, which was not waiting on CPU 0", p)
		}
		if st := h.s.Stats(); st.PeriodicPulls[topology.MC] != 1 {
			t.Fatalf("the move was not a periodic MC pull: %+v", st.PeriodicPulls)
		}
		if got := int64(p.se.Deadline() - p.se.Vruntime()); got != b.rel {
			t.Errorf("deadline − vruntime %d after the move, %d before", got, b.rel)
		}
		if got := h.s.RQ(1).Lag(p.se); got-b.lag < -2 || got-b.lag > 2 {
			t.Errorf("lag %d after the move, %d before", got, b.lag)
		}
		if b.lag == 0 {
			t.Error("setup: the moved task had no lag to keep")
		}
		return
	}
	t.Fatal("CPU 1 never took a task")
}

// Path 3 (§3.1 rule 4, §3.7, §4.1 path 3, §4.4): sched_exec. On two LLCs of
// four CPUs, p runs on CPU 0 beside q; every other CPU idles, LLC 1's with
// distinct idle_stamps, CPU 6's the latest. The slow path from PKG (the
// top domain with SD_BALANCE_EXEC): without p, LLC 0 has 3 idle CPUs and
// LLC 1 has 4, so LLC 1; in it the most recently idled CPU, 6; CPU 6's MC
// then finds no group idler than its own: dest = 6.
//
// Exec syncs p's signals first (sync_entity_load_avg: decayed as if
// blocked to CPU 0's last update), and CPU 0's last update is later than
// p's: a SCHED_IDLE task forked there (which does not preempt p) updated
// the queue but not p, across a PELT period boundary. Then the stopper
// moves p (move_queued_task): its synced averages leave CPU 0's root at
// once (a detach, not removed load) and join CPU 6's, which had none;
// deadline − vruntime is kept exactly; on an empty CPU p is placed at V;
// exec_start is 0 (ENQUEUE_MIGRATED); CPU 6 is asked to reschedule and
// runs p.
func TestExecMovesTheTaskWithItsSyncedLoad(t *testing.T) {
	h := newHarness(t, twoLLC4x1)
	p := h.pinnedStart(0)
	h.pinnedStart(0)
	h.run(100_000_000)
	// A tick at which p runs and the next PELT period boundary of p (and
	// of CPU 0's root, updated with it) comes within 0.9 ms.
	var delta uint64
	for i := 0; ; i++ {
		h.run(h.now + h.s.tickNsec)
		a, q := p.se.Avg(), h.s.RQ(0).Avg()
		if h.s.Curr(0) == p && a.LastUpdateTime == q.LastUpdateTime && a.PeriodContrib >= 1024-870 {
			delta = uint64(1024-a.PeriodContrib)*1024 + 20*1024 // 20 µs past the boundary
			break
		}
		if i > 1000 {
			t.Fatal("setup: no tick with p running near a period boundary")
		}
	}
	h.at(h.now + delta)
	r := h.taskWith(0, []eevdf.EntityOption{eevdf.WithPolicy(eevdf.PolicyIdle)}, WithAllowed(0))
	if h.s.WakeUpNew(r) != 0 || h.s.Curr(0) != p || h.s.RQ(0).NeedResched() {
		t.Fatalf("setup: the SCHED_IDLE fork disturbed CPU 0 (runs %v)", h.s.Curr(0))
	}
	stamps := []uint64{4: 1_200_000, 5: 1_500_000, 6: 1_700_000, 7: 1_100_000}
	for cpu := 4; cpu < 8; cpu++ {
		h.s.cpus[cpu].idleStamp = stamps[cpu]
	}
	free(p)

	src := h.s.RQ(0).Avg()
	pa := p.se.Avg()
	if pa.LastUpdateTime >= src.LastUpdateTime {
		t.Fatalf("setup: p updated at %d, CPU 0 at %d", pa.LastUpdateTime, src.LastUpdateTime)
	}
	synced, running := pa, pa
	synced.UpdateBlocked(src.LastUpdateTime, 1024)
	running.UpdateEntity(src.LastUpdateTime, 1, 1, true, 1024)
	if synced.UtilAvg >= running.UtilAvg || synced.LoadAvg >= pa.LoadAvg {
		t.Fatalf("setup: the sync changes nothing (util %d synced, %d running; load %d → %d)", synced.UtilAvg, running.UtilAvg, pa.LoadAvg, synced.LoadAvg)
	}
	rel := int64(p.se.Deadline() - p.se.Vruntime())

	if got := h.s.Exec(0); got != 6 {
		t.Fatalf("exec moved the task to CPU %d, want 6", got)
	}
	got := p.se.Avg()
	if got.LoadAvg != synced.LoadAvg || got.UtilAvg != synced.UtilAvg || got.RunnableAvg != synced.RunnableAvg {
		t.Errorf("p's averages load %d util %d runnable %d, want the synced %d %d %d",
			got.LoadAvg, got.UtilAvg, got.RunnableAvg, synced.LoadAvg, synced.UtilAvg, synced.RunnableAvg)
	}
	if l := h.s.RQ(0).Avg().LoadAvg; l != src.LoadAvg-synced.LoadAvg {
		t.Errorf("CPU 0's load_avg %d after the exec, want %d − %d at once", l, src.LoadAvg, synced.LoadAvg)
	}
	if l := h.s.RQ(6).Avg().LoadAvg; l != synced.LoadAvg {
		t.Errorf("CPU 6's load_avg %d after the exec, want p's %d", l, synced.LoadAvg)
	}
	if d := int64(p.se.Deadline() - p.se.Vruntime()); d != rel {
		t.Errorf("deadline − vruntime %d after the exec, %d before", d, rel)
	}
	if rq := h.s.RQ(6); p.se.Vruntime() != rq.V() {
		t.Errorf("on the empty CPU 6: vruntime %d, V %d", p.se.Vruntime(), rq.V())
	}
	if p.se.ExecStart() != 0 || p.CPU() != 6 || p.Migrations() != 1 {
		t.Errorf("exec_start %d, CPU %d, migrations %d; want 0, 6, 1", p.se.ExecStart(), p.CPU(), p.Migrations())
	}
	if st := h.s.Stats(); st.Execs != 1 || st.ExecBalance != 1 {
		t.Errorf("execs %d, exec balances %d; want 1 and 1", st.Execs, st.ExecBalance)
	}
	if rs := h.s.Resched(); len(rs) != 1 || rs[0] != 6 {
		t.Errorf("reschedules due on %v, want CPU 6", rs)
	}
	h.s.Schedule(6)
	h.check()
	if h.s.Curr(6) != p {
		t.Errorf("CPU 6 runs %v, want %s", h.s.Curr(6), p)
	}
}

// A10 (§4.4): PELT across a wakeup migration. The new CPU's root load_avg
// rises by the task's load_avg at the enqueue (attach); the old CPU's
// stays until its next update, which takes the task's load off (removed
// load); the task's exec_start is 0 after the migrating enqueue.
func TestWakeupMigrationMovesLoadLazily(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	p := h.pinnedStart(0)
	q := h.pinnedStart(1)
	h.pinnedStart(1)
	h.run(100_000_000)
	// q and p sleep at the same instant; CPU 0 idles with p's blocked
	// load, updated now.
	h.untilPicked(1, q)
	h.block(1)
	h.block(0)
	old0 := h.s.RQ(0).Avg().LoadAvg
	old1 := h.s.RQ(1).Avg().LoadAvg
	removed := p.se.Avg().LoadAvg
	if removed == 0 || old0 < removed {
		t.Fatalf("setup: p's load %d, CPU 0's %d", removed, old0)
	}
	pin(p, 1)
	if got := h.wake(p, nil, 0); got != 1 {
		t.Fatalf("woken on CPU %d, want 1", got)
	}
	if got, pl := h.s.RQ(1).Avg().LoadAvg, p.se.Avg().LoadAvg; got != old1+pl {
		t.Errorf("new CPU's load_avg %d, want %d + %d", got, old1, pl)
	}
	if got := h.s.RQ(0).Avg().LoadAvg; got != old0 {
		t.Errorf("old CPU's load_avg %d before its next update, want %d", got, old0)
	}
	if p.se.ExecStart() != 0 {
		t.Errorf("exec_start %d after the migrating enqueue, want 0", p.se.ExecStart())
	}
	// The next update of CPU 0, at the same instant (nothing decays):
	// q's wakeup there applies the removed load, then attaches q.
	pin(q, 0)
	qload := q.se.Avg().LoadAvg
	if got := h.wake(q, nil, 0); got != 0 {
		t.Fatalf("q woken on CPU %d, want 0", got)
	}
	if got := h.s.RQ(0).Avg().LoadAvg; got != old0-removed+qload {
		t.Errorf("old CPU's load_avg %d after its update, want %d − %d + %d", got, old0, removed, qload)
	}
}
