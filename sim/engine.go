package sim

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// evKind is the kind of a queued event.
type evKind uint8

const (
	evStart   evKind = iota // a task is created (wake_up_new_task)
	evWake                  // a sleep or timer expires
	evDone                  // the running task reaches the end of its Run or SpinFor phase (on one CPU kept apart: Sim.doneAt)
	evResched               // a reschedule delayed by the wakeup cost
	evResume                // the switch cost has elapsed: the new task starts to progress
	evSample                // a runtime-share sample
	evPoint                 // a cond_resched or might_resched point of a Sys phase (preempt.go)
)

// evClass is the place of an event among the events of one instant: the
// serial order of KERNEL-SPEC-SMP §7.3, in which the kernel's concurrent
// CPUs are made sequential.
//
//  1. The jiffies advance when the instant is a tick instant (SetClock
//     on the System, before any event of the instant).
//  2. clsTimer: timer and sleep expiries, in arming order (the instant
//     the timer was armed; ties by task index), each woken on the CPU the
//     sleeper last ran on, with nil as the waker (§3.1 rule 6).
//  3. clsTick: the tick handlers, in ascending CPU id; each CPU
//     reschedules right after its own tick if it is flagged. The tick
//     instant is no queued event but Sim.tickAt (nextIsTick).
//  4. Kicks and the CPU stopper's works: smp runs them inside its own
//     calls (Tick, Schedule), so they are no events here.
//  5. clsResched: the reschedules still due — those the wakeups of step 2
//     and the ticks of step 3 asked for, and those a wakeup cost delayed
//     to this instant — in ascending CPU id.
//  6. clsTask: task-initiated events — a task created, a Run phase done
//     (after which the program blocks, wakes others, forks, exits), a
//     switched-in task starting to progress — at their own times, in the
//     order they were posted, after every event of steps 2 to 5 of their
//     instant. Within them every reschedule a call asks for runs at once,
//     in ascending CPU id (a preemption is immediate unless
//     Config.WakeupCost delays it).
//  7. clsSample: runtime-share samples, which only observe.
type evClass uint8

const (
	clsTimer evClass = iota
	clsTick
	clsResched
	clsTask
	clsSample
)

// classOf is each kind's class.
var classOf = [...]evClass{
	evStart:   clsTask,
	evWake:    clsTimer,
	evDone:    clsTask,
	evResched: clsResched,
	evResume:  clsTask,
	evSample:  clsSample,
	evPoint:   clsTask,
}

// resumeItem is a CPU whose newly switched-in task starts to progress now.
type resumeItem struct {
	cpu  int32
	task int32
	gen  uint32
}

// oneResume is the one CPU's resume slot: its task by pointer, which the
// drain in step reads without indexing the tasks (on one CPU the CPU is
// always 0).
type oneResume struct {
	t   *task
	gen uint32
}

// maxStepsAtOneTime bounds the program steps run without simulated time
// moving: beyond it a program is spinning in zero time (a livelock).
const maxStepsAtOneTime = 1 << 20

