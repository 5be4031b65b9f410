package sim

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/smp"
)

// Report is everything a simulation measured. Times are nanoseconds of
// simulated time. Its JSON form (WriteJSON) has a stable field order and
// is byte-identical for the same configuration and seed.
type Report struct {
	Seed            uint64 `json:"seed"`             // Config.Seed
	CPUs            int    `json:"cpus"`             // number of CPUs
	Machine         string `json:"machine"`          // packages x LLCs x cores x threads, numbering
	Nohz            string `json:"nohz"`             // tick mode of idle CPUs: off or idle
	Preset          string `json:"preset"`           // start state: warm or boot
	Kernel          string `json:"kernel,omitempty"` // Config.Kernel when it is not the modelled v7.3
	Features        string `json:"features"`         // debugfs tokens that differ from the kernel's defaults
	BaseSliceNs     uint64 `json:"base_slice_ns"`    // sysctl_sched_base_slice
	TickNs          uint64 `json:"tick_ns"`          // TICK_NSEC, the tick period
	EndNs           uint64 `json:"end_ns"`           // the stop time, or when the last task exited
	Events          uint64 `json:"events"`           // scheduler events processed (stale ones excluded)
	ContextSwitches uint64 `json:"context_switches"` // changes of a CPU's running task, idle included
	Preemptions     uint64 `json:"preemptions"`      // switches whose previous task stayed runnable
	Migrations      uint64 `json:"migrations"`       // changes of a task's CPU (nr_migrations, summed)
	DelayedWakeups  uint64 `json:"delayed_wakeups"`  // wakeups of tasks still queued as delayed (requeues)
	ForcedPicks     uint64 `json:"forced_picks"`     // core scheduling: picks a CPU took from a sibling's core-wide pick
	ForcedIdles     uint64 `json:"forced_idles"`     // core scheduling: forced-idle periods that began
	// CoreScheduling is whether smp's core scheduling was on (a task
	// had a cookie); the core-scheduling parts of the report (TaskReport.Core,
	// CPUReport.Core, the text report's section) are present only then.
	CoreScheduling bool `json:"core_scheduling,omitempty"`

	// Preempt is the preemption model, "" for full (the default). It,
	// TimerSlackNs and DeferredResched are left out of every output while
	// they have their defaults, so that those outputs stay as they were.
	Preempt string `json:"preempt,omitempty"`
	// TimerSlackNs is Config.TimerSlack, 0 for none.
	TimerSlackNs uint64 `json:"timer_slack_ns,omitempty"`
	// DeferredResched counts the reschedules the preemption model held
	// until a return to user space or a cond_resched / might_resched
	// point (a lazy request's tick upgrade is not counted).
	DeferredResched uint64 `json:"deferred_resched,omitempty"`
	// Capacities are the CPUs' original capacities on an asymmetric
	// machine, nil (left out) when every CPU has 1024.
	Capacities []uint64 `json:"capacities,omitempty"`
	// Energy is the run's energy estimate and EAS counters, present only
	// with Config.EnergyModel.
	Energy *EnergyReport `json:"energy,omitempty"`

	Placement       PlacementReport  `json:"placement"`        // how tasks reached their CPUs
	MigrationCauses []MigrationCause `json:"migration_causes"` // Migrations by cause, and fork balance
	// Conservation is how long CPUs idled while work waited elsewhere;
	// on several CPUs only (nil on one).
	Conservation *ConservationReport `json:"conservation,omitempty"`

	Workloads []WorkloadReport `json:"workloads"`        // per workload, in configuration order
	Tasks     []TaskReport     `json:"tasks"`            // per task, in creation order
	CPUStats  []CPUReport      `json:"cpu_stats"`        // per CPU
	Channels  []ChannelReport  `json:"channels"`         // per channel, in order of first use
	Shares    *ShareSeries     `json:"shares,omitempty"` // CPU time samples (Config.ShareInterval)

	trace []traceSlice
	flows []traceFlow
}

// PlacementReport counts how tasks reached their CPUs, as package smp
// decided it (smp.Stats): select_task_rq_fair for wakeups, the fork slow
// path for new tasks.
type PlacementReport struct {
	Forks       uint64 `json:"forks"`        // tasks started (wake_up_new_task)
	Wakeups     uint64 `json:"wakeups"`      // wakeups of sleeping tasks, delayed ones included
	ForkBalance uint64 `json:"fork_balance"` // forks placed on another CPU than the forking one
	WakeWide    uint64 `json:"wake_wide"`    // wakeups that wake_wide made non-affine
	AffineThis  uint64 `json:"affine_this"`  // wake_affine verdicts for the waking CPU
	AffinePrev  uint64 `json:"affine_prev"`  // wake_affine verdicts for the previous CPU
	// AffineMigrated counts the wakeups that moved after wake_affine chose
	// the waking CPU: affine pulls (each also counted by its rule).
	AffineMigrated uint64      `json:"affine_migrated"`
	Rules          []RuleCount `json:"rules"` // every rule of smp.Rules, in that order
}

