package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/trace"
)

// Cause is what ended the previous task's run at a switch.
type Cause uint8

// The causes. CauseNone is no cause at all (a CPU nothing kicked since
// its last switch).
const (
	CauseBlock      Cause = iota // the previous task blocked or exited
	CauseWakeup                  // it was preempted after a wakeup or an arrival on the CPU
	CauseSliceEnd                // it was preempted after a tick (its slice ran out), or with nothing seen
	CauseIdle                    // the CPU was idle
	CauseOtherClass              // a real-time, deadline or unknown task on either side: not scored
	numCauses
	CauseNone Cause = 255
)

var causeNames = [numCauses]string{"block", "wakeup preemption", "slice end", "from idle", "other class"}

// String names the cause.
func (c Cause) String() string {
	if c < numCauses {
		return causeNames[c]
	}
	return "none"
}

// MarshalText writes the cause's name.
func (c Cause) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Agreement counts scored picks and those where the model picked the
// kernel's task.
type Agreement struct {
	Scored int `json:"scored"`
	Agreed int `json:"agreed"`
}

func (a *Agreement) add(agree bool) {
	a.Scored++
	if agree {
		a.Agreed++
	}
}

// Percent is the share of agreeing picks, 100 when none was scored.
func (a Agreement) Percent() float64 {
	if a.Scored == 0 {
		return 100
	}
	return 100 * float64(a.Agreed) / float64(a.Scored)
}

// CauseAgreement is the agreement of the picks of one cause.
type CauseAgreement struct {
	Cause Cause `json:"cause"`
	Agreement
}

// CPUAgreement is one CPU's agreement.
type CPUAgreement struct {
	CPU   int32 `json:"cpu"`
	Picks int   `json:"picks"` // switches recorded on it
	Agreement
	ByCause []CauseAgreement `json:"by_cause"`
}

// Runnable is one runnable task of the model at a disagreement: times in
// ns of virtual time relative to the queue's V (avg_vruntime).
type Runnable struct {
	Pid      int32  `json:"pid"`
	Comm     string `json:"comm"`
	Vruntime int64  `json:"vruntime"` // vruntime − V
	Deadline int64  `json:"deadline"` // deadline − V
	Lag      int64  `json:"lag"`      // V − vruntime, weighted as the kernel's lag is not
	Eligible bool   `json:"eligible"`
	Delayed  bool   `json:"delayed"`
	Running  bool   `json:"running"` // the model's running task at the pick
	Weight   uint64 `json:"weight"`
}

// Disagreement is one scored pick where the model chose another task
// than the kernel, with the model's runnable set just before its pick.
type Disagreement struct {
	Time      int64      `json:"t"`
	CPU       int32      `json:"cpu"`
	Cause     Cause      `json:"cause"`
	Prev      int32      `json:"prev"`
	PrevState string     `json:"prev_state"`
	Kernel    int32      `json:"kernel"` // the trace's next (0: idle)
	Model     int32      `json:"model"`  // the model's pick (0: idle)
	Runnable  []Runnable `json:"runnable"`
}

// ReschedStats compares the preemption verdicts: the kernel's (a switch
// that leaves the previous task runnable) and the model's (a reschedule
// it asks for at a wakeup, an arrival or a tick).
type ReschedStats struct {
	// KernelPreempted: the kernel's preemptions of a fair task (scored
	// switches with R or R+), by cause, and how many of them the model
	// asked for too.
	KernelPreempted []CauseAgreement `json:"kernel_preempted"`
	// Kept counts the model's requests at instants the trace shows no
	// switch for where its pick was the running task anyway; Preempted
	// those where it would have switched and the kernel did not, by
	// cause.
	Kept      int `json:"kept"`
	Preempted int `json:"preempted"`
	// Late counts those of Preempted that the kernel made at the CPU's
	// next switch: the same preemption, later than the model (an IPI,
	// a lazy request, a preemption point).
	Late    int              `json:"late"`
	ByCause []CauseAgreement `json:"preempted_by_cause"`
	byCause [numCauses]int
}

