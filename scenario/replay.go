package scenario

import (
	"errors"
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/pelt"
)

// Options adjust a replay.
type Options struct {
	// Backend selects the timeline (default eevdf.BTree).
	Backend eevdf.Backend
	// Features, if set, replaces the scenario's features statements.
	// Unset, an earlier Kernel runs with its own defaults and the
	// statements applied to them (Scenario.FeaturesFor).
	Features *features.Set
	// Kernel selects an earlier kernel's fair.c (default eevdf.KernelV73,
	// the modelled kernel).
	Kernel eevdf.Kernel
	// PELT keeps and prints the PELT signals: each task's and group's load,
	// runnable and utilization averages, and the root queue's (`replay
	// --pelt`). PELTRaw adds the sums, period_contrib and last_update_time
	// (`--pelt=raw`).
	PELT, PELTRaw bool
}

// Result is what one operation reports: the state after it.
type Result struct {
	I       int         // the operation's index in Scenario.Ops
	T       uint64      // its time (Op.At), ns
	Op      OpKind      // its kind
	Task    string      // "" if the operation names none
	V       uint64      // avg_vruntime at the end of the op, zero_vruntime not moved
	Curr    string      // "" while idle runs
	Resched bool        // need_resched is set after the operation
	Picked  string      // the pick of sleep/schedule/yield/forcepick; "" for idle and other ops
	HasPick bool        // the operation picks
	Tasks   []TaskState // every declared task, created or not, in declaration order
	// With groups (Scenario.HasGroups): every declared group's state.
	Groups []GroupResult
	// With PELT (Options.PELT): the root queue.
	Root RootState
	// With eevdf.KernelV618 and earlier: cfs_rq->min_vruntime, the reference of that
	// kernel's sums, printed as a top-level min_vruntime.
	MinVruntime uint64

	hasGroups, pelt, peltRaw bool
	hasMinV                  bool

	smp *SMPResult // a multi-CPU scenario's result, which Replay passes on
}

// GroupResult is one declared group's state in a Result.
type GroupResult struct {
	Name        string   // the declared name
	Parent      string   // "/" for a top-level group
	Shares      uint64   // tg->shares
	Idle        bool     // cpu.idle is set
	SEWeight    uint64   // the group entity's load.weight
	OnRq        bool     // the group entity is queued
	Load        uint64   // the group queue's load.weight
	HNrQueued   int      // queued tasks below the group, delayed ones included (h_nr_queued)
	HNrRunnable int      // those of them not delayed (h_nr_runnable)
	HNrIdle     int      // those counted idle (h_nr_idle)
	Avg         pelt.Avg // the group queue's PELT signals
	SEAvg       pelt.Avg // the group entity's
	TGLoadAvg   int64    // tg->load_avg
	TGRunAvg    int64    // tg->runnable_avg
}

// RootState is the root queue in a Result (printed with PELT only).
type RootState struct {
	Load     uint64   // cfs_rq->load.weight of the root queue, full resolution
	NrQueued int      // entities directly on the root queue (nr_queued)
	Avg      pelt.Avg // its PELT signals
}

// TaskState is one declared task's state in a Result.
type TaskState struct {
	Name     string // the declared name
	OnRq     bool   // se->on_rq: queued or running (delayed included)
	Delayed  bool   // se->sched_delayed
	Vruntime uint64 // raw; 0 for a task never created
	Deadline uint64 // raw; 0 for a task never created
	VLag     int64  // se->vlag, the raw saved field
	Lag      int64  // (s64)(V − vruntime), for every task
	Eligible bool   // entity_eligible when on_rq, else false
	Weight   uint64 // load weight scaled down (1024 = nice 0)
	Slice    uint64 // the request length, ns
	SumExec  uint64 // sum_exec_runtime, ns
	Created  bool   // the task exists (new has run); not part of the JSON
	// With groups.
	Group   string // "/" for the root group
	HWeight uint64 // h_load.weight as last installed
	// With PELT.
	Avg pelt.Avg
}

