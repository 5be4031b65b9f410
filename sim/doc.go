// Package sim is a discrete-event simulator of a machine scheduled by the
// fair class — one eevdf.CfsRq per CPU, with tasks placed on the CPUs and
// moved between them by package smp — running tasks that are small programs of phases (run for
// X, sleep, wait for a message, yield, send a message), with the
// workloads kernel developers measure the scheduler with: cyclictest,
// hackbench, stress, seed 004's yield_loop, massive_intr, schbench-style
// request/worker pairs, and rt-app descriptions.
//
// # What is modelled
//
// The machine is a topology.Machine (Config.Machine: packages × LLCs ×
// cores × SMT threads, and the CPU numbering; Config.CPUs is the
// shorthand for that many single-thread cores in one LLC), of any size up
// to topology.MaxCPUs. Its fair class is an smp.System: the scheduling
// domains the kernel builds, wakeup and fork placement, migration with its
// lag and PELT effects, and whatever balancing smp does. Every scheduling
// decision is smp's and eevdf's; the simulator keeps none of the kernel's
// multi-CPU logic itself and calls smp at the moments the kernel's core
// code would:
//
//   - task creation (wake_up_new_task): WakeUpNew, from the lowest CPU
//     the task may use (its launcher runs there): the fork slow path
//     picks the CPU, the task is enqueued as new and checked with WF_FORK;
//   - wakeup (try_to_wake_up): TryToWakeUp with the waking task — the
//     sender of a message, or nil for a timer or sleep expiry, which runs
//     on the CPU the sleeper last ran on (KERNEL-SPEC-SMP §3.1 rule 6);
//     a channel marked sync adds WF_SYNC. A delayed task is requeued in
//     place; any other is placed by select_task_rq_fair (which adds
//     WF_RQ_SELECTED when the task may use several CPUs) and migrates if
//     that is another CPU;
//   - blocking and exiting: Block (a dequeue with DEQUEUE_SLEEP, which may
//     leave the task queued as delayed) or Exit (DEQUEUE_SPECIAL), then
//     smp's __schedule of that CPU;
//   - a preemption point (__schedule): Schedule; a context switch happens
//     iff the pick differs from the running task, and it is a preemption
//     when that task is still runnable;
//   - the tick, at multiples of TICK_NSEC on every CPU at once (§7.2):
//     Tick, then, if the CPU was asked to reschedule, the
//     return-from-interrupt preemption point. With Config.Nohz off (the
//     default) every CPU ticks, idle or not; with smp.NohzIdle an idle CPU
//     stops its tick until it runs a task again;
//   - after every call, the CPUs smp asked to reschedule
//     (System.Resched): each runs Schedule at once, in ascending CPU id,
//     if it still needs to (full preemption), or after Config.WakeupCost;
//   - yield (yield_task_fair), nice and slice changes: on the running
//     task's runqueue directly (they change no placement state), then a
//     schedule;
//   - core scheduling (below): the core-wide pick, on the runqueues
//     directly, outside smp.
//
// A task's CPU is always smp's (Task.CPU): a runnable task may change CPU
// while it waits, and the simulator never keeps its own copy.
//
// # The order of one instant
//
// The kernel's CPUs act concurrently; the simulator runs the events of
// one simulated instant in the serial order of KERNEL-SPEC-SMP §7.3: the
// jiffies advance (if it is a tick instant); timer and sleep expiries, in
// arming order (ties by task); the tick handlers in ascending CPU id, each
// CPU rescheduling right after its own tick if asked to; the remaining
// reschedules in ascending CPU id; then the task-initiated events (a
// task created, a Run phase ending and the program going on: sends,
// blocks, exits), in the order they were posted, each with the
// reschedules it causes run at once. evClass in engine.go states it
// event by event.
//
// # Clocks
//
// Reports give simulated time, from 0. The System's clock is the
// simulated time plus an origin: one tick on several CPUs, so that tasks
// created at time 0 are forked at a positive clock (a PELT
// last_update_time of 0 means "never attached") and tick instants fall
// on jiffy boundaries; 0 on one CPU, where no placement reads PELT, so
// that one-CPU runs keep their numbers and their scenario log replays at
// the simulated times. The machine starts in Config.Preset's state
// (KERNEL-SPEC-SMP §1.9), warm by default, at the origin.
//
// While a task runs, its Run phase progresses in real time; when it is
// switched out the CPU time it got is subtracted from the phase, and the
// phase's completion event is made stale by a generation counter (never by
// searching the queue; on one CPU, where the running task's completion is
// kept apart from the queue, it is dropped). Config.SwitchCost delays a
// switched-in task's progress (the time is charged to it, as the kernel
// charges what runs after exec_start). With Config.Debug, smp's Check (every runqueue's
// invariants and every task where the System believes it is) and the
// simulator's own checks run after every event, and the simulator's
// CPU-time bookkeeping is compared with eevdf's sum_exec_runtime at
// every switch-out: they must agree exactly. Config.ScenarioLog writes a
// one-CPU run in the scenario language, one operation per sequence above;
// replaying it with package scenario leaves every entity exactly as the
// simulation did.
//
// Not modelled: other scheduling classes, interrupts' and softirqs' CPU
// time, frequency (every CPU runs at its highest), IPI and wakeup-queue
// latencies (a remote wakeup takes effect at once), and the cost of
// scheduler code except through the two cost parameters. What smp does
// not model (KERNEL-SPEC-SMP §0.3: NUMA, bandwidth control, energy-aware
// placement, …) the simulator does not have either.
//
// # Asymmetric machines
//
// Config.MachinePreset (a topology preset such as "rb5") or
// Config.Capacities give the CPUs capacities below 1024
// (KERNEL-SPEC-ASYM). A Run or Sys phase is then work, the CPU time it
// takes at capacity 1024: on a CPU of capacity C it progresses at C/1024
// of wall speed, and the task is charged the longer wall time as CPU
// time, as the kernel charges it. A segment of e ns does ⌊e·C/1024⌋ ns of
// work and a phase with w ns left ends ⌈w·1024/C⌉ ns after it resumes;
// at 1024 both are the identity, so a symmetric machine's numbers are
// unchanged. Reports give capacities and each task's work
// (TaskReport.WorkNs) on an asymmetric machine only.
//
// # Preemption models and timer slack
//
// Config.Preempt selects where a reschedule request takes effect
// (KERNEL-SPEC-PREEMPT §4, §6). A task is in kernel mode while it runs a
// Sys phase or a Send, Recv or Reply (a system call; a Sys phase followed
// directly by one of them is the same call), in user mode otherwise.
//
//   - full (the default): every request is hard and taken at once, in
//     either mode — the behaviour described above; a Sys phase schedules
//     exactly as a Run phase;
//   - lazy: the fair class's requests (the tick's and the wakeup
//     check's) are lazy; a task in user mode takes one at once when it
//     comes from its own CPU (a timer expiry, the tick, a wakeup it
//     made); a task in kernel mode at its return to user space — the end
//     of the Sys phase or the call — or at the next tick, which makes it
//     hard and preempts at the tick's exit. A lazy request from another
//     CPU sends no IPI: that CPU takes it at its next return to user
//     space, tick or block. Hard requests (a wakeup while idle, a nice
//     raised) behave as under full;
//   - none and voluntary: a task in kernel mode is preempted only at the
//     return to user space, at the cond_resched points of its Sys phase
//     (every Config.CondReschEvery of kernel time) and, under voluntary,
//     its might_resched points (Config.MightReschEvery); in user mode as
//     under full.
//
// Blocking, exiting and yielding switch under every model.
//
// A timed sleep (Sleep, SleepUntil, Timer, rt-app timers) of a task with
// timer slack (TaskOptions.TimerSlack, else Config.TimerSlack; default 0)
// wakes at its expiry plus the slack, or at the first tick of its CPU, or
// expiry of another timer there, at or after its expiry and inside that
// window (the hrtimer's soft and hard expiries); its latency reference
// stays the requested expiry. The kernel's default for fair tasks is
// 50 µs; a configuration models it with "timer_slack": "50us".
//
// # Core scheduling
//
// Core scheduling is the kernel's, modelled in package smp: the SMT
// threads of a core run tasks of one cookie at a time or are forced idle.
// A task's cookie is TaskOptions.Cookie ("cookie" in a configuration): 0
// is untagged; tasks with the same nonzero number share one cookie, as
// prctl(PR_SCHED_CORE) CREATE and SHARE_TO would tag them, and different
// numbers never share a core. The siblings are the machine's SMT threads
// (Config.Machine's ThreadsPerCore), so a cookie needs a machine with
// SMT, as prctl does; core scheduling is on for the whole run exactly
// when smp has it on (a cookie lives). smp's Schedule is then the
// core-wide pick (pick_next_task's core version): the sibling picks are
// compared by cfs_prio_less, every sibling runs a task of the winner's
// cookie or is forced idle, task_tick_core hands the core over after
// half a slice, a forced-idle CPU may steal a task of the core's cookie,
// and placement and balancing apply the kernel's cookie checks. The
// reschedules the pick asks of the siblings reach the simulator through
// System.Resched, like every other reschedule.
//
// Reports then carry Report.CoreScheduling and, per CPU, the forced-idle
// time (CPUReport.ForcedIdleNs: the periods smp's core-wide picks held the
// CPU idle with tasks queued, as the simulator saw them begin and end;
// every one ends when the last cookie dies) and CPUReport.Core
// (forced-idle periods, steals, task_tick_core reschedules); per task
// TaskReport.Core: the forced idle it waited through (the simulator's
// measure), the forced idle charged to it while it ran (smp's
// core_forceidle_sum, with schedstats on) and the times it was stolen.
// The text report prints them in a section of their own only when core
// scheduling was on, and the trace draws forced idle as slices of their
// own ("forced idle", category forced_idle). A run without a cookie
// reports exactly what it did before core scheduling existed.
//
// # Workloads and metrics
//
// The workload constructors (Cyclictest, Hackbench, Stress, YieldLoop,
// MassiveIntr, Schbench, ParseRTApp) document their programs and
// parameters. Reports give per task and per workload latency histograms
// with exact percentiles (every sample is kept), perf sched latency's
// runtime, switches and delays, context switches and preemptions, the
// placements by rule and the migrations by cause (smp.Stats), work
// conservation on several CPUs (smp.System.Conservation: the CPU time
// idle while another CPU had tasks waiting, its stretches and the
// longest), as text, CSV and JSON; a Chrome/Perfetto trace of the
// schedule (a track per CPU, migration arrows between them); and, in
// package sim/plot, PNG plots.
// Sweep runs configurations in parallel.
//
// # Determinism
//
// Events are ordered by (time, class, arming time or CPU, sequence of
// posting); the only randomness is a PCG generator seeded from
// Config.Seed, drawn in event order, and smp's sched_rng, seeded from it
// too. The same configuration and seed give byte-identical reports.
package sim
