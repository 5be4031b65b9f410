package sim

import (
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/smp"
)

// TaskOptions are the scheduling attributes of a task, shared by every
// workload constructor.
type TaskOptions struct {
	// Nice is the nice value, -20..19.
	Nice int
	// Policy is SCHED_NORMAL (default), SCHED_BATCH or SCHED_IDLE.
	Policy eevdf.Policy
	// Slice is a custom slice (sched_setattr's sched_runtime), clamped by
	// the kernel to 0.1..100 ms; 0 keeps the base slice.
	Slice time.Duration
	// CPUs is the affinity mask as a list of CPUs (sched_setaffinity);
	// empty means any CPU. A single CPU pins the task. The task is forked
	// on the lowest of them (CPU 0 without a list), and placed from there.
	CPUs []int
	// Cookie is the core-scheduling cookie; 0 is the untagged cookie.
	// Tasks with the same nonzero number share one cookie (prctl
	// PR_SCHED_CORE CREATE on the first, SHARE_TO on the others); a
	// cookie needs a machine with SMT threads (see the package
	// documentation's core scheduling).
	Cookie uint64
	// Start is when the task is created (wake_up_new_task).
	Start time.Duration
	// Group names the task's group among Config.Groups ("" or "/": the
	// root group).
	Group string
	// TimerSlack is the task's timer slack (prctl PR_SET_TIMERSLACK): its
	// timed sleeps wake up to that much after their expiry. 0 takes
	// Config.TimerSlack, as prctl's 0 restores the default; a task that
	// wants none under a configuration default sets 1 ns, as users do.
	TimerSlack time.Duration
}

// Group is a task group of the simulated machine (a cgroup with the cpu
// controller).
type Group struct {
	Name   string // unique among the groups; what TaskOptions.Group names
	Parent string // "" or "/": the root group
	Weight uint64 // cpu.weight 1..10000; 0: the default 100
	Nice   *int   // cpu.weight.nice instead of Weight
	Idle   bool   // cpu.idle 1
}

// TaskSpec describes one task: a name, its scheduling attributes and its
// program.
type TaskSpec struct {
	Name string // the task's name in reports
	TaskOptions
	Program []Phase // what it does; it exits at the end
}

// taskState is where a task is in its life.
type taskState uint8

const (
	stNew      taskState = iota // not created yet
	stRunnable                  // queued, waiting for a CPU
	stRunning                   // its CPU runs it
	stBlocked                   // asleep: a sleep, a timer or a channel
	stExited
)

// timerState is one periodic timer of a task.
type timerState struct {
	next uint64 // next expiry
	woke uint64 // when the task resumed after the previous expiry
	init bool
}

// markStat counts one Mark label for one task.
type markStat struct {
	count uint64
	last  uint64
}

// task is a task's state in one simulation. The functions an event
// passes through hand each other a *task rather than its index (idx),
// which each would look up again: a bounds check and a multiplication by
// the size of a task apiece.
type task struct {
	name  string
	wl    int32
	idx   int32 // its index in Sim.tasks
	se    *eevdf.SchedEntity
	code  []instr
	slots []uint64

	// The decoded Run–Sleep–Jump loop (cycle.go): the pcs of its Sleep
	// and its Jump (−1: none) and the operands of its two phases.
	cycSleep, cycJump    int32
	cycRunA, cycRunB     uint64
	cycSleepA, cycSleepB uint64

	timers []timerState

	st     *smp.Task // the System's task: its CPU (task_cpu) and placement
	cookie uint64
	slice  uint64 // the custom slice asked for (sched_runtime), 0: none
	start  uint64

	state       taskState
	runCPU      int32 // the CPU running it while stRunning, else −1
	pc          int32
	gen         uint32 // bumped at every switch-out: stale completions and resumes
	wakeGen     uint32 // bumped at every timed block: stale timer wakeups
	inRun       bool   // inside a Run or Spin phase
	sys         bool   // the Run phase is a Sys phase: kernel mode (preempt.go)
	sysLen      uint64 // the CPU time of the current Sys phase, for its preemption points
	pointAt     uint64 // the preemption point posted in stint pointGen, 0 if none
	pointGen    uint32
	slack       uint64 // timer slack (slack.go)
	spin        bool   // the phase is a Spin (no CPU-time budget)
	progressing bool   // running past the switch cost
	remaining   uint64 // work left in the Run phase: CPU time at capacity 1024 (asym.go)
	segStart    uint64 // when the current running segment started
	spinEnd     uint64 // end of a SpinFor phase (0: none)
	opLeft      uint64 // messages left in the current Send or Recv
	timerWait   int16  // timer slot + 1 the task sleeps on, 0 if none
	wakeRef     uint64 // latency reference of the last wakeup
	lastReply   int32  // reply channel of the last message received
	firstRun    uint64 // first time it ran (rt-app timers start there)
	begun       bool   // firstRun is set
	tcIn        uint64 // task clock of its CPU at switch-in
	traceStart  uint64 // when the current running slice began (set with the trace only)

	// The trace's migration arrows: the last slice it ran, and the arrow
	// from it to the current slice once that one has ended.
	lastCPU            int32
	lastStart, lastEnd uint64
	flowFrom           int32
	flowStart, flowEnd uint64
	flowPending        bool

	// Metrics.
	runtime        uint64
	work           uint64 // work its Run, Sys and Spin phases did (asym.go)
	switches       uint64
	preempted      uint64
	wakeups        uint64
	delayedWakeups uint64
	yields         uint64
	runnableSince  uint64
	delayCount     uint64
	delaySum       uint64
	delayMax       uint64
	delayMaxAt     uint64
	lat            []uint64
	marks          []markStat
	exitAt         uint64
}

// completes reports whether an evDone posted in t's stint gen is live:
// t still runs in that stint, progressing in its Run or Spin phase. A
// preemption (switchTo) ends the stint and makes the event stale.
func (t *task) completes(gen uint32) bool {
	return t.gen == gen && t.state == stRunning && t.progressing && t.inRun
}