// Replayer replays a scenario one operation at a time.
type Replayer struct {
	sc      *Scenario
	rq      *eevdf.CfsRq
	h       *eevdf.Hierarchy // nil without groups
	tgs     []*eevdf.TaskGroup
	opt     Options
	ses     []*eevdf.SchedEntity
	created []bool
	away    []awayState // per task, once a migration op ran (migrate.go)
	next    int
	res     Result
}

// NewReplayer creates the runqueue and the declared tasks: the header
// applies first, then every declaration.
func NewReplayer(sc *Scenario, opt Options) (*Replayer, error) {
	if sc.SMP != nil {
		return nil, &Error{File: sc.Name, Pos: Pos{1, 1}, Msg: "a multi-CPU scenario (machine line): replay it with NewSMPReplayer(sc.SMP, …) or Replay"}
	}
	feat := sc.Features
	if opt.Features != nil {
		feat = *opt.Features
	} else if opt.Kernel != eevdf.KernelV73 {
		// An earlier kernel starts from its own features.h defaults.
		f, err := sc.FeaturesFor(opt.Kernel, "")
		if err != nil {
			return nil, &Error{File: sc.Name, Pos: Pos{1, 1}, Msg: err.Error()}
		}
		feat = f
	}
	baseSlice := sc.BaseSlice
	if !sc.baseSliceGiven {
		baseSlice = opt.Kernel.BaseSlice() // that kernel's own default
	}
	opts := []eevdf.Option{
		eevdf.WithFeatures(feat),
		eevdf.WithBaseSlice(baseSlice),
		eevdf.WithTickNsec(eevdf.TickNsecForHZ(sc.HZ)),
		eevdf.WithTimeline(opt.Backend),
		eevdf.WithKernel(opt.Kernel),
		eevdf.WithPELT(opt.PELT || opt.PELTRaw),
	}
	var h *eevdf.Hierarchy
	if sc.HasGroups {
		h = eevdf.NewHierarchy(eevdf.WithCgroupMode(sc.CgroupMode), eevdf.WithOnlineCPUs(sc.OnlineCPUs))
		opts = append(opts, eevdf.WithHierarchy(h))
	}
	rq, err := eevdf.NewCfsRq(opts...)
	if err != nil {
		return nil, &Error{File: sc.Name, Pos: Pos{1, 1}, Msg: err.Error()}
	}
	r := &Replayer{sc: sc, rq: rq, h: h, opt: opt, ses: make([]*eevdf.SchedEntity, len(sc.Tasks)), created: make([]bool, len(sc.Tasks))}
	// Groups are created at time 0 in declaration order, each followed by
	// its weight write and then its idle write.
	for i, g := range sc.Groups {
		var parent *eevdf.TaskGroup
		switch {
		case g.Parent < 0 || g.Parent > i:
			return nil, &Error{File: sc.Name, Pos: g.Pos, Msg: fmt.Sprintf("group %s: parent reference %d is neither the root (0) nor an earlier group (1..%d)", g.Name, g.Parent, i)}
		case g.Parent > 0:
			parent = r.tgs[g.Parent-1]
		}
		var gopts []eevdf.GroupOption
		switch {
		case g.Weight != 0:
			gopts = append(gopts, eevdf.WithCPUWeight(g.Weight))
		case g.HasNice:
			gopts = append(gopts, eevdf.WithCPUWeightNice(g.Nice))
		}
		if g.Idle {
			gopts = append(gopts, eevdf.WithIdleGroup())
		}
		tg, err := h.NewGroup(g.Name, parent, gopts...)
		if err != nil {
			return nil, &Error{File: sc.Name, Pos: g.Pos, Msg: err.Error()}
		}
		r.tgs = append(r.tgs, tg)
	}
	for i, t := range sc.Tasks {
		opts := []eevdf.EntityOption{eevdf.WithDefaultSlice(rq.BaseSlice()), eevdf.WithPolicy(t.Policy), eevdf.WithSlice(t.Slice)}
		switch {
		case t.Slice != 0 && opt.Kernel == eevdf.KernelV66:
			return nil, &Error{File: sc.Name, Pos: t.Pos, Msg: fmt.Sprintf("task %s: slice=: v6.6 has no custom slices", t.Name)}
		case t.Group < 0 || t.Group > len(r.tgs):
			return nil, &Error{File: sc.Name, Pos: t.Pos, Msg: fmt.Sprintf("task %s: group reference %d is neither the root (0) nor a declared group (1..%d)", t.Name, t.Group, len(r.tgs))}
		case t.Group > 0:
			opts = append(opts, eevdf.WithGroup(r.tgs[t.Group-1]))
		}
		if t.hasWeight {
			opts = append(opts, eevdf.WithWeight(t.Weight))
		} else {
			opts = append(opts, eevdf.WithNice(t.Nice))
		}
		se, err := eevdf.NewEntity(t.Name, opts...)
		if err != nil {
			return nil, &Error{File: sc.Name, Pos: t.Pos, Msg: err.Error()}
		}
		r.ses[i] = se
	}
	r.res.Tasks = make([]TaskState, len(sc.Tasks))
	if sc.HasGroups {
		r.res.Groups = make([]GroupResult, len(sc.Groups))
	}
	r.res.hasGroups, r.res.pelt, r.res.peltRaw = sc.HasGroups, opt.PELT || opt.PELTRaw, opt.PELTRaw
	return r, nil
}

