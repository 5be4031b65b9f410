package eevdf

import (
	"errors"
	"fmt"
)

// Task groups (cgroups) on the single runqueue.
//
// Since the kernel moved EEVDF to one runqueue per CPU, the cgroup
// hierarchy no longer schedules: only tasks enter the timeline, the sums
// and curr. The hierarchy is kept for accounting — each group has, per
// CPU, an entity on its parent's queue and a queue of its own, with load
// weights, counters and PELT signals — and it is folded into each task's
// effective weight, h_load, at a few refresh points (enqueue, becoming
// curr, the tick). Between them a queued task keeps the value it was
// given, so EEVDF sees group changes late; that staleness is the kernel's
// and the model keeps it exactly (KERNEL-SPEC-GROUPS §2.5).

// Errors of the group operations. Like the runqueue's, every error wraps
// one of them and leaves everything unchanged.
var (
	// ErrGroupWeight: a cpu.weight outside 1..10000, or a cpu.weight.nice
	// outside -20..19 (the kernel's -ERANGE).
	ErrGroupWeight = errors.New("group weight out of range")
	// ErrIdleGroup: a weight write on an idle group (the kernel's -EINVAL).
	ErrIdleGroup = errors.New("weight write on an idle group")
	// ErrRootGroup: a write on the root group, which has fixed shares and
	// no entity (the kernel's -EINVAL).
	ErrRootGroup = errors.New("operation on the root group")
	// ErrForeignGroup: a group of another hierarchy, or a runqueue of
	// another hierarchy.
	ErrForeignGroup = errors.New("group of another hierarchy")
	// ErrBadGroup: a bad group name (empty, "/" or containing "/"), a name
	// already used under the same parent, a nil group or a nil group
	// option.
	ErrBadGroup = errors.New("bad group")
)

// CgroupMode selects the function that turns a group's shares into its
// entity's weight on each CPU (debugfs sched/cgroup_mode).
type CgroupMode uint8

const (
	// ModeUp (0, "up"): the entity weighs the group's shares, always.
	ModeUp CgroupMode = iota
	// ModeSMP (1, "smp"): shares · this CPU's load / the group's load over
	// all CPUs, the classic approximation.
	ModeSMP
	// ModeConcur (2, "concur", the default): as smp with the shares
	// multiplied by min(runnable tasks of the group, its CPUs).
	ModeConcur
	// ModeMax (3, "max"): as smp with shares · CPUs, capped at the nice -20
	// weight.
	ModeMax
	// ModeTasks (4, "tasks"): as smp with the shares multiplied by the
	// group's runnable tasks.
	ModeTasks
	numCgroupModes
)

var cgroupModeNames = [numCgroupModes]string{"up", "smp", "concur", "max", "tasks"}

// String returns the debugfs spelling ("up", "smp", "concur", "max",
// "tasks"), or "CgroupMode(n)" for another value.
func (m CgroupMode) String() string {
	if m < numCgroupModes {
		return cgroupModeNames[m]
	}
	return fmt.Sprintf("CgroupMode(%d)", uint8(m))
}

// ParseCgroupMode parses the debugfs spelling (up, smp, concur, max, tasks).
func ParseCgroupMode(s string) (CgroupMode, error) {
	for m, n := range cgroupModeNames {
		if n == s {
			return CgroupMode(m), nil
		}
	}
	return 0, fmt.Errorf("%w: cgroup_mode %q (want up, smp, concur, max or tasks)", ErrBadOption, s)
}