// Sim is one simulation: a machine whose fair class is an smp.System
// (one eevdf.CfsRq per CPU), the tasks of the configured workloads and an
// event queue. Create it with New, then call Run (or Step repeatedly). A
// Sim is not safe for concurrent use; independent Sims are.
type Sim struct {
	cfg       Config
	top       *topology.Topology
	sys       *smp.System
	hier      *eevdf.Hierarchy            // the task groups, nil without
	groups    map[string]*eevdf.TaskGroup // by name
	feat      features.Set
	preset    topology.Preset
	baseSlice uint64
	tickNsec  uint64
	origin    uint64 // the System's clock at simulated time 0 (newSystem)
	wakeCost  uint64
	swCost    uint64
	inHooks   bool // cfg.Trace, swCost > 0 or nohz idle: a switch-in has more to do than queue its resume (switchInHooks)
	outHooks  bool // cfg.Trace or debug: a switch-out ends a trace slice or checks the runtime (switchOutHooks)
	stop      uint64

	// Preemption model and timer slack (preempt.go, slack.go).
	model      eevdf.PreemptModel
	condEvery  uint64       // cond_resched points in Sys phases (none, voluntary)
	mightEvery uint64       // might_resched points in Sys phases (voluntary)
	here       int32        // the CPU whose code runs now, −1 if none in particular
	slackq     []slackTimer // timed sleeps with slack, in arming order
	deferred   uint64       // requests honoured after the model deferred them

	now     uint64
	seq     uint64
	queue   eventQueue // every event but the tick instant and a completion kept apart
	cpus    []cpu
	tasks   []task
	chans   []chanState
	wls     []wlInfo
	labels  []string
	hooks   []func(HookEvent)
	rng     *rand.PCG
	resume  []resumeItem
	rhead   int
	resumed bool      // a switch-in waits to resume: resume1 on one CPU, else in resume
	resume1 oneResume // the one CPU's last switch-in (doneApart)
	live    int       // tasks not exited
	steps   int       // program steps at the current time
	done    bool
	err     error
	halt    bool // done, err != nil or live == 0: step's one test of the run's end, kept by every place that sets one of them
	debug   bool
	hooked  bool // debug or cfg.Progress: endStep has work at every step
	nextPct uint64

	// Ticks and reschedules (§7.3).
	ticking    *topology.Mask // NohzIdle: the CPUs whose tick runs (busy ones)
	tickPosted bool           // a tick instant is pending, at tickAt
	tickAt     uint64         // (kept out of the queue: see nextIsTick)
	meter      *energyMeter   // Config.EnergyModel's accounting, sampled at tick instants; nil without
	due        *topology.Mask // CPUs whose reschedule is due at this instant
	nDue       int
	flushing   bool

	// The running task's completion, on one CPU (kept out of the queue:
	// see nextIsDone).
	doneApart  bool   // completions are kept here: the machine has one CPU
	donePosted bool   // a completion is pending, at doneAt
	doneAt     uint64 // its time,
	doneSeq    uint64 // its posting sequence,
	doneTask   *task  // its task (by pointer: step reads it without indexing the tasks)
	doneGen    uint32 // and the task's gen when it was posted

	// Counters.
	events         uint64
	ctxSwitches    uint64
	preemptions    uint64
	delayedWakeups uint64
	forcedIdles    uint64

	trace  []traceSlice
	flows  []traceFlow
	series shareSeries
	slog   *scenarioLog
	core   *coreSim   // core scheduling (coresched.go); nil without a cookie
	ftrace *ftraceLog // WriteFtrace (ftrace.go)
}

// wlInfo is a workload's identity in one simulation.
type wlInfo struct {
	name, kind string
	first, n   int32 // its tasks: tasks[first : first+n]
}

