package sim

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// evKind is the kind of a queued event.
type evKind uint8

const (
	evStart   evKind = iota // a task is created (wake_up_new_task)
	evWake                  // a sleep or timer expires
	evDone                  // the running task reaches the end of its Run or SpinFor phase
	evTick                  // the periodic scheduler tick of a CPU
	evResched               // a reschedule delayed by the wakeup cost
	evResume                // the switch cost has elapsed: the new task starts to progress
	evSample                // a runtime-share sample
)

// event is one entry of the event queue. Events are ordered by (at, seq):
// equal times run in the order they were posted, which makes a run
// deterministic. gen lets a handler recognise an event made stale by a
// later decision (a preempted task's completion) without searching the
// queue.
type event struct {
	at   uint64
	seq  uint64
	task int32
	cpu  int32
	gen  uint32
	kind evKind
}

func (a *event) before(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// eventHeap is a binary min-heap of events: O(log n) push and pop, no
// allocation once it has reached its steady-state size.
type eventHeap []event

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	q := *h
	// Sift up with a hole: parents move down until e's place is found.
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&q[p]) {
			break
		}
		q[i] = q[p]
		i = p
	}
	q[i] = e
}

func (h *eventHeap) pop() event {
	q := *h
	top := q[0]
	n := len(q) - 1
	x := q[n]
	q = q[:n]
	// Sift the last event down from the root with a hole.
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q[r].before(&q[l]) {
			m = r
		}
		if !q[m].before(&x) {
			break
		}
		q[i] = q[m]
		i = m
	}
	if n > 0 {
		q[i] = x
	}
	*h = q
	return top
}

// resumeItem is a CPU whose newly switched-in task starts to progress now.
type resumeItem struct {
	cpu  int32
	task int32
	gen  uint32
}

// maxStepsAtOneTime bounds the program steps run without simulated time
// moving: beyond it a program is spinning in zero time (a livelock).
const maxStepsAtOneTime = 1 << 20

// Sim is one simulation: CPUs, each with its own eevdf.CfsRq, the tasks of
// the configured workloads and an event queue. Create it with New, then
// call Run (or Step repeatedly). A Sim is not safe for concurrent use;
// independent Sims are.
type Sim struct {
	cfg       Config
	hier      *eevdf.Hierarchy            // the task groups, nil without
	groups    map[string]*eevdf.TaskGroup // by name
	feat      features.Set
	baseSlice uint64
	tickNsec  uint64
	wakeCost  uint64
	swCost    uint64
	stop      uint64

	now     uint64
	seq     uint64
	heap    eventHeap
	cpus    []cpu
	tasks   []task
	chans   []chanState
	wls     []wlInfo
	labels  []string
	hooks   []func(HookEvent)
	rng     *rand.PCG
	resume  []resumeItem
	rhead   int
	live    int // tasks not exited
	steps   int // program steps at the current time
	done    bool
	err     error
	debug   bool
	pairs   bool
	nextPct uint64

	// Counters.
	events         uint64
	ctxSwitches    uint64
	preemptions    uint64
	migrations     uint64
	delayedWakeups uint64
	forcedPicks    uint64
	forcedIdles    uint64

	trace  []traceSlice
	series shareSeries
	slog   *scenarioLog
}

// wlInfo is a workload's identity in one simulation.
type wlInfo struct {
	name, kind string
	first, n   int32 // its tasks: tasks[first : first+n]
}