// Share limits and constants (kernel/sched/sched.h, core.c).
const (
	// maxShares is MAX_SHARES, unscaled: 2^18.
	maxShares uint64 = 1 << 18
	// rootTaskGroupLoad is ROOT_TASK_GROUP_LOAD = NICE_0_LOAD.
	rootTaskGroupLoad = Nice0Load
	// maxGroupCapWeight is the cap of ModeMax: scale_load of the nice -20
	// weight, 88761 << 10 = 90891264.
	maxGroupCapWeight = 88761 << schedFixedpointShift
	// CPUWeightMin, CPUWeightDefault and CPUWeightMax bound cgroup v2's
	// cpu.weight.
	CPUWeightMin     = 1     // the smallest cpu.weight
	CPUWeightDefault = 100   // a new group's cpu.weight (shares NICE_0_LOAD)
	CPUWeightMax     = 10000 // the largest cpu.weight
)

// Hierarchy is the cgroup tree of one machine, shared by its runqueues:
// each runqueue created WithHierarchy(h) is one CPU of it. The zero value
// is the hierarchy NewHierarchy() returns (mode concur, one online CPU,
// only the root group). It is not safe for concurrent use, and neither
// are its runqueues while it changes.
//
// A nil *Hierarchy has the defaults and no groups: Root returns nil, Mode
// ModeConcur, OnlineCPUs 1, Groups nil; SetMode does nothing and NewGroup
// fails with ErrBadGroup.
type Hierarchy struct {
	mode       CgroupMode
	onlineCPUs int
	root       *TaskGroup
	groups     []*TaskGroup // creation order, the root excluded
	rqs        []*CfsRq     // by CPU number
}

// HierarchyOption configures NewHierarchy.
type HierarchyOption func(*Hierarchy)

// WithCgroupMode sets the share function (default ModeConcur). A value out
// of range selects ModeConcur, as the kernel's mode update falls back to it.
func WithCgroupMode(m CgroupMode) HierarchyOption {
	return func(h *Hierarchy) { h.mode = validMode(m) }
}

// WithOnlineCPUs sets what tg_cpus() returns to the concur and max share
// functions (num_online_cpus(); default 1, values below 1 count as 1). On
// one runqueue, n > 1 models one CPU of an n-CPU machine whose other CPUs
// never run a task of these groups.
func WithOnlineCPUs(n int) HierarchyOption {
	return func(h *Hierarchy) { h.onlineCPUs = max(n, 1) }
}

func validMode(m CgroupMode) CgroupMode {
	if m >= numCgroupModes {
		return ModeConcur
	}
	return m
}

// NewHierarchy returns a hierarchy holding only the root group. Nil
// options are skipped.
func NewHierarchy(opts ...HierarchyOption) *Hierarchy {
	h := &Hierarchy{}
	h.init()
	for _, o := range opts {
		if o != nil { // a nil option sets nothing
			o(h)
		}
	}
	return h
}

// init gives a zero Hierarchy NewHierarchy's defaults and its root group;
// every exported entry point calls it first.
func (h *Hierarchy) init() {
	if h.root == nil {
		h.mode, h.onlineCPUs = ModeConcur, 1
		h.root = &TaskGroup{h: h, name: "/", shares: rootTaskGroupLoad}
	}
}

// Root returns the root group: its tasks sit directly on each CPU's
// runqueue; it has no entity and fixed shares. A nil hierarchy returns
// nil, which the group methods read as a root group.
func (h *Hierarchy) Root() *TaskGroup {
	if h == nil {
		return nil
	}
	h.init()
	return h.root
}

// Mode returns the current share function (ModeConcur, the default, for a
// nil hierarchy).
func (h *Hierarchy) Mode() CgroupMode {
	if h == nil {
		return ModeConcur
	}
	h.init()
	return h.mode
}

// SetMode switches the share function, as writing debugfs sched/cgroup_mode
// does: no weight changes now; each group entity picks the new function up
// at its next update (an enqueue or dequeue in the group, a tick of one of
// its tasks, a weight write).
//
// On a nil hierarchy it does nothing.
func (h *Hierarchy) SetMode(m CgroupMode) {
	if h == nil {
		return
	}
	h.init()
	h.mode = validMode(m)
}