// RunQueue returns the runqueue being driven.
func (r *Replayer) RunQueue() *eevdf.CfsRq { return r.rq }

// Entity returns the entity of the i-th declared task.
func (r *Replayer) Entity(i int) *eevdf.SchedEntity { return r.ses[i] }

// Done reports whether every operation has been replayed.
func (r *Replayer) Done() bool { return r.next >= len(r.sc.Ops) }

// Step replays the next operation and returns its result. The Result
// (and its Tasks slice) is reused by the next Step. An operation that is
// not defined in the current state is an *Error and is not executed.
func (r *Replayer) Step() (*Result, error) {
	if err := r.Advance(); err != nil {
		return nil, err
	}
	i := r.next - 1
	r.fill(i, &r.sc.Ops[i])
	return &r.res, nil
}

// Advance replays the next operation as Step does but builds no Result:
// the runqueue and the entities change exactly as under Step, without the
// per-task snapshot Step takes after every operation (a cost that grows
// with the number of declared tasks). A caller that reads only the final
// state, or the runqueue itself, advances through the scenario this way.
func (r *Replayer) Advance() error {
	// Small enough for the compiler to inline into the caller's loop, so
	// that an operation costs one call (apply), not two: apply wraps its
	// own errors and moves r.next on, and the error once the operations
	// are spent is a variable rather than a new one built here.
	if r.next >= len(r.sc.Ops) {
		return errNoOpLeft
	}
	return r.apply(&r.sc.Ops[r.next])
}

// errNoOpLeft is Advance's error once every operation has been replayed.
var errNoOpLeft = errors.New("scenario: no operation left")

// AdvanceTo replays operations as Advance does until the first n of
// Scenario.Ops have been replayed, and stops at the first that fails (an
// *Error, not executed) or at once if n is not after the operations
// already replayed. An n past the last operation is an error before
// anything is replayed. Replaying a long stretch this way rather than
// with Advance in a loop saves, at each operation, the caller's loop and
// Advance's test: the loop is the replayer's, one test around the call
// of each operation (about 5 instructions an operation fewer).
func (r *Replayer) AdvanceTo(n int) error {
	if n > len(r.sc.Ops) {
		return fmt.Errorf("scenario: AdvanceTo(%d) past the last of %d operations", n, len(r.sc.Ops))
	}
	for r.next < n {
		if err := r.apply(&r.sc.Ops[r.next]); err != nil {
			return err
		}
	}
	return nil
}

