// Package sim is a discrete-event simulator of CPUs scheduled by the fair
// class, each CPU with its own eevdf.CfsRq, running tasks that are small
// programs of phases (run for X, sleep, wait for a message, yield, send a
// message), with the workloads kernel developers measure the scheduler
// with: cyclictest, hackbench, stress, seed 004's yield_loop, massive_intr,
// schbench-style request/worker pairs, and rt-app descriptions.
//
// # What is modelled
//
// Every scheduling decision is eevdf's: the simulator only drives each
// runqueue through the core-side sequences of the kernel (KERNEL-SPEC §4.9,
// §5.0, §11), the same ones the scenario replay uses. Before every call
// into a runqueue its task clock is set (update_rq_clock). Then:
//
//   - task creation (wake_up_new_task): Enqueue(EnqueueInitial), then
//     WakeupPreempt(WFFork);
//   - wakeup (try_to_wake_up): a delayed task, still queued on its CPU, is
//     requeued there with Enqueue(EnqueueDelayed) and, unless it is the
//     running entity, checked with WakeupPreempt(WFTTWU); any other task is
//     placed (below), enqueued with EnqueueWakeup (plus EnqueueMigrated and
//     WFMigrated if it last ran on another CPU) and checked with
//     WakeupPreempt(WFTTWU). Channel wakeups marked sync add WFSync; a task
//     allowed on several CPUs went through CPU selection, which adds
//     WFRqSelected as select_task_rq does (both only matter to NEXT_BUDDY);
//   - blocking: Dequeue(DequeueSleep), which may leave the task queued as
//     delayed, then a schedule; exiting adds DequeueSpecial (never delayed);
//   - schedule (__schedule, a preemption point): PickNext; a context switch
//     happens iff the pick differs from the running task, and it is a
//     preemption when that task is still runnable;
//   - tick: every TICK_NSEC, at multiples of the tick period, while a CPU
//     runs a task: Tick, then a schedule if NeedResched (the
//     return-from-interrupt preemption point). An idle CPU has no tick;
//   - after a wakeup: a schedule at once if NeedResched (full preemption),
//     or after Config.WakeupCost;
//   - yield: Yield, then a schedule;
//   - a core-scheduling forced pick: SetNext.
//
// While a task runs, its Run phase progresses in real time; when it is
// switched out the CPU time it got is subtracted from the phase, and the
// phase's completion event is made stale by a generation counter (never by
// searching the queue). Config.SwitchCost delays a switched-in task's
// progress (the time is charged to it, as the kernel charges what runs
// after exec_start). With Config.Debug, every runqueue's Check runs after
// every event, and the simulator's CPU-time bookkeeping is compared with
// eevdf's sum_exec_runtime at every switch-out: they must agree exactly.
// Config.ScenarioLog writes a one-CPU run in the scenario language, one
// operation per sequence above; replaying it with package scenario leaves
// every entity exactly as the simulation did.
//
// Not modelled: other scheduling classes, load balancing and migration of
// queued tasks, group scheduling, interrupts' and softirqs' CPU time,
// frequency and capacity, and the cost of scheduler code except through
// the two cost parameters.
//
// # Placement
//
// There is no load balancer: a task stays on the CPU it was placed on
// until it sleeps. A new task goes to its pinned CPU, else to the
// lowest-numbered idle CPU it may use, else to the allowed CPU with the
// fewest queued tasks (lowest number on ties). A waking task that is
// pinned goes to its CPU; a delayed task to the CPU whose runqueue holds
// it; any other to its previous CPU if that is idle, else to the
// lowest-numbered idle allowed CPU, else to its previous CPU. A CPU is idle
// when it runs nothing and has nothing queued (a CPU forced idle by core
// scheduling is not idle).
//
// # Core scheduling
//
// Config.CorePairs makes pairs of CPUs SMT siblings that only run tasks of
// the same cookie (TaskOptions.Cookie; 0 is the untagged cookie, which
// only pairs with itself; the idle task pairs with anything). Whenever a
// CPU of a pair reaches a preemption point, both CPUs pick without
// installing anything (PickTask on each, as the kernel's core-wide pick
// calls pick_task on every sibling) and one pick fixes the cookie c: with
// CorePriority (the default) the pick with the larger lag on its own
// runqueue (the kernel takes the highest-priority pick, comparing
// vruntimes normalised per runqueue); with CoreLeader the pick of the CPU
// at the preemption point, unless it picked idle. A CPU whose pick has another cookie runs instead its task of
// cookie c with the smallest vruntime (the order of the kernel's core
// tree; ties by earlier deadline, then creation order), whether it is
// eligible or not — core scheduling prefers an ineligible task to forcing
// the sibling idle, which is why seed 004's v3 forfeits a yielder's
// vruntime only when it is eligible. If it has no such task it is forced
// idle (PutPrev: the idle task runs with tasks queued) until the next pick
// of the core. Each CPU then installs what it runs with SetNext or PutPrev
// (put_prev_set_next_task).
//
// # Workloads and metrics
//
// The workload constructors (Cyclictest, Hackbench, Stress, YieldLoop,
// MassiveIntr, Schbench, ParseRTApp) document their programs and
// parameters. Reports give per task and per workload latency histograms
// with exact percentiles (every sample is kept), perf sched latency's
// runtime, switches and delays, context switches and preemptions, as
// text, CSV and JSON; a Chrome/Perfetto trace of the schedule; and, in
// package sim/plot, PNG plots. Sweep runs configurations in parallel.
//
// # Determinism
//
// Events are ordered by (time, sequence of posting); the only randomness
// is a PCG generator seeded from Config.Seed, drawn in event order. The
// same configuration and seed give byte-identical reports.
package sim