// New builds a simulation from cfg. Every configuration error is returned;
// nothing in New or Run panics on caller input.
func New(cfg Config) (*Sim, error) {
	s := &Sim{cfg: cfg, debug: cfg.Debug, hooked: cfg.Debug || cfg.Progress != nil}
	if err := s.configure(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	return s, nil
}

// Simulate is New followed by Sim.Run.
func Simulate(cfg Config) (*Report, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return s.Run()
}

func (s *Sim) configure() error {
	cfg := &s.cfg
	m, caps, hz, err := cfg.resolveMachine()
	if err != nil {
		return err
	}
	if cfg.Duration <= 0 {
		return fmt.Errorf("duration must be positive (it is the stop time)")
	}
	s.stop = uint64(cfg.Duration)
	kernelDefaults, err := features.Preset(cfg.Kernel.String())
	if err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	if cfg.Features != nil {
		s.feat = *cfg.Features
	} else {
		s.feat = kernelDefaults
	}
	if err := s.feat.Validate(); err != nil {
		return err
	}
	for _, f := range features.All() {
		if s.feat.Has(f) && !features.Exists(cfg.Kernel.String(), f) {
			return fmt.Errorf("features: %v has no %v", cfg.Kernel, f)
		}
	}
	if cfg.BaseSlice < 0 {
		return fmt.Errorf("negative base slice")
	}
	if cfg.HZ == 0 {
		cfg.HZ = hz // 1000, or the machine preset's
	}
	if cfg.HZ < 1 || cfg.HZ > 100000 {
		return fmt.Errorf("hz %d outside 1..100000", cfg.HZ)
	}
	s.tickNsec = eevdf.TickNsecForHZ(uint64(cfg.HZ))
	if cfg.WakeupCost < 0 || cfg.SwitchCost < 0 || cfg.ShareInterval < 0 || cfg.StartJitter < 0 {
		return fmt.Errorf("negative cost, sample interval or start jitter")
	}
	s.wakeCost, s.swCost = uint64(cfg.WakeupCost), uint64(cfg.SwitchCost)
	s.inHooks = cfg.Trace || s.swCost != 0 || cfg.Nohz == smp.NohzIdle
	s.outHooks = cfg.Trace || s.debug
	if err := s.configurePreempt(); err != nil {
		return err
	}
	if cfg.Timeline > eevdf.RBTree {
		return fmt.Errorf("unknown timeline backend %d", cfg.Timeline)
	}
	if cfg.Nohz > smp.NohzIdle {
		return fmt.Errorf("unknown nohz mode %d", cfg.Nohz)
	}
	s.preset = topology.Warm
	if cfg.Preset != nil {
		if *cfg.Preset != topology.Boot && *cfg.Preset != topology.Warm {
			return fmt.Errorf("unknown preset %d", *cfg.Preset)
		}
		s.preset = *cfg.Preset
	}
	top, err := buildTopology(m, caps)
	if err != nil {
		return err
	}
	cfg.Machine, cfg.CPUs = m, top.NumCPUs()
	if err := s.newSystem(top); err != nil {
		return err
	}
	s.cpus = make([]cpu, cfg.CPUs)
	for i := range s.cpus {
		s.cpus[i] = cpu{id: int32(i), rq: s.sys.RQ(i), capacity: top.CPUCapacity(i), curr: -1}
	}
	s.ticking, s.due = top.NewMask(), top.NewMask()
	s.doneApart = cfg.CPUs == 1
	if cfg.Nohz == smp.NohzOff {
		// Every CPU ticks, idle or not, from the first tick instant.
		s.postTick()
	} else {
		// With nohz idle, a CPU idle since boot ticks until its idle
		// loop stops the tick (a warm machine's are stopped already).
		for i := range s.cpus {
			if !s.tickStops(&s.cpus[i]) {
				s.ticking.Set(i)
			}
		}
		if !s.ticking.Empty() {
			s.postTick()
		}
	}
	if err := s.makeGroups(cfg.Groups); err != nil {
		return err
	}
	s.rng = rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)
	comp := newCompiler()
	comp.noSlice = cfg.Kernel == eevdf.KernelV66
	for wi, w := range cfg.Workloads {
		if w == nil {
			return fmt.Errorf("workload %d is nil", wi)
		}
		specs, err := w.Tasks()
		if err != nil {
			return fmt.Errorf("workload %q: %w", w.Name(), err)
		}
		info := wlInfo{name: w.Name(), kind: w.Kind(), first: int32(len(s.tasks)), n: int32(len(specs))}
		// One allocation for the workload's tasks, not a doubling per
		// append: a task is over 500 bytes, and the copies left behind by
		// growing a slice of thousands of them are what the collector
		// would find first.
		s.tasks = slices.Grow(s.tasks, len(specs))
		for i := range specs {
			if err := s.addTask(comp, int32(wi), &specs[i]); err != nil {
				return fmt.Errorf("workload %q: task %q: %w", w.Name(), specs[i].Name, err)
			}
		}
		s.wls = append(s.wls, info)
	}
	if len(s.tasks) > 1<<30 {
		return fmt.Errorf("too many tasks")
	}
	s.labels = comp.lNames
	s.hooks = comp.hooks
	s.chans = make([]chanState, len(comp.chList))
	for i, ch := range comp.chList {
		s.chans[i].def = ch
	}
	for i := range s.tasks {
		s.tasks[i].marks = make([]markStat, len(s.labels))
	}
	s.live = len(s.tasks)
	s.halt = s.live == 0
	if cfg.ShareInterval > 0 {
		s.series.interval = uint64(cfg.ShareInterval)
		s.sampleShares()
		s.post(s.series.interval, evSample, -1, -1, 0)
	}
	s.nextPct = s.stop / 100
	if cfg.ScenarioLog != nil {
		if s.core != nil {
			return errors.New("scenario log: core scheduling (a task with a cookie) has no scenario form")
		}
		if err := s.startScenarioLog(cfg.ScenarioLog); err != nil {
			return err
		}
	}
	return nil
}

