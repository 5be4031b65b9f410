package eevdf

import "fmt"

// Weight and slice changes.

// rescaleEntity is rescale_entity: lag-like quantities scale inversely
// with the weight (virtual time runs at NICE_0_LOAD/w), so keeping w·lag
// constant keeps the service owed. Truncates toward zero, as the kernel's
// s64 division does.
func rescaleEntity(se *SchedEntity, newW uint64, relVprot bool) {
	old := int64(se.hload)
	nw := int64(newW)
	se.vlag = se.vlag * old / nw
	if se.relDeadline {
		se.deadline = uint64(int64(se.deadline) * old / nw)
	}
	if relVprot {
		se.vprot = uint64(int64(se.vprot) * old / nw)
	}
}

// reweightEevdf is reweight_eevdf: install a new effective weight. A
// queued entity's lag, deadline and protection are made relative to V,
// rescaled and made absolute again, and it is put back at V − lag: with
// w·lag unchanged, V does not move. Nothing happens if the weight is
// unchanged.
func (rq *CfsRq) reweightEevdf(se *SchedEntity, newW uint64, onRq bool) {
	if se.hload == newW {
		return
	}
	isCurr := rq.curr == se
	relVprot := false
	var v uint64
	if onRq {
		v = rq.avgVruntime()
		se.vlag = rq.entityLag(se, v)
		// The kernel leaves the timeline after making the deadline
		// relative; leaving first gives the same result, and the B-tree
		// timeline's copy of the deadline stays that of a queued entity.
		if !isCurr {
			rq.dequeueEntity(se)
		}
		se.deadline -= v
		se.relDeadline = true
		if isCurr && protectSlice(se) {
			se.vprot -= v
			relVprot = true
		}
		rq.hNrQueued--
	}
	rescaleEntity(se, newW, relVprot)
	se.hload = newW
	rq.vAtZero = false // se may be curr, which counts in V
	if onRq {
		if relVprot {
			se.vprot += v
		}
		se.deadline += v
		se.relDeadline = false
		se.vruntime = v - uint64(se.vlag)
		if !isCurr {
			rq.enqueueEntity(se)
		}
		rq.hNrQueued++
	}
}

// SetNice is set_user_nice: the save/restore cycle (dequeue with
// DequeueSave and put back if running; new weight; enqueue with
// EnqueueRestore and re-install if running), then prio_changed_fair. A
// queued entity's lag is saved with its old weight's clamp, rescaled to the
// new weight and restored with inflation; its deadline keeps its relative
// distance. An entity that is not queued only gets its new weight; its lag
// is rescaled at its next enqueue. Setting the current nice does nothing.
func (rq *CfsRq) SetNice(se *SchedEntity, nice int) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	if nice < MinNice || nice > MaxNice {
		return fmt.Errorf("%w: nice %d outside %d..%d", ErrBadNice, nice, MinNice, MaxNice)
	}
	if se.nice == nice {
		return nil
	}
	rq.change(se, func() {
		se.nice = nice
		rq.setLoad(se, setLoadWeight(se.policy, se.nice))
	})
	return nil
}

// SetSlice is sched_setattr with the entity's own policy and nice and
// sched_runtime = ns: a custom slice clamped to 0.1..100 ms, or, for 0,
// back to the base slice. It goes through the same save/restore cycle as
// SetNice; the load is recomputed from the nice value, which replaces a
// WithWeight weight by the table's. The deadline keeps its length: the new
// slice shows at the next deadline renewal. Asking for the current slice
// value does nothing, and so does any call on a PolicyIdle entity (the
// kernel's sched_setattr keeps a SCHED_IDLE task's parameters as they are
// and reports success).
func (rq *CfsRq) SetSlice(se *SchedEntity, ns uint64) error {
	if rq == nil {
		return ErrNilRunqueue
	}
	if err := rq.checkOwner(se); err != nil {
		return err
	}
	if rq.kernel == KernelV66 {
		return fmt.Errorf("%w: %v has no custom slices", ErrBadOption, rq.kernel)
	}
	// fair_policy() is NORMAL or BATCH only: sched_setattr with a
	// SCHED_IDLE task's own policy finds nothing to change and returns,
	// successfully, before the save/restore cycle (KERNEL-SPEC §11.8).
	if se.policy == PolicyIdle || ns == se.slice {
		return nil
	}
	rq.change(se, func() {
		se.setparamSlice(ns, rq.baseSlice)
		rq.setLoad(se, setLoadWeight(se.policy, se.nice))
	})
	return nil
}

// setLoad is set_load_weight on an entity that is off the queue: only its
// load changes; the effective weight, and with it the rescale of the saved
// lag, follow at its next enqueue. v7.1's reweight_entity rescaled the
// saved lag and a relative deadline at once, even for a sleeping task, so
// several changes while asleep truncate several times.
func (rq *CfsRq) setLoad(se *SchedEntity, lw loadWeight) {
	if rq.before71() && lw.weight != se.load.weight {
		d := se.deadline
		rescaleEntity(se, lw.weight, false)
		if rq.kernel >= KernelV612 {
			se.deadline = d // v6.12 left a relative deadline unscaled
		}
		se.hload = lw.weight
		rq.vAtZero = false
	}
	if rq.pelt && se.rq != nil && lw.weight != se.load.weight {
		rq.reweightTaskPELT(se, se.load.weight, lw.weight)
	}
	se.load = lw
}

// change is the sched_change_begin/end scope around a parameter change,
// then prio_changed_fair.
func (rq *CfsRq) change(se *SchedEntity, apply func()) {
	queued := se.onRq && se.rq == rq
	running := rq.curr == se
	oldPrio := se.prio()
	if queued {
		rq.dequeueTaskFair(se, DequeueSave)
	}
	if running {
		rq.putPrevTaskFair(se, nil, false)
	}
	apply() // set_load_weight: the entity is off the queue, so only load changes
	if queued {
		rq.enqueueTask(se, EnqueueRestore)
	}
	if running {
		rq.setNextTaskFair(nil, se, false)
	}
	rq.prioChangedFair(se, oldPrio)
}

// prioChangedFair is prio_changed_fair: with a competitor on the queue, a
// running entity whose priority dropped is rescheduled; a queued one gets
// the wakeup check (flags 0).
func (rq *CfsRq) prioChangedFair(se *SchedEntity, oldPrio int) {
	if !se.onRq || se.rq != rq || se.prio() == oldPrio || rq.hNrQueued == 1 {
		return
	}
	if rq.curr == se {
		if se.prio() > oldPrio {
			rq.resched()
		}
		return
	}
	rq.wakeupPreempt(se, 0)
}