// ConservationReport measures work conservation over the run (package
// smp's System.Conservation): the CPU time during which a CPU had no
// runnable task, and the part of it during which another CPU had two or
// more runnable tasks — time a waiting task could have run, lost until
// balancing moved it (newly idle, periodic or ILB balancing, each at the
// intervals of KERNEL-SPEC-SMP §5). Fractions are of CPUs × the run's
// length.
type ConservationReport struct {
	IdleNs           uint64  `json:"idle_ns"`           // CPU time with no runnable task
	StrandedNs       uint64  `json:"stranded_ns"`       // of it, while another CPU had ≥ 2 runnable tasks
	OverloadedNs     uint64  `json:"overloaded_ns"`     // time (not CPU time) during which some CPU had ≥ 2
	IdleFraction     float64 `json:"idle_fraction"`     // IdleNs / (CPUs × run)
	StrandedFraction float64 `json:"stranded_fraction"` // StrandedNs / (CPUs × run)
	// Stretches counts the stretches of stranded time (one CPU idle, some
	// CPU with ≥ 2 runnable tasks, both without a break); LongestNs is the
	// longest of them.
	Stretches uint64 `json:"stretches"`
	LongestNs uint64 `json:"longest_ns"` // the longest stretch, in ns
}

// RuleCount counts the placements one rule made (smp.Rule).
type RuleCount struct {
	Rule     string `json:"rule"`     // the rule's name (smp.Rule.String)
	Placed   uint64 `json:"placed"`   // wakeups and forks it placed
	Migrated uint64 `json:"migrated"` // wakeups among them that changed the task's CPU
}

// MigrationCause counts the migrations of one cause. The causes are
// "wakeup:RULE" for wakeups that the rule RULE placed on another CPU (the
// placement rules of smp.Rule: idle_smt an idle SMT sibling, idle_core
// the first CPU of an idle core, idle_cpu an idle CPU of the LLC scan,
// target the CPU wake_affine chose, busy_target the same when nothing
// idle was found, prev, recent, …); "balance" for the tasks that
// sched_balance_rq moved (newly idle and periodic balancing, and the idle
// load balancer's); "active" for the running tasks the CPU stopper pushed
// (active balancing); "exec" for exec balancing; "other" for any other
// change of CPU smp made; and "fork_balance" for new tasks placed away
// from the forking CPU, which sets a new task's CPU without a migration
// and so is not part of Report.Migrations. Only causes that occurred are
// listed, in that order. PlacementReport.AffineMigrated says how many of
// the wakeup migrations were affine pulls.
type MigrationCause struct {
	Cause string `json:"cause"` // "wakeup:RULE", "balance", "active", "exec", "other" or "fork_balance"
	Count uint64 `json:"count"` // how many: migrations, or placements for fork_balance
}

// TaskReport is one task's measurements.
//
// Run delays follow perf sched latency: a delay starts when the task
// becomes runnable (created, woken, or switched out while still runnable:
// preempted, yielded, or forced off by core scheduling) and ends when it is
// switched in; a delay still open when the run ends is closed at the end.
type TaskReport struct {
	Name           string `json:"name"`            // task name
	Workload       string `json:"workload"`        // its workload's name
	CPU            int    `json:"cpu"`             // task_cpu: the CPU it is on, or was on last (−1: never created)
	Nice           int    `json:"nice"`            // nice value at the end
	Policy         string `json:"policy"`          // scheduling policy
	SliceNs        uint64 `json:"slice_ns"`        // slice at the end
	Cookie         uint64 `json:"cookie"`          // core-scheduling cookie
	RuntimeNs      uint64 `json:"runtime_ns"`      // CPU time (equal to eevdf's sum_exec_runtime)
	Switches       uint64 `json:"switches"`        // times switched in
	Preemptions    uint64 `json:"preemptions"`     // times switched out while runnable
	Wakeups        uint64 `json:"wakeups"`         // times woken
	DelayedWakeups uint64 `json:"delayed_wakeups"` // wakeups that found it still queued as delayed
	Migrations     uint64 `json:"migrations"`      // changes of its CPU (nr_migrations)
	Yields         uint64 `json:"yields"`          // sched_yield calls
	DelayCount     uint64 `json:"delay_count"`     // run delays (runnable to running)
	AvgDelayNs     uint64 `json:"avg_delay_ns"`    // total delay / delay count, truncated
	MaxDelayNs     uint64 `json:"max_delay_ns"`    // longest delay
	// MaxDelayStartNs and MaxDelayEndNs bound the longest delay.
	MaxDelayStartNs uint64          `json:"max_delay_start_ns"`
	MaxDelayEndNs   uint64          `json:"max_delay_end_ns"`  // when it started running
	Latency         *LatencySummary `json:"latency,omitempty"` // its Latency samples, if any
	Marks           []MarkReport    `json:"marks,omitempty"`   // its Mark counts, by label
	Exited          bool            `json:"exited"`            // the program ended
	ExitNs          uint64          `json:"exit_ns"`           // when it ended
	Core            *TaskCoreReport `json:"core,omitempty"`    // core scheduling, if it was on
	// WorkNs is the work its Run, Sys and Spin phases did, in CPU time at
	// capacity 1024 (asym.go); on an asymmetric machine only: 0, and left
	// out, on a symmetric one, where it would be those phases' CPU time.
	WorkNs uint64 `json:"work_ns,omitempty"`
	// Samples are the latency samples in the order recorded.
	Samples []uint64 `json:"-"`
}

// MarkReport counts one Mark label.
type MarkReport struct {
	Label  string `json:"label"`   // the Mark's label
	Count  uint64 `json:"count"`   // times reached
	LastNs uint64 `json:"last_ns"` // time of the last one
}