// addTask validates and compiles one task, makes it a task of the System
// and posts its creation. A task is forked on the lowest CPU it may use
// (its launcher runs there), and placed by WakeUpNew when it starts.
func (s *Sim) addTask(comp *compiler, wl int32, sp *TaskSpec) error {
	if sp.Nice < eevdf.MinNice || sp.Nice > eevdf.MaxNice {
		return fmt.Errorf("nice %d outside %d..%d", sp.Nice, eevdf.MinNice, eevdf.MaxNice)
	}
	if sp.Policy > eevdf.PolicyIdle {
		return fmt.Errorf("unknown policy %d", sp.Policy)
	}
	if sp.Slice < 0 || sp.Start < 0 || sp.TimerSlack < 0 {
		return fmt.Errorf("negative slice, start time or timer slack")
	}
	home := 0
	for i, c := range sp.CPUs {
		if c < 0 || c >= s.cfg.CPUs {
			return fmt.Errorf("CPU %d outside 0..%d", c, s.cfg.CPUs-1)
		}
		if i == 0 || c < home {
			home = c
		}
	}
	prog, err := comp.compile(sp.Program)
	if err != nil {
		return err
	}
	var group *eevdf.TaskGroup
	if sp.Group != "" && sp.Group != "/" {
		group = s.groups[sp.Group]
		if group == nil {
			return fmt.Errorf("unknown group %q", sp.Group)
		}
	}
	if sp.Slice != 0 && s.cfg.Kernel == eevdf.KernelV66 {
		return fmt.Errorf("slice: %w", errNoCustomSlices)
	}
	se, err := eevdf.NewEntity(sp.Name,
		eevdf.WithDefaultSlice(s.baseSlice),
		eevdf.WithNice(sp.Nice),
		eevdf.WithPolicy(sp.Policy),
		eevdf.WithSlice(uint64(sp.Slice)),
		eevdf.WithGroup(group))
	if err != nil {
		return err
	}
	topts := []smp.TaskOption{smp.WithCPU(home)}
	if len(sp.CPUs) > 0 {
		topts = append(topts, smp.WithAllowed(sp.CPUs...))
	}
	if c, ok := s.cookieOf(sp.Cookie); ok {
		topts = append(topts, smp.WithCookie(c))
	}
	st, err := s.sys.NewTask(se, topts...)
	if err != nil {
		return err
	}
	if err := s.tagNew(st, sp.Cookie); err != nil {
		return err
	}
	start := uint64(sp.Start)
	if j := uint64(s.cfg.StartJitter); j > 0 {
		if start > ^uint64(0)-j {
			return fmt.Errorf("start %v plus the start jitter overflows", sp.Start)
		}
		start += s.randN(j)
	}
	idx := int32(len(s.tasks))
	if st.ID() != int(idx) {
		return fmt.Errorf("task %q: smp made it task %d, the simulator's is %d", sp.Name, st.ID(), idx)
	}
	t := task{
		name:      sp.Name,
		wl:        wl,
		idx:       idx,
		se:        se,
		st:        st,
		code:      prog.code,
		slots:     make([]uint64, prog.slots),
		timers:    make([]timerState, prog.timers),
		cookie:    sp.Cookie,
		slice:     uint64(sp.Slice),
		start:     start,
		runCPU:    -1,
		lastCPU:   -1,
		lastReply: -1,
		slack:     s.slackOf(sp),
	}
	t.lat = make([]uint64, 0, latencyCapacity(prog, s.stop))
	t.decodeCycle()
	s.tasks = append(s.tasks, t)
	st.SetData(idx)
	s.post(start, evStart, idx, -1, 0)
	return nil
}