// Coverage says how much of the trace the replay used.
type Coverage struct {
	Events       int    `json:"events"`       // events in the trace
	Used         int    `json:"used"`         // events that drove the model
	NotUsed      int    `json:"not_used"`     // kinds a replay does not use (exec, stat_runtime, …)
	Dropped      int    `json:"dropped"`      // events naming no task or no CPU of the replay
	Tasks        int    `json:"tasks"`        // pids seen
	FairTasks    int    `json:"fair_tasks"`   // of them, fair-class tasks
	Ticks        int    `json:"ticks"`        // ticks of a running task (the trace's or made)
	Repairs      int    `json:"repairs"`      // times the model was moved to where the trace has a task it had elsewhere (not a task seen for the first time)
	Picks        int    `json:"picks"`        // switches
	Scored       int    `json:"scored"`       // of them, scored
	Inconsistent int    `json:"inconsistent"` // not scored: the model had to be repaired, or the CPU was unknown
	OtherClass   int    `json:"other_class"`  // not scored: a task of another class on either side
	BurnedIn     int    `json:"burned_in"`    // not scored: before the burn-in ended
	BurnIn       int64  `json:"burn_in_ns"`   // the burn-in
	TickSource   string `json:"tick_source"`  // "trace" or "made"
}

// Dist is a latency distribution, ns.
type Dist struct {
	Count int   `json:"count"`
	P50   int64 `json:"p50"`
	P90   int64 `json:"p90"`
	P99   int64 `json:"p99"`
	Max   int64 `json:"max"`
}

// TaskLatency is one fair task's latencies as the trace recorded them:
// from a wakeup to its switch-in, and from becoming runnable (a wakeup or
// a preemption) to its switch-in.
type TaskLatency struct {
	Pid      int32  `json:"pid"`
	Comm     string `json:"comm"`
	Prio     int32  `json:"prio"`
	Wakeup   Dist   `json:"wakeup_latency"`
	RunDelay Dist   `json:"run_delay"`
	// WakeupSamples and RunDelaySamples are the latencies the two
	// distributions summarise, ns, in ascending order; they are left out
	// of the JSON (a plot draws them).
	WakeupSamples   []int64 `json:"-"`
	RunDelaySamples []int64 `json:"-"`
}

// ScoredPick is one scored pick: when, on which CPU, and whether the
// model picked the kernel's task.
type ScoredPick struct {
	Time  int64
	CPU   int32
	Agree bool
}

// Window is the agreement of the picks scored from Start (ns, trace
// clock) for a window's width.
type Window struct {
	Start int64
	Agreement
}

// Report is what a replay found.
type Report struct {
	Mode      string `json:"mode"` // "pinned"
	Kernel    string `json:"kernel"`
	Features  string `json:"features"` // the differences from the modelled kernel's defaults, "" if none
	CPUs      int    `json:"cpus"`
	HZ        uint64 `json:"hz"`
	BaseSlice uint64 `json:"base_slice"` // scaled, ns
	Start     int64  `json:"start"`
	End       int64  `json:"end"`

	Overall       Agreement        `json:"overall"`
	ByCause       []CauseAgreement `json:"by_cause"`
	PerCPU        []CPUAgreement   `json:"per_cpu"`
	Resched       ReschedStats     `json:"resched"`
	Disagreements []Disagreement   `json:"disagreements"`
	Latency       []TaskLatency    `json:"latency"`
	Coverage      Coverage         `json:"coverage"`
	// Picks are the scored picks in the trace's order (as many as
	// Overall.Scored), left out of the JSON: Timeline windows them.
	Picks []ScoredPick `json:"-"`

	byCause   [numCauses]Agreement
	verdict   [numCauses]Agreement
	hasWakeup bool
}

// taskLat is what a task's latencies collect.
type taskLat struct {
	wake, delay []int64
}

// cpuAcct is one CPU's agreement as it accumulates.
type cpuAcct struct {
	picks int
	all   Agreement
	cause [numCauses]Agreement
}

func newReport(e *engine, cpus int, hz uint64) *Report {
	r := &Report{Mode: "pinned", Kernel: e.opt.Kernel.String(), CPUs: cpus, HZ: hz}
	r.Features = e.feat.Diff(features.Default())
	if len(e.cpus) > 0 {
		r.BaseSlice = e.cpus[0].rq.BaseSlice()
	}
	r.Coverage.Events = len(e.evs)
	r.Coverage.BurnIn = e.opt.BurnIn
	r.Coverage.TickSource = "made"
	if e.ownTicks {
		r.Coverage.TickSource = "trace"
	}
	switches := 0
	for i := range e.evs {
		switch e.evs[i].Kind {
		case trace.KindWakeup:
			r.hasWakeup = true
		case trace.KindSwitch:
			switches++
		}
	}
	// Every scored pick is a switch: one allocation holds them all.
	r.Picks = make([]ScoredPick, 0, switches)
	return r
}