// WorkloadReport aggregates a workload's tasks.
type WorkloadReport struct {
	Name      string `json:"name"`       // Workload.Name
	Kind      string `json:"kind"`       // Workload.Kind
	FirstTask int    `json:"first_task"` // its tasks are Tasks[FirstTask : FirstTask+NTasks]
	NTasks    int    `json:"tasks"`      // number of tasks
	StartNs   uint64 `json:"start_ns"`   // earliest task creation
	RuntimeNs uint64 `json:"runtime_ns"` // CPU time of its tasks
	// Done is true when every task of the workload exited; DoneNs is then
	// the time the last one did, and RunTimeNs = DoneNs − StartNs (a
	// hackbench's "Time").
	Done      bool            `json:"done"`
	DoneNs    uint64          `json:"done_ns"`           // when its last task exited (if Done)
	RunTimeNs uint64          `json:"run_time_ns"`       // DoneNs − StartNs (if Done)
	Latency   *LatencySummary `json:"latency,omitempty"` // all its tasks' samples
	Marks     []MarkReport    `json:"marks,omitempty"`   // Mark counts summed over its tasks
	// WorkNs is the work of its tasks (TaskReport.WorkNs).
	WorkNs uint64 `json:"work_ns,omitempty"`
	// Samples merges the tasks' latency samples, task by task.
	Samples []uint64 `json:"-"`
}

// CPUReport is one CPU's activity.
type CPUReport struct {
	CPU          int    `json:"cpu"`            // CPU number
	BusyNs       uint64 `json:"busy_ns"`        // time running a task
	ForcedIdleNs uint64 `json:"forced_idle_ns"` // time forced idle by core scheduling
	Switches     uint64 `json:"switches"`       // context switches, idle included
	Preemptions  uint64 `json:"preemptions"`    // switches whose previous task stayed runnable
	// Core is its core scheduling, if it was on.
	Core *CPUCoreReport `json:"core,omitempty"`
}

// ChannelReport is one channel's traffic. A message is one Send unit: it
// is counted as sent when it enters the channel or is handed to a blocked
// receiver, and as received when a receiver takes it.
type ChannelReport struct {
	Name     string `json:"name"`     // channel name
	Capacity int    `json:"capacity"` // capacity in messages
	Sent     uint64 `json:"sent"`     // messages sent
	Received uint64 `json:"received"` // messages received
	MaxFill  int    `json:"max_fill"` // most messages held at once
}

// ShareSeries is every task's cumulative CPU time sampled every IntervalNs
// (Config.ShareInterval): Runtime[i][k] is task k's CPU time at TimesNs[i].
type ShareSeries struct {
	IntervalNs uint64     `json:"interval_ns"` // sampling interval
	TimesNs    []uint64   `json:"times_ns"`    // sample times, from 0
	Runtime    [][]uint64 `json:"runtime_ns"`  // [sample][task] CPU time
}

// Report returns the measurements so far; after Run, the final ones.
func (s *Sim) Report() *Report {
	st := s.sys.Stats()
	r := &Report{
		Seed:            s.cfg.Seed,
		CPUs:            len(s.cpus),
		Machine:         s.cfg.Machine.String(),
		Nohz:            s.cfg.Nohz.String(),
		Preset:          s.preset.String(),
		Kernel:          kernelName(s.cfg.Kernel),
		Features:        s.feat.Diff(s.kernelDefaults()),
		BaseSliceNs:     s.baseSlice,
		TickNs:          s.tickNsec,
		TimerSlackNs:    uint64(s.cfg.TimerSlack),
		Preempt:         preemptName(s.model),
		DeferredResched: s.deferred,
		EndNs:           s.now,
		Events:          s.events,
		ContextSwitches: s.ctxSwitches,
		Preemptions:     s.preemptions,
		Migrations:      st.Migrations,
		DelayedWakeups:  s.delayedWakeups,
		ForcedIdles:     s.forcedIdles,
		Placement:       placementReport(&st),
		MigrationCauses: migrationCauses(&st),
		Conservation:    s.conservation(),
		Energy:          s.energyReport(),
	}
	r.Tasks = make([]TaskReport, len(s.tasks))
	for i := range s.tasks {
		t := &s.tasks[i]
		cpu := t.st.CPU()
		if t.state == stNew {
			cpu = -1
		}
		tr := TaskReport{
			Name:           t.name,
			Workload:       s.wls[t.wl].name,
			CPU:            cpu,
			Nice:           t.se.Nice(),
			Policy:         t.se.Policy().String(),
			SliceNs:        t.se.Slice(),
			Cookie:         t.cookie,
			RuntimeNs:      s.runtimeNow(int32(i)),
			Switches:       t.switches,
			Preemptions:    t.preempted,
			Wakeups:        t.wakeups,
			DelayedWakeups: t.delayedWakeups,
			Migrations:     t.st.Migrations(),
			Yields:         t.yields,
			Exited:         t.state == stExited,
			ExitNs:         t.exitAt,
			Samples:        t.lat,
		}
		count, sum, mx, mxAt := t.delayCount, t.delaySum, t.delayMax, t.delayMaxAt
		if t.state == stRunnable {
			// A delay still open at the end closes there, as if perf saw
			// the task switched in when the run stopped.
			d := s.now - t.runnableSince
			count++
			sum += d
			if count == 1 || d > mx {
				mx, mxAt = d, t.runnableSince
			}
		}
		tr.DelayCount, tr.MaxDelayNs = count, mx
		if count > 0 {
			tr.AvgDelayNs = sum / count
			tr.MaxDelayStartNs = mxAt
			tr.MaxDelayEndNs = mxAt + mx
		}
		if len(t.lat) > 0 {
			l := Summarize(t.lat)
			tr.Latency = &l
		}
		for li, m := range t.marks {
			if m.count > 0 {
				tr.Marks = append(tr.Marks, MarkReport{Label: s.labels[li], Count: m.count, LastNs: m.last})
			}
		}
		r.Tasks[i] = tr
	}
	for _, w := range s.wls {
		wr := WorkloadReport{Name: w.name, Kind: w.kind, FirstTask: int(w.first), NTasks: int(w.n), Done: w.n > 0}
		marks := make([]markStat, len(s.labels))
		for k := w.first; k < w.first+w.n; k++ {
			t := &s.tasks[k]
			tr := &r.Tasks[k]
			if k == w.first || t.start < wr.StartNs {
				wr.StartNs = t.start
			}
			wr.RuntimeNs += tr.RuntimeNs
			if t.state != stExited {
				wr.Done = false
			}
			wr.DoneNs = max(wr.DoneNs, t.exitAt)
			wr.Samples = append(wr.Samples, t.lat...)
			for li, m := range t.marks {
				marks[li].count += m.count
				marks[li].last = max(marks[li].last, m.last)
			}
		}
		if wr.Done {
			wr.RunTimeNs = wr.DoneNs - wr.StartNs
		} else {
			wr.DoneNs = 0
		}
		if len(wr.Samples) > 0 {
			l := Summarize(wr.Samples)
			wr.Latency = &l
		}
		for li, m := range marks {
			if m.count > 0 {
				wr.Marks = append(wr.Marks, MarkReport{Label: s.labels[li], Count: m.count, LastNs: m.last})
			}
		}
		r.Workloads = append(r.Workloads, wr)
	}
	s.reportWork(r)
	for i := range s.cpus {
		c := &s.cpus[i]
		busy := c.busy
		if c.curr >= 0 {
			busy += s.now - c.busySince
		}
		r.CPUStats = append(r.CPUStats, CPUReport{CPU: i, BusyNs: busy, Switches: c.switches, Preemptions: c.preemptions})
	}
	for i := range s.chans {
		cs := &s.chans[i]
		r.Channels = append(r.Channels, ChannelReport{Name: cs.def.name, Capacity: cs.def.capacity, Sent: cs.sent, Received: cs.received, MaxFill: cs.maxFill})
	}
	if s.series.interval > 0 {
		r.Shares = &ShareSeries{IntervalNs: s.series.interval, TimesNs: s.series.times, Runtime: s.series.runtime}
	}
	if s.cfg.Trace {
		r.trace = append(r.trace, s.trace...)
		r.flows = append(r.flows, s.flows...)
		for i := range s.cpus {
			c := &s.cpus[i]
			if c.curr < 0 {
				continue
			}
			// The slices still running end now.
			t := &s.tasks[c.curr]
			if s.now <= t.traceStart {
				continue
			}
			r.trace = append(r.trace, traceSlice{cpu: c.id, task: c.curr, start: t.traceStart, end: s.now})
			if t.flowPending {
				r.flows = append(r.flows, traceFlow{task: c.curr, from: t.flowFrom, to: c.id,
					fromStart: t.flowStart, fromEnd: t.flowEnd, toStart: t.traceStart, toEnd: s.now})
			}
		}
	}
	s.coreReport(r)
	return r
}