// apply drives the kernel sequence of KERNEL-SPEC §11 for one operation
// (by reference: an Op is 56 bytes). An operation that is not defined in
// the current state is an *Error at its position, and changes nothing
// after the clock.
//
// apply is the replayer's whole cost per operation, so it does no work an
// operation does not need: one switch on the kind, which the compiler
// turns into a jump table (the unknown kinds are its default), and each
// case resolves and checks only the references its operation has (task,
// group) and reads curr only when it uses it. The operations of a long
// stream (wakeup, sleep, schedule, tick) thus test nothing before their
// case but the clock's error.
func (r *Replayer) apply(op *Op) error {
	rq := r.rq
	if err := rq.SetClock(op.At); err != nil {
		return r.fail(op, err)
	}
	switch op.Kind {
	case OpNew:
		// wake_up_new_task (eevdf.CfsRq.WakeUpNew): the fresh entity is
		// enqueued as new (ENQUEUE_INITIAL, no ENQUEUE_WAKEUP), then the
		// wakeup check with WF_FORK.
		se := r.entity(op)
		if se == nil {
			return r.taskError(op)
		}
		if r.created[op.Task] {
			return r.refuse(op, se, "the task already exists")
		}
		if err := rq.WakeUpNew(se); err != nil {
			return r.fail(op, err)
		}
		r.created[op.Task] = true
	case OpWakeup:
		// try_to_wake_up (eevdf.CfsRq.Wakeup, no wake flags): a delayed
		// task is only requeued (ENQUEUE_DELAYED), and checked against
		// curr unless it is curr; a dequeued task is enqueued with
		// ENQUEUE_WAKEUP and checked with WF_TTWU. One call into eevdf
		// rather than Enqueue and WakeupPreempt, whose public entry would
		// check again what the enqueue has just made true. Wakeup refuses,
		// changing nothing, each state the language rejects (a task never
		// created, so never enqueued; the running task; a queued task not
		// delayed): wakeupError then says which in the language's words,
		// and a wakeup that succeeds tests none of them here.
		se := r.entity(op)
		if se == nil {
			return r.taskError(op)
		}
		if err := rq.Wakeup(se, 0); err != nil {
			return r.wakeupError(op, se, err)
		}
	case OpSleep:
		// block_task, then __schedule.
		curr := rq.Curr()
		if curr == nil {
			return r.failf(op, "sleep with nothing running")
		}
		if _, err := rq.Dequeue(curr, eevdf.DequeueSleep); err != nil {
			return r.fail(op, err)
		}
		rq.PickNext()
	case OpSchedule:
		rq.PickNext()
	case OpTick:
		rq.Tick()
	case OpYield:
		if rq.Curr() == nil {
			return r.failf(op, "yield with nothing running")
		}
		rq.Yield()
		rq.PickNext()
	case OpRenice:
		se := r.entity(op)
		if se == nil {
			return r.taskError(op)
		}
		if err := rq.SetNice(se, int(op.Arg)); err != nil {
			return r.fail(op, err)
		}
	case OpSlice:
		se := r.entity(op)
		if se == nil {
			return r.taskError(op)
		}
		if err := rq.SetSlice(se, uint64(op.Arg)); err != nil {
			return r.fail(op, err)
		}
	case OpForcePick:
		se := r.entity(op)
		if se == nil {
			return r.taskError(op)
		}
		switch {
		case !se.OnRq():
			return r.refuse(op, se, "the task is not queued")
		case se.Delayed():
			return r.refuse(op, se, "the task is delayed")
		}
		if err := rq.SetNext(se); err != nil {
			return r.fail(op, err)
		}
	case OpCgroup:
		// sched_move_task; nothing if the task is already in the group.
		se := r.entity(op)
		if se == nil {
			return r.taskError(op)
		}
		g, err := r.groupRef(op)
		if err != nil {
			return err
		}
		if err := rq.MoveToGroup(se, g); err != nil {
			return r.fail(op, err)
		}
	case OpCPUWeight:
		g, err := r.groupRef(op)
		if err != nil {
			return err
		}
		if err := g.SetCPUWeight(uint64(op.Arg)); err != nil {
			return r.fail(op, err)
		}
	case OpCPUWeightNice:
		g, err := r.groupRef(op)
		if err != nil {
			return err
		}
		if err := g.SetCPUWeightNice(int(op.Arg)); err != nil {
			return r.fail(op, err)
		}
	case OpCPUIdle:
		g, err := r.groupRef(op)
		if err != nil {
			return err
		}
		if err := g.SetIdle(op.Arg == 1); err != nil {
			return r.fail(op, err)
		}
	case OpCgroupMode:
		if r.h == nil {
			return r.failf(op, "cgroup_mode: the scenario declares no groups")
		}
		r.h.SetMode(eevdf.CgroupMode(op.Arg))
	case OpMigrateOut, OpMigrateIn:
		se := r.entity(op)
		if se == nil {
			return r.taskError(op)
		}
		if err := r.migrate(op, se); err != nil {
			return r.fail(op, err)
		}
	default:
		return r.unknownOp(op)
	}
	r.next++
	return nil
}

