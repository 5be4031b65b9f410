package eevdf

import (
	"slices"
	"testing"

	"github.com/schedmodel/fairclass/pelt"
)

// The share functions on the idealized inputs of KERNEL-SPEC-GROUPS-SMP
// §11.3, and the rules of cfs_rq_is_decayed (§6.1, §6.2) each on a state
// where it alone decides. The states of the decay tests are built through
// the API up to the last step, then finished by hand inside the package:
// the model reaches "all sums zero, a contribution still published" and
// "a parent fully decayed behind a child that is not" only through long
// runs whose timing no test should depend on (a detach leaves residues of
// a few hundred in the sums that decay with the parent's, so a walk
// unlists child and parent together). The hand-finished state is one the
// kernel's rules allow; each test says which field it sets.

// §11.3's table, a unit test of the share functions on its stated inputs:
// each group queue load.weight 2097152, load_avg 2047, contribution 2047
// / 2047; tg.load_avg = tg.runnable_avg = 4094 (tg_tasks = 3); so load =
// max(2048, 2047) = 2048 and tg_weight = 4094 − 2047 + 2048 = 4095.
func TestShareFunctionsAtSaturationInputs(t *testing.T) {
	for _, c := range []struct {
		mode CgroupMode
		want uint64
	}{
		{ModeUp, 1048576},
		{ModeSMP, 524416},     // ⌊2^20·2048/4095⌋
		{ModeConcur, 1048832}, // k = min(3, 2): ⌊2^21·2048/4095⌋
		{ModeMax, 1048832},    // N = 2, cap 90891264
		{ModeTasks, 1573248},  // k = 3: ⌊3·2^20·2048/4095⌋
	} {
		t.Run(c.mode.String(), func(t *testing.T) {
			h := NewHierarchy(WithCgroupMode(c.mode), WithOnlineCPUs(2))
			for range 2 {
				_, err := NewCfsRq(WithHierarchy(h))
				must(t, err)
			}
			g, err := h.NewGroup("G", nil)
			must(t, err)
			g.loadAvg, g.runnableAvg = 4094, 4094
			for cpu := range 2 {
				gr := g.cpu[cpu]
				gr.q.loadWeight = 2 * mb
				gr.q.avg.LoadAvg = 2047
				gr.q.tg = pelt.TGContrib{LoadAvg: 2047, RunnableAvg: 2047}
				checkEq(t, "entity weight", gr.calcShares(), c.want)
			}
		})
	}
}

// nestedIdle builds P ⊃ C on one CPU, runs a task of C for 20 ms with a
// tick each ms, then at 22 ms puts it back and detaches it, as a balancer
// taking it elsewhere does: C's and P's queues are empty and listed, [C, P,
// /], with the residues of the detach in their sums.
func nestedIdle(t *testing.T) (rq *CfsRq, p, c *TaskGroup) {
	t.Helper()
	h := NewHierarchy()
	rq, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	must(t, rq.SetClock(t0))
	p, err = h.NewGroup("P", nil)
	must(t, err)
	c, err = h.NewGroup("C", p)
	must(t, err)
	x := mustEntity(t, "x", WithGroup(c))
	must(t, rq.Enqueue(x, EnqueueInitial))
	rq.PickNext()
	for now := uint64(2_000_000); now <= 22_000_000; now += 1_000_000 {
		must(t, rq.SetClock(now))
		rq.Tick()
	}
	rq.PutPrev()
	must(t, rq.DetachTask(x))
	if got := leafNames(rq); !slices.Equal(got, []string{"C", "P", "/"}) {
		t.Fatalf("after the detach: %v, want [C P /]", got)
	}
	return rq, p, c
}

// zeroSums clears a queue's PELT sums and averages, as a full decay does.
func zeroSums(a *pelt.Avg) {
	a.LoadSum, a.RunnableSum, a.UtilSum = 0, 0, 0
	a.LoadAvg, a.RunnableAvg, a.UtilAvg = 0, 0, 0
}

// unpublish sets what g's queue on rq's CPU last published to zero, and
// the group's totals with it, as a publication of a decayed queue does.
func unpublish(rq *CfsRq, g *TaskGroup) {
	q := &g.cpu[rq.cpu].q
	g.loadAvg -= int64(q.tg.LoadAvg)
	g.runnableAvg -= int64(q.tg.RunnableAvg)
	q.tg.LoadAvg, q.tg.RunnableAvg = 0, 0
}