// latencyCapacity guesses how many latency samples a program records, so
// that recording them does not allocate: one per period of its fastest
// timer over the run, if it records latencies at all.
func latencyCapacity(p *program, stop uint64) int {
	hasLat := false
	var period uint64
	for _, in := range p.code {
		switch in.op {
		case opLatency:
			hasLat = true
		case opTimer, opRTTimer:
			if period == 0 || in.a < period {
				period = in.a
			}
		}
	}
	if !hasLat {
		return 0
	}
	if period == 0 {
		return 1024
	}
	return int(min(stop/period+2, 1<<22))
}

// post queues an event.
func (s *Sim) post(at uint64, k evKind, t, c int32, gen uint32) {
	s.seq++
	e := s.queue.add()
	e.at, e.seq, e.ord, e.task, e.cpu, e.gen, e.kind, e.cls = at, s.seq, 0, t, c, gen, k, classOf[k]
	e.key = e.orderKey()
	s.queue.up()
}

// postTimer queues the expiry of a timer t armed now, which orders it
// among the expiries of its instant (§7.3 step 2).
func (s *Sim) postTimer(at uint64, t int32, gen uint32) {
	s.seq++
	e := s.queue.add()
	e.at, e.seq, e.ord, e.task, e.cpu, e.gen, e.kind, e.cls = at, s.seq, s.now, t, -1, gen, evWake, clsTimer
	e.key = e.orderKey()
	s.queue.up()
}

// postDone posts the completion at at of task t running on CPU c (gen:
// its stint). On one CPU it is kept apart as the pending completion
// (nextIsDone), with the sequence number post would have given it,
// replacing the pending one, stale by then (only the task the CPU runs,
// while it progresses, has a live completion, and the switch-out drops it);
// one posted for a stint that has already ended is dropped, as a stale
// event would be.
func (s *Sim) postDone(at uint64, t *task, c int32, gen uint32) {
	if !s.doneApart {
		s.post(at, evDone, t.idx, c, gen)
		return
	}
	s.seq++
	if t.gen != gen {
		return
	}
	s.donePosted = true
	s.doneAt, s.doneSeq, s.doneTask, s.doneGen = at, s.seq, t, gen
}

// fail records the first internal error; the run stops at the next step.
func (s *Sim) fail(err error) {
	if s.err == nil && err != nil {
		s.err = fmt.Errorf("sim: at %v: %w", time.Duration(s.now), err)
		s.halt = true
	}
}

// Now returns the simulated time.
func (s *Sim) Now() time.Duration { return time.Duration(s.now) }

// Done reports whether the simulation has ended: the stop time was reached,
// every task exited, or an error occurred.
func (s *Sim) Done() bool { return s.done || s.err != nil }

// Step processes the next event and everything it sets off at the same
// simulated time — except that the reschedules a timer expiry or a tick
// asks for wait until the last timer expiry, tick and delayed reschedule
// of the instant has been processed (a later Step), as the order of an
// instant in the package documentation prescribes. A tick instant is one Step for every CPU
// that ticks. It returns false once the simulation has ended, and the
// error that ended it, if any.
func (s *Sim) Step() (bool, error) {
	ok := s.step()
	return ok, s.err
}

// Run runs the simulation to its end and returns the report.
func (s *Sim) Run() (*Report, error) {
	for s.step() {
	}
	s.flushScenarioLog()
	s.flushFtrace()
	if s.err != nil {
		return nil, s.err
	}
	if s.cfg.Progress != nil {
		s.cfg.Progress(1)
	}
	return s.Report(), nil
}

