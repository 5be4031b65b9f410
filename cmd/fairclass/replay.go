package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/scenario"
)

const replayHelp = `Usage: fairclass replay FILE [flags]

Replays the scenario FILE ("-" reads standard input) on the model and prints
one JSON object per operation: i, t, op, task, V, curr, resched, picked and
every declared task's on_rq, delayed, vruntime, deadline, vlag, lag,
eligible, weight, slice and sum_exec; a scenario with task groups adds each
task's group and h_weight and a groups array. This is the format the kernel's own
fair.c prints in the same harness, so the two compare field by field.

A scenario whose header has a machine line (the multi-CPU language of
docs/spec/SMP-SCENARIOS.md) replays on several CPUs instead and prints that
document's format: the placement each operation made, every CPU's runqueue
and balancing state with its domains, every LLC's shared state, every task's
EEVDF, PELT and waker state, and what balancing did during the operation.
--table and --trace are for one-CPU scenarios only.

Flags:
  --table               print an aligned table instead: vruntimes relative to
                        the first V, one row per task per operation, * marks
                        an eligible task
  --backend btree|rbtree
                        the timeline structure (default btree; both give
                        identical results)
  --features TOKENS     debugfs tokens applied after the scenario's own
                        features line, e.g. "NO_RUN_TO_PARITY PLACE_JOIN_LAG"
  --kernel v7.3|v7.1|v7.0|v6.18|v6.12|v6.6
                        the kernel whose fair.c to follow (default v7.3, the
                        modelled mainline), with that kernel's own feature
                        defaults under the scenario's features line
  --pelt[=raw]          keep and print the PELT signals: each task's and group's
                        load_avg, runnable_avg, util_avg (groups also
                        se_load_avg, tg_load_avg, tg_runnable_avg) and a root
                        object; =raw adds the sums, period_contrib and
                        last_update_time
  --trace FILE          also write a Chrome/Perfetto trace: open it in
                        https://ui.perfetto.dev (Open trace file); one track
                        per task, instants for wakeups, reschedule requests
                        and delayed dequeues, counters for V and each lag

An operation that is not defined in the state the scenario reached (a sleep
with nothing running, a wakeup of a running task...) stops the replay with
FILE:LINE:COL and the reason; what was replayed before it is printed.
`

func replayCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	table := fs.Bool("table", false, "")
	backend := fs.String("backend", "btree", "")
	feat := fs.String("features", "", "")
	traceOut := &output{flag: "--trace"}
	fs.StringVar(&traceOut.path, "trace", "", "")
	kernel := fs.String("kernel", "v7.3", "")
	var peltFlag peltMode
	fs.Var(&peltFlag, "pelt", "")
	files, code, done := parseArgs(fs, args, 1, "scenario file", replayHelp, stdout, stderr)
	if done {
		return code
	}
	var opt scenario.Options
	k, err := eevdf.ParseKernel(*kernel)
	if err != nil {
		fmt.Fprintf(stderr, "fairclass replay: --kernel: %v\n", err)
		return 2
	}
	opt.Kernel = k
	opt.PELT, opt.PELTRaw = peltFlag != peltOff, peltFlag == peltRaw
	switch *backend {
	case "btree":
		opt.Backend = eevdf.BTree
	case "rbtree":
		opt.Backend = eevdf.RBTree
	default:
		fmt.Fprintf(stderr, "fairclass replay: --backend %q: want btree or rbtree\n", *backend)
		return 2
	}

	outs := []*output{traceOut}
	if err := openOutputs(outs, func(f string) bool { return given(fs, f[2:]) }, files[0]); err != nil {
		fmt.Fprintf(stderr, "fairclass replay: %v\n", err)
		return 1
	}
	defer discard(outs) // a no-op once the trace is written

	var in io.Reader = stdin
	name := files[0]
	if name == "-" {
		name = "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "fairclass replay: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	sc, err := scenario.Parse(in, name)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	if *feat != "" {
		s, err := sc.FeaturesFor(k, *feat)
		if err != nil {
			fmt.Fprintf(stderr, "fairclass replay: --features: %s\n", reason(err, "features"))
			return 2
		}
		opt.Features = &s
	}

	w := bufio.NewWriterSize(stdout, 1<<16)
	defer w.Flush()
	var emit func(*scenario.Result) error
	var tw *scenario.TableWriter
	if *table {
		tw = scenario.NewTableWriter(w, sc)
		emit = tw.Write
	} else {
		emit = scenario.JSONWriter(w)
	}
	var trw *scenario.TraceWriter
	var last uint64
	if traceOut.f != nil {
		f, err := traceOut.writer()
		if err != nil {
			fmt.Fprintf(stderr, "fairclass replay: %v\n", err)
			return 1
		}
		trw = scenario.NewTraceWriter(f, sc)
		out := emit
		emit = func(res *scenario.Result) error {
			last = res.T
			if err := trw.Write(res); err != nil {
				return err
			}
			return out(res)
		}
	}
	err = scenario.Replay(sc, opt, emit)
	if tw != nil {
		if ferr := tw.Flush(); err == nil {
			err = ferr
		}
	}
	if trw != nil {
		// What was replayed is kept, as it is printed, even if the replay
		// stopped with an error.
		if cerr := trw.Close(last); err == nil {
			err = cerr
		}
		if cerr := traceOut.close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		w.Flush()
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}

// peltMode is the --pelt flag: off, on (--pelt) or raw (--pelt=raw).
type peltMode uint8

const (
	peltOff peltMode = iota
	peltOn
	peltRaw
)

func (m *peltMode) String() string {
	switch *m {
	case peltOn:
		return "true"
	case peltRaw:
		return "raw"
	}
	return "false"
}

func (m *peltMode) Set(s string) error {
	switch s {
	case "true", "1":
		*m = peltOn
	case "raw":
		*m = peltRaw
	case "false", "0":
		*m = peltOff
	default:
		return fmt.Errorf("want --pelt or --pelt=raw")
	}
	return nil
}

func (m *peltMode) IsBoolFlag() bool { return true }

const scenarioHelp = `A scenario is a text file, one statement a line; # starts a comment.

Header (before any operation):
  features TOKEN...     debugfs spelling, applied to the kernel defaults
  base_slice NS         sysctl_sched_base_slice (default 700000)
  hz N                  TICK_NSEC for the lag clamp (default 1000)
  task NAME [nice=N | weight=W] [slice=NS] [policy=normal|batch|idle] [group=G]
  group NAME [parent=P] [weight=W | nice=N] [idle]
                        a task group (cgroup), created at time 0; parents come
                        first; weight is cpu.weight 1..10000 (default 100)
  cgroup_mode up|smp|concur|max|tasks
                        the share function (default concur)
  online_cpus N         num_online_cpus() as the share functions read it

Operations, "AT_NS OP [ARGS]", times never decreasing:
  new T         wake_up_new_task: enqueue as new, then the wakeup check (WF_FORK)
  wakeup T      try_to_wake_up: requeue a delayed T, or enqueue it; the wakeup check
  sleep         the running task blocks (may stay queued as delayed), then schedule
  schedule      __schedule: pick, then put_prev/set_next if the pick changed
  tick          task_tick_fair on the running task
  yield         sched_yield, then schedule
  renice T N    set_user_nice
  slice T NS    sched_setattr with sched_runtime = NS (0: the base slice)
  forcepick T   a core-scheduling forced pick of the queued task T
  cgroup T G    sched_move_task: move T to group G (/ for the root)
  cpu.weight G W, cpu.weight.nice G N, cpu.idle G 0|1
                the cgroup files: sched_group_set_shares, sched_group_set_idle
  cgroup_mode M switch the share function (effective at each group's next update)
  migrate_out T T leaves for another CPU as migration does: a queued T is
                detached (lag saved), a sleeping T handed over
  migrate_in T  T comes back: attached with ENQUEUE_MIGRATED if it left
                queued, woken with WF_MIGRATED if it left asleep

Nothing schedules implicitly: write schedule where the kernel would reach a
preemption point.
`

func featuresHelp() string {
	var b strings.Builder
	b.WriteString("Features, with their defaults (NO_X turns X off):\n")
	for _, f := range features.All() {
		on := "off"
		if f.Default() {
			on = "on"
		}
		kind := ""
		if f.Seed() {
			kind = "  (seed patch)"
		}
		fmt.Fprintf(&b, "  %-24s %s%s\n", f, on, kind)
	}
	return b.String()
}
