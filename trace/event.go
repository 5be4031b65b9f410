package trace

import (
	"fmt"
	"strings"
)

// Kind says which kernel event an Event stands for.
type Kind uint8

// The kinds of event the stream carries. The names are the kernel's
// tracepoint names; KindLost is the mark a format leaves where the kernel or
// the recorder dropped events.
const (
	KindInvalid     Kind = iota
	KindSwitch           // sched_switch: Task is prev, Next is next
	KindWaking           // sched_waking: Task is the wakee, TargetCPU its previous CPU
	KindWakeup           // sched_wakeup: Task is the wakee, TargetCPU the chosen CPU
	KindWakeupNew        // sched_wakeup_new: Task is the new task, TargetCPU the chosen CPU
	KindMigrateTask      // sched_migrate_task: Task moves from OrigCPU to TargetCPU
	KindProcessFork      // sched_process_fork: Task is the parent, Next the child
	KindProcessExec      // sched_process_exec: Task.Pid, OldPid, Filename
	KindProcessExit      // sched_process_exit: Task
	KindProcessFree      // sched_process_free: Task
	KindNewTask          // task_newtask: Task is the new task (Perfetto's fork record)
	KindStatRuntime      // sched_stat_runtime: Task, Runtime, Vruntime (0 from 6.8)
	KindPiSetprio        // sched_pi_setprio: Task with its new Prio, OldPrio
	KindStatWait         // sched_stat_wait (schedstats): Task, Delay
	KindStatSleep        // sched_stat_sleep (schedstats): Task, Delay
	KindStatIOWait       // sched_stat_iowait (schedstats): Task, Delay
	KindStatBlocked      // sched_stat_blocked (schedstats): Task, Delay
	KindLost             // events lost on CPU before this point; Lost = how many, 0 unknown
	// KindTick is a scheduler tick on CPU: the expiry of the tick's hrtimer
	// (hrtimer_expire_entry with function=tick_nohz_handler or
	// tick_sched_timer, text formats). Other timer expiries are not carried.
	KindTick
	numKinds
)

var kindNames = [numKinds]string{
	KindInvalid:     "invalid",
	KindSwitch:      "sched_switch",
	KindWaking:      "sched_waking",
	KindWakeup:      "sched_wakeup",
	KindWakeupNew:   "sched_wakeup_new",
	KindMigrateTask: "sched_migrate_task",
	KindProcessFork: "sched_process_fork",
	KindProcessExec: "sched_process_exec",
	KindProcessExit: "sched_process_exit",
	KindProcessFree: "sched_process_free",
	KindNewTask:     "task_newtask",
	KindStatRuntime: "sched_stat_runtime",
	KindPiSetprio:   "sched_pi_setprio",
	KindStatWait:    "sched_stat_wait",
	KindStatSleep:   "sched_stat_sleep",
	KindStatIOWait:  "sched_stat_iowait",
	KindStatBlocked: "sched_stat_blocked",
	KindLost:        "lost_events",
	KindTick:        "sched_tick",
}

// String returns the kernel's name of the event ("sched_switch"), or
// "lost_events" for KindLost.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText writes the kind's name, so that JSON output carries names.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// kindByName maps an event name as a trace prints it to its kind; events not
// in the map are not carried.
var kindByName = map[string]Kind{
	"sched_switch":       KindSwitch,
	"sched_waking":       KindWaking,
	"sched_wakeup":       KindWakeup,
	"sched_wakeup_new":   KindWakeupNew,
	"sched_migrate_task": KindMigrateTask,
	"sched_process_fork": KindProcessFork,
	"sched_process_exec": KindProcessExec,
	"sched_process_exit": KindProcessExit,
	"sched_process_free": KindProcessFree,
	"task_newtask":       KindNewTask,
	"sched_stat_runtime": KindStatRuntime,
	"sched_pi_setprio":   KindPiSetprio,
	"sched_stat_wait":    KindStatWait,
	"sched_stat_sleep":   KindStatSleep,
	"sched_stat_iowait":  KindStatIOWait,
	"sched_stat_blocked": KindStatBlocked,
}

// Task names a task as an event records it: thread id, command name (at most
// 15 bytes in the kernel) and kernel priority p->prio (100..139 for fair
// tasks, 120 = nice 0; 0..98 real-time; -1 deadline). Pid -1 means the trace
// did not say; Prio -1 may also mean the event carries no priority.
type Task struct {
	Pid  int32
	Comm string
	Prio int32
}

