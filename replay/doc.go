// Package replay runs a kernel scheduling trace, read by package trace,
// through the fair-class model and reports where the model's decisions
// and the kernel's recorded ones agree (TRACE-REPLAY Part II).
//
// # Mode A: pinned
//
// Pinned replays placement from the trace: every CPU has one
// eevdf.CfsRq, driven at the recorded times by the recorded events, the
// kernel sequences of the scenario language (package scenario) applied on
// the CPU each event names:
//
//	sched_wakeup_new      wake_up_new_task on target_cpu
//	sched_wakeup          try_to_wake_up on target_cpu: a delayed task is
//	                      requeued, a sleeping one enqueued, with
//	                      WF_MIGRATED if it moved (scenario migrate_in)
//	sched_migrate_task    a sleeping task hands its load over
//	                      (migrate_task_rq_fair); a queued one is detached
//	                      and attached on dest_cpu with its lag (scenario
//	                      migrate_out / migrate_in); a running one moves
//	                      when it is switched out
//	sched_switch          prev blocks (a dequeue for sleep, maybe delayed)
//	                      or stays queued (R, R+); the model picks; then
//	                      the kernel's next is forced (teacher forcing, so
//	                      the model never drifts from the trace)
//	tick                  task_tick_fair on the running task: the trace's
//	                      own (trace.KindTick) when it has them, else one
//	                      every TICK_NSEC on every CPU
//
// A reschedule the model asks for at a wakeup or a tick is honoured as
// the kernel honours it: the switch the trace records at that instant
// does the pick; with no switch there the model picks at once, and a pick
// other than the running task is counted as a preemption the kernel did
// not make (the running task is then forced back).
//
// A move the trace does not explain (a task found queued where no event
// put it, a task running that the model has asleep) is repaired by moving
// the model's task to where the trace has it, and the pick at that switch
// is left out of the score, as are the picks before Options.BurnIn and
// those of other classes (real-time and deadline tasks run as time the
// fair class does not get).
//
// # What is compared
//
// The pick at each recorded switch (the model's choice among its runnable
// set against the kernel's next), per CPU and overall, split by what
// ended the previous task's run: a block, a wakeup preemption (a wakeup
// or an arrival on the CPU since its last tick), a slice end (a tick), or
// a switch from idle. Each disagreement keeps every runnable task's model
// state (vruntime and deadline relative to V, lag, eligibility). Per
// task, the trace's wakeup latency (wakeup to switch-in) and run delay
// (runnable to switch-in). Coverage: events used and left out, picks
// scored, repairs, burn-in.
//
// # Mode B: free
//
// Free turns each fair task into a simulator program (package sim) that
// needs what the trace shows it needed — its CPU time between blocks, and
// for each wakeup either a message from its traced waker, sent at the
// same point of the waker's own run, or the recorded time when a timer,
// an interrupt or the idle task woke it — and runs the programs on as
// many CPUs as the trace has, with the model's own placement, balancing
// and preemption (see free.go). It reports each task's run time, switches,
// preemptions, wakeups, migrations, the share of its wakeups placed on the
// CPU it last ran on, wakeup latency and run delay, trace against model,
// and with Options.Compare a second model run under other toggles. Every
// simulated CPU follows Options.Kernel's fair class; placement and
// balancing are the modelled kernel's whatever the kernel.
//
// # Plotting
//
// Both reports keep what a plot draws out of their JSON: Report.Picks,
// windowed by Report.Timeline, and each task's latency samples;
// FreeReport.Samples. Package sim/plot draws them (PinnedReplay,
// FreeReplay), and fairclass trace replay --plot writes the image.
//
// # What is not
//
// Nothing models task groups, autogroups or custom slices the trace does
// not show; every fair task runs with the nice its priority gives. In mode
// B a message the model sends before its receiver waits is kept (perf
// sched replay's semaphore), so the receiver's later wait does not block
// and its latency sample counts from the send; what a task would have
// done after a decision the kernel did not make is unknown (TRACE-REPLAY
// Part II §2), and the program assumes it needed the same CPU time.
// Mode B compares placement in aggregate (the share of wakeups that stay
// on the task's last CPU), not wakeup by wakeup: the model's wakeups are
// not the trace's one for one.
package replay
