package replay

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/trace"
)

// Mode B: free. Each fair task of the trace becomes a simulator program
// that needs what the trace shows it needed, and the simulator runs them
// on as many CPUs as the trace has, with the model's own placement,
// balancing and preemption (TRACE-REPLAY Part II §3, perf sched replay's
// idea with the model in the kernel's place):
//
//	a run until a block      Run(the CPU time the trace gave it since its
//	                         previous block: preemptions do not count)
//	a wakeup by a traced     the waker's program sends a message at the
//	fair task                point of its own run where it woke it (after
//	                         as much CPU time), the wakee's receives it:
//	                         Recv, then a Latency sample
//	a wakeup by anything     SleepUntil the recorded time, then a Latency
//	else (a timer, an        sample
//	interrupt, idle, a
//	real-time task)
//	an exit                  the program ends
//
// A task created in the trace (sched_wakeup_new) starts then; every other
// starts at time 0, running if the trace first shows it running or
// runnable, waiting for its first wakeup otherwise. Real-time and deadline
// tasks are left out: their CPU time goes to the fair tasks. Messages are
// never lost: a wakeup the model makes before the wakee waits is kept
// (perf sched replay's semaphore).

// MaxFreeSpan bounds the span of a trace mode B simulates (every CPU
// ticks through it).
const MaxFreeSpan = time.Hour

// FreeSide is one side's view of a task, or of the whole run.
type FreeSide struct {
	RuntimeNs   int64 `json:"runtime_ns"`
	Switches    int64 `json:"switches"`    // times switched in
	Preemptions int64 `json:"preemptions"` // times switched out runnable
	Wakeups     int64 `json:"wakeups"`
	Migrations  int64 `json:"migrations"`
	Wakeup      Dist  `json:"wakeup_latency"` // wakeup to switch-in
	DelayCount  int64 `json:"delay_count"`    // runnable to switch-in
	DelayAvg    int64 `json:"delay_avg_ns"`
	DelayMax    int64 `json:"delay_max_ns"`
	// Placed counts the wakeups of a task that had run before, Stayed
	// those of them placed on the CPU it last ran on (trace: the
	// sched_wakeup's target_cpu; model: its own placement).
	Placed int64 `json:"placed"`
	Stayed int64 `json:"stayed"`
}

// FreeTask is one fair task: the trace's side and the model's.
type FreeTask struct {
	Pid   int32    `json:"pid"`
	Comm  string   `json:"comm"`
	Prio  int32    `json:"prio"`
	Trace FreeSide `json:"trace"`
	Model FreeSide `json:"model"`
	// Toggled is the model under Options.Compare, if set.
	Toggled *FreeSide `json:"toggled,omitempty"`
}

// FreeReport is what a mode B replay found.
type FreeReport struct {
	Mode     string   `json:"mode"`     // "free"
	Kernel   string   `json:"kernel"`   // the fair class the model followed
	Features string   `json:"features"` // the differences from v7.3's defaults, as in Report
	CPUs     int      `json:"cpus"`
	HZ       int      `json:"hz"`
	Start    int64    `json:"start"`
	End      int64    `json:"end"`
	Trace    FreeSide `json:"trace"` // summed over the tasks (latencies: all samples)
	Model    FreeSide `json:"model"`
	// With Options.Compare: the second model run and its features (their
	// differences from the kernel's own defaults).
	Toggled *FreeSide  `json:"toggled,omitempty"`
	Compare string     `json:"compare,omitempty"`
	Tasks   []FreeTask `json:"tasks"`
	// Samples are the wakeup latencies Trace, Model and Toggled
	// summarise, ns, ascending; they are left out of the JSON (a plot
	// draws them).
	Samples FreeSamples `json:"-"`
	// The programs: message and timer waits, and the tasks left out.
	MessageWaits int `json:"message_waits"`
	TimerWaits   int `json:"timer_waits"`
	OtherClass   int `json:"other_class_tasks"`
}