// placementReport is smp's placement counters.
func placementReport(st *smp.Stats) PlacementReport {
	p := PlacementReport{Forks: st.Forks, Wakeups: st.Wakeups, ForkBalance: st.ForkBalance,
		WakeWide: st.WakeWide, AffineThis: st.AffineThis, AffinePrev: st.AffinePrev,
		AffineMigrated: st.MigratedAffine}
	for _, rule := range smp.Rules() {
		p.Rules = append(p.Rules, RuleCount{Rule: rule.String(), Placed: st.Placed[rule], Migrated: st.Migrated[rule]})
	}
	return p
}

// migrationCauses is smp's migration counters by cause (MigrationCause).
func migrationCauses(st *smp.Stats) []MigrationCause {
	var out []MigrationCause
	var wakeups uint64
	for _, rule := range smp.Rules() {
		if n := st.Migrated[rule]; n > 0 {
			out = append(out, MigrationCause{Cause: "wakeup:" + rule.String(), Count: n})
			wakeups += n
		}
	}
	moved := wakeups
	for _, c := range []MigrationCause{{"balance", st.BalanceMoves}, {"active", st.ActiveMoves}, {"exec", st.ExecBalance}} {
		if c.Count > 0 {
			out = append(out, c)
			moved += c.Count
		}
	}
	if st.Migrations > moved {
		out = append(out, MigrationCause{Cause: "other", Count: st.Migrations - moved})
	}
	if st.ForkBalance > 0 {
		out = append(out, MigrationCause{Cause: "fork_balance", Count: st.ForkBalance})
	}
	return out
}

// usRound converts nanoseconds to whole microseconds, rounding half up.
func usRound(ns uint64) uint64 { return (ns + 500) / 1000 }

// latencyRows are the rows of cyclictest's summary, as the seed threads
// print it.
var latencyRows = []struct {
	label string
	get   func(*LatencySummary) uint64
}{
	{"Total Samples          ", func(l *LatencySummary) uint64 { return l.Count }},
	{"Average           (us) ", func(l *LatencySummary) uint64 { return usRound(uint64(l.Avg + 0.5)) }},
	{"Median (P50)      (us) ", func(l *LatencySummary) uint64 { return usRound(l.P50) }},
	{"90th Percentile   (us) ", func(l *LatencySummary) uint64 { return usRound(l.P90) }},
	{"99th Percentile   (us) ", func(l *LatencySummary) uint64 { return usRound(l.P99) }},
	{"99.9th Percentile (us) ", func(l *LatencySummary) uint64 { return usRound(l.P999) }},
	{"Maximum           (us) ", func(l *LatencySummary) uint64 { return usRound(l.Max) }},
}