func (s *Sim) step() bool {
	// One test of a flag for the three ways a run ends (the stop time,
	// an error, the last task's exit), where there were three loads and
	// tests at every step.
	if s.halt {
		if !s.done && s.err == nil { // every task has exited
			s.done = true
		}
		return false
	}
	if s.donePosted && s.nextIsDone() {
		if s.pastStop(s.doneAt) {
			return false
		}
		s.donePosted = false
		s.advance(s.doneAt)
		// complete, written out: one call less for the most common
		// event on one CPU (the end of a Run phase). Its test of the
		// completion's staleness is left out: a pending completion kept
		// apart is always live (nextIsDone says why), which check
		// verifies after every step in debug mode.
		t := s.doneTask
		s.events++
		if t.pc+1 == t.cycSleep {
			s.cycleEnd(&s.cpus[0], t) // phaseDone's first case, without its call
		} else {
			s.phaseDone(&s.cpus[0], t)
		}
	} else {
		// The tick or a queued event; a completion (clsTask) has
		// none of steps 2 to 5 to wait for, and goes straight to the
		// resumes below.
		var cls evClass
		if s.nextIsTick() {
			if s.pastStop(s.tickAt) {
				return false
			}
			s.advance(s.tickAt)
			s.ticks()
			if s.meter != nil {
				s.sampleEnergy()
			}
			cls = clsTick
		} else {
			if len(s.queue.ev) == 0 {
				s.done, s.halt = true, true
				return false
			}
			h := &s.queue.ev[0]
			if s.pastStop(h.at) {
				return false
			}
			if h.kind == evWake {
				// A timer's expiry, the most common queued event, is
				// read in place rather than copied, and handled here
				// rather than in dispatch: the task wakes unless the
				// event is stale.
				at, ti, gen := h.at, h.task, h.gen
				s.queue.removeTop()
				s.advance(at)
				if t := &s.tasks[ti]; t.state == stBlocked && t.wakeGen == gen {
					s.events++
					cpu := int32(t.st.CPU())
					s.here = cpu
					s.wakeBy(t, nil, 0) // wake(t, -1, false)
					if len(s.slackq) > 0 {
						s.expireSlack(cpu) // the same timer interrupt runs the other expired timers
					}
				}
				cls = clsTimer
			} else {
				ev := *h
				s.queue.removeTop()
				s.advance(ev.at)
				s.dispatch(&ev)
				cls = ev.cls
			}
		}
		if cls < clsTask {
			if s.moreBeforeTasks() {
				// More of steps 2 to 5 at this instant: the reschedules
				// and the tasks they switch in wait for them.
				return s.endStep()
			}
			s.flushDue() // §7.3 step 5
		}
	}
	if s.resumed {
		if !s.doneApart {
			s.drainResumes()
			return s.endStep()
		}
		// drainResumes on one CPU, written out here: the slot resume1,
		// refilled while the task it resumes runs, until it is empty.
		// One call less for half the events of one CPU.
		//
		// The generation alone says whether the slot's task still
		// runs: every switch-out counts a new one (switchTo), and on
		// one CPU a task leaves the CPU, or stops running, only by a
		// switch-out (a sleep or an exit sets the state first, but an
		// error between the two ends the loop). So the tests of the
		// CPU's current task and of the task's state, which the drain
		// of several CPUs makes, cannot fail here and are left out.
		// TestDoneApartKeepsOrder compares this drain with that one.
		for s.resumed && s.err == nil {
			s.resumed = false
			t := s.resume1.t
			if t.gen != s.resume1.gen || t.progressing {
				continue
			}
			// resumeTask's two commonest cases, without its call: a
			// phase that continues (a hog, a preempted burst) and the
			// decoded loop resumed after its sleep.
			switch c := &s.cpus[0]; {
			case t.inRun:
				s.resumePhase(c, t)
			case t.pc == t.cycJump:
				s.cycleRun(c, t)
			default:
				s.resumeTask(c, t)
			}
		}
		s.resumed = false
	}
	return s.endStep()
}

