package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/schedmodel/fairclass/trace"
)

const traceHelp = `Usage: fairclass trace import [flags] FILE

Reads a scheduling trace recorded on a Linux kernel and prints it as one
JSON object a line, in the trace's order. FILE may be gzip-compressed; "-"
reads standard input. The format is detected from the content:
  - the tracefs trace or trace_pipe file;
  - trace-cmd report text, with or without -N, -R, -t and -l
    (ask for "trace-cmd report -N -t": kernel text, ns timestamps);
  - perf script / perf sched script text ("perf script --ns");
  - Android systrace HTML;
  - Perfetto protobuf (.pftrace, .perfetto-trace).
trace.dat and perf.data files are refused with the command converting them.

Each line has "t" (ns), "cpu", "kind" (the kernel's event name, or
lost_events) and the fields of that kind:
  sched_switch              ctx, prev {pid, comm, prio}, prev_state (letters;
                            "+" marks a preemption), raw_state (when the trace
                            gave a number), next {pid, comm, prio}
  sched_waking, sched_wakeup, sched_wakeup_new
                            ctx (the waker's pid), task, target_cpu
  sched_migrate_task        ctx, task, orig_cpu, target_cpu (dest_cpu)
  sched_process_fork        ctx, task (parent), child
  sched_process_exec        ctx, task {pid}, filename, old_pid
  sched_process_exit, sched_process_free, task_newtask
                            ctx, task
  sched_stat_runtime        ctx, task, runtime, vruntime (before 6.8 only)
  sched_pi_setprio          ctx, task (prio is the new one), old_prio
  sched_stat_wait, sched_stat_sleep, sched_stat_iowait, sched_stat_blocked
                            ctx, task, delay (ns)
  lost_events               lost (how many; 0 when the trace did not say)
  sched_tick                ctx: the expiry of the scheduler tick's timer
                            (hrtimer_expire_entry, function tick_nohz_handler
                            or tick_sched_timer; other timers are skipped)
Unknown values are -1 (ctx, pid, prio, CPUs) or left out. A summary goes
to standard error.

Flags:
  --lenient       skip malformed lines (counted in the summary) instead of
                  stopping at the first with FILE:LINE: reason
  --kernel REL    kernel release (e.g. 4.9.112) to decode numeric prev_state
                  values by; default: the trace's system_info (Perfetto) or
                  its first values (a value only kernels before 4.14 use
                  selects their encoding)
  --format NAME   ftrace, trace-cmd, perf, systrace or perfetto instead of
                  detecting it
`

func traceCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "replay" {
		return traceReplayCmd(args[1:], stdin, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "import" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, traceHelp+"\n"+traceReplayHelp)
			return 0
		}
		fmt.Fprintln(stderr, `fairclass trace: want the subcommand import or replay; see "fairclass help trace"`)
		return 2
	}
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	lenient := fs.Bool("lenient", false, "")
	kernel := fs.String("kernel", "", "")
	format := fs.String("format", "", "")
	pos, code, done := parseArgs(fs, args[1:], 1, "trace file", traceHelp, stdout, stderr)
	if done {
		return code
	}
	opt := trace.Options{Lenient: *lenient, Name: pos[0]}
	if *kernel != "" {
		era, ok := trace.EraOf(*kernel)
		if !ok {
			fmt.Fprintf(stderr, "fairclass trace: --kernel %q is not a release like 6.6.30; see \"fairclass help trace\"\n", *kernel)
			return 2
		}
		opt.Era = era
	}
	if *format != "" {
		f, ok := traceFormats[*format]
		if !ok {
			fmt.Fprintf(stderr, "fairclass trace: unknown --format %q; see \"fairclass help trace\"\n", *format)
			return 2
		}
		opt.Format = f
	}
	var r *trace.Reader
	var err error
	if pos[0] == "-" {
		opt.Name = "stdin"
		r, err = trace.NewReader(stdin, opt)
	} else {
		r, err = trace.Open(pos[0], opt)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fairclass trace import: %v\n", err)
		return 1
	}
	defer r.Close()
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	var readErr error
	for ev, err := range r.All() {
		if err != nil {
			readErr = err
			break
		}
		if err := enc.Encode(jsonEventOf(ev)); err != nil {
			fmt.Fprintf(stderr, "fairclass trace import: %v\n", err)
			return 1
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "fairclass trace import: %v\n", err)
		return 1
	}
	st := r.Stats()
	fmt.Fprintf(stderr, "%s: %s, prev_state era %s", opt.Name, r.Format(), r.Era())
	if k := r.Kernel(); k != "" {
		fmt.Fprintf(stderr, ", kernel %s", k)
	}
	fmt.Fprintf(stderr, ": %d events (%s), %d other events", st.Total(), kindCounts(&st), st.Other)
	if *lenient {
		fmt.Fprintf(stderr, ", %d malformed lines skipped", st.Skipped)
		if st.First != "" {
			fmt.Fprintf(stderr, " (first: %s)", st.First)
		}
	}
	fmt.Fprintln(stderr)
	if readErr != nil {
		fmt.Fprintf(stderr, "fairclass trace import: %v\n", readErr)
		if errors.Is(readErr, trace.ErrSyntax) && !*lenient {
			fmt.Fprintln(stderr, "fairclass trace import: --lenient skips malformed lines")
		}
		return 1
	}
	return 0
}

