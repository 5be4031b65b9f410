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