// OnlineCPUs returns tg_cpus() as the share functions read it (1 for a nil
// hierarchy).
func (h *Hierarchy) OnlineCPUs() int {
	if h == nil {
		return 1
	}
	h.init()
	return h.onlineCPUs
}

// Groups returns a copy of the groups in creation order, the root
// excluded (nil for a nil hierarchy).
func (h *Hierarchy) Groups() []*TaskGroup {
	if h == nil {
		return nil
	}
	return append([]*TaskGroup(nil), h.groups...)
}

// TaskGroup is a cgroup with the cpu controller (struct task_group).
//
// A nil *TaskGroup stands for the root group, as SchedEntity.Group
// returns it for a task never put in a group: its queries answer as a
// root's (name and path "/", no parent, no hierarchy, shares NICE_0_LOAD,
// cpu.weight 100, not idle, zero averages) and its writes fail with
// ErrBadGroup.
type TaskGroup struct {
	h      *Hierarchy
	name   string
	parent *TaskGroup
	depth  int // 0 for the root's children
	shares uint64
	idle   bool

	// tg->load_avg and tg->runnable_avg: the sums over CPUs of each
	// queue's last published contribution (update_tg_load_avg).
	loadAvg     int64
	runnableAvg int64

	cpu []*groupRq // this group on each CPU of h, by CPU number
}

// GroupOption configures NewGroup.
type GroupOption func(*groupConfig) error

type groupConfig struct {
	cpuWeight          uint64
	weightNice         int
	idle               bool
	weightSet, niceSet bool
}

// WithCPUWeight writes cgroup v2's cpu.weight (1..10000, default 100) after
// the group is created.
func WithCPUWeight(w uint64) GroupOption {
	return func(c *groupConfig) error {
		if w < CPUWeightMin || w > CPUWeightMax {
			return fmt.Errorf("%w: cpu.weight %d outside %d..%d", ErrGroupWeight, w, CPUWeightMin, CPUWeightMax)
		}
		c.cpuWeight, c.weightSet = w, true
		return nil
	}
}

// WithCPUWeightNice writes cpu.weight.nice (-20..19) after the group is
// created.
func WithCPUWeightNice(n int) GroupOption {
	return func(c *groupConfig) error {
		if n < MinNice || n > MaxNice {
			return fmt.Errorf("%w: cpu.weight.nice %d outside %d..%d", ErrGroupWeight, n, MinNice, MaxNice)
		}
		c.weightNice, c.niceSet = n, true
		return nil
	}
}

// WithIdleGroup writes cpu.idle 1 after the group is created (and after
// any weight write, which it overrides: an idle group weighs 3072).
func WithIdleGroup() GroupOption {
	return func(c *groupConfig) error {
		c.idle = true
		return nil
	}
}

// NewGroup creates a group under parent (nil: the root), as mkdir in the
// cgroup file system does (sched_create_group, then sched_online_group):
// shares NICE_0_LOAD, and on every CPU an empty queue and an entity of
// weight NICE_0_LOAD attached to the parent's queue. The options' writes
// follow in order: the weight, then idle. Names are unique among siblings
// and may not contain "/".
func (h *Hierarchy) NewGroup(name string, parent *TaskGroup, opts ...GroupOption) (*TaskGroup, error) {
	if h == nil {
		return nil, fmt.Errorf("%w: nil hierarchy", ErrBadGroup)
	}
	h.init()
	if parent == nil {
		parent = h.root
	}
	if parent.h != h {
		return nil, fmt.Errorf("%w: parent %s", ErrForeignGroup, parent.name)
	}
	if !validGroupName(name) {
		return nil, fmt.Errorf("%w: name %q", ErrBadGroup, name)
	}
	for _, g := range h.groups {
		if g.parent == parent && g.name == name {
			return nil, fmt.Errorf("%w: %s already exists", ErrBadGroup, g.Path())
		}
	}
	var c groupConfig
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: group option %d is nil", ErrBadGroup, i)
		}
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	if c.weightSet && c.niceSet {
		return nil, fmt.Errorf("%w: both cpu.weight and cpu.weight.nice given", ErrGroupWeight)
	}
	g := &TaskGroup{h: h, name: name, parent: parent, shares: Nice0Load}
	if parent != h.root {
		g.depth = parent.depth + 1
	}
	h.groups = append(h.groups, g)
	for _, rq := range h.rqs {
		rq.onlineGroup(g)
	}
	// The writes cannot fail now: the values were checked above and the
	// group is neither the root nor idle yet.
	switch {
	case c.weightSet:
		g.setShares(cpuWeightShares(c.cpuWeight))
	case c.niceSet:
		g.setShares(scaleLoad(NiceWeight(c.weightNice)))
	}
	if c.idle {
		g.setIdle(true)
	}
	return g, nil
}