// nextIsTick reports whether the next event is the pending tick instant.
// There is at most one, so it is kept apart from the queue, where it would
// cost a push and a pop every tick: it comes before the queue's least
// event if earlier, or at the same time if that event's class is later
// than clsTick (two events of different classes never tie).
func (s *Sim) nextIsTick() bool {
	if !s.tickPosted {
		return false
	}
	return len(s.queue.ev) == 0 || s.tickAt < s.queue.ev[0].at || s.tickAt == s.queue.ev[0].at && s.queue.ev[0].cls > clsTick
}

// nextIsDone reports whether the next event is the pending completion
// (donePosted). There is at most one live completion on one CPU, and a
// preemption makes it stale: kept apart from the queue, it costs no push
// and pop, and a preemption drops it (switchTo) rather than leave a
// stale event to pop. So a pending completion is always live
// (task.completes): its task still runs in the stint it was posted in,
// as every switch-out of it drops it, and is still in the phase it was
// posted for, as a phase ends only by this completion or after a
// switch-in (resumePhase), and a new one is posted only after the last
// has ended; a posting for a stint already over is dropped (postDone).
// It comes after the pending tick if that is not later (the tick's class
// is earlier), and before the queue's least event in the order of
// event.before: if earlier, or at the same time if that event's class is
// later than clsTask, or is clsTask but was posted after it.
func (s *Sim) nextIsDone() bool {
	if s.tickPosted && s.tickAt <= s.doneAt {
		return false
	}
	if len(s.queue.ev) == 0 {
		return true
	}
	h := &s.queue.ev[0]
	return s.doneAt < h.at || s.doneAt == h.at && (h.cls > clsTask || h.cls == clsTask && s.doneSeq < h.seq)
}

// moreBeforeTasks reports whether an event of steps 2 to 5 (a class
// before clsTask) is still pending at the current instant.
func (s *Sim) moreBeforeTasks() bool {
	return s.tickPosted && s.tickAt == s.now ||
		len(s.queue.ev) > 0 && s.queue.ev[0].at == s.now && s.queue.ev[0].cls < clsTask
}

// pastStop reports whether the next event, at at, lies past the stop
// time, and if so ends the run there.
func (s *Sim) pastStop(at uint64) bool {
	if at <= s.stop {
		return false
	}
	s.now, s.done, s.halt = s.stop, true, true
	return true
}

// advance moves the simulated time to the instant of the next event, and
// with it the System's clock: every CPU's update_rq_clock (applied lazily
// by smp) and the jiffies, once per instant (§7.3 step 1).
//
// SetClock's error is dropped: the time only moves forward here, and the
// origin plus the stop time (both below 2^63) cannot wrap, so the
// System's clock never goes backwards. Without an error path, and with
// the sum taken from at rather than from s.now read again, advance is
// within the compiler's inlining budget and inlines into step.
func (s *Sim) advance(at uint64) {
	if at != s.now {
		s.now = at
		s.steps = 0
		_ = s.sys.SetClock(at + s.origin)
	}
}

// endStep checks the invariants in debug mode and reports progress.
func (s *Sim) endStep() bool {
	if s.hooked {
		s.checkAndReport()
	}
	return s.err == nil
}

// checkAndReport is endStep's work, when there is any: kept out of line,
// so that endStep, called at every step, inlines.
func (s *Sim) checkAndReport() {
	if s.debug && s.err == nil {
		s.fail(s.check())
	}
	if s.cfg.Progress != nil && s.now >= s.nextPct {
		s.cfg.Progress(float64(s.now) / float64(s.stop))
		s.nextPct = s.now + max(s.stop/100, 1)
	}
}

