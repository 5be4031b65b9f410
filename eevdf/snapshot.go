package eevdf

import "github.com/schedmodel/fairclass/pelt"

// Snapshot is the state of a runqueue as plain values, for comparison
// (e.g. with go-cmp) and for printing.
type Snapshot struct {
	Clock        uint64 // the task clock (Clock)
	V            uint64 // V, computed without moving ZeroVruntime
	ZeroVruntime uint64 // zero_vruntime, the reference point of the sums
	SumWVruntime int64  // sum_w_vruntime: Σ (v − zero_vruntime)·w over the timeline
	SumWeight    uint64 // sum_weight: Σ w over the timeline
	SumShift     uint   // sum_shift: PARANOID_AVG's weight shift (0 unless raised)
	SumJlag      int64  // sum_jlag of PLACE_JOIN_LAG (0 unless on)
	Load         uint64 // cfs_rq->load.weight (Load)
	NrQueued     int    // cfs_rq->nr_queued
	HNrQueued    int    // h_nr_queued (NrQueued)
	HNrRunnable  int    // h_nr_runnable (NrRunnable)
	HNrIdle      int    // h_nr_idle (NrIdle)
	NrRunning    int    // rq->nr_running (NrRunning)
	Curr         string // "" while idle runs
	Next         string // the next buddy, "" if none
	NeedResched  bool   // the need-resched flag (NeedResched)
	// Entities in timeline order, then the running entity.
	Entities []EntitySnapshot
	// Avg is the root queue's PELT signals (zero unless kept).
	Avg pelt.Avg
	// Groups holds every group of the hierarchy on this CPU, in creation
	// order (none for a flat runqueue).
	Groups []GroupSnapshot
}

// GroupSnapshot is one group's state on one CPU.
type GroupSnapshot struct {
	Path   string // the group's path from the root (TaskGroup.Path)
	Shares uint64 // tg->shares (TaskGroup.Shares)
	Idle   bool   // cpu.idle (TaskGroup.Idle)
	GroupState
}

// EntitySnapshot is one entity's state.
type EntitySnapshot struct {
	Name            string   // the name given to NewEntity
	Weight          uint64   // load.weight scaled down (1024 = nice 0)
	EffectiveWeight uint64   // h_load.weight at full resolution
	Nice            int      // the nice value (0 for a WithWeight entity)
	Policy          Policy   // the scheduling policy
	Vruntime        uint64   // se->vruntime
	Deadline        uint64   // se->deadline (relative while RelDeadline)
	Vprot           uint64   // se->vprot, the end of the slice protection
	VLag            int64    // se->vlag, the lag saved at the last update
	Lag             int64    // (s64)(V − vruntime)
	Slice           uint64   // the request length, real ns
	CustomSlice     bool     // the slice was set by WithSlice or SetSlice
	OnRq            bool     // se->on_rq (running and delayed entities included)
	Delayed         bool     // se->sched_delayed
	RelDeadline     bool     // se->rel_deadline: Deadline is relative to Vruntime
	Eligible        bool     // entity_eligible on this runqueue (false unless queued here)
	ExecStart       uint64   // se->exec_start, the task clock of the last charge
	SumExecRuntime  uint64   // se->sum_exec_runtime, real ns run
	Group           string   // the group's path, "/" for the root group
	Avg             pelt.Avg // PELT signals (zero unless kept)
}

// Snapshot returns the runqueue's state. It allocates; it is meant for
// tests, traces and reports, not for hot paths.
func (rq *CfsRq) Snapshot() Snapshot {
	if rq == nil {
		return Snapshot{}
	}
	s := Snapshot{
		Clock:        rq.clock,
		V:            rq.V(),
		ZeroVruntime: rq.zeroVruntime,
		SumWVruntime: rq.sumWVruntime,
		SumWeight:    rq.sumWeight,
		SumShift:     rq.sumShift,
		SumJlag:      rq.sumJlag,
		Load:         rq.loadWeight,
		NrQueued:     rq.nrQueued,
		HNrQueued:    rq.hNrQueued,
		HNrRunnable:  rq.hNrRunnable,
		HNrIdle:      rq.hNrIdle,
		NrRunning:    rq.nrRunning,
		Curr:         rq.curr.nameOrEmpty(),
		Next:         rq.next.nameOrEmpty(),
		NeedResched:  rq.NeedResched(),
	}
	for _, se := range rq.Entities() {
		s.Entities = append(s.Entities, rq.EntitySnapshot(se))
	}
	s.Avg = rq.cfsQueue.avg
	if rq.h != nil {
		for _, g := range rq.h.groups {
			st, _ := rq.Group(g)
			s.Groups = append(s.Groups, GroupSnapshot{Path: g.Path(), Shares: g.shares, Idle: g.idle, GroupState: st})
		}
	}
	return s
}

// EntitySnapshot returns one entity's state, with its lag and eligibility
// judged on this runqueue (eligible is false unless it is queued here; on
// a nil runqueue both are zero). A nil se gives the zero EntitySnapshot.
func (rq *CfsRq) EntitySnapshot(se *SchedEntity) EntitySnapshot {
	if se == nil {
		return EntitySnapshot{}
	}
	return EntitySnapshot{
		Name:            se.name,
		Weight:          se.Weight(),
		EffectiveWeight: se.hload,
		Nice:            se.nice,
		Policy:          se.policy,
		Vruntime:        se.vruntime,
		Deadline:        se.deadline,
		Vprot:           se.vprot,
		VLag:            se.vlag,
		Lag:             rq.Lag(se),
		Slice:           se.slice,
		CustomSlice:     se.customSlice,
		OnRq:            se.onRq,
		Delayed:         se.delayed,
		RelDeadline:     se.relDeadline,
		Eligible:        rq.Eligible(se),
		ExecStart:       se.execStart,
		SumExecRuntime:  se.sumExec,
		Group:           groupPath(se.group),
		Avg:             se.avg,
	}
}

func groupPath(g *TaskGroup) string {
	if g == nil {
		return "/"
	}
	return g.Path()
}

func (se *SchedEntity) nameOrEmpty() string {
	if se == nil {
		return ""
	}
	return se.name
}