func validGroupName(s string) bool {
	if s == "" || s == "/" || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] < ' ' {
			return false
		}
	}
	return true
}

// Name returns the group's name ("/" for the root and for a nil group).
func (g *TaskGroup) Name() string {
	if g == nil {
		return "/"
	}
	return g.name
}

// Path returns the group's path from the root, "/" for the root and for a
// nil group.
func (g *TaskGroup) Path() string {
	if g == nil || g.parent == nil {
		return "/"
	}
	if g.parent.parent == nil {
		return "/" + g.name
	}
	return g.parent.Path() + "/" + g.name
}

// Parent returns the parent group, nil for the root (and for a nil group).
func (g *TaskGroup) Parent() *TaskGroup {
	if g == nil {
		return nil
	}
	return g.parent
}

// Hierarchy returns the hierarchy the group belongs to (nil for a nil
// group).
func (g *TaskGroup) Hierarchy() *Hierarchy {
	if g == nil {
		return nil
	}
	return g.h
}

// Shares returns tg->shares at full resolution (1048576 for cpu.weight
// 100, 3072 while idle; the root's 1048576 for a nil group).
func (g *TaskGroup) Shares() uint64 {
	if g == nil {
		return rootTaskGroupLoad
	}
	return g.shares
}

// Idle reports cpu.idle (false for a nil group).
func (g *TaskGroup) Idle() bool { return g != nil && g.idle }

// LoadAvg returns tg->load_avg: the sum over CPUs of the load each group
// queue last published (zero unless PELT is kept, and for a nil group).
func (g *TaskGroup) LoadAvg() int64 {
	if g == nil {
		return 0
	}
	return g.loadAvg
}

// RunnableAvg returns tg->runnable_avg, published like LoadAvg (zero for
// a nil group).
func (g *TaskGroup) RunnableAvg() int64 {
	if g == nil {
		return 0
	}
	return g.runnableAvg
}

// String returns Path.
func (g *TaskGroup) String() string { return g.Path() }

// cpuWeightShares converts cgroup v2's cpu.weight to shares:
// sched_weight_from_cgroup rounds w·1024/100 to the nearest integer, then
// scale_load.
func cpuWeightShares(w uint64) uint64 {
	return scaleLoad((w*1024 + 50) / 100)
}

// SetCPUWeight writes cpu.weight (1..10000): sched_group_set_shares. It
// fails on the root group and on an idle group. On every CPU the group's
// entity and each ancestor are brought up to date and their weights
// recomputed, but no task is touched: each takes the new weight at its
// next refresh point (KERNEL-SPEC-GROUPS §5.4).
func (g *TaskGroup) SetCPUWeight(w uint64) error {
	if err := g.writable(); err != nil {
		return err
	}
	if w < CPUWeightMin || w > CPUWeightMax {
		return fmt.Errorf("%w: cpu.weight %d outside %d..%d", ErrGroupWeight, w, CPUWeightMin, CPUWeightMax)
	}
	g.setShares(cpuWeightShares(w))
	return nil
}

