package scenario

import (
	"errors"
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/pelt"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// SMPOptions adjust a multi-CPU replay.
type SMPOptions struct {
	// Backend selects every runqueue's timeline (default eevdf.BTree).
	Backend eevdf.Backend
	// Features, if set, replaces the scenario's features statements.
	Features *features.Set
}

// SMPResult is what one operation of a multi-CPU scenario reports: the
// state of the whole machine after it (SMP-SCENARIOS §7). Integer fields
// that the format prints as null when they do not apply hold -1 then.
type SMPResult struct {
	I          int
	T          uint64
	Op         SMPOpKind
	CPU        int    // the op's CPU; -1 for a tick of every CPU
	Task       string // the task of new, wakeup, sleep, yield; "" for none
	Picked     string // sleep, schedule, yield: what runs after the op's pick; "" for idle
	HasPick    bool   // the op picks (sleep, schedule, yield)
	PrevCPU    int    // new: the forking CPU; wakeup: task_cpu before; else -1
	ChosenCPU  int    // new, wakeup: task_cpu after placement; else -1
	Jiffies    uint64
	Overloaded bool // the root domain's overloaded flag
	CPUs       []SMPCPUState
	LLCs       []SMPLLCState
	Tasks      []SMPTaskState
	Events     []smp.Event // what balancing did during the op, in order

	// With groups (SMP-SCENARIOS §10): the groups in declaration order,
	// and the task_h_load events of an h_load operation (after Events).
	HasGroups bool
	Groups    []SMPGroupState
	HLoads    []SMPTaskHLoad
}

// SMPCPUState is one CPU in an SMPResult.
type SMPCPUState struct {
	CPU         int
	Curr        string // "" while the idle task runs
	Resched     bool
	NrRunning   int // rq.nr_running, delayed tasks included
	HNrQueued   int
	HNrRunnable int
	V           uint64   // avg_vruntime, zero_vruntime not moved
	Load        uint64   // cfs.load.weight >> 10
	Avg         pelt.Avg // the root cfs_rq's PELT signals
	IdleStamp   uint64
	AvgIdle     uint64
	MaxIdleCost uint64 // max_idle_balance_cost
	NextBalance uint64 // jiffies
	CfsTasks    []string
	Domains     []SMPDomainState // bottom-up
	Leaf        []string         // with groups: the leaf list, head first, as group names ("/" the root queue)
}

// SMPDomainState is one of a CPU's domains in an SMPResult.
type SMPDomainState struct {
	Level topology.Kind
	smp.DomainInfo
}

// SMPLLCState is one LLC's sched_domain_shared in an SMPResult.
type SMPLLCState struct {
	FirstCPU     int
	HasIdleCores bool
	NrIdleScan   int
}

// SMPTaskState is one declared task in an SMPResult.
type SMPTaskState struct {
	Name     string
	CPU      int // task_cpu; 0 before the fork
	OnRq     bool
	Delayed  bool
	Running  bool
	Vruntime uint64
	Deadline uint64
	VLag     int64
	Lag      int64 // (s64)(V of the task's CPU − vruntime)
	Eligible bool
	Weight   uint64
	Slice    uint64
	SumExec  uint64
	Group    string // with groups: the task's group ("/" the root)
	HWeight  uint64 // with groups: the effective weight (h_load.weight)
	Avg      pelt.Avg
	// The waker statistic, recent_used_cpu and se.nr_migrations.
	WakeeFlips    uint32
	RecentUsedCPU int
	NrMigrations  uint64
}

// SMPReplayer replays a multi-CPU scenario on an smp.System one operation
// at a time, the sibling of Replayer for scenarios with a machine line.
type SMPReplayer struct {
	sc    *SMPScenario
	sys   *smp.System
	ses   []*eevdf.SchedEntity
	tasks []*smp.Task // nil until forked
	next  int
	res   SMPResult
	// lastCurr is the task that ran on the CPU of a sleep or yield when
	// the op began: the op's task.
	lastCurr string
	grp      smpGroups
}

// NewSMPReplayer builds the machine and the System of sc (every CPU idle,
// the boot state of SMP-SCENARIOS §0, NOHZ mode A) and the declared tasks'
// entities; the tasks are forked by their new operations.
func NewSMPReplayer(sc *SMPScenario, opt SMPOptions) (*SMPReplayer, error) {
	errAt := func(pos Pos, err error) error { return &Error{File: sc.Name, Pos: pos, Msg: err.Error()} }
	top, err := topology.Build(sc.Machine)
	if err != nil {
		return nil, errAt(Pos{1, 1}, err)
	}
	feat := sc.Features
	if opt.Features != nil {
		feat = *opt.Features
	}
	rqOpts := []eevdf.Option{eevdf.WithTimeline(opt.Backend)}
	var h *eevdf.Hierarchy
	if sc.HasGroups {
		h = eevdf.NewHierarchy(eevdf.WithCgroupMode(sc.CgroupMode), eevdf.WithOnlineCPUs(top.NumCPUs()))
		rqOpts = append(rqOpts, eevdf.WithHierarchy(h))
	}
	sys, err := smp.New(top,
		smp.WithFeatures(feat),
		smp.WithSeed(sc.Seed),
		smp.WithNohz(smp.NohzOff),
		smp.WithTickNsec(eevdf.TickNsecForHZ(sc.HZ)),
		smp.WithNewidleCost(sc.NewidleCost),
		smp.WithJiffies0(sc.Jiffies0),
		smp.WithBaseSlice(sc.BaseSlice),
		smp.WithEvents(true),
		smp.WithRunqueueOptions(rqOpts...),
	)
	if err != nil {
		return nil, errAt(Pos{1, 1}, err)
	}
	r := &SMPReplayer{sc: sc, sys: sys, ses: make([]*eevdf.SchedEntity, len(sc.Tasks)), tasks: make([]*smp.Task, len(sc.Tasks))}
	if h != nil {
		r.grp = smpGroups{h: h, tgs: make([]*eevdf.TaskGroup, len(sc.Groups)), taskOf: make([]int, len(sc.Tasks))}
		for i, t := range sc.Tasks {
			r.grp.taskOf[i] = t.Group
		}
		for i := range sc.Groups {
			if !sc.Groups[i].Mkdir {
				if err := r.onlineGroup(i); err != nil {
					return nil, errAt(sc.Groups[i].Pos, err)
				}
			}
		}
		r.res.HasGroups = true
	}
	base := sys.RQ(0).BaseSlice()
	for i, t := range sc.Tasks {
		opts := []eevdf.EntityOption{eevdf.WithDefaultSlice(base), eevdf.WithPolicy(t.Policy), eevdf.WithSlice(t.Slice)}
		if t.Group > 0 && r.grp.tgs[t.Group-1] != nil {
			opts = append(opts, eevdf.WithGroup(r.grp.tgs[t.Group-1]))
		}
		if t.Weight != 0 {
			opts = append(opts, eevdf.WithWeight(t.Weight))
		} else {
			opts = append(opts, eevdf.WithNice(t.Nice))
		}
		se, err := eevdf.NewEntity(t.Name, opts...)
		if err != nil {
			return nil, errAt(t.Pos, err)
		}
		r.ses[i] = se
	}
	n := top.NumCPUs()
	r.res.CPUs = make([]SMPCPUState, n)
	for c := range r.res.CPUs {
		r.res.CPUs[c].Domains = make([]SMPDomainState, len(top.Domains(c)))
	}
	for llc := 0; llc < top.NumLLCs(); llc++ {
		if top.SharedByID(llc) != nil {
			r.res.LLCs = append(r.res.LLCs, SMPLLCState{FirstCPU: top.LLCSpan(llc).First()})
		}
	}
	r.res.Tasks = make([]SMPTaskState, len(sc.Tasks))
	return r, nil
}

// System returns the System being driven.
func (r *SMPReplayer) System() *smp.System { return r.sys }

// Task returns the smp task of the i-th declared task, nil before its fork.
func (r *SMPReplayer) Task(i int) *smp.Task { return r.tasks[i] }

// Done reports whether every operation has been replayed.
func (r *SMPReplayer) Done() bool { return r.next >= len(r.sc.Ops) }

// Step replays the next operation and returns the machine's state after
// it. The SMPResult (and its slices) is reused by the next Step. An
// operation the state does not allow is an *Error and changes nothing.
func (r *SMPReplayer) Step() (*SMPResult, error) {
	if r.Done() {
		return nil, errors.New("scenario: no operation left")
	}
	op := r.sc.Ops[r.next]
	r.lastCurr = ""
	if op.Kind == SMPSleep || op.Kind == SMPYield {
		if c := r.sys.Curr(op.CPU); c != nil {
			r.lastCurr = c.Name()
		}
	}
	prev, chosen, err := r.apply(op)
	if err != nil {
		return nil, &Error{File: r.sc.Name, Pos: op.Pos, Msg: err.Error()}
	}
	r.next++
	r.fill(r.next-1, op, prev, chosen)
	return &r.res, nil
}

// apply runs one operation in the order of SMP-SCENARIOS §4 and §5.7: the
// clocks and jiffies set, the operation, then the CPU stopper works it
// queued, each with its reschedule. It returns the prev_cpu and chosen_cpu
// of a new or wakeup (-1 otherwise).
func (r *SMPReplayer) apply(op SMPOp) (prev, chosen int, err error) {
	sys := r.sys
	prev, chosen = -1, -1
	if err := sys.SetClock(op.At); err != nil {
		return prev, chosen, err
	}
	sys.ClearEvents()
	r.res.HLoads = r.res.HLoads[:0]
	var t *smp.Task
	if op.Kind == SMPNew || op.Kind == SMPWakeup {
		if op.Task < 0 || op.Task >= len(r.tasks) {
			return prev, chosen, fmt.Errorf("%s: task reference %d outside the %d declared tasks", op.Kind, op.Task, len(r.tasks))
		}
		t = r.tasks[op.Task]
	}
	switch op.Kind {
	case SMPNew:
		if t != nil {
			return prev, chosen, fmt.Errorf("new %s: the task was forked already", r.ses[op.Task].Name())
		}
		if r.grp.h != nil {
			if g := r.grp.taskOf[op.Task]; g > 0 && r.grp.tgs[g-1] == nil {
				return prev, chosen, fmt.Errorf("new %s: its group %s is not online yet", r.ses[op.Task].Name(), r.sc.Groups[g-1].Name)
			}
		}
		var opts []smp.TaskOption
		if cpus := r.sc.Tasks[op.Task].CPUs; cpus != nil {
			opts = append(opts, smp.WithAllowed(cpus...))
		}
		t, err = sys.Fork(r.ses[op.Task], op.CPU, opts...)
		if err != nil {
			return prev, chosen, err
		}
		r.tasks[op.Task] = t
		prev = op.CPU
		chosen = sys.WakeUpNew(t)
	case SMPWakeup:
		if t == nil {
			return prev, chosen, fmt.Errorf("wakeup %s: the task was never forked", r.ses[op.Task].Name())
		}
		if !t.Sleeping() {
			return prev, chosen, fmt.Errorf("wakeup %s: the task is not asleep", t)
		}
		cpu := op.CPU
		if cpu < 0 {
			cpu = t.CPU()
		}
		var wf eevdf.WakeFlags
		if op.Sync {
			wf = eevdf.WFSync
		}
		prev = t.CPU()
		chosen, err = sys.TryToWakeUpFrom(t, cpu, wf)
		if err != nil {
			return -1, -1, err
		}
	case SMPSleep:
		if err := sys.Block(op.CPU); err != nil {
			return prev, chosen, err
		}
	case SMPSchedule:
		sys.Schedule(op.CPU)
	case SMPTick:
		if op.CPU >= 0 {
			sys.Tick(op.CPU)
		} else {
			for c := 0; c < sys.NumCPUs(); c++ {
				sys.Tick(c)
			}
		}
	case SMPBalance:
		if err := sys.Balance(op.CPU); err != nil {
			return prev, chosen, err
		}
	case SMPYield:
		if _, err := sys.Yield(op.CPU); err != nil {
			return prev, chosen, err
		}
	case SMPMkdir, SMPCgroup, SMPCPUWeight, SMPCPUWeightNice, SMPCPUIdle, SMPCgroupMode:
		if op.Kind == SMPCgroup && (op.Task < 0 || op.Task >= len(r.tasks)) {
			return prev, chosen, fmt.Errorf("cgroup: task reference %d outside the %d declared tasks", op.Task, len(r.tasks))
		}
		if err := r.applyGroupOp(op); err != nil {
			return prev, chosen, err
		}
	case SMPHLoad:
		r.hLoad(op.CPU)
	default:
		return prev, chosen, fmt.Errorf("unknown operation %d", op.Kind)
	}
	sys.RunStoppers()
	return prev, chosen, nil
}

// fill records the machine's state after operation i.
func (r *SMPReplayer) fill(i int, op SMPOp, prev, chosen int) {
	sys := r.sys
	top := sys.Topology()
	res := &r.res
	res.I, res.T, res.Op = i, op.At, op.Kind
	res.CPU = op.CPU
	res.Task = ""
	switch op.Kind {
	case SMPNew, SMPWakeup:
		res.Task = r.ses[op.Task].Name()
		if op.Kind == SMPWakeup && op.CPU < 0 {
			res.CPU = prev
		}
	case SMPSleep, SMPYield:
		res.Task = r.lastCurr // the blocking or yielding task
	case SMPCgroup:
		res.Task = r.ses[op.Task].Name()
		res.CPU = 0
		if t := r.tasks[op.Task]; t != nil {
			res.CPU = t.CPU()
		}
	}
	res.PrevCPU, res.ChosenCPU = prev, chosen
	res.HasPick = op.Kind == SMPSleep || op.Kind == SMPSchedule || op.Kind == SMPYield
	res.Picked = ""
	if res.HasPick {
		if c := sys.Curr(op.CPU); c != nil {
			res.Picked = c.Name()
		}
	}
	res.Jiffies = sys.Jiffies()
	res.Overloaded = sys.Overloaded()
	for c := range res.CPUs {
		cs := &res.CPUs[c]
		rq := sys.RQ(c)
		info := sys.CPU(c)
		cs.CPU = c
		cs.Curr = ""
		if info.Curr != nil {
			cs.Curr = info.Curr.Name()
		}
		cs.Resched = rq.NeedResched()
		cs.NrRunning = rq.NrRunning()
		cs.HNrQueued = rq.NrQueued()
		cs.HNrRunnable = rq.NrRunnable()
		cs.V = rq.V()
		cs.Load = rq.Load() >> 10 // load.weight is kept scaled up
		cs.Avg = rq.Avg()
		cs.IdleStamp, cs.AvgIdle, cs.MaxIdleCost = info.IdleStamp, info.AvgIdle, info.MaxIdleBalanceCost
		cs.NextBalance = sys.NextBalance(c)
		cs.CfsTasks = cs.CfsTasks[:0]
		for se := range rq.Tasks() {
			cs.CfsTasks = append(cs.CfsTasks, se.Name())
		}
		for k, d := range top.Domains(c) {
			cs.Domains[k] = SMPDomainState{Level: d.Kind(), DomainInfo: sys.Domain(d)}
		}
	}
	k := 0
	for llc := 0; llc < top.NumLLCs(); llc++ {
		if top.SharedByID(llc) == nil {
			continue
		}
		l := sys.LLC(llc)
		res.LLCs[k].HasIdleCores, res.LLCs[k].NrIdleScan = l.HasIdleCores, l.NrIdleScan
		k++
	}
	for k, se := range r.ses {
		t := r.tasks[k]
		cpu := 0
		if t != nil {
			cpu = t.CPU()
		}
		rq := sys.RQ(cpu)
		v := rq.V()
		ts := SMPTaskState{
			Name:     se.Name(),
			CPU:      cpu,
			OnRq:     se.OnRq(),
			Delayed:  se.Delayed(),
			Vruntime: se.Vruntime(),
			Deadline: se.Deadline(),
			VLag:     se.VLag(),
			Lag:      int64(v - se.Vruntime()),
			Eligible: se.OnRq() && rq.Eligible(se),
			Weight:   se.Weight(),
			Slice:    se.Slice(),
			SumExec:  se.SumExecRuntime(),
			Avg:      se.Avg(),
		}
		if r.grp.h != nil {
			ts.Group = RootGroup
			if g := r.grp.taskOf[k]; g > 0 {
				ts.Group = r.sc.Groups[g-1].Name
			}
			ts.HWeight = se.HWeight()
		}
		if t != nil {
			ts.Running = sys.Curr(cpu) == t
			ts.WakeeFlips = t.WakeeFlips()
			ts.RecentUsedCPU = t.RecentUsedCPU()
			ts.NrMigrations = t.Migrations()
		}
		res.Tasks[k] = ts
	}
	res.Events = append(res.Events[:0], sys.Events()...)
	if r.grp.h != nil {
		r.fillGroups()
	}
}

// ReplaySMP replays every operation of sc, calling emit with each result.
// It stops at the first operation the state does not allow (an *Error) or
// the first error emit returns; the results before it have been emitted.
func ReplaySMP(sc *SMPScenario, opt SMPOptions, emit func(*SMPResult) error) error {
	r, err := NewSMPReplayer(sc, opt)
	if err != nil {
		return err
	}
	for !r.Done() {
		res, err := r.Step()
		if err != nil {
			return err
		}
		if err := emit(res); err != nil {
			return err
		}
	}
	return nil
}