// entity returns the entity of op's task, or nil if op cannot use its
// task reference: outside the declared tasks, or a task on another CPU
// for any operation but the migration pair (taskError says which). It
// has no call, so it inlines into apply's cases: a reference in range
// while no task has migrated costs one unsigned comparison and one test.
func (r *Replayer) entity(op *Op) *eevdf.SchedEntity {
	i := op.Task
	if uint(i) >= uint(len(r.ses)) {
		return nil
	}
	if r.away != nil && r.away[i] != notAway && op.Kind != OpMigrateOut && op.Kind != OpMigrateIn {
		return nil
	}
	return r.ses[i]
}

// taskError is the *Error of an operation whose task reference entity
// refused.
func (r *Replayer) taskError(op *Op) error {
	if op.Task < 0 || op.Task >= len(r.ses) {
		return r.failf(op, "%s: task reference %d outside the %d declared tasks", op.Kind, op.Task, len(r.ses))
	}
	return r.failf(op, "%s %s: the task is on another CPU (migrate_in first)", op.Kind, r.ses[op.Task].Name())
}

// wakeupError is the *Error of a wakeup of se that eevdf refused with
// err: the language's reason when the task is in a state a wakeup is not
// defined in, else err itself.
func (r *Replayer) wakeupError(op *Op, se *eevdf.SchedEntity, err error) error {
	switch {
	case !r.created[op.Task]:
		return r.refuse(op, se, "the task was never created (use new)")
	case se.Delayed():
	case se == r.rq.Curr():
		return r.refuse(op, se, "the task is running")
	case se.OnRq():
		return r.refuse(op, se, "the task is queued and not delayed")
	}
	return r.fail(op, err)
}

// groupRef resolves the group reference of op, a cgroup or group-write
// operation; the error, an *Error, says why the reference is not usable.
func (r *Replayer) groupRef(op *Op) (*eevdf.TaskGroup, error) {
	switch {
	case r.h == nil:
		return nil, r.failf(op, "%s: the scenario declares no groups", op.Kind)
	case op.Group < 0 || op.Group > len(r.tgs):
		return nil, r.failf(op, "%s: group reference %d is neither the root (0) nor a declared group (1..%d)", op.Kind, op.Group, len(r.tgs))
	case op.Group == 0 && op.Kind != OpCgroup:
		return nil, r.failf(op, "%s: %s", op.Kind, rootGroupWrite(op.Kind))
	}
	return r.group(op.Group), nil
}

// fail returns err, an operation's failure, as an *Error at op's
// position.
func (r *Replayer) fail(op *Op, err error) error {
	return &Error{File: r.sc.Name, Pos: op.Pos, Msg: err.Error()}
}