// fill builds the tables from the accumulated counts.
func (r *Report) fill(e *engine) {
	for c := range numCauses {
		if c != CauseOtherClass {
			r.ByCause = append(r.ByCause, CauseAgreement{c, r.byCause[c]})
		}
		if c == CauseWakeup || c == CauseSliceEnd {
			r.Resched.KernelPreempted = append(r.Resched.KernelPreempted, CauseAgreement{c, r.verdict[c]})
		}
		if n := r.Resched.byCause[c]; n > 0 {
			r.Resched.ByCause = append(r.Resched.ByCause, CauseAgreement{Cause: c, Agreement: Agreement{Scored: n}})
		}
	}
	for c := range e.cpus {
		a := &e.cpus[c].acct
		if a.picks == 0 {
			continue
		}
		ca := CPUAgreement{CPU: int32(c), Picks: a.picks, Agreement: a.all}
		for k := range numCauses {
			if k != CauseOtherClass && a.cause[k].Scored > 0 {
				ca.ByCause = append(ca.ByCause, CauseAgreement{k, a.cause[k]})
			}
		}
		r.PerCPU = append(r.PerCPU, ca)
	}
	for _, k := range e.order {
		if !k.fair || len(k.lat.wake)+len(k.lat.delay) == 0 {
			continue
		}
		r.Latency = append(r.Latency, TaskLatency{Pid: k.pid, Comm: k.comm, Prio: k.prio, Wakeup: distOf(k.lat.wake), RunDelay: distOf(k.lat.delay),
			WakeupSamples: k.lat.wake, RunDelaySamples: k.lat.delay})
	}
	if r.Disagreements == nil {
		r.Disagreements = []Disagreement{}
	}
}

// distOf sorts xs and takes its percentiles (nearest rank).
func distOf(xs []int64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	slices.Sort(xs)
	rank := func(p int) int64 { return xs[(len(xs)*p+99)/100-1] }
	return Dist{Count: len(xs), P50: rank(50), P90: rank(90), P99: rank(99), Max: xs[len(xs)-1]}
}

// Timeline returns the agreement of the picks scored on cpu (−1: on every
// CPU) in consecutive windows of width ns from r.Start to r.End, one per
// window, those with no scored pick included (Scored 0). A width of 0
// picks one (TimelineWidth). It costs O(len(r.Picks) + windows).
func (r *Report) Timeline(cpu int32, width int64) []Window {
	if width <= 0 {
		width = r.TimelineWidth()
	}
	n := (r.End-r.Start)/width + 1
	ws := make([]Window, n)
	for i := range ws {
		ws[i].Start = r.Start + int64(i)*width
	}
	for _, p := range r.Picks {
		if cpu >= 0 && p.CPU != cpu {
			continue
		}
		i := min(max((p.Time-r.Start)/width, 0), n-1)
		ws[i].add(p.Agree)
	}
	return ws
}

// TimelineWidth is the window Timeline uses by default: the smallest 1, 2
// or 5 times a power of ten of ns, at least 1 µs, that cuts the trace into
// 200 windows or fewer (a 9 s trace: 50 ms windows; a 4.5 ms one: 50 µs).
func (r *Report) TimelineWidth() int64 {
	return step((r.End - r.Start) / 200)
}