// §6.2 step 3, the child test: a queue with nothing queued, every sum at
// zero and nothing published stays on the list while the element right
// before it is a queue of a child group — the child is walked first and
// may still propagate into it. By hand: P's sums, C's entity's averages
// and P's contribution are zeroed (P fully decayed and republished); C
// keeps the residue of the detach (LoadSum > 0), so C is not decayed.
func TestLeafListKeepsAParentBehindItsChild(t *testing.T) {
	rq, p, c := nestedIdle(t)
	cq := &c.cpu[0].q
	if cq.avg.LoadSum == 0 && cq.avg.UtilSum == 0 && cq.avg.RunnableSum == 0 {
		t.Fatal("C kept no residue: the state does not isolate the child test")
	}
	zeroSums(&p.cpu[0].q.avg)
	zeroSums(&c.cpu[0].avg)
	c.cpu[0].q.prop = pelt.Propagation{}
	unpublish(rq, p)
	rq.UpdateBlockedAverages()
	if got := leafNames(rq); !slices.Equal(got, []string{"C", "P", "/"}) {
		t.Errorf("after the walk: %v, want [C P /]: P left the list with its child right before it", got)
	}
	// A queue whose predecessor is no child of it goes: the same state
	// with C unlisted first.
	rq.listDelLeaf(cq)
	rq.UpdateBlockedAverages()
	if rq.OnList(p) {
		t.Errorf("P stayed listed with no child before it: %v", leafNames(rq))
	}
	if err := rq.Check(); err != nil {
		t.Error(err)
	}
}

// §6.2 step 3, the contribution test: a queue whose sums are all zero but
// whose last publication was not zero stays listed, so that the next walk
// past the 1 ms limit publishes the zero and tg->load_avg loses the
// queue's share; unlisted early, the queue would never be walked again
// and its stale contribution would stay in the group's total for good.
// By hand: after a tick at 3 ms published G's queue and the task left it
// half a millisecond later, the detach's residues in the queue's sums are
// zeroed (the state a full decay reaches while the rate limit holds the
// publication back).
func TestLeafListKeepsAQueueUntilItPublishesZero(t *testing.T) {
	h := NewHierarchy()
	rq, err := NewCfsRq(WithHierarchy(h))
	must(t, err)
	must(t, rq.SetClock(t0))
	g, err := h.NewGroup("G", nil)
	must(t, err)
	x := mustEntity(t, "x", WithGroup(g))
	must(t, rq.Enqueue(x, EnqueueInitial))
	rq.PickNext()
	gq := &g.cpu[0].q
	now := uint64(2_000_000)
	for ; ; now += 1_000_000 {
		must(t, rq.SetClock(now))
		rq.Tick()
		if gq.tg.LastUpdate == now || now >= 40_000_000 {
			break
		}
	}
	checkEq(t, "the first tick that publishes", now, 3_000_000)
	// Half a millisecond after that publication the task leaves: the
	// detach cannot publish.
	must(t, rq.SetClock(now+500_000))
	rq.PutPrev()
	must(t, rq.DetachTask(x))
	contrib := gq.tg.LoadAvg
	if contrib == 0 || gq.tg.LastUpdate != now {
		t.Fatalf("G's queue published %+v; want the contribution of the %d ns tick", gq.tg, now)
	}
	zeroSums(&gq.avg)
	rq.UpdateBlockedAverages()
	if !rq.OnList(g) {
		t.Fatalf("G's queue left the list with %d still published", contrib)
	}
	checkEq(t, "tg.load_avg within the rate limit", g.LoadAvg(), int64(contrib))
	must(t, rq.SetClock(now+2_000_000))
	rq.UpdateBlockedAverages()
	checkEq(t, "tg.load_avg after the next walk", g.LoadAvg(), 0)
	if rq.OnList(g) {
		t.Error("G's queue stayed listed after publishing zero")
	}
	if err := rq.Check(); err != nil {
		t.Error(err)
	}
}

// cfs_rq_is_decayed's four conditions one at a time, on the queues of the
// nested state with everything else zero: only the queue's own weight,
// sums, predecessor and contribution decide; a sibling before it does not
// hold it, a child before it does, and an unlisted queue looks at the
// cursor instead.
func TestCfsRqIsDecayedConditions(t *testing.T) {
	rq, p, c := nestedIdle(t)
	pq, cq := &p.cpu[0].q, &c.cpu[0].q
	zeroSums(&pq.avg)
	zeroSums(&cq.avg)
	unpublish(rq, p)
	unpublish(rq, c)
	checkEq(t, "C (nothing before it)", rq.cfsRqIsDecayed(cq), true)
	checkEq(t, "P (C, its child, right before it)", rq.cfsRqIsDecayed(pq), false)
	cq.loadWeight = mb
	checkEq(t, "C with weight", rq.cfsRqIsDecayed(cq), false)
	cq.loadWeight = 0
	cq.avg.UtilSum = 1
	checkEq(t, "C with a util_sum", rq.cfsRqIsDecayed(cq), false)
	cq.avg.UtilSum = 0
	cq.tg.LoadAvg = 1
	checkEq(t, "C with a contribution", rq.cfsRqIsDecayed(cq), false)
	cq.tg.LoadAvg = 0
	rq.listDelLeaf(cq)
	checkEq(t, "P after C left", rq.cfsRqIsDecayed(pq), true)
	// Unlisted P with the cursor on a listed C: the cursor is the
	// predecessor that counts.
	rq.listDelLeaf(pq)
	cq.onList = false
	rq.listAddLeaf(cq) // P unlisted: C goes after the cursor, which moves to C
	if rq.leaf.cursor != cq {
		t.Fatal("the cursor did not move to C")
	}
	checkEq(t, "unlisted P, cursor on C", rq.cfsRqIsDecayed(pq), false)
}