// New builds a simulation from cfg. Every configuration error is returned;
// nothing in New or Run panics on caller input.
func New(cfg Config) (*Sim, error) {
	s := &Sim{cfg: cfg, debug: cfg.Debug}
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
	if cfg.CPUs == 0 {
		cfg.CPUs = 1
	}
	if cfg.CPUs < 1 || cfg.CPUs > 64 {
		return fmt.Errorf("cpus %d outside 1..64", cfg.CPUs)
	}
	if cfg.Duration <= 0 {
		return fmt.Errorf("duration must be positive (it is the stop time)")
	}
	s.stop = uint64(cfg.Duration)
	if cfg.Features != nil {
		s.feat = *cfg.Features
	} else {
		s.feat = features.Default()
	}
	if err := s.feat.Validate(); err != nil {
		return err
	}
	if cfg.BaseSlice < 0 {
		return fmt.Errorf("negative base slice")
	}
	s.baseSlice = eevdf.DefaultBaseSlice
	if cfg.BaseSlice > 0 {
		s.baseSlice = uint64(cfg.BaseSlice)
	}
	if cfg.HZ == 0 {
		cfg.HZ = 1000
	}
	if cfg.HZ < 1 || cfg.HZ > 100000 {
		return fmt.Errorf("hz %d outside 1..100000", cfg.HZ)
	}
	s.tickNsec = eevdf.TickNsecForHZ(uint64(cfg.HZ))
	if cfg.WakeupCost < 0 || cfg.SwitchCost < 0 || cfg.ShareInterval < 0 || cfg.StartJitter < 0 {
		return fmt.Errorf("negative cost, sample interval or start jitter")
	}
	s.wakeCost, s.swCost = uint64(cfg.WakeupCost), uint64(cfg.SwitchCost)
	if cfg.CoreRule > CoreLeader {
		return fmt.Errorf("unknown core rule %d", cfg.CoreRule)
	}
	if cfg.Timeline > eevdf.RBTree {
		return fmt.Errorf("unknown timeline backend %d", cfg.Timeline)
	}

	rqOpts := []eevdf.Option{
		eevdf.WithFeatures(s.feat),
		eevdf.WithBaseSlice(s.baseSlice),
		eevdf.WithTickNsec(s.tickNsec),
		eevdf.WithTimeline(cfg.Timeline),
	}
	if len(cfg.Groups) > 0 {
		s.hier = eevdf.NewHierarchy(eevdf.WithCgroupMode(cfg.CgroupMode), eevdf.WithOnlineCPUs(cfg.CPUs))
		rqOpts = append(rqOpts, eevdf.WithHierarchy(s.hier))
	}
	s.cpus = make([]cpu, cfg.CPUs)
	for i := range s.cpus {
		rq, err := eevdf.NewCfsRq(rqOpts...)
		if err != nil {
			return err
		}
		s.cpus[i] = cpu{id: int32(i), rq: rq, curr: -1, sibling: -1}
	}
	for _, p := range cfg.CorePairs {
		a, b := p[0], p[1]
		if a < 0 || b < 0 || a >= cfg.CPUs || b >= cfg.CPUs || a == b {
			return fmt.Errorf("core pair %v: need two distinct CPUs in 0..%d", p, cfg.CPUs-1)
		}
		if s.cpus[a].sibling >= 0 || s.cpus[b].sibling >= 0 {
			return fmt.Errorf("core pair %v: a CPU is in two pairs", p)
		}
		s.cpus[a].sibling, s.cpus[b].sibling = int32(b), int32(a)
		s.pairs = true
	}

	if err := s.makeGroups(cfg.Groups); err != nil {
		return err
	}
	s.rng = rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)
	comp := newCompiler()
	for wi, w := range cfg.Workloads {
		if w == nil {
			return fmt.Errorf("workload %d is nil", wi)
		}
		specs, err := w.Tasks()
		if err != nil {
			return fmt.Errorf("workload %q: %w", w.Name(), err)
		}
		info := wlInfo{name: w.Name(), kind: w.Kind(), first: int32(len(s.tasks)), n: int32(len(specs))}
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
	if cfg.ShareInterval > 0 {
		s.series.interval = uint64(cfg.ShareInterval)
		s.sampleShares()
		s.post(s.series.interval, evSample, -1, -1, 0)
	}
	s.nextPct = s.stop / 100
	if cfg.ScenarioLog != nil {
		if len(cfg.CorePairs) > 0 {
			return errors.New("scenario log: core scheduling has no scenario form")
		}
		if err := s.startScenarioLog(cfg.ScenarioLog); err != nil {
			return err
		}
	}
	return nil
}

