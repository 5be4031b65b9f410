package eevdf

import (
	"fmt"

	"github.com/schedmodel/fairclass/pelt"
)

// The PELT clock of a CPU of capacity below 1024 (KERNEL-SPEC-ASYM §1.6).
//
// PELT signals are capacity invariant: a CPU of capacity C runs C/1024 of
// the work a 1024 CPU runs in the same wall time, so while it runs its PELT
// clock advances at C/1024 of the task clock; each rq clock update adds
//
//	clock_pelt += ⌊δ · C / 1024⌋                     (update_rq_clock_pelt)
//
// for a task-clock delta δ, flooring at every update (frequency is held at
// its maximum, so the kernel's second scaling by the frequency is exact).
// While the idle task runs, clock_pelt is the task clock: an idle CPU
// catches up, and the time it did not run counts as idle time. At idle
// entry (update_idle_rq_clock_pelt) a CPU whose root util_sum shows it was
// saturated adds the gap to lost_idle_time instead, since that gap was not
// idle time; rq_clock_pelt = clock_pelt − lost_idle_time is the clock every
// PELT update reads. EEVDF's own accounting (update_curr, slices,
// exec_start) keeps using the task clock.
//
// A runqueue of capacity 1024 (the default) has no separate PELT clock:
// its PELT clock is the task clock, read at no cost.

// peltClock is the per-rq PELT clock state, zero (and unused) at capacity
// 1024.
type peltClock struct {
	capacity      uint64 // arch_scale_cpu_capacity; 0: 1024, no separate clock
	clockPelt     uint64 // rq->clock_pelt
	lostIdleTime  uint64 // rq->lost_idle_time
	clockIdle     uint64 // rq->clock_idle: task clock at the last idle sync
	clockPeltIdle uint64 // rq->clock_pelt_idle
}

// saturatedUtilSum is the root util_sum at or above which a CPU entering
// idle counts as having been saturated: ((LOAD_AVG_MAX − 1024) << 10) −
// LOAD_AVG_MAX = 47 791 490.
const saturatedUtilSum = ((pelt.LoadAvgMax - 1024) << pelt.CapacityShift) - pelt.LoadAvgMax

// WithCapacity gives the runqueue a CPU of original capacity c
// (arch_scale_cpu_capacity, 1 ≤ c ≤ 1024): below 1024 the runqueue keeps a
// PELT clock that advances at c/1024 of the task clock while a task runs
// (KERNEL-SPEC-ASYM §1.6), and a new task's initial utilization is half of
// the CPU's spare capacity c − util_avg (§1.8). At 1024, the default, the
// PELT clock is the task clock.
func WithCapacity(c uint64) Option {
	return func(rq *CfsRq) error {
		if c < 1 || c > pelt.CapacityScale {
			return fmt.Errorf("%w: capacity %d (want 1-%d)", ErrBadOption, c, pelt.CapacityScale)
		}
		rq.pc.capacity = c
		if c == pelt.CapacityScale {
			rq.pc.capacity = 0
		}
		rq.peltClocked = rq.pc.capacity != 0
		return nil
	}
}

// Capacity returns the runqueue's CPU capacity (WithCapacity), 1024 by
// default.
func (rq *CfsRq) Capacity() uint64 {
	if rq.pc.capacity == 0 {
		return pelt.CapacityScale
	}
	return rq.pc.capacity
}

// advancePELTClock is update_rq_clock_pelt as the task clock moves to now:
// the idle task syncs the PELT clock to the task clock, a running task
// advances it by the scaled delta.
func (rq *CfsRq) advancePELTClock(now uint64) {
	pc := &rq.pc
	if rq.curr == nil {
		pc.syncIdle(now)
		return
	}
	pc.clockPelt += (now - rq.clock) * pc.capacity >> pelt.CapacityShift
}

// syncIdle is _update_idle_rq_clock_pelt: the PELT clock catches up with
// the task clock and the idle stamps are taken.
func (pc *peltClock) syncIdle(now uint64) {
	pc.clockPelt = now
	pc.clockIdle = now
	pc.clockPeltIdle = pc.clockPelt - pc.lostIdleTime
}

// enterIdlePELT is update_idle_rq_clock_pelt at idle entry
// (set_next_task_idle): a CPU whose root util_sum reached the saturation
// bound had no idle time in the gap between its clocks, which goes to
// lost_idle_time; then the clock syncs.
func (rq *CfsRq) enterIdlePELT() {
	pc := &rq.pc
	if pc.capacity == 0 {
		return
	}
	if uint64(rq.cfsQueue.avg.UtilSum) >= saturatedUtilSum {
		pc.lostIdleTime += rq.clock - pc.clockPelt
	}
	pc.syncIdle(rq.clock)
}

// peltNow is rq_clock_pelt (= cfs_rq_clock_pelt, nothing is throttled):
// the clock every PELT update of this runqueue reads.
func (rq *CfsRq) peltNow() uint64 {
	if rq.pc.capacity == 0 {
		return rq.clock
	}
	return rq.pc.clockPelt - rq.pc.lostIdleTime
}

// idlePELTNow is what migrate_se_pelt_lag estimates as an idle CPU's
// present PELT time, clock_pelt_idle + (now − clock_idle): the task clock
// less the lost idle time.
func (rq *CfsRq) idlePELTNow() uint64 {
	return rq.clock - rq.pc.lostIdleTime
}

// PELTClock returns rq_clock_pelt, the clock the runqueue's PELT signals
// are measured in: the task clock at capacity 1024.
func (rq *CfsRq) PELTClock() uint64 { return rq.peltNow() }

// LostIdleTime returns rq->lost_idle_time: the PELT time a saturated CPU
// did not spend idle, 0 at capacity 1024.
func (rq *CfsRq) LostIdleTime() uint64 { return rq.pc.lostIdleTime }