var traceFormats = map[string]trace.Format{
	"ftrace":    trace.FormatFtrace,
	"trace-cmd": trace.FormatTraceCmd,
	"perf":      trace.FormatPerf,
	"systrace":  trace.FormatSystrace,
	"perfetto":  trace.FormatPerfetto,
}

// kindCounts lists the non-zero counts per kind: "sched_switch 3, ...".
func kindCounts(st *trace.Stats) string {
	var parts []string
	for k := trace.KindSwitch; k <= trace.KindTick; k++ {
		if n := st.Count(k); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// jsonTask and jsonEvent are the JSON-lines schema of trace import: the
// fields each kind carries and no others.
type jsonTask struct {
	Pid  int32  `json:"pid"`
	Comm string `json:"comm,omitempty"`
	Prio int32  `json:"prio"`
}

type jsonEvent struct {
	T         int64     `json:"t"`
	CPU       int32     `json:"cpu"`
	Kind      string    `json:"kind"`
	Ctx       *int32    `json:"ctx,omitempty"`
	Prev      *jsonTask `json:"prev,omitempty"`
	PrevState string    `json:"prev_state,omitempty"`
	RawState  *int64    `json:"raw_state,omitempty"`
	Next      *jsonTask `json:"next,omitempty"`
	Task      *jsonTask `json:"task,omitempty"`
	Child     *jsonTask `json:"child,omitempty"`
	OrigCPU   *int32    `json:"orig_cpu,omitempty"`
	TargetCPU *int32    `json:"target_cpu,omitempty"`
	Runtime   *uint64   `json:"runtime,omitempty"`
	Vruntime  *uint64   `json:"vruntime,omitempty"`
	OldPrio   *int32    `json:"old_prio,omitempty"`
	Delay     *uint64   `json:"delay,omitempty"`
	Filename  string    `json:"filename,omitempty"`
	OldPid    *int32    `json:"old_pid,omitempty"`
	Lost      *int64    `json:"lost,omitempty"`
}

func jsonEventOf(ev trace.Event) jsonEvent {
	task := func(t trace.Task) *jsonTask { return &jsonTask{Pid: t.Pid, Comm: t.Comm, Prio: t.Prio} }
	j := jsonEvent{T: ev.Time, CPU: ev.CPU, Kind: ev.Kind.String()}
	if ev.Kind != trace.KindLost {
		j.Ctx = &ev.Ctx
	}
	switch ev.Kind {
	case trace.KindSwitch:
		j.Prev, j.Next = task(ev.Task), task(ev.Next)
		j.PrevState = ev.PrevState.String()
		if ev.RawState >= 0 {
			j.RawState = &ev.RawState
		}
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		j.Task, j.TargetCPU = task(ev.Task), &ev.TargetCPU
	case trace.KindMigrateTask:
		j.Task, j.OrigCPU, j.TargetCPU = task(ev.Task), &ev.OrigCPU, &ev.TargetCPU
	case trace.KindProcessFork:
		j.Task, j.Child = task(ev.Task), task(ev.Next)
	case trace.KindProcessExec:
		j.Task, j.Filename, j.OldPid = task(ev.Task), ev.Filename, &ev.OldPid
	case trace.KindProcessExit, trace.KindProcessFree, trace.KindNewTask:
		j.Task = task(ev.Task)
	case trace.KindStatRuntime:
		j.Task, j.Runtime = task(ev.Task), &ev.Runtime
		if ev.Vruntime != 0 {
			j.Vruntime = &ev.Vruntime
		}
	case trace.KindPiSetprio:
		j.Task, j.OldPrio = task(ev.Task), &ev.OldPrio
	case trace.KindStatWait, trace.KindStatSleep, trace.KindStatIOWait, trace.KindStatBlocked:
		j.Task, j.Delay = task(ev.Task), &ev.Delay
	case trace.KindLost:
		j.Lost = &ev.Lost
	}
	return j
}