// step is the smallest 1, 2 or 5 times a power of ten, at least 1000,
// that is greater than d.
func step(d int64) int64 {
	for w := int64(1000); ; w *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*w > d {
				return m * w
			}
		}
	}
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteText writes the report for a reader: the agreement overall, by
// cause and per CPU, the reschedules no switch took, the disagreements in
// full, the latencies of the busiest tasks (at most tasks rows; 0: all)
// and the coverage.
func (r *Report) WriteText(w io.Writer, tasks int) error {
	var b strings.Builder
	feat := r.Features
	if feat == "" {
		feat = "kernel defaults"
	}
	fmt.Fprintf(&b, "mode A (pinned) on %d CPU(s), kernel %s, features: %s, HZ %d, base slice %s\n", r.CPUs, r.Kernel, feat, r.HZ, ms(int64(r.BaseSlice)))
	fmt.Fprintf(&b, "trace %s .. %s (%s)\n\n", sec(r.Start), sec(r.End), ms(r.End-r.Start))
	fmt.Fprintf(&b, "pick agreement: %s\n", agr(r.Overall))
	for _, c := range r.ByCause {
		fmt.Fprintf(&b, "  %-18s %s\n", c.Cause, agr(c.Agreement))
	}
	b.WriteString("per CPU:\n")
	for _, c := range r.PerCPU {
		fmt.Fprintf(&b, "  CPU %-3d %s of %d switches\n", c.CPU, agr(c.Agreement), c.Picks)
	}
	b.WriteString("preemptions by the kernel the model asked for too:\n")
	for _, c := range r.Resched.KernelPreempted {
		fmt.Fprintf(&b, "  %-18s %s\n", c.Cause, agr(c.Agreement))
	}
	fmt.Fprintf(&b, "reschedules the model asked for where the trace shows no switch at that instant: %d kept the running task, %d would have preempted (%d made by the kernel at its next switch)", r.Resched.Kept, r.Resched.Preempted, r.Resched.Late)
	for i, c := range r.Resched.ByCause {
		sep := "; by cause: "
		if i > 0 {
			sep = ", "
		}
		fmt.Fprintf(&b, "%s%s %d", sep, c.Cause, c.Scored)
	}
	b.WriteString("\n")
	if len(r.Disagreements) > 0 {
		fmt.Fprintf(&b, "\nfirst %d disagreements (model state before its pick; vruntime and deadline relative to V, * eligible):\n", len(r.Disagreements))
		for _, d := range r.Disagreements {
			fmt.Fprintf(&b, "  %s CPU %d, %s: prev %d (%s), kernel picked %d, model %d\n", sec(d.Time), d.CPU, d.Cause, d.Prev, d.PrevState, d.Kernel, d.Model)
			for _, t := range d.Runnable {
				mark := " "
				if t.Eligible {
					mark = "*"
				}
				flags := ""
				if t.Running {
					flags += " running"
				}
				if t.Delayed {
					flags += " delayed"
				}
				fmt.Fprintf(&b, "    %s %-22s vruntime %+12d  deadline %+12d  lag %+11d  weight %d%s\n", mark, fmt.Sprintf("%s-%d", t.Comm, t.Pid), t.Vruntime, t.Deadline, t.Lag, t.Weight, flags)
			}
		}
	}
	if len(r.Latency) > 0 {
		lat := slices.Clone(r.Latency)
		slices.SortStableFunc(lat, func(a, b TaskLatency) int { return b.RunDelay.Count - a.RunDelay.Count })
		if tasks > 0 && len(lat) > tasks {
			lat = lat[:tasks]
		}
		fmt.Fprintf(&b, "\ntrace latencies, µs (%d busiest of %d fair tasks): wakeup to switch-in | runnable to switch-in\n", len(lat), len(r.Latency))
		fmt.Fprintf(&b, "  %-24s %7s %9s %9s %9s %9s | %7s %9s %9s %9s %9s\n", "task", "wakeups", "p50", "p90", "p99", "max", "waits", "p50", "p90", "p99", "max")
		for _, l := range lat {
			fmt.Fprintf(&b, "  %-24s %7d %9s %9s %9s %9s | %7d %9s %9s %9s %9s\n", fmt.Sprintf("%s-%d", l.Comm, l.Pid),
				l.Wakeup.Count, us(l.Wakeup.P50), us(l.Wakeup.P90), us(l.Wakeup.P99), us(l.Wakeup.Max),
				l.RunDelay.Count, us(l.RunDelay.P50), us(l.RunDelay.P90), us(l.RunDelay.P99), us(l.RunDelay.Max))
		}
	}
	c := r.Coverage
	fmt.Fprintf(&b, "\ncoverage: %d events, %d used, %d of kinds a replay does not use, %d dropped; %d tasks (%d fair); %d ticks (%s); %d repairs\n",
		c.Events, c.Used, c.NotUsed, c.Dropped, c.Tasks, c.FairTasks, c.Ticks, c.TickSource, c.Repairs)
	fmt.Fprintf(&b, "  %d switches: %d scored, %d inconsistent, %d of other classes, %d in the burn-in (%s)\n",
		c.Picks, c.Scored, c.Inconsistent, c.OtherClass, c.BurnedIn, ms(c.BurnIn))
	_, err := io.WriteString(w, b.String())
	return err
}

func agr(a Agreement) string {
	return fmt.Sprintf("%d of %d (%.2f%%)", a.Agreed, a.Scored, a.Percent())
}

func sec(ns int64) string { return fmt.Sprintf("%d.%09d s", ns/1e9, ns%1e9) }
func ms(ns int64) string  { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }
func us(ns int64) string  { return fmt.Sprintf("%.1f", float64(ns)/1e3) }