// FreeSamples are a mode B replay's wakeup latencies over all its tasks,
// ns: the trace's, the model's and, with Options.Compare, the toggled
// model's (nil without).
type FreeSamples struct {
	Trace, Model, Toggled []int64
}

// prog is one task's program as it is built.
type prog struct {
	k        *task
	phases   []sim.Phase
	start    int64 // ns after the trace's start
	started  bool
	exited   bool
	running  bool
	since    int64 // switch-in time while running
	acc      int64 // CPU time since the last phase
	waiting  bool  // blocked: the next wakeup says how it waits
	ch       *sim.Channel
	wokeAt   int64
	readyAt  int64
	wake     []int64
	delays   []int64
	switches int64
	preempts int64
	wakeups  int64
	migr     int64
	runtime  int64
	lastCPU  int32 // where it last ran, −1 unknown
	placed   int64 // wakeups with lastCPU known,
	stayed   int64 // of them placed on lastCPU
}

// Free replays evs in mode B and reports each fair task's latencies, run
// time, switches and migrations in the trace and in the model.
// Options.Kernel is the fair class every simulated CPU follows (sim's
// Config.Kernel: its arithmetic, base slice and feature defaults;
// placement and balancing stay the modelled kernel's); Options.Features,
// when set, replaces that kernel's defaults, and Options.Compare is a
// whole feature set of the same kernel. A feature the kernel lacks is an
// error. HZ and CPUs apply as in Pinned.
func Free(evs []trace.Event, opt Options) (*FreeReport, error) {
	e, err := newEngine(evs, opt) // for the checks, the CPU count and HZ
	if err != nil {
		return nil, err
	}
	rep := &FreeReport{Mode: "free", Kernel: opt.Kernel.String(), Features: e.rep.Features, CPUs: e.rep.CPUs, HZ: int(e.rep.HZ), Start: e.rep.Start, End: e.rep.End}
	if len(e.evs) == 0 {
		return rep, nil
	}
	t0 := e.start
	if e.rep.End-t0 > int64(MaxFreeSpan) {
		return nil, fmt.Errorf("%w: the trace spans %v; mode B simulates at most %v", ErrOptions, time.Duration(e.rep.End-t0), MaxFreeSpan)
	}
	progs := map[int32]*prog{}
	var order []*prog
	get := func(t trace.Task) *prog {
		k := e.taskOf(t)
		if k == nil {
			return nil
		}
		p := progs[k.pid]
		if p == nil {
			p = &prog{k: k, wokeAt: -1, readyAt: -1, lastCPU: -1}
			progs[k.pid] = p
			order = append(order, p)
		}
		return p
	}
	flush := func(p *prog, t int64) {
		if p.running {
			p.acc += t - p.since
			p.runtime += t - p.since
			p.since = t
		}
		if p.acc > 0 {
			p.phases = append(p.phases, sim.Run(time.Duration(p.acc)))
			p.acc = 0
		}
	}
	for i := range e.evs {
		ev := &e.evs[i]
		t := ev.Time
		switch ev.Kind {
		case trace.KindSwitch:
			if prev := get(ev.Task); prev != nil {
				prev.started = true
				if prev.running {
					prev.acc += t - prev.since
					prev.runtime += t - prev.since
				}
				prev.running = false
				switch {
				case ev.PrevState.Exited():
					flush(prev, t)
					prev.exited = true
				case ev.PrevState.Runnable():
					prev.preempts++
					prev.readyAt = t
				default:
					flush(prev, t)
					prev.waiting = true
				}
			}
			if next := get(ev.Next); next != nil && !next.exited {
				next.started = true
				next.running, next.since, next.lastCPU = true, t, ev.CPU
				next.switches++
				if next.wokeAt >= 0 {
					next.wake = append(next.wake, t-next.wokeAt)
					next.wokeAt = -1
				}
				if next.readyAt >= 0 {
					next.delays = append(next.delays, t-next.readyAt)
					next.readyAt = -1
				}
			}
		case trace.KindMigrateTask:
			if p := get(ev.Task); p != nil {
				p.migr++
			}
		case trace.KindWakeupNew, trace.KindWakeup, trace.KindWaking:
			if ev.Kind == trace.KindWaking && e.rep.hasWakeup {
				continue
			}
			p := get(ev.Task)
			if p == nil || p.exited {
				continue
			}
			if !p.started {
				p.started = true
				if ev.Kind == trace.KindWakeupNew {
					p.start = t - t0
				} else {
					p.waiting = true // asleep since before the trace
				}
			}
			if !p.waiting {
				if ev.Kind == trace.KindWakeupNew {
					p.readyAt = t
				}
				continue
			}
			p.waiting = false
			p.wakeups++
			p.wokeAt, p.readyAt = t, t
			if p.lastCPU >= 0 && ev.TargetCPU >= 0 && ev.Kind != trace.KindWaking {
				p.placed++
				if ev.TargetCPU == p.lastCPU {
					p.stayed++
				}
			}
			waker := progs[ev.Ctx]
			if waker != nil && waker != p && waker.k.fair && waker.running {
				if p.ch == nil {
					p.ch = sim.NewChannel(fmt.Sprintf("wake-%d", p.k.pid), 1<<20, false)
				}
				flush(waker, t)
				waker.phases = append(waker.phases, sim.Send(p.ch, 1))
				p.phases = append(p.phases, sim.Recv(p.ch, 1), sim.Latency())
				rep.MessageWaits++
			} else {
				p.phases = append(p.phases, sim.SleepUntil(time.Duration(t-t0)), sim.Latency())
				rep.TimerWaits++
			}
		}
	}
	var specs []sim.TaskSpec
	var kept []*prog
	for _, p := range order {
		if !p.k.fair {
			rep.OtherClass++
			continue
		}
		flush(p, e.rep.End)
		if len(p.phases) == 0 {
			continue
		}
		specs = append(specs, sim.TaskSpec{
			Name:        fmt.Sprintf("%s-%d", p.k.comm, p.k.pid),
			TaskOptions: sim.TaskOptions{Nice: int(p.k.prio) - 120, Start: time.Duration(p.start)},
			Program:     p.phases,
		})
		kept = append(kept, p)
	}
	if len(specs) == 0 {
		return rep, nil
	}
	run := func(feat *features.Set) (map[string]*sim.TaskReport, map[string][2]int64, error) {
		cfg := sim.Config{
			Seed: 1, CPUs: rep.CPUs, Duration: time.Duration(e.rep.End - t0 + 1),
			Kernel: opt.Kernel, Features: feat, HZ: rep.HZ,
			Workloads: []sim.Workload{sim.Custom("trace", specs...)},
		}
		if opt.BaseSlice != 0 {
			cfg.BaseSlice = time.Duration(opt.BaseSlice)
		}
		sm, err := sim.New(cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("replay: mode B: %w", err)
		}
		// The model's placements, read from its own run as ftrace text.
		pr, pw := io.Pipe()
		if err := sm.WriteFtrace(pw); err != nil {
			return nil, nil, fmt.Errorf("replay: mode B: %w", err)
		}
		places := make(chan []int64, 1)
		go func() { places <- modelPlacements(pr, len(specs)) }()
		sr, err := sm.Run()
		pw.CloseWithError(err)
		counts := <-places
		if err != nil {
			return nil, nil, fmt.Errorf("replay: mode B: %w", err)
		}
		byName := map[string]*sim.TaskReport{}
		placed := map[string][2]int64{}
		for i := range sr.Tasks {
			byName[sr.Tasks[i].Name] = &sr.Tasks[i]
		}
		for i := range specs {
			placed[specs[i].Name] = [2]int64{counts[2*i], counts[2*i+1]}
		}
		return byName, placed, nil
	}
	base, basePlaced, err := run(opt.Features)
	if err != nil {
		return nil, err
	}
	var cmp map[string]*sim.TaskReport
	var cmpPlaced map[string][2]int64
	var allCmp []int64
	if opt.Compare != nil {
		if cmp, cmpPlaced, err = run(opt.Compare); err != nil {
			return nil, err
		}
		kdef, err := featuresFor(Options{Kernel: opt.Kernel})
		if err != nil {
			return nil, err
		}
		rep.Compare = opt.Compare.Diff(kdef)
		rep.Toggled = &FreeSide{}
	}
	var allTrace, allModel []int64
	for i, p := range kept {
		ft := FreeTask{Pid: p.k.pid, Comm: p.k.comm, Prio: p.k.prio}
		ft.Trace = FreeSide{RuntimeNs: p.runtime, Switches: p.switches, Preemptions: p.preempts, Wakeups: p.wakeups,
			Migrations: p.migr, Wakeup: distOf(slices.Clone(p.wake)), DelayCount: int64(len(p.delays)),
			Placed: p.placed, Stayed: p.stayed}
		for _, d := range p.delays {
			ft.Trace.DelayAvg += d
			ft.Trace.DelayMax = max(ft.Trace.DelayMax, d)
		}
		if len(p.delays) > 0 {
			ft.Trace.DelayAvg /= int64(len(p.delays))
		}
		allTrace = append(allTrace, p.wake...)
		var samples []int64
		ft.Model, samples = sideOf(base[specs[i].Name])
		ft.Model.Placed, ft.Model.Stayed = basePlaced[specs[i].Name][0], basePlaced[specs[i].Name][1]
		allModel = append(allModel, samples...)
		rep.Trace.add(&ft.Trace)
		rep.Model.add(&ft.Model)
		if cmp != nil {
			side, samples := sideOf(cmp[specs[i].Name])
			side.Placed, side.Stayed = cmpPlaced[specs[i].Name][0], cmpPlaced[specs[i].Name][1]
			ft.Toggled = &side
			allCmp = append(allCmp, samples...)
			rep.Toggled.add(&side)
		}
		rep.Tasks = append(rep.Tasks, ft)
	}
	if rep.Toggled != nil {
		rep.Toggled.Wakeup = distOf(allCmp)
		rep.Samples.Toggled = allCmp
	}
	rep.Trace.Wakeup, rep.Model.Wakeup = distOf(allTrace), distOf(allModel)
	rep.Samples.Trace, rep.Samples.Model = allTrace, allModel
	return rep, nil
}