// SetCPUWeightNice writes cpu.weight.nice (-20..19): the nice table's
// weight as shares, otherwise as SetCPUWeight.
func (g *TaskGroup) SetCPUWeightNice(n int) error {
	if err := g.writable(); err != nil {
		return err
	}
	if n < MinNice || n > MaxNice {
		return fmt.Errorf("%w: cpu.weight.nice %d outside %d..%d", ErrGroupWeight, n, MinNice, MaxNice)
	}
	g.setShares(scaleLoad(NiceWeight(n)))
	return nil
}

// CPUWeight returns cpu.weight as the cgroup file reads it back: the
// unscaled shares times 100/1024, rounded to the nearest integer and
// clamped into 1..10000 (sched_weight_to_cgroup). An idle group (shares
// 3072: 3·100/1024 rounds to 0) reads 1.
func (g *TaskGroup) CPUWeight() uint64 {
	v := g.Shares() >> schedFixedpointShift
	return min(max((v*100+512)/1024, CPUWeightMin), CPUWeightMax)
}

func (g *TaskGroup) writable() error {
	switch {
	case g == nil:
		return fmt.Errorf("%w: nil group", ErrBadGroup)
	case g.parent == nil:
		return ErrRootGroup
	case g.idle:
		return fmt.Errorf("%w: %s", ErrIdleGroup, g.Path())
	}
	return nil
}

// setShares is __sched_group_set_shares: clamp to [MIN_SHARES, MAX_SHARES]
// (scaled), then, if changed, on every CPU update the group's entity and
// each ancestor's PELT signals and recompute their weights.
func (g *TaskGroup) setShares(shares uint64) {
	shares = min(max(shares, scaleLoad(minShares)), scaleLoad(maxShares))
	if g.shares == shares {
		return
	}
	g.shares = shares
	for _, rq := range g.h.rqs {
		for gr := g.cpu[rq.cpu]; gr != nil; gr = gr.parent {
			rq.updateLoadAvgGroup(gr, updateTG)
			rq.updateCfsGroup(gr)
		}
	}
}

// SetIdle writes cpu.idle: sched_group_set_idle. On every CPU the group's
// queue is marked, and its queued non-idle tasks are counted as idle (or
// no longer) in each ancestor's h_nr_idle up to the first idle ancestor;
// then the shares become 3072 (idle) or NICE_0_LOAD — the previous
// cpu.weight is not restored. In the modelled kernel an idle group changes
// nothing else: wakeup preemption and buddies look at each task's own
// policy only. It fails on the root group.
func (g *TaskGroup) SetIdle(idle bool) error {
	switch {
	case g == nil:
		return fmt.Errorf("%w: nil group", ErrBadGroup)
	case g.parent == nil:
		return ErrRootGroup
	}
	g.setIdle(idle)
	return nil
}

func (g *TaskGroup) setIdle(idle bool) {
	if g.idle == idle {
		return
	}
	g.idle = idle
	for _, rq := range g.h.rqs {
		gr := g.cpu[rq.cpu]
		gr.q.idle = idle
		delta := gr.q.hNrQueued - gr.q.hNrIdle
		if !idle {
			delta = -delta
		}
		for e := gr; e != nil && e.onRq; e = e.parent {
			q := e.queue()
			q.hNrIdle += delta
			if q.idle {
				break
			}
		}
	}
	if idle {
		g.setShares(scaleLoad(weightIdlePrio))
	} else {
		g.setShares(Nice0Load)
	}
}

// tgCPUs is tg_cpus(): the online CPUs (no cpusets), at least 1.
func (g *TaskGroup) tgCPUs() int64 { return int64(max(g.h.onlineCPUs, 1)) }

// tgTasks is tg_tasks(): max(1, tg->runnable_avg / 1024), an estimate of
// the group's runnable tasks over all CPUs.
func (g *TaskGroup) tgTasks() int64 { return max(1, g.runnableAvg>>schedFixedpointShift) }
