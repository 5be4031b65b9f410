package pelt

import "testing"

// The primitives composed the way fair.c's update_load_avg composes them,
// checked against the kernel's own output for the first 5 ms of the
// grpp-000 scenario: groups G and H created at t = 0 (cgroup_mode tasks);
// at t = 1.5 ms tasks G0, G2 (nice −14) and G1 forked into G; at
// t = 1857364 ns task R0 forked into the root group; then switches between
// R0 and G2 and 1 ms ticks. Every load, runnable and util average of the
// tasks, of G's queue, of the root queue, and the task group's published
// sums must be the kernel's. This exercises post_init, attach,
// propagation through the group entity, the task-group rate limit and
// threshold, the decays with their running and runnable inputs, and the
// phantom load of a group entity attached at PELT time 0
// (KERNEL-SPEC-GROUPS §9): its last_update_time stays 0, so its first
// enqueue attaches it a second time.

type testQueue struct {
	avg      Avg
	prop     Propagation
	removed  Removed
	tg       TGContrib
	weight   uint64 // scale_load_down(load.weight)
	runnable uint64 // h_nr_runnable
	running  bool   // h_curr != NULL
	root     bool
	tgLoad   int64 // tg->load_avg (of the group this queue belongs to)
	tgRun    int64 // tg->runnable_avg
}

type testEntity struct {
	avg   Avg
	w     uint64
	onRq  bool
	q     *testQueue // cfs_rq_of
	my    *testQueue // group_cfs_rq, nil for a task
	isCur bool
}

const (
	flagUpdateTG = 1 << iota
	flagSkipAge
	flagAttach
	flagDetach
)

// updateLoadAvg is update_load_avg(cfs_rq_of(se), se, flags).
func updateLoadAvg(se *testEntity, now uint64, flags int) {
	q := se.q
	if se.avg.LastUpdateTime != 0 && flags&flagSkipAge == 0 {
		var load, runnable uint64
		if se.onRq {
			load = 1
			runnable = 1
			if se.my != nil {
				runnable = se.my.runnable // runnable_weight
			}
		}
		se.avg.UpdateEntity(now, load, runnable, se.isCur, se.w)
	}
	prop, decayed := q.avg.ApplyRemoved(&q.removed)
	if decayed {
		q.prop.Add(prop)
	}
	if q.avg.UpdateQueue(now, q.weight, q.runnable, q.running) {
		decayed = true
	}
	if se.my != nil && PropagateEntity(&q.avg, &q.prop, &se.avg, se.w, &se.my.avg, &se.my.prop, se.my.weight) {
		decayed = true
	}
	switch {
	case se.avg.LastUpdateTime == 0 && flags&flagAttach != 0:
		q.prop.Add(q.avg.Attach(&se.avg, se.w))
		updateTGLoadAvg(q, now)
	case flags&flagDetach != 0:
		q.prop.Add(q.avg.Detach(&se.avg, se.w))
		updateTGLoadAvg(q, now)
	case decayed && flags&flagUpdateTG != 0:
		updateTGLoadAvg(q, now)
	}
}

func updateTGLoadAvg(q *testQueue, now uint64) {
	if q.root {
		return
	}
	if dl, dr, ok := q.tg.Update(&q.avg, now); ok {
		q.tgLoad += dl
		q.tgRun += dr
	}
}

// enqueueEntity is the PELT and accounting part of enqueue_entity.
func enqueueEntity(se *testEntity, now uint64) {
	updateLoadAvg(se, now, flagUpdateTG|flagAttach)
	se.q.weight += se.w
	se.onRq = true
}

