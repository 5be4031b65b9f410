// Package scenario reads and replays the scenario language: small worked
// examples of a fair runqueue, written one statement a line, as scheduler
// developers write them on the mailing list.
//
//	# three equal tasks on a 1 ms tick
//	features NO_RUN_TO_PARITY
//	base_slice 700000
//	hz 1000
//	task A
//	task B nice=5 slice=300000
//	task C weight=2048 policy=batch
//	0        new A
//	0        new B
//	0        schedule
//	1000000  tick
//	1000000  schedule
//
// Header statements (features, base_slice, hz, task, and for task groups
// group, cgroup_mode and online_cpus) come before any operation. An
// operation is "AT_NS OP [ARGS]" with times never decreasing; the
// operations are new, wakeup, sleep, schedule, tick, yield, renice, slice
// and forcepick, and for groups cgroup, cpu.weight, cpu.weight.nice,
// cpu.idle and cgroup_mode, each driving package eevdf through exactly the
// kernel sequence it models (see Replay). An extension outside the
// language's specification, migrate_out and migrate_in, moves a task to
// another CPU and back with its lag kept (see migrate.go and
// docs/replay.md).
//
//	group A weight=200
//	group B parent=A idle
//	task T group=B
//	0  new T
//	10 cgroup T A
//	20 cpu.weight A 50
//
// Replay prints one JSON object per operation (Result), the format the
// kernel's own fair.c prints in the same harness, so the two can be
// compared field by field; WriteTable prints the same as an aligned table.
package scenario

import (
	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// Scenario is a parsed scenario file.
type Scenario struct {
	Name      string       // file name, for messages
	Features  features.Set // the defaults with the features statements applied
	BaseSlice uint64       // ns; default eevdf.DefaultBaseSlice
	HZ        uint64       // default 1000
	Tasks     []Task       // in declaration order
	Ops       []Op         // the operations, in file order (times never decrease)

	// FeatureTokens are the features statements' tokens in file order,
	// which FeaturesFor applies to an earlier kernel's defaults.
	FeatureTokens []string

	baseSliceGiven bool // a base_slice statement set BaseSlice

	// Task groups (KERNEL-SPEC-GROUPS §7): declared groups in order, the
	// share function, and num_online_cpus() as the share functions read
	// it (0: not given, 1).
	Groups     []Group
	CgroupMode eevdf.CgroupMode // the share function (cgroup_mode statement; default eevdf.ModeConcur)
	OnlineCPUs int              // online_cpus statement; 0 when not given
	// HasGroups is set by a group or cgroup_mode line: the output then
	// carries each task's group and h_weight and the groups' state.
	HasGroups bool

	// SMP is set when the file is a multi-CPU scenario (a machine line in
	// its header): Parse read it with ParseSMP, Replay replays it on
	// package smp, and the fields above hold only Name, Features and HZ.
	SMP *SMPScenario
}

// Group is a task group declaration: `group NAME [parent=P] [weight=W |
// nice=N] [idle]`.
type Group struct {
	Name   string // unique among groups; never RootGroup
	Parent int    // 0: the root; otherwise 1 + an index into Scenario.Groups of an earlier group
	Weight uint64 // cpu.weight written after creation, 0 if none
	Nice   int    // cpu.weight.nice written after creation, if HasNice
	Idle   bool   // cpu.idle 1 written last
	Pos    Pos    // where the group statement is

	HasNice bool // nice= was given: Nice is written, Weight is not
}

// RootGroup is the name of the root group in scenarios and output.
const RootGroup = "/"

// Task is a task declaration.
type Task struct {
	Name      string       // unique among tasks
	Nice      int          // nice= (default 0); sets the weight unless weight= is given
	Weight    uint64       // scaled down (1024 = nice 0); 0: from Nice
	Slice     uint64       // requested custom slice (sched_runtime); 0: base slice
	Policy    eevdf.Policy // policy= (default eevdf.PolicyNormal)
	Group     int          // 0: the root group; otherwise 1 + an index into Scenario.Groups
	Pos       Pos          // where the task statement is
	hasWeight bool
	groupName string // the group= attribute until the header is complete
	groupPos  Pos
}

// OpKind is an operation word.
type OpKind uint8

// The operations.
const (
	OpNew OpKind = iota
	OpWakeup
	OpSleep
	OpSchedule
	OpTick
	OpYield
	OpRenice
	OpSlice
	OpForcePick
	OpCgroup        // cgroup T G: move T to group G (sched_move_task)
	OpCPUWeight     // cpu.weight G W
	OpCPUWeightNice // cpu.weight.nice G N
	OpCPUIdle       // cpu.idle G 0|1
	OpCgroupMode    // cgroup_mode MODE
	OpMigrateOut    // migrate_out T: T leaves for another CPU, its lag kept (migrate.go)
	OpMigrateIn     // migrate_in T: T arrives back from another CPU (migrate.go)
	numOps
)

var opNames = [numOps]string{"new", "wakeup", "sleep", "schedule", "tick", "yield", "renice", "slice", "forcepick",
	"cgroup", "cpu.weight", "cpu.weight.nice", "cpu.idle", "cgroup_mode", "migrate_out", "migrate_in"}

// String returns the operation word as scenarios spell it ("new",
// "cpu.weight", …), or "?" for a value that is no operation.
func (k OpKind) String() string {
	if k < numOps {
		return opNames[k]
	}
	return "?"
}

// takesTask reports whether the operation names a task.
func (k OpKind) takesTask() bool {
	switch k {
	case OpNew, OpWakeup, OpRenice, OpSlice, OpForcePick, OpCgroup, OpMigrateOut, OpMigrateIn:
		return true
	}
	return false
}

// picks reports whether the operation ends in a pick (reported in "picked").
func (k OpKind) picks() bool {
	switch k {
	case OpSleep, OpSchedule, OpYield, OpForcePick:
		return true
	}
	return false
}

// Op is one operation.
type Op struct {
	At    uint64 // task-clock time, ns
	Kind  OpKind // the operation word
	Task  int    // index into Scenario.Tasks, -1 if none
	Group int    // cgroup and the group ops: 0 for the root, else 1 + an index into Scenario.Groups
	Arg   int64  // renice: the nice value; slice: the runtime in ns; cpu.weight(.nice), cpu.idle: the value; cgroup_mode: the mode
	Pos   Pos    // where the operation's time is
}

// Pos is a position in the scenario file.
type Pos struct {
	Line int // 1-based; 0 for what was not parsed from a file
	Col  int // 1-based, in bytes; 0 likewise
}

// Limits on what a scenario may declare, so that arbitrary input cannot
// exhaust memory.
const (
	MaxTasks  = 4096
	MaxGroups = 4096
	MaxOps    = 10_000_000
)

// Error is a parse or replay error at a position of the file.
type Error struct {
	File string // the scenario's name ("" if it has none)
	Pos  Pos    // where the error is
	Msg  string // what is wrong, without the position
}

// Error returns "FILE:LINE:COL: MSG", with "scenario" for an empty File.
func (e *Error) Error() string {
	name := e.File
	if name == "" {
		name = "scenario"
	}
	return name + ":" + itoa(e.Pos.Line) + ":" + itoa(e.Pos.Col) + ": " + e.Msg
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