// modelPlacements reads a simulated run's ftrace text and returns, for
// task i (pid i+1), at 2i the wakeups of it after it had run and at 2i+1
// those placed on the CPU it last ran on. It reads r to its end.
func modelPlacements(r io.Reader, n int) []int64 {
	counts := make([]int64, 2*n)
	last := make([]int32, n)
	for i := range last {
		last[i] = -1
	}
	tr, err := trace.NewReader(r, trace.Options{Format: trace.FormatFtrace, Name: "model"})
	if err == nil {
		for ev, err := range tr.All() {
			if err != nil {
				break
			}
			switch i := int(ev.Next.Pid) - 1; {
			case ev.Kind == trace.KindSwitch && i >= 0 && i < n:
				last[i] = ev.CPU
			case ev.Kind == trace.KindWakeup:
				if j := int(ev.Task.Pid) - 1; j >= 0 && j < n && last[j] >= 0 {
					counts[2*j]++
					if ev.TargetCPU == last[j] {
						counts[2*j+1]++
					}
				}
			}
		}
	}
	_, _ = io.Copy(io.Discard, r) // the writer never blocks on an early end
	return counts
}

// sideOf is the model's side of a task from the simulator's report, and
// its latency samples.
func sideOf(m *sim.TaskReport) (FreeSide, []int64) {
	if m == nil {
		return FreeSide{}, nil
	}
	f := FreeSide{RuntimeNs: int64(m.RuntimeNs), Switches: int64(m.Switches), Preemptions: int64(m.Preemptions),
		Wakeups: int64(m.Wakeups), Migrations: int64(m.Migrations), DelayCount: int64(m.DelayCount),
		DelayAvg: int64(m.AvgDelayNs), DelayMax: int64(m.MaxDelayNs)}
	s := make([]int64, len(m.Samples))
	for i, x := range m.Samples {
		s[i] = int64(x)
	}
	f.Wakeup = distOf(slices.Clone(s))
	return f, s
}