// LatencyColumn is one column of a latency comparison table.
type LatencyColumn struct {
	Title   string         // column heading
	Summary LatencySummary // the variant's latencies
}

// WriteLatencyTable prints latency summaries side by side in the layout of
// the seed threads' cyclictest tables: values in µs, and from the second
// column on, the change from the previous column in percent
// (100·(new − old)/old, rounded), e.g. "64(-82%)".
func WriteLatencyTable(w io.Writer, cols []LatencyColumn) error {
	bw := bufio.NewWriter(w)
	var b strings.Builder
	flush := func() {
		bw.WriteString(strings.TrimRight(b.String(), " "))
		bw.WriteString("\n")
		b.Reset()
	}
	if len(cols) > 1 || (len(cols) == 1 && cols[0].Title != "") {
		fmt.Fprintf(&b, "%23s ", "")
		for _, c := range cols {
			fmt.Fprintf(&b, " %16s", c.Title)
		}
		flush()
	}
	for _, row := range latencyRows {
		fmt.Fprintf(&b, "%s|", row.label)
		for i := range cols {
			v := row.get(&cols[i].Summary)
			if i == 0 || row.label[0] == 'T' {
				fmt.Fprintf(&b, " %9d%7s", v, "")
				continue
			}
			fmt.Fprintf(&b, " %9d%-7s", v, pctChange(row.get(&cols[i-1].Summary), v))
		}
		flush()
	}
	return bw.Flush()
}

// pctChange formats 100·(v − old)/old rounded to the nearest percent, the
// sign first as in "(- 5%)"; "" when old is 0.
func pctChange(old, v uint64) string {
	if old == 0 {
		return ""
	}
	d := (float64(v) - float64(old)) * 100 / float64(old)
	sign := " "
	if d < 0 {
		sign, d = "-", -d
	}
	return fmt.Sprintf("(%s%2d%%)", sign, int64(d+0.5))
}

// WriteSchedLatency prints the tasks in the layout of perf sched latency:
// runtime, switches, average and maximum delay, and when the longest delay
// started and ended.
func (r *Report) WriteSchedLatency(w io.Writer) error {
	bw := bufio.NewWriter(w)
	nw := 22 // perf's task column, widened to the longest name (up to 48)
	for i := range r.Tasks {
		nw = max(nw, min(len(r.Tasks[i].Name), 48))
	}
	header := fmt.Sprintf("  %-*s |%-15s|%-10s|%-17s|%-17s|%-27s|%-25s|", nw, "Task",
		"   Runtime ms", " Switches", " Avg delay ms", " Max delay ms", " Max delay start", " Max delay end")
	line := " " + dashes(len(header)-1) + "\n"
	bw.WriteString(line)
	bw.WriteString(header + "\n")
	bw.WriteString(line)
	var total, switches uint64
	for i := range r.Tasks {
		t := &r.Tasks[i]
		total += t.RuntimeNs
		switches += t.Switches
		fmt.Fprintf(bw, "  %-*s |%11s ms |%9d | avg:%8s ms | max:%8s ms | max start: %12s s | max end: %12s s |\n",
			nw, trunc(t.Name, nw), ms3(t.RuntimeNs), t.Switches, ms3(t.AvgDelayNs), ms3(t.MaxDelayNs), s6(t.MaxDelayStartNs), s6(t.MaxDelayEndNs))
	}
	bw.WriteString(line)
	fmt.Fprintf(bw, "  %-*s |%11s ms |%9d |\n", nw, "TOTAL:", ms3(total), switches)
	bw.WriteString(" " + dashes(nw+29) + "\n")
	return bw.Flush()
}

func dashes(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '-'
	}
	return string(b)
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ms3 formats nanoseconds as milliseconds with three decimals, exactly
// (integer arithmetic, truncating below the microsecond).
func ms3(ns uint64) string {
	return strconv.FormatUint(ns/1e6, 10) + "." + fmt.Sprintf("%03d", ns/1e3%1e3)
}

// s6 formats nanoseconds as seconds with six decimals, exactly.
func s6(ns uint64) string {
	return strconv.FormatUint(ns/1e9, 10) + "." + fmt.Sprintf("%06d", ns/1e3%1e6)
}