// addTask validates and compiles one task and posts its creation.
func (s *Sim) addTask(comp *compiler, wl int32, sp *TaskSpec) error {
	if sp.Nice < eevdf.MinNice || sp.Nice > eevdf.MaxNice {
		return fmt.Errorf("nice %d outside %d..%d", sp.Nice, eevdf.MinNice, eevdf.MaxNice)
	}
	if sp.Policy > eevdf.PolicyIdle {
		return fmt.Errorf("unknown policy %d", sp.Policy)
	}
	if sp.Slice < 0 || sp.Start < 0 {
		return fmt.Errorf("negative slice or start time")
	}
	mask, err := cpuMask(sp.CPUs, s.cfg.CPUs)
	if err != nil {
		return err
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
	se, err := eevdf.NewEntity(sp.Name,
		eevdf.WithDefaultSlice(s.baseSlice),
		eevdf.WithNice(sp.Nice),
		eevdf.WithPolicy(sp.Policy),
		eevdf.WithSlice(uint64(sp.Slice)),
		eevdf.WithGroup(group))
	if err != nil {
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
	t := task{
		name:      sp.Name,
		wl:        wl,
		se:        se,
		code:      prog.code,
		slots:     make([]uint64, prog.slots),
		timers:    make([]timerState, prog.timers),
		affinity:  mask,
		pinned:    -1,
		cookie:    sp.Cookie,
		slice:     uint64(sp.Slice),
		start:     start,
		cpu:       -1,
		lastReply: -1,
	}
	if bits.OnesCount64(mask) == 1 {
		t.pinned = int32(bits.TrailingZeros64(mask))
	}
	t.lat = make([]uint64, 0, latencyCapacity(prog, s.stop))
	s.tasks = append(s.tasks, t)
	se.SetData(idx)
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
	s.heap.push(event{at: at, seq: s.seq, task: t, cpu: c, gen: gen, kind: k})
}

// fail records the first internal error; the run stops at the next step.
func (s *Sim) fail(err error) {
	if s.err == nil && err != nil {
		s.err = fmt.Errorf("sim: at %v: %w", time.Duration(s.now), err)
	}
}

// Now returns the simulated time.
func (s *Sim) Now() time.Duration { return time.Duration(s.now) }

// Done reports whether the simulation has ended: the stop time was reached,
// every task exited, or an error occurred.
func (s *Sim) Done() bool { return s.done || s.err != nil }

// Step processes the next event (and everything it sets off at the same
// simulated time). It returns false once the simulation has ended, and the
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
	if s.err != nil {
		return nil, s.err
	}
	if s.cfg.Progress != nil {
		s.cfg.Progress(1)
	}
	return s.Report(), nil
}

func (s *Sim) step() bool {
	if s.done || s.err != nil {
		return false
	}
	if s.live == 0 || len(s.heap) == 0 {
		s.done = true
		return false
	}
	if s.heap[0].at > s.stop {
		s.now = s.stop
		s.done = true
		return false
	}
	ev := s.heap.pop()
	if ev.at != s.now {
		s.now = ev.at
		s.steps = 0
	}
	s.dispatch(&ev)
	s.drainResumes()
	if s.debug && s.err == nil {
		s.fail(s.check())
	}
	if s.cfg.Progress != nil && s.now >= s.nextPct {
		s.cfg.Progress(float64(s.now) / float64(s.stop))
		s.nextPct = s.now + max(s.stop/100, 1)
	}
	return s.err == nil
}

// dispatch handles one event; stale events are dropped without counting.
func (s *Sim) dispatch(ev *event) {
	switch ev.kind {
	case evStart:
		s.events++
		s.startTask(ev.task)
	case evWake:
		t := &s.tasks[ev.task]
		if t.state != stBlocked || t.wakeGen != ev.gen {
			return
		}
		s.events++
		s.wake(ev.task, false)
	case evDone:
		t := &s.tasks[ev.task]
		if t.gen != ev.gen || t.state != stRunning || !t.progressing || !t.inRun {
			return
		}
		s.events++
		s.phaseDone(&s.cpus[t.cpu], ev.task)
	case evTick:
		s.events++
		s.tick(&s.cpus[ev.cpu])
	case evResched:
		s.events++
		c := &s.cpus[ev.cpu]
		c.reschedPending = false
		if c.forced || c.rq.NeedResched() {
			s.schedule(c)
		}
	case evResume:
		t := &s.tasks[ev.task]
		c := &s.cpus[ev.cpu]
		if t.gen != ev.gen || c.curr != ev.task || t.state != stRunning || t.progressing {
			return
		}
		s.events++
		s.resumeTask(c, ev.task)
	case evSample:
		s.events++
		s.sampleShares()
		s.post(s.now+s.series.interval, evSample, -1, -1, 0)
	}
}

// pushResume queues a task that starts to progress at the current time.
func (s *Sim) pushResume(c, t int32, gen uint32) {
	s.resume = append(s.resume, resumeItem{cpu: c, task: t, gen: gen})
}

// drainResumes runs the tasks switched in at the current time, in order.
func (s *Sim) drainResumes() {
	for s.rhead < len(s.resume) && s.err == nil {
		it := s.resume[s.rhead]
		s.rhead++
		t := &s.tasks[it.task]
		c := &s.cpus[it.cpu]
		if t.gen != it.gen || c.curr != it.task || t.state != stRunning || t.progressing {
			continue
		}
		s.resumeTask(c, it.task)
	}
	s.resume = s.resume[:0]
	s.rhead = 0
}

// randN draws uniformly from [0, n) with the seeded PCG (Lemire's method,
// unbiased).
func (s *Sim) randN(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	hi, lo := bits.Mul64(s.rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.rng.Uint64(), n)
		}
	}
	return hi
}

// taskOf maps a scheduling entity back to its task (−1 for nil: idle).
func (s *Sim) taskOf(se *eevdf.SchedEntity) int32 {
	if se == nil {
		return -1
	}
	if i, ok := se.Data().(int32); ok {
		return i
	}
	s.fail(errors.New("unknown entity " + se.Name()))
	return -1
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