// add sums the counters of s into f (latencies are summarised apart).
func (f *FreeSide) add(s *FreeSide) {
	f.RuntimeNs += s.RuntimeNs
	f.Switches += s.Switches
	f.Preemptions += s.Preemptions
	f.Wakeups += s.Wakeups
	f.Migrations += s.Migrations
	if n := f.DelayCount + s.DelayCount; n > 0 {
		f.DelayAvg = (f.DelayAvg*f.DelayCount + s.DelayAvg*s.DelayCount) / n
	}
	f.DelayCount += s.DelayCount
	f.DelayMax = max(f.DelayMax, s.DelayMax)
	f.Placed += s.Placed
	f.Stayed += s.Stayed
}

// WriteJSON writes the report as one indented JSON object.
func (r *FreeReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteText writes the totals, trace against model, and the busiest
// tasks (at most tasks rows; 0: all).
func (r *FreeReport) WriteText(w io.Writer, tasks int) error {
	var b strings.Builder
	feat := r.Features
	if feat == "" {
		feat = "kernel defaults"
	}
	fmt.Fprintf(&b, "mode B (free) on %d CPU(s), kernel %s, features: %s, HZ %d; %d message waits, %d timer waits, %d tasks of other classes left out\n",
		r.CPUs, r.Kernel, feat, r.HZ, r.MessageWaits, r.TimerWaits, r.OtherClass)
	b.WriteString("stayed: the wakeups of a task that had run placed on the CPU it last ran on\n")
	fmt.Fprintf(&b, "trace %s .. %s (%s)\n\n", sec(r.Start), sec(r.End), ms(r.End-r.Start))
	fmt.Fprintf(&b, "%-14s %12s %10s %11s %9s %10s %7s | wakeup latency µs: %7s %9s %9s %9s | run delay µs: %9s %9s\n",
		"", "runtime ms", "switches", "preemptions", "wakeups", "migrations", "stayed", "count", "p50", "p99", "max", "avg", "max")
	side := func(name string, s FreeSide) {
		stayed := "-"
		if s.Placed > 0 {
			stayed = fmt.Sprintf("%.1f%%", 100*float64(s.Stayed)/float64(s.Placed))
		}
		fmt.Fprintf(&b, "%-14s %12.3f %10d %11d %9d %10d %7s | %26d %9s %9s %9s | %23s %9s\n", name, float64(s.RuntimeNs)/1e6,
			s.Switches, s.Preemptions, s.Wakeups, s.Migrations, stayed, s.Wakeup.Count, us(s.Wakeup.P50), us(s.Wakeup.P99), us(s.Wakeup.Max), us(s.DelayAvg), us(s.DelayMax))
	}
	side("trace", r.Trace)
	side("model", r.Model)
	if r.Toggled != nil {
		side("toggled", *r.Toggled)
		fmt.Fprintf(&b, "(toggled: the model with %s)\n", r.Compare)
	}
	ts := slices.Clone(r.Tasks)
	slices.SortStableFunc(ts, func(a, b FreeTask) int { return int(b.Trace.RuntimeNs - a.Trace.RuntimeNs) })
	if tasks > 0 && len(ts) > tasks {
		ts = ts[:tasks]
	}
	fmt.Fprintf(&b, "\n%d busiest of %d tasks, trace then model:\n", len(ts), len(r.Tasks))
	for _, t := range ts {
		fmt.Fprintf(&b, "%s\n", fmt.Sprintf("%s-%d", t.Comm, t.Pid))
		side("  trace", t.Trace)
		side("  model", t.Model)
		if t.Toggled != nil {
			side("  toggled", *t.Toggled)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
