package eevdf

import (
	"fmt"

	"github.com/schedmodel/fairclass/pelt"
	"github.com/schedmodel/fairclass/rbtree"
)

// Policy is a fair-class scheduling policy.
type Policy uint8

const (
	// PolicyNormal is SCHED_NORMAL (SCHED_OTHER).
	PolicyNormal Policy = iota
	// PolicyBatch is SCHED_BATCH: never preempts on wakeup.
	PolicyBatch
	// PolicyIdle is SCHED_IDLE: weight 3 (scaled 3072), never a buddy,
	// preempted by any non-idle wakee.
	PolicyIdle
)

// String returns "normal", "batch", "idle", or "Policy(n)" for another
// value.
func (p Policy) String() string {
	switch p {
	case PolicyNormal:
		return "normal"
	case PolicyBatch:
		return "batch"
	case PolicyIdle:
		return "idle"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// SchedEntity is a task's scheduling entity (struct sched_entity, the
// fields EEVDF reads and writes). Callers create it with NewEntity and
// only read it; every change goes through a CfsRq operation.
//
// Invariants between operations: the entity is in its runqueue's
// timeline iff it is on_rq and not the runqueue's current entity; a
// delayed entity is on_rq; deadline is absolute unless relDeadline.
//
// A nil *SchedEntity reads as a zero entity: every accessor returns its
// zero value (String "<nil>", Group nil: the root group) and SetData does
// nothing.
type SchedEntity struct {
	name string

	load   loadWeight // se->load: from nice and policy (or WithWeight)
	hload  uint64     // se->h_load.weight: the effective weight EEVDF uses
	nice   int        // static_prio − 120
	policy Policy

	vruntime uint64
	deadline uint64
	vprot    uint64
	vlag     int64
	slice    uint64

	execStart   uint64
	sumExec     uint64
	prevSumExec uint64

	onRq        bool
	delayed     bool
	relDeadline bool
	customSlice bool

	// seq orders entities with equal deadlines: the kernel inserts an equal
	// key to the right, so the earlier insertion sorts first.
	seq uint64
	// rq is the runqueue the entity was last enqueued on.
	rq *CfsRq
	// group is the task group (nil: the root group).
	group *TaskGroup

	// The BTree backend's handle (timeline_btree.go): the leaf that holds
	// the entity while it is in a B-tree timeline, nil otherwise. The tree
	// keeps it current when it moves the entity to another leaf. (Here,
	// beside the fields every pick reads, so that a pick's entity spans
	// fewer cache lines.)
	tlLeaf *tlLeaf

	// avg holds the PELT signals when the runqueue keeps them.
	avg pelt.Avg
	// rb links the entity into the RBTree backend.
	rb rbtree.Node[*SchedEntity, agg]
	// link is the entity's place in its runqueue's cfs_tasks list.
	link taskLink
	// data is the caller's, untouched by the model.
	data any
}

// EntityOption configures NewEntity.
type EntityOption func(*entityConfig) error

type entityConfig struct {
	nice      int
	weight    uint64 // scaled down; 0: from nice
	slice     uint64 // sched_runtime; 0: base slice
	baseSlice uint64
	policy    Policy
	group     *TaskGroup
	weightSet bool
	niceSet   bool
}

// WithNice sets the nice value (-20..19); the weight comes from the
// kernel's table (1024 for nice 0).
func WithNice(n int) EntityOption {
	return func(c *entityConfig) error {
		if n < MinNice || n > MaxNice {
			return fmt.Errorf("%w: nice %d outside %d..%d", ErrBadNice, n, MinNice, MaxNice)
		}
		c.nice, c.niceSet = n, true
		return nil
	}
}

// WithWeight sets a weight that does not come from the nice table, in the
// scaled-down unit (1024 = nice 0), as the scenario language's weight=W
// does. The entity's nice is 0, so a later nice or slice change replaces
// the weight with the table's, as set_load_weight does.
func WithWeight(w uint64) EntityOption {
	return func(c *entityConfig) error {
		if w == 0 || w > MaxWeight {
			return fmt.Errorf("%w: weight %d outside 1..%d", ErrBadWeight, w, MaxWeight)
		}
		c.weight, c.weightSet = w, true
		return nil
	}
}

// MaxWeight is the largest weight WithWeight accepts (scaled down): large
// enough for any group share, small enough that key·weight products stay
// far from overflow.
const MaxWeight = 1 << 20

// WithSlice sets a custom slice, as sched_setattr's sched_runtime does: it
// is clamped to 0.1 ms .. 100 ms and never refreshed from the base slice.
// 0 means no custom slice.
func WithSlice(ns uint64) EntityOption {
	return func(c *entityConfig) error {
		c.slice = ns
		return nil
	}
}

// WithDefaultSlice sets the slice an entity without a custom slice starts
// with (default DefaultBaseSlice). The runqueue replaces it with its own base
// slice at every placement; set it to the runqueue's base slice so that
// the entity reports the right slice before its first enqueue.
func WithDefaultSlice(ns uint64) EntityOption {
	return func(c *entityConfig) error {
		if ns == 0 {
			return fmt.Errorf("%w: default slice 0", ErrBadSlice)
		}
		c.baseSlice = ns
		return nil
	}
}

// WithPolicy sets the policy (default PolicyNormal).
func WithPolicy(p Policy) EntityOption {
	return func(c *entityConfig) error {
		if p > PolicyIdle {
			return fmt.Errorf("%w: %v", ErrBadPolicy, p)
		}
		c.policy = p
		return nil
	}
}

// WithGroup puts the task in group g, as forking it into g's cgroup does
// (default, and for nil or a root group: the root group). The runqueues
// the task is enqueued on must belong to g's hierarchy.
func WithGroup(g *TaskGroup) EntityOption {
	return func(c *entityConfig) error {
		c.group = g
		return nil
	}
}

// NewEntity returns a task that has never run: vruntime, deadline, lag and
// runtime 0, not queued, with the weight of its nice (or WithWeight) and
// its slice. It is placed by its first Enqueue (with EnqueueInitial for
// a new task).
func NewEntity(name string, opts ...EntityOption) (*SchedEntity, error) {
	c := entityConfig{baseSlice: DefaultBaseSlice}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: entity option %d is nil", ErrBadOption, i)
		}
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	if c.weightSet && c.niceSet {
		return nil, fmt.Errorf("%w: both a nice value and a weight given", ErrBadWeight)
	}
	if c.weightSet && c.policy == PolicyIdle {
		return nil, fmt.Errorf("%w: a SCHED_IDLE entity has the idle weight; WithWeight does not apply", ErrBadWeight)
	}
	se := &SchedEntity{name: name, nice: c.nice, policy: c.policy, group: c.group}
	if c.weightSet {
		se.load = loadWeight{weight: scaleLoad(c.weight)}
	} else {
		se.load = setLoadWeight(c.policy, c.nice)
	}
	se.hload = se.load.weight
	se.setparamSlice(c.slice, c.baseSlice)
	return se, nil
}

// setparamSlice is the slice half of __setparam_fair: sched_runtime 0
// restores the base slice; anything else is a custom slice clamped to
// [MinCustomSlice, MaxCustomSlice].
func (se *SchedEntity) setparamSlice(runtime, baseSlice uint64) {
	if runtime == 0 {
		se.customSlice = false
		se.slice = baseSlice
		return
	}
	se.customSlice = true
	se.slice = min(max(runtime, MinCustomSlice), MaxCustomSlice)
}

// Name returns the name given to NewEntity.
func (se *SchedEntity) Name() string {
	if se == nil {
		return ""
	}
	return se.name
}

// Vruntime returns se->vruntime (wraps; compare by signed difference).
func (se *SchedEntity) Vruntime() uint64 {
	if se == nil {
		return 0
	}
	return se.vruntime
}

// Deadline returns se->deadline: absolute between operations.
func (se *SchedEntity) Deadline() uint64 {
	if se == nil {
		return 0
	}
	return se.deadline
}

// VLag returns se->vlag, the lag saved at the last dequeue (or rescale); it
// is not reset by an enqueue.
func (se *SchedEntity) VLag() int64 {
	if se == nil {
		return 0
	}
	return se.vlag
}

// Vprot returns se->vprot: the running entity is protected while its
// vruntime is before vprot.
func (se *SchedEntity) Vprot() uint64 {
	if se == nil {
		return 0
	}
	return se.vprot
}

// Slice returns the request length in real nanoseconds.
func (se *SchedEntity) Slice() uint64 {
	if se == nil {
		return 0
	}
	return se.slice
}

// CustomSlice reports whether the slice was set through WithSlice or SetSlice.
func (se *SchedEntity) CustomSlice() bool {
	if se == nil {
		return false
	}
	return se.customSlice
}

// Weight returns the load weight scaled down (1024 = nice 0), as the
// scenario output reports it.
func (se *SchedEntity) Weight() uint64 {
	if se == nil {
		return 0
	}
	return se.load.weight >> schedFixedpointShift
}

// EffectiveWeight returns se->h_load.weight, the full-resolution weight every
// EEVDF computation uses (1048576 = nice 0). It follows Weight at the next
// enqueue after a nice change made while the entity was not queued.
func (se *SchedEntity) EffectiveWeight() uint64 {
	if se == nil {
		return 0
	}
	return se.hload
}

// HWeight returns h_load.weight as installed at the entity's last refresh
// point (an enqueue, becoming curr, a tick): with groups, the fold of the
// hierarchy into one weight, possibly stale. Same as EffectiveWeight.
func (se *SchedEntity) HWeight() uint64 {
	if se == nil {
		return 0
	}
	return se.hload
}

// Group returns the task's group: the one given to WithGroup or
// MoveToGroup, nil for an entity never put in a group (the root group of
// whichever runqueue it runs on).
func (se *SchedEntity) Group() *TaskGroup {
	if se == nil {
		return nil
	}
	return se.group
}

// Nice returns the nice value (0 for an entity made WithWeight).
func (se *SchedEntity) Nice() int {
	if se == nil {
		return 0
	}
	return se.nice
}

// Policy returns the scheduling policy.
func (se *SchedEntity) Policy() Policy {
	if se == nil {
		return 0
	}
	return se.policy
}

// OnRq reports se->on_rq: queued, including while running and while delayed.
func (se *SchedEntity) OnRq() bool {
	if se == nil {
		return false
	}
	return se.onRq
}

// Delayed reports se->sched_delayed: asleep but still queued until its
// negative lag is spent.
func (se *SchedEntity) Delayed() bool {
	if se == nil {
		return false
	}
	return se.delayed
}

// SumExecRuntime returns the real nanoseconds the entity has run.
func (se *SchedEntity) SumExecRuntime() uint64 {
	if se == nil {
		return 0
	}
	return se.sumExec
}

// PrevSumExecRuntime returns SumExecRuntime as it was when the entity last
// became current.
func (se *SchedEntity) PrevSumExecRuntime() uint64 {
	if se == nil {
		return 0
	}
	return se.prevSumExec
}

// ExecStart returns the task-clock time of the last runtime accounting.
func (se *SchedEntity) ExecStart() uint64 {
	if se == nil {
		return 0
	}
	return se.execStart
}

// String returns the entity's name, "<nil>" for a nil entity.
func (se *SchedEntity) String() string {
	if se == nil {
		return "<nil>"
	}
	return se.name
}

// SetData attaches a value of the caller's to the entity (a simulator's
// task, say); the model never reads it.
func (se *SchedEntity) SetData(v any) {
	if se != nil {
		se.data = v
	}
}

// Data returns the value given to SetData.
func (se *SchedEntity) Data() any {
	if se == nil {
		return nil
	}
	return se.data
}

// prio is the task's prio for a fair policy: static_prio = 120 + nice.
func (se *SchedEntity) prio() int { return 120 + se.nice }
