// Package trace reads scheduling traces recorded on real Linux kernels and
// turns them into one normalised stream of events, the input side of
// replaying a kernel's decisions through the fairclass model.
//
// # What is read
//
// Five formats, told apart by their content (gzip-compressed input is
// accepted transparently):
//
//   - the tracefs text of the trace and trace_pipe files (with or without the
//     TGID column, four or five flag characters, µs or counter timestamps);
//   - the text of trace-cmd report: the kernel's own event bodies (-N), the
//     raw field values (-R) and the bodies rewritten by libtraceevent's sched
//     plugin (the default), with µs or ns (-t) timestamps, in the default
//     or the latency (-l) layout; atrace text, zlib-compressed or not;
//   - perf script and perf sched script text (COMM TID [CPU] TIME: sched:EVENT:);
//   - Android systrace HTML: the ftrace text inside its trace-data blocks;
//   - Perfetto protobuf traces: typed ftrace events and the compact sched
//     encoding, decoded with protowire and no generated code.
//
// The events kept are those a replay of the fair class needs: sched_switch,
// sched_waking, sched_wakeup, sched_wakeup_new, sched_migrate_task,
// sched_process_fork/exec/exit/free, task_newtask, sched_pi_setprio,
// sched_stat_runtime, the schedstats events sched_stat_wait/sleep/iowait/
// blocked, the marks each format leaves where events were lost, and, in the
// text formats, the scheduler tick (the hrtimer_expire_entry of the tick's
// timer, KindTick), which a replay uses to place its ticks. Every other
// event (cpu_idle, print, tracing_mark_write, …) is counted in Stats
// and not returned.
//
// prev_state is decoded per kernel era: from 4.14 the kernel reports at most
// one of S D T t X Z P I, or R, with 0x100 marking a preemption (R+); before
// 4.14 it reported raw task-state bits (x dying, K wakekill, W waking, N
// noload) with the state-max bit (0x800 or 0x1000) marking a preemption. The
// era comes from Options.Kernel, from a Perfetto trace's system_info, or else
// from the numeric values at the start of the trace; letters need no era.
//
// # The rebuild
//
// RebuildEvents (or RebuildReader) turns the stream into the per-task and
// per-CPU view a replay compares against: each task's runs on CPUs with how
// they ended (blocked, preempted, yielded, exited) and its wakeups, and each
// CPU's picks with the runnable set the kernel chose from. Picks where the
// trace contradicts what came before (the first switch on a CPU, a task
// found where no event put it, a loss) are marked, so that a replay can
// leave them out of its score.
//
// # What is not
//
// The binary trace.dat and perf.data files are recognised and refused with a
// message naming the command that converts them to text (trace-cmd report -N
// -t, perf script --ns). trace-cmd's --ts-diff column is not read.
// Perfetto's zlib-compressed packets are read, its zstd-compressed ones
// refused; its generic (descriptor-described) events, process trees and
// clock snapshots are skipped. Times are kept in the clock the trace was
// recorded with (boot clock for Perfetto, the trace clock for text), never
// converted. Nothing here reconstructs state that a trace does not record:
// no vruntime, deadline, lag or weight beyond the priority printed in each
// event, and no load-balancer move that the trace did not record (such
// moves are counted, not explained).
package trace