func TestKernelTraceGroups(t *testing.T) {
	root := &testQueue{root: true}
	qG, qH := &testQueue{}, &testQueue{}
	gseG := &testEntity{w: 1024, q: root, my: qG}
	gseH := &testEntity{w: 1024, q: root, my: qH}
	// online_fair_sched_group at t = 0: attach_entity_cfs_rq.
	for _, g := range []*testEntity{gseG, gseH} {
		updateLoadAvg(g, 0, 0)
		root.prop.Add(root.avg.Attach(&g.avg, g.w))
	}
	if gseG.avg.LoadSum != 1 || gseG.avg.LastUpdateTime != 0 || root.avg.LoadSum != 2048 {
		t.Fatalf("after group creation: group entity %+v, root %+v", gseG.avg, root.avg)
	}

	// wake_up_new_task: post_init on the task's queue, the enqueue of each
	// level not queued yet, the update of the queued ancestors.
	fork := func(task *testEntity, now uint64) {
		PostInitUtilAvg(&task.q.avg, &task.avg, task.w)
		enqueueEntity(task, now)
		task.q.runnable++
		if task.q == qG {
			if !gseG.onRq {
				enqueueEntity(gseG, now)
			} else {
				updateLoadAvg(gseG, now, flagUpdateTG)
			}
			root.runnable++
		}
	}
	type sig struct{ load, runnable, util uint64 }
	get := func(a *Avg) sig { return sig{a.LoadAvg, a.RunnableAvg, a.UtilAvg} }
	check := func(step string, got, want sig) {
		t.Helper()
		if got != want {
			t.Errorf("%s: load/runnable/util %v, kernel %v", step, got, want)
		}
	}

	g0 := &testEntity{avg: NewTaskAvg(1024), w: 1024, q: qG}
	fork(g0, 1500000)
	check("new G0: G0", get(&g0.avg), sig{1024, 512, 512})
	check("new G0: G's queue", get(&qG.avg), sig{1024, 512, 512})
	check("new G0: G's entity", get(&gseG.avg), sig{1024, 512, 512})
	check("new G0: root", get(&root.avg), sig{2048, 1024, 1024}) // 1024 of it phantom
	if qG.tgLoad != 1024 || qG.tgRun != 512 {
		t.Errorf("new G0: tg load/runnable %d/%d, kernel 1024/512", qG.tgLoad, qG.tgRun)
	}

	g2 := &testEntity{avg: NewTaskAvg(23254), w: 23254, q: qG} // nice −14
	fork(g2, 1500000)
	check("new G2: G2", get(&g2.avg), sig{23254, 256, 256})
	check("new G2: G's queue", get(&qG.avg), sig{24278, 768, 768})
	check("new G2: root", get(&root.avg), sig{2048, 1280, 1280})

	g1 := &testEntity{avg: NewTaskAvg(1024), w: 1024, q: qG}
	fork(g1, 1500000)
	check("new G1: G1", get(&g1.avg), sig{1024, 32, 32})
	check("new G1: G's queue", get(&qG.avg), sig{25302, 800, 800})
	check("new G1: root", get(&root.avg), sig{2048, 1312, 1312})
	if qG.tgLoad != 1024 || qG.tgRun != 512 {
		t.Errorf("new G1: tg load/runnable %d/%d, kernel 1024/512 (rate limit)", qG.tgLoad, qG.tgRun)
	}

	// G0 is picked: set_next_entity updates each level at the same time
	// and makes them h_curr.
	updateLoadAvg(gseG, 1500000, flagUpdateTG)
	updateLoadAvg(g0, 1500000, flagUpdateTG)
	gseG.isCur, g0.isCur, root.running, qG.running = true, true, true, true

	// A root task forked while the root queue uses more than the CPU:
	// cap < 0, so util_avg stays 0.
	r0 := &testEntity{avg: NewTaskAvg(1024), w: 1024, q: root}
	fork(r0, 1857364)
	check("new R0: R0", get(&r0.avg), sig{1024, 0, 0})
	check("new R0: root", get(&root.avg), sig{3072, 1312, 1312})

	// From here the clock moves and the averages decay: each switch is
	// put_prev_entity (update with flags 0 while still h_curr) bottom-up,
	// then set_next_entity (update with UPDATE_TG, then h_curr) top-down;
	// a tick is entity_tick (UPDATE_TG) bottom-up. The group's weight does
	// not change on this path (its shares stay 1024), so no reweight.
	path := func(task *testEntity) []*testEntity {
		if task.q == qG {
			return []*testEntity{task, gseG}
		}
		return []*testEntity{task}
	}
	putPrev := func(task *testEntity, now uint64) {
		for _, se := range path(task) {
			updateLoadAvg(se, now, 0)
			se.isCur, se.q.running = false, false
		}
	}
	setNext := func(task *testEntity, now uint64) {
		p := path(task)
		for i := len(p) - 1; i >= 0; i-- {
			updateLoadAvg(p[i], now, flagUpdateTG)
			p[i].isCur, p[i].q.running = true, true
		}
	}
	tick := func(task *testEntity, now uint64) {
		for _, se := range path(task) {
			updateLoadAvg(se, now, flagUpdateTG)
		}
	}
	curr := g0
	schedule := func(next *testEntity, now uint64) {
		putPrev(curr, now)
		setNext(next, now)
		curr = next
	}

	schedule(r0, 1857364)
	tick(r0, 2000000) // no period boundary yet: nothing moves
	check("tick 2 ms: root", get(&root.avg), sig{3072, 1312, 1312})
	schedule(g2, 2000000)
	tick(g2, 3000000)
	check("tick 3 ms: G2", get(&g2.avg), sig{23254, 279, 269})
	check("tick 3 ms: G's queue", get(&qG.avg), sig{25302, 869, 803})
	check("tick 3 ms: root", get(&root.avg), sig{3040, 1389, 1303})
	if qG.tgLoad != 25302 || qG.tgRun != 869 {
		t.Errorf("tick 3 ms: tg load/runnable %d/%d, kernel 25302/869", qG.tgLoad, qG.tgRun)
	}
	schedule(r0, 3000000)
	check("schedule 3 ms: R0", get(&r0.avg), sig{1024, 23, 2})
	tick(r0, 4000000)
	check("tick 4 ms: R0", get(&r0.avg), sig{1024, 44, 23})
	check("tick 4 ms: root", get(&root.avg), sig{3020, 1444, 1297})
	schedule(g2, 4000000)
	check("schedule 4 ms: G2", get(&g2.avg), sig{23254, 294, 263})
	check("schedule 4 ms: G's queue", get(&qG.avg), sig{25302, 914, 787})
	if qG.tgRun != 914 {
		t.Errorf("schedule 4 ms: tg runnable %d, kernel 914", qG.tgRun)
	}
	tick(g2, 5000000)
	check("tick 5 ms: G2", get(&g2.avg), sig{23254, 309, 279})
	check("tick 5 ms: G's queue", get(&qG.avg), sig{25302, 958, 792})
	check("tick 5 ms: root", get(&root.avg), sig{3000, 1499, 1291})
}