// Event is one scheduling event in normalised form. Which fields are
// meaningful depends on Kind (see the Kind constants); the rest hold their
// "unknown" value: -1 for CPUs and pids, 0 otherwise.
//
// Time is in nanoseconds of the trace's own clock: text timestamps with a
// fractional part are seconds (µs or ns precision as printed), an integer
// timestamp (counter or TSC clock) is kept as the raw count. A loss mark
// has no time of its own: text gives it the time of the line before it,
// Perfetto the time of the first event of its bundle.
type Event struct {
	Time int64
	CPU  int32 // the CPU whose buffer logged the event
	Kind Kind
	// Ctx is the pid of the task running when the event was logged (the
	// TASK-PID column, Perfetto's event pid): the waker of a wakeup. -1
	// when the format does not record it (Perfetto compact sched waking).
	Ctx  int32
	Task Task
	// Next is the task switched in (KindSwitch) or the child (KindProcessFork).
	Next Task
	// PrevState is the decoded prev_state of a switch; RawState the number
	// the trace gave (-R text, Perfetto), or -1 when it printed letters.
	PrevState State
	RawState  int64
	// TargetCPU is target_cpu of the wakeup events and dest_cpu of a
	// migration; OrigCPU is orig_cpu of a migration.
	TargetCPU int32
	OrigCPU   int32
	// Runtime and Vruntime are sched_stat_runtime's (ns); Vruntime is 0 on
	// kernels from 6.8, which no longer print it.
	Runtime  uint64
	Vruntime uint64
	// OldPrio is sched_pi_setprio's priority before the change (Task.Prio
	// holds the new one); Delay is the ns of a sched_stat_wait, _sleep,
	// _iowait or _blocked.
	OldPrio int32
	Delay   uint64
	// Filename and OldPid are sched_process_exec's.
	Filename string
	OldPid   int32
	// Lost is the number of events lost (KindLost), 0 when not given.
	Lost int64
}

// blank returns an Event with every "unknown" field set.
func blank(k Kind) Event {
	return Event{Kind: k, CPU: -1, Ctx: -1, Task: Task{Pid: -1, Prio: -1},
		TargetCPU: -1, OrigCPU: -1, OldPrio: -1}
}

// State is a switched-out task's state decoded from prev_state, the same bits
// whatever the kernel era. Zero is R: the task was runnable and stays queued.
type State uint16

// The state bits. Since 4.14 at most one of the letter bits is set; older
// kernels could report several (D|K, D|W).
const (
	StateSleeping        State = 1 << iota // S: TASK_INTERRUPTIBLE
	StateUninterruptible                   // D: TASK_UNINTERRUPTIBLE
	StateStopped                           // T
	StateTraced                            // t
	StateDead                              // X: EXIT_DEAD
	StateZombie                            // Z: EXIT_ZOMBIE
	StateParked                            // P: parked kthread
	StateIdle                              // I: TASK_IDLE kthread (4.14+)
	StateDying                             // x: TASK_DEAD (before 4.14)
	StateWakekill                          // K (before 4.14)
	StateWaking                            // W (before 4.14)
	StateNoload                            // N (before 4.14)
	StateNew                               // n (before 4.14)
	StatePreempted                         // +: the switch was a preemption
	StateUnknown                           // ?: bits no table names
)

var stateLetters = [...]struct {
	bit    State
	letter byte
}{
	{StateSleeping, 'S'}, {StateUninterruptible, 'D'}, {StateStopped, 'T'},
	{StateTraced, 't'}, {StateDead, 'X'}, {StateZombie, 'Z'}, {StateParked, 'P'},
	{StateIdle, 'I'}, {StateDying, 'x'}, {StateWakekill, 'K'}, {StateWaking, 'W'},
	{StateNoload, 'N'}, {StateNew, 'n'},
}

// String spells the state as the kernel's text does: the letters joined by
// "|", "R" when there is none, "+" after a preemption, "?" for unknown bits.
func (s State) String() string {
	var b strings.Builder
	for _, l := range stateLetters {
		if s&l.bit != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteByte(l.letter)
		}
	}
	if b.Len() == 0 {
		b.WriteByte('R')
	}
	if s&StatePreempted != 0 {
		b.WriteByte('+')
	}
	if s&StateUnknown != 0 {
		b.WriteByte('?')
	}
	return b.String()
}

// MarshalText writes the state's letters.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Runnable reports whether the task stayed on the runqueue: R or R+.
func (s State) Runnable() bool { return s&^StatePreempted == 0 }