// WriteText prints a human-readable report: the run's totals, per workload
// its cyclictest-style latency table and completion time, then the perf
// sched latency table of every task.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	feat := r.Features
	if feat == "" {
		feat = "kernel defaults"
	}
	if r.Kernel != "" {
		feat = r.Kernel + " " + feat
	}
	fmt.Fprintf(bw, "simulated %s s on %d CPU(s), seed %d, base slice %s ms, tick %s ms, features: %s\n",
		s6(r.EndNs), r.CPUs, r.Seed, ms3(r.BaseSliceNs), ms3(r.TickNs), feat)
	if r.CPUs > 1 {
		fmt.Fprintf(bw, "machine %s, nohz %s, %s start\n", r.Machine, r.Nohz, r.Preset)
	}
	if len(r.Capacities) > 0 {
		fmt.Fprintf(bw, "capacities %s\n", capacitiesText(r.Capacities))
	}
	if r.Preempt != "" || r.TimerSlackNs > 0 {
		fmt.Fprintf(bw, "preemption %s, timer slack %s ms, deferred reschedules %d\n",
			orDefault(r.Preempt, "full"), ms3(r.TimerSlackNs), r.DeferredResched)
	}
	fmt.Fprintf(bw, "events %d, context switches %d, preemptions %d, migrations %d, delayed wakeups %d",
		r.Events, r.ContextSwitches, r.Preemptions, r.Migrations, r.DelayedWakeups)
	if r.ForcedPicks > 0 || r.ForcedIdles > 0 {
		fmt.Fprintf(bw, ", forced picks %d, forced idles %d", r.ForcedPicks, r.ForcedIdles)
	}
	fmt.Fprintln(bw)
	if r.CoreScheduling {
		r.writeCore(bw)
	}
	if r.CPUs > 1 {
		// On one CPU every placement is single_cpu or in_place.
		r.writePlacement(bw)
	}
	if c := r.Conservation; c != nil {
		fmt.Fprintf(bw, "work conservation: CPUs idle %.2f%% of the time, %.3f%% while another CPU had 2+ runnable tasks (%d stretches, the longest %s ms; some CPU had 2+ for %s s)\n",
			100*c.IdleFraction, 100*c.StrandedFraction, c.Stretches, ms3(c.LongestNs), s3(c.OverloadedNs))
	}
	r.writeEnergyText(bw)
	for i := range r.Workloads {
		wr := &r.Workloads[i]
		fmt.Fprintf(bw, "\n== %s (%s): %d task(s), %s ms of CPU", wr.Name, wr.Kind, wr.NTasks, ms3(wr.RuntimeNs))
		if len(r.Capacities) > 0 {
			fmt.Fprintf(bw, ", %s ms of work", ms3(wr.WorkNs))
		}
		fmt.Fprintln(bw)
		if wr.Done {
			fmt.Fprintf(bw, "Time: %s\n", s3(wr.RunTimeNs))
		}
		for _, m := range wr.Marks {
			fmt.Fprintf(bw, "%s: %d\n", m.Label, m.Count)
		}
		if wr.Latency != nil {
			if err := bw.Flush(); err != nil {
				return err
			}
			if err := WriteLatencyTable(bw, []LatencyColumn{{Summary: *wr.Latency}}); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(bw)
	if err := bw.Flush(); err != nil {
		return err
	}
	return r.WriteSchedLatency(w)
}

// conservation is the System's work-conservation accounting from the
// start of the run to now, on several CPUs.
func (s *Sim) conservation() *ConservationReport {
	if len(s.cpus) < 2 {
		return nil
	}
	c, err := s.sys.Conservation(s.now + s.origin)
	if err != nil {
		s.fail(err)
		return nil
	}
	return &ConservationReport{
		IdleNs:           c.Idle,
		StrandedNs:       c.Stranded,
		OverloadedNs:     c.Overloaded,
		IdleFraction:     c.IdleFraction(),
		StrandedFraction: c.StrandedFraction(),
		Stretches:        c.Stretches,
		LongestNs:        c.LongestStretch,
	}
}

// writePlacement prints the placements and migrations by rule (the
// rules that placed something), the affine pulls among them, and the
// migrations of every other cause.
func (r *Report) writePlacement(w io.Writer) {
	p := &r.Placement
	fmt.Fprintf(w, "placement: %d wakeups, %d forks (%d away from the forking CPU); wake_wide %d, wake_affine for the waking CPU %d, for the previous one %d\n",
		p.Wakeups, p.Forks, p.ForkBalance, p.WakeWide, p.AffineThis, p.AffinePrev)
	fmt.Fprintf(w, "  %-12s %10s %10s\n", "rule", "placed", "migrated")
	for _, rc := range p.Rules {
		if rc.Placed > 0 {
			fmt.Fprintf(w, "  %-12s %10d %10d\n", rc.Rule, rc.Placed, rc.Migrated)
		}
	}
	if p.AffineMigrated > 0 {
		fmt.Fprintf(w, "  of the wakeups that migrated, affine pulls (wake_affine chose the waking CPU): %d\n", p.AffineMigrated)
	}
	for _, c := range r.MigrationCauses {
		switch c.Cause {
		case "balance":
			fmt.Fprintf(w, "  migrations by load balancing (sched_balance_rq): %d\n", c.Count)
		case "active":
			fmt.Fprintf(w, "  migrations by active balancing: %d\n", c.Count)
		case "exec":
			fmt.Fprintf(w, "  migrations by exec balancing: %d\n", c.Count)
		case "other":
			fmt.Fprintf(w, "  other migrations: %d\n", c.Count)
		}
	}
}

// s3 formats nanoseconds as seconds with three decimals (hackbench's
// "Time:"), exactly.
func s3(ns uint64) string {
	return strconv.FormatUint(ns/1e9, 10) + "." + fmt.Sprintf("%03d", ns/1e6%1e3)
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteCSV writes every metric of the report as rows of
// scope,name,metric,value: scope is run, conservation, placement (per rule), migration
// (per cause), cpu, workload, task or channel.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	row := func(scope, name, metric, value string) { cw.Write([]string{scope, name, metric, value}) }
	cw.Write([]string{"scope", "name", "metric", "value"})
	row("run", "", "seed", u(r.Seed))
	row("run", "", "cpus", strconv.Itoa(r.CPUs))
	row("run", "", "machine", r.Machine)
	if len(r.Capacities) > 0 {
		row("run", "", "capacities", capacitiesText(r.Capacities))
	}
	row("run", "", "nohz", r.Nohz)
	row("run", "", "preset", r.Preset)
	if r.Kernel != "" {
		row("run", "", "kernel", r.Kernel)
	}
	row("run", "", "features", r.Features)
	row("run", "", "base_slice_ns", u(r.BaseSliceNs))
	row("run", "", "tick_ns", u(r.TickNs))
	if r.Preempt != "" || r.TimerSlackNs > 0 {
		row("run", "", "preempt", orDefault(r.Preempt, "full"))
		row("run", "", "timer_slack_ns", u(r.TimerSlackNs))
		row("run", "", "deferred_resched", u(r.DeferredResched))
	}
	row("run", "", "end_ns", u(r.EndNs))
	row("run", "", "events", u(r.Events))
	row("run", "", "context_switches", u(r.ContextSwitches))
	row("run", "", "preemptions", u(r.Preemptions))
	row("run", "", "migrations", u(r.Migrations))
	row("run", "", "delayed_wakeups", u(r.DelayedWakeups))
	row("run", "", "forced_picks", u(r.ForcedPicks))
	row("run", "", "forced_idles", u(r.ForcedIdles))
	if c := r.Conservation; c != nil {
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		row("conservation", "", "idle_ns", u(c.IdleNs))
		row("conservation", "", "stranded_ns", u(c.StrandedNs))
		row("conservation", "", "overloaded_ns", u(c.OverloadedNs))
		row("conservation", "", "idle_fraction", f(c.IdleFraction))
		row("conservation", "", "stranded_fraction", f(c.StrandedFraction))
		row("conservation", "", "stretches", u(c.Stretches))
		row("conservation", "", "longest_ns", u(c.LongestNs))
	}
	p := &r.Placement
	row("placement", "", "forks", u(p.Forks))
	row("placement", "", "wakeups", u(p.Wakeups))
	row("placement", "", "fork_balance", u(p.ForkBalance))
	row("placement", "", "wake_wide", u(p.WakeWide))
	row("placement", "", "affine_this", u(p.AffineThis))
	row("placement", "", "affine_prev", u(p.AffinePrev))
	for _, rc := range p.Rules {
		row("placement", rc.Rule, "placed", u(rc.Placed))
		row("placement", rc.Rule, "migrated", u(rc.Migrated))
	}
	for _, m := range r.MigrationCauses {
		row("migration", m.Cause, "count", u(m.Count))
	}
	for _, c := range r.CPUStats {
		n := strconv.Itoa(c.CPU)
		row("cpu", n, "busy_ns", u(c.BusyNs))
		row("cpu", n, "forced_idle_ns", u(c.ForcedIdleNs))
		row("cpu", n, "switches", u(c.Switches))
		row("cpu", n, "preemptions", u(c.Preemptions))
		if k := c.Core; k != nil {
			row("cpu", n, "forced_idles", u(k.ForcedIdles))
			row("cpu", n, "steals", u(k.Steals))
			row("cpu", n, "tick_core", u(k.TickCore))
		}
	}
	lat := func(scope, name string, l *LatencySummary) {
		if l == nil {
			return
		}
		row(scope, name, "latency_count", u(l.Count))
		row(scope, name, "latency_min_ns", u(l.Min))
		row(scope, name, "latency_avg_ns", strconv.FormatFloat(l.Avg, 'f', 3, 64))
		row(scope, name, "latency_p50_ns", u(l.P50))
		row(scope, name, "latency_p90_ns", u(l.P90))
		row(scope, name, "latency_p99_ns", u(l.P99))
		row(scope, name, "latency_p99_9_ns", u(l.P999))
		row(scope, name, "latency_max_ns", u(l.Max))
	}
	marks := func(scope, name string, ms []MarkReport) {
		for _, m := range ms {
			row(scope, name, "mark_"+m.Label+"_count", u(m.Count))
			row(scope, name, "mark_"+m.Label+"_last_ns", u(m.LastNs))
		}
	}
	for i := range r.Workloads {
		wr := &r.Workloads[i]
		row("workload", wr.Name, "kind", wr.Kind)
		row("workload", wr.Name, "tasks", strconv.Itoa(wr.NTasks))
		row("workload", wr.Name, "start_ns", u(wr.StartNs))
		row("workload", wr.Name, "runtime_ns", u(wr.RuntimeNs))
		if len(r.Capacities) > 0 {
			row("workload", wr.Name, "work_ns", u(wr.WorkNs))
		}
		row("workload", wr.Name, "done", strconv.FormatBool(wr.Done))
		row("workload", wr.Name, "done_ns", u(wr.DoneNs))
		row("workload", wr.Name, "run_time_ns", u(wr.RunTimeNs))
		lat("workload", wr.Name, wr.Latency)
		marks("workload", wr.Name, wr.Marks)
	}
	for i := range r.Tasks {
		t := &r.Tasks[i]
		row("task", t.Name, "workload", t.Workload)
		row("task", t.Name, "cpu", strconv.Itoa(t.CPU))
		row("task", t.Name, "nice", strconv.Itoa(t.Nice))
		row("task", t.Name, "policy", t.Policy)
		row("task", t.Name, "slice_ns", u(t.SliceNs))
		row("task", t.Name, "cookie", u(t.Cookie))
		row("task", t.Name, "runtime_ns", u(t.RuntimeNs))
		if len(r.Capacities) > 0 {
			row("task", t.Name, "work_ns", u(t.WorkNs))
		}
		row("task", t.Name, "switches", u(t.Switches))
		row("task", t.Name, "preemptions", u(t.Preemptions))
		row("task", t.Name, "wakeups", u(t.Wakeups))
		row("task", t.Name, "delayed_wakeups", u(t.DelayedWakeups))
		row("task", t.Name, "migrations", u(t.Migrations))
		row("task", t.Name, "yields", u(t.Yields))
		row("task", t.Name, "delay_count", u(t.DelayCount))
		row("task", t.Name, "avg_delay_ns", u(t.AvgDelayNs))
		row("task", t.Name, "max_delay_ns", u(t.MaxDelayNs))
		row("task", t.Name, "max_delay_start_ns", u(t.MaxDelayStartNs))
		row("task", t.Name, "max_delay_end_ns", u(t.MaxDelayEndNs))
		row("task", t.Name, "exited", strconv.FormatBool(t.Exited))
		row("task", t.Name, "exit_ns", u(t.ExitNs))
		if k := t.Core; k != nil {
			row("task", t.Name, "forced_idle_suffered_ns", u(k.ForcedIdleSufferedNs))
			row("task", t.Name, "forced_idle_caused_ns", u(k.ForcedIdleCausedNs))
			row("task", t.Name, "stolen", u(k.Stolen))
		}
		lat("task", t.Name, t.Latency)
		marks("task", t.Name, t.Marks)
	}
	for _, c := range r.Channels {
		row("channel", c.Name, "capacity", strconv.Itoa(c.Capacity))
		row("channel", c.Name, "sent", u(c.Sent))
		row("channel", c.Name, "received", u(c.Received))
		row("channel", c.Name, "max_fill", strconv.Itoa(c.MaxFill))
	}
	r.writeEnergyCSV(row)
	cw.Flush()
	return cw.Error()
}

// WriteSamplesCSV writes every latency sample as rows of task,index,ns.
func (r *Report) WriteSamplesCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"task", "index", "latency_ns"})
	for i := range r.Tasks {
		for k, v := range r.Tasks[i].Samples {
			cw.Write([]string{r.Tasks[i].Name, strconv.Itoa(k), strconv.FormatUint(v, 10)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSharesCSV writes the runtime-share series (Config.ShareInterval) as
// rows of time_ns,task,runtime_ns: each task's cumulative CPU time at each
// sample.
func (r *Report) WriteSharesCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"time_ns", "task", "runtime_ns"})
	if sh := r.Shares; sh != nil {
		for i, at := range sh.TimesNs {
			for k, v := range sh.Runtime[i] {
				cw.Write([]string{strconv.FormatUint(at, 10), r.Tasks[k].Name, strconv.FormatUint(v, 10)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTrace writes the schedule recorded with Config.Trace as a Chrome
// trace-event JSON file, which ui.perfetto.dev and chrome://tracing open:
// one track per CPU ("CPU n", in CPU order) with one slice per stretch a
// task ran there, named after the task (category "sched"), and under core
// scheduling one per stretch the CPU was forced idle, named "forced idle"
// (category "forced_idle"); and for every task that ran on
// another CPU than the one it ran on before, a migration arrow (a flow
// event) from that earlier slice to the new one.
func (r *Report) WriteTrace(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	bw.WriteString(`{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"CPUs"}}`)
	for c := 0; c < r.CPUs; c++ {
		fmt.Fprintf(bw, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"CPU %d\"}}", c, c)
		fmt.Fprintf(bw, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"sort_index\":%d}}", c, c)
	}
	names := make([][]byte, len(r.Tasks))
	name := func(t int32) []byte {
		if names[t] == nil {
			names[t], _ = json.Marshal(r.Tasks[t].Name)
		}
		return names[t]
	}
	for _, ts := range r.trace {
		if ts.end <= ts.start {
			continue
		}
		if ts.task == forcedIdleSlice {
			fmt.Fprintf(bw, ",\n{\"name\":\"forced idle\",\"cat\":\"forced_idle\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%s,\"dur\":%s}",
				ts.cpu, usec3(ts.start), usec3(ts.end-ts.start))
			continue
		}
		fmt.Fprintf(bw, ",\n{\"name\":%s,\"cat\":\"sched\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%s,\"dur\":%s}",
			name(ts.task), ts.cpu, usec3(ts.start), usec3(ts.end-ts.start))
	}
	// Each arrow starts at the start of the slice the task left and ends
	// at the start of the slice it migrated to ("bp":"e": bound to the
	// slice enclosing that instant), so that both viewers bind it to the
	// two slices.
	for i, f := range r.flows {
		fmt.Fprintf(bw, ",\n{\"name\":\"migration\",\"cat\":\"sched\",\"ph\":\"s\",\"id\":%d,\"pid\":0,\"tid\":%d,\"ts\":%s,\"args\":{\"task\":%s,\"to_cpu\":%d}}",
			i+1, f.from, usec3(f.fromStart), name(f.task), f.to)
		fmt.Fprintf(bw, ",\n{\"name\":\"migration\",\"cat\":\"sched\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%d,\"pid\":0,\"tid\":%d,\"ts\":%s}",
			i+1, f.to, usec3(f.toStart))
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// usec3 formats nanoseconds as microseconds with three decimals, exactly.
func usec3(ns uint64) string {
	return strconv.FormatUint(ns/1000, 10) + "." + fmt.Sprintf("%03d", ns%1000)
}

// kernelName is the report's name of k: empty for the modelled kernel, so
// that a default run reports what it always did.
func kernelName(k eevdf.Kernel) string {
	if k == eevdf.KernelV73 {
		return ""
	}
	return k.String()
}

// kernelDefaults is the feature set of the run's kernel, against which
// reports and the scenario log name the features that differ.
func (s *Sim) kernelDefaults() features.Set {
	fs, err := features.Preset(s.cfg.Kernel.String())
	if err != nil { // New refused such a kernel
		return features.Default()
	}
	return fs
}
