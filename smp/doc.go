// Package smp models the Linux kernel's fair scheduling class across CPUs —
// kernel/sched/fair.c and the core.c paths around it at mainline
// 673dab7eac16, as KERNEL-SPEC-SMP specifies them: how a waking or new task
// reaches a CPU (select_task_rq_fair: wake_wide, wake_affine,
// select_idle_sibling and its scans, the fork and exec slow path) and what a
// move between CPUs does to the task's EEVDF and PELT state.
//
// A System is a machine (package topology) with one eevdf.CfsRq per CPU, all
// keeping PELT signals, all with the base slice scaled by the CPU count as
// the kernel scales it. A simulator drives it at the moments the kernel's
// core code would run: SetClock before each instant (every CPU's task clock
// and the jiffies), TryToWakeUp and WakeUpNew for wakeups and forks, Block
// and Exit when the running task sleeps or ends, Schedule at a preemption
// point, Tick at each tick of a CPU. Everything the kernel decides in those
// paths is decided here, in the kernel's order, and is deterministic: the
// only randomness of the fair class, sched_rng, is one seeded generator per
// CPU (WithSeed).
//
// The files follow the concerns of the code they model: select.go
// (select_task_rq_fair and the idle scans), slowpath.go (the fork and exec
// path), migrate.go (set_task_cpu and the moves), load.go (the PELT-derived
// loads placement reads), idle.go (what makes a CPU idle, has_idle_cores,
// avg_idle), core.go (the core.c entry points).
//
// The modelled machine is the symmetric one of KERNEL-SPEC-SMP §0: every CPU
// of capacity 1024, one NUMA node, no energy model, no asymmetric packing, no
// uclamp, no NUMA balancing, no bandwidth control, no core scheduling, no
// RT or deadline tasks, no IRQ or steal time; the branches those features
// select are taken as the spec says. The remote-wakeup queue, IPIs and the
// CPU stopper act at once (KERNEL-SPEC-SMP §7.3). With task groups
// (WithHierarchy) the EEVDF side is exact; the loads placement reads use
// the root queue's formula for every task (task_h_load of a root-group task).
package smp