// refuse is the *Error of an operation on se that the language does not
// define in se's state, "KIND TASK: WHY". Out of line, as every error
// path of apply: a call that builds its message there would grow apply's
// frame, and with it the entry of every operation.
func (r *Replayer) refuse(op *Op, se *eevdf.SchedEntity, why string) error {
	return r.failf(op, "%s %s: %s", op.Kind, se.Name(), why)
}

// unknownOp is the *Error of an operation of no known kind, out of line
// as refuse is (small enough to inline otherwise).
//
//go:noinline
func (r *Replayer) unknownOp(op *Op) error {
	return r.failf(op, "unknown operation %d", op.Kind)
}

// failf is fail of a new error formatted as fmt.Errorf formats it.
func (r *Replayer) failf(op *Op, format string, args ...any) error {
	return r.fail(op, fmt.Errorf(format, args...))
}

// group resolves a checked group reference: the root for 0, else the
// (i-1)-th declared group.
func (r *Replayer) group(i int) *eevdf.TaskGroup {
	if i == 0 {
		return r.h.Root()
	}
	return r.tgs[i-1]
}

func (r *Replayer) fill(i int, op *Op) {
	rq := r.rq
	res := &r.res
	res.I, res.T, res.Op = i, op.At, op.Kind
	res.Task = ""
	if op.Kind.takesTask() {
		res.Task = r.sc.Tasks[op.Task].Name
	}
	res.V = rq.V()
	if res.hasMinV = rq.Kernel() >= eevdf.KernelV618; res.hasMinV {
		res.MinVruntime = rq.ZeroVruntime()
	}
	res.Curr = ""
	if c := rq.Curr(); c != nil {
		res.Curr = c.Name()
	}
	res.Resched = rq.NeedResched()
	res.HasPick = op.Kind.picks()
	res.Picked = ""
	if res.HasPick {
		res.Picked = res.Curr
	}
	for k, se := range r.ses {
		res.Tasks[k] = TaskState{
			Name:     se.Name(),
			OnRq:     se.OnRq(),
			Delayed:  se.Delayed(),
			Vruntime: se.Vruntime(),
			Deadline: se.Deadline(),
			VLag:     se.VLag(),
			Lag:      int64(res.V - se.Vruntime()),
			Eligible: se.OnRq() && rq.Eligible(se),
			Weight:   se.Weight(),
			Slice:    se.Slice(),
			SumExec:  se.SumExecRuntime(),
			Created:  r.created[k],
			HWeight:  se.HWeight(),
			Avg:      se.Avg(),
		}
		if r.h != nil {
			res.Tasks[k].Group = RootGroup
			if g := se.Group(); g != nil && g.Parent() != nil {
				res.Tasks[k].Group = g.Name()
			}
		}
	}
	for k, tg := range r.tgs {
		st, _ := rq.Group(tg)
		parent := RootGroup
		if p := tg.Parent(); p != nil && p.Parent() != nil {
			parent = p.Name()
		}
		res.Groups[k] = GroupResult{
			Name: tg.Name(), Parent: parent, Shares: tg.Shares(), Idle: tg.Idle(),
			SEWeight: st.Weight, OnRq: st.OnRq, Load: st.Load,
			HNrQueued: st.HNrQueued, HNrRunnable: st.HNrRunnable, HNrIdle: st.HNrIdle,
			Avg: st.Avg, SEAvg: st.EntityAvg, TGLoadAvg: tg.LoadAvg(), TGRunAvg: tg.RunnableAvg(),
		}
	}
	res.Root = RootState{Load: rq.Load(), NrQueued: rq.NrQueuedEntities(), Avg: rq.Avg()}
}

// Replay replays every operation of sc, calling emit with each result. It
// stops at the first operation that is not defined in its state (an
// *Error) or the first error emit returns; the results before it have
// been emitted.
func Replay(sc *Scenario, opt Options, emit func(*Result) error) error {
	if sc.SMP != nil {
		return replaySMPResults(sc.SMP, opt, emit)
	}
	r, err := NewReplayer(sc, opt)
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
