package eevdf

import "github.com/schedmodel/fairclass/pelt"

// Snapshot is the state of a runqueue as plain values, for comparison
// (e.g. with go-cmp) and for printing.
type Snapshot struct {
	Clock        uint64
	V            uint64 // V, computed without moving ZeroVruntime
	ZeroVruntime uint64
	SumWVruntime int64
	SumWeight    uint64
	SumShift     uint
	SumJlag      int64
	Load         uint64
	NrQueued     int // cfs_rq->nr_queued
	HNrQueued    int
	HNrRunnable  int
	HNrIdle      int
	NrRunning    int
	Curr         string // "" while idle runs
	Next         string // the next buddy, "" if none
	NeedResched  bool
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
	Path   string
	Shares uint64
	Idle   bool
	GroupState
}

// EntitySnapshot is one entity's state.
type EntitySnapshot struct {
	Name            string
	Weight          uint64 // load.weight scaled down (1024 = nice 0)
	EffectiveWeight uint64 // h_load.weight at full resolution
	Nice            int
	Policy          Policy
	Vruntime        uint64
	Deadline        uint64
	Vprot           uint64
	VLag            int64
	Lag             int64 // (s64)(V − vruntime)
	Slice           uint64
	CustomSlice     bool
	OnRq            bool
	Delayed         bool
	RelDeadline     bool
	Eligible        bool
	ExecStart       uint64
	SumExecRuntime  uint64
	Group           string   // the group's path, "/" for the root group
	Avg             pelt.Avg // PELT signals (zero unless kept)
}

// Snapshot returns the runqueue's state. It allocates; it is meant for
// tests, traces and reports, not for hot paths.
func (rq *CfsRq) Snapshot() Snapshot {
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
// judged on this runqueue (eligible is false unless it is queued here).
func (rq *CfsRq) EntitySnapshot(se *SchedEntity) EntitySnapshot {
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