// Preempted reports whether the switch was a preemption (R+). Note that the
// sched plugin of trace-cmd and perf never prints the "+", so in plugin
// output a preemption reads as R.
func (s State) Preempted() bool { return s&StatePreempted != 0 }

// Exited reports whether the task was leaving: X, Z or x.
func (s State) Exited() bool { return s&(StateDead|StateZombie|StateDying) != 0 }

// parseStateLetters decodes the letter form ("S", "D|K", "R+"). ok is false
// when a character is not one the kernel prints.
func parseStateLetters(b []byte) (State, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var s State
	if b[len(b)-1] == '+' {
		s |= StatePreempted
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return 0, false
	}
	for i, c := range b {
		if c == '|' {
			if i == 0 || i == len(b)-1 || b[i-1] == '|' {
				return 0, false
			}
			continue
		}
		if c == 'R' {
			continue
		}
		found := false
		for _, l := range stateLetters {
			if l.letter == c {
				s |= l.bit
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	return s, true
}

// Era is the kernel's encoding of a numeric prev_state.
type Era uint8

const (
	// EraAuto takes the era from the trace (Perfetto system_info) or from
	// the numeric values at its start, else EraReport.
	EraAuto Era = iota
	// EraReport is the encoding from 4.14 on: one of 0x1 S, 0x2 D, 0x4 T,
	// 0x8 t, 0x10 X, 0x20 Z, 0x40 P, 0x80 I, or 0; 0x100 alone is R+.
	EraReport
	// EraLegacy is the encoding before 4.14 (4.2 to 4.13): raw task-state
	// bits 0x1 S, 0x2 D, 0x4 T, 0x8 t, 0x10 X, 0x20 Z, 0x40 x, 0x80 K,
	// 0x100 W, 0x200 P, 0x400 N, and the state-max bit (0x800 before 4.8,
	// 0x1000 from 4.8) for a preemption.
	EraLegacy
)

// String names the era.
func (e Era) String() string {
	switch e {
	case EraAuto:
		return "auto"
	case EraReport:
		return "4.14+"
	case EraLegacy:
		return "pre-4.14"
	}
	return fmt.Sprintf("Era(%d)", uint8(e))
}

var reportBits = [...]State{StateSleeping, StateUninterruptible, StateStopped,
	StateTraced, StateDead, StateZombie, StateParked, StateIdle}

var legacyBits = [...]State{StateSleeping, StateUninterruptible, StateStopped,
	StateTraced, StateDead, StateZombie, StateDying, StateWakekill, StateWaking,
	StateParked, StateNoload}

// DecodeState decodes a numeric prev_state in the given era (EraAuto is
// read as EraReport). Bits the era does not name set StateUnknown.
func DecodeState(raw int64, era Era) State {
	var s State
	u := uint64(raw)
	if era == EraLegacy {
		if u&0x1800 != 0 {
			s |= StatePreempted
			u &^= 0x1800
		}
		for i, b := range legacyBits {
			if u&(1<<i) != 0 {
				s |= b
				u &^= 1 << i
			}
		}
	} else {
		if u&0x100 != 0 {
			s |= StatePreempted
			u &^= 0x100
		}
		for i, b := range reportBits {
			if u&(1<<i) != 0 {
				s |= b
				u &^= 1 << i
			}
		}
	}
	if u != 0 {
		s |= StateUnknown
	}
	return s
}

// legacyValue reports whether a numeric prev_state can only be a pre-4.14
// value: bits above 0x1ff, or more than one bit, which the report encoding
// never sets.
func legacyValue(raw int64) bool {
	u := uint64(raw)
	if u&^0x1ff != 0 {
		return true
	}
	return u&(u-1) != 0
}

// EraOf returns the prev_state era of a kernel release string ("4.9.112",
// "5.10.43-android12-9"); ok is false when it does not start with a
// version number.
func EraOf(release string) (era Era, ok bool) {
	major, minor, ok := parseVersion(release)
	if !ok {
		return EraAuto, false
	}
	if major < 4 || major == 4 && minor < 14 {
		return EraLegacy, true
	}
	return EraReport, true
}

func parseVersion(s string) (major, minor int, ok bool) {
	i := 0
	num := func() (int, bool) {
		start := i
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-start < 6 {
			n = n*10 + int(s[i]-'0')
			i++
		}
		return n, i > start
	}
	if major, ok = num(); !ok {
		return 0, 0, false
	}
	if i >= len(s) || s[i] != '.' {
		return 0, 0, false
	}
	i++
	if minor, ok = num(); !ok {
		return 0, 0, false
	}
	return major, minor, true
}