// dispatch handles one event other than a timer's expiry (evWake, which
// step handles itself); stale events are dropped without counting.
func (s *Sim) dispatch(ev *event) {
	switch ev.kind {
	case evStart:
		s.events++
		s.here = -1
		s.startTask(ev.task)
	case evDone:
		s.complete(ev.task, ev.gen)
	case evResched:
		s.events++
		c := &s.cpus[ev.cpu]
		s.here = c.id
		c.reschedPending = false
		s.markDue(c.id)
	case evResume:
		t := &s.tasks[ev.task]
		c := &s.cpus[ev.cpu]
		if t.gen != ev.gen || c.curr != ev.task || t.state != stRunning || t.progressing {
			return
		}
		s.events++
		s.resumeTask(c, t)
	case evSample:
		s.events++
		s.sampleShares()
		s.post(s.now+s.series.interval, evSample, -1, -1, 0)
	case evPoint:
		s.point(&s.cpus[ev.cpu], ev.task, ev.gen)
	}
}

// complete is a completion of task ti posted in its stint gen, queued
// (evDone) or kept apart (nextIsDone): the end of its Run or Spin phase,
// unless the completion is stale.
func (s *Sim) complete(ti int32, gen uint32) {
	t := &s.tasks[ti]
	if !t.completes(gen) {
		return
	}
	s.events++
	s.phaseDone(&s.cpus[t.runCPU], t)
}

// pushResume queues a task that starts to progress at the current time.
// On one CPU the queue is one slot, resume1: every switch-in before the
// last has been switched out since, which made its item stale (switchTo
// counts a new stint), so only the last can still resume, and a slot
// spares the slice's append and its walk.
func (s *Sim) pushResume(c int32, t *task) {
	s.resumed = true
	if s.doneApart {
		s.resume1 = oneResume{t: t, gen: t.gen}
		return
	}
	s.resume = append(s.resume, resumeItem{cpu: c, task: t.idx, gen: t.gen})
}

// drainResumes runs the tasks switched in at the current time, in order
// (on several CPUs; step drains the one slot of one CPU itself).
func (s *Sim) drainResumes() {
	for s.rhead < len(s.resume) && s.err == nil {
		it := s.resume[s.rhead]
		s.rhead++
		t := &s.tasks[it.task]
		c := &s.cpus[it.cpu]
		if t.gen != it.gen || c.curr != it.task || t.state != stRunning || t.progressing {
			continue
		}
		s.resumeTask(c, t)
	}
	s.resume = s.resume[:0]
	s.rhead = 0
	s.resumed = false
}

// randN draws uniformly from [0, n) with the seeded PCG (Lemire's method,
// unbiased). n must be positive: every caller has tested it (a phase's
// jitter, the start jitter), as a draw for n = 0 would still take a
// number from the sequence, so randN does not test it again.
func (s *Sim) randN(n uint64) uint64 {
	hi, lo := bits.Mul64(s.rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.rng.Uint64(), n)
		}
	}
	return hi
}

// addSat returns a+b, saturating at the largest time.
func addSat(a, b uint64) uint64 {
	if c := a + b; c >= a {
		return c
	}
	return ^uint64(0)
}

// makeGroups creates the configured task groups, parents first.
func (s *Sim) makeGroups(gs []Group) error {
	if len(gs) == 0 {
		return nil
	}
	s.groups = map[string]*eevdf.TaskGroup{}
	for _, g := range gs {
		if _, dup := s.groups[g.Name]; dup {
			return fmt.Errorf("group %q declared twice", g.Name)
		}
		var parent *eevdf.TaskGroup
		if g.Parent != "" && g.Parent != "/" {
			parent = s.groups[g.Parent]
			if parent == nil {
				return fmt.Errorf("group %q: parent %q is not declared before it", g.Name, g.Parent)
			}
		}
		var opts []eevdf.GroupOption
		if g.Weight != 0 {
			opts = append(opts, eevdf.WithCPUWeight(g.Weight))
		}
		if g.Nice != nil {
			opts = append(opts, eevdf.WithCPUWeightNice(*g.Nice))
		}
		if g.Idle {
			opts = append(opts, eevdf.WithIdleGroup())
		}
		tg, err := s.hier.NewGroup(g.Name, parent, opts...)
		if err != nil {
			return fmt.Errorf("group %q: %w", g.Name, err)
		}
		s.groups[g.Name] = tg
	}
	return nil
}
