// Package eevdf models one CPU's fair runqueue of the Linux kernel —
// kernel/sched/fair.c at mainline 673dab7eac16 (the v7.3 cycle, one
// runqueue per CPU with the task groups folded into each task's weight),
// without bandwidth control — exactly: every vruntime,
// deadline, lag, weighted sum, eligibility decision and pick is the one the
// kernel's own code computes, in the same order of effects.
//
// # The model
//
// A SchedEntity is a task's scheduling entity; a CfsRq is the runqueue
// with its task clock, which the caller sets (SetClock, as update_rq_clock)
// before each scheduler entry. The operations are the kernel's entry
// points, named after them:
//
//	WakeUpNew     wake_up_new_task: Enqueue as new, then WakeupPreempt(WFFork)
//	Wakeup        try_to_wake_up: requeue a delayed task or Enqueue, then WakeupPreempt
//	Sleep         the running task blocks: Dequeue(DequeueSleep), then PickNext
//	Enqueue       enqueue_task_fair (wakeup, new task, restore, delayed requeue)
//	Dequeue       dequeue_task_fair (sleep — maybe delayed —, save, completion)
//	PickNext      __schedule: pick_task_fair, then put_prev/set_next if it changed
//	PickTask      pick_task_fair alone (core scheduling), SetNext/PutPrev to install
//	Tick          task_tick_fair
//	WakeupPreempt wakeup_preempt (the idle class's, or wakeup_preempt_fair)
//	Yield/YieldTo yield_task_fair, yield_to_task_fair
//	SetNice       set_user_nice (the save/restore cycle, prio_changed_fair)
//	SetSlice      sched_setattr's sched_runtime
//	SetNext       a core-scheduling forced pick
//	SetFeatures   a write to debugfs sched/features, effective at each toggle's next use
//
// EEVDF in one paragraph: every entity has a virtual runtime v that
// advances at NICE_0_LOAD/w of real time, and a virtual deadline one
// request (slice) ahead. V is the weighted average of the queued entities'
// vruntimes; an entity is eligible when v ≤ V (it has received no more than
// its share); the pick runs the eligible entity with the earliest deadline.
// An entity's lag V − v is the service it is owed; it is saved when the
// entity leaves and restored when it comes back, clamped to a request plus
// a tick (LagLimit). The kernel refines this with slice protection (the
// running entity keeps the CPU up to its deadline unless a shorter request
// waits),
// delayed dequeue (an ineligible sleeper stays queued until its negative lag
// is spent), short-slice wakeup preemption and buddies; each is modelled as
// the kernel does it, and each kernel feature toggle of package features
// selects the branch the kernel takes.
//
// The arithmetic is the kernel's: u64 vruntimes that wrap (the zero point
// starts at 2^64 − 2^20), signed-difference comparisons, the weighted sums
// relative to zero_vruntime with V floored, eligibility by 128-bit
// cross-multiplication, calc_delta_fair by full-weight integer division
// (WithArithmetic(FixedPoint) for v7.0's and earlier), truncating
// divisions where the kernel truncates. The running entity lives outside
// the timeline and the sums, exactly as in the kernel.
//
// # Toggles, presets and timelines
//
// WithFeatures selects the SCHED_FEATs and the seed-patch toggles
// (DELAY_LAG_FLOOR, PREEMPT_FLUSH_DELAYED, PLACE_JOIN_LAG, the yield
// variants), each a branch inside the mechanism it changes. WithKernel
// selects where v7.1, v7.0, v6.18, v6.12 or v6.6 computed differently,
// with that kernel's own feature defaults unless WithFeatures says
// otherwise.
// WithTimeline selects the timeline's data structure: an augmented B-tree
// (default) or the kernel's augmented red-black tree; both give identical
// results. The earlier kernels kept stale min/max-slice aggregates whose
// values depend on the red-black tree's exact shape (and v6.6's pick
// breaks deadline ties by that shape), so with them the runqueue always
// uses a red-black tree with their callbacks.
//
// # Task groups and PELT
//
// A Hierarchy is the cgroup tree of a machine; each runqueue created
// WithHierarchy is one of its CPUs. Tasks join a group WithGroup and move
// with MoveToGroup; groups take cpu.weight, cpu.weight.nice and cpu.idle
// writes; the share function (cgroup_mode) turns a group's shares into its
// entity's weight on each CPU. Only tasks are scheduled: at an enqueue, a
// pick and a tick each task's effective weight (HWeight) is refreshed from
// the hierarchy, level by level w·(entity weight)/(queue weight), and in
// between it stays as installed — stale after group changes, exactly as in
// the kernel (KERNEL-SPEC-GROUPS). A runqueue with a hierarchy, or created
// WithPELT(true), keeps the kernel's PELT signals (package pelt) for every
// task, group and queue, updated at the kernel's points; Avg returns them.
// A runqueue without either behaves, and costs, as a flat runqueue.
//
// For the layer across CPUs (KERNEL-SPEC-GROUPS-SMP) a runqueue with PELT
// also keeps its CPU's leaf list, the queues whose blocked load
// UpdateBlockedAverages walks in the kernel's order (LeafList), and each
// queue's h_load cache, which TaskHLoad reads: a task's share of its CPU's
// root load through its group's queue, refreshed once per jiffy.
//
// # Checking
//
// Check verifies every invariant between operations (timeline order and
// aggregates, the sums, the counters, the eligibility of some queued
// entity, the buddy); tests and fuzzers call it after every step.
// Misuse — enqueueing twice, dequeuing what is not queued, a weight of 0, a
// nice outside −20..19, flag bits outside the exported flags, a clock
// going backwards, an entity of another runqueue, a group of another
// hierarchy, a nil entity — returns an error wrapping an exported sentinel
// and changes nothing; nothing panics on caller input. Queries given a nil
// entity, and every method of a nil runqueue, entity, group or hierarchy,
// return the zero result their comments state. A CfsRq is not safe for
// concurrent use; distinct runqueues are independent.
//
// What is not modelled: bandwidth control (cpu.max), proxy execution,
// autogroup, load balancing across runqueues (package smp's) and the
// hrtick. Task groups are modelled for
// the modelled kernel only (not with WithKernel's earlier ones).
package eevdf
