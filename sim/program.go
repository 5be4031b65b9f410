package sim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Phase is one step of a task's program. Programs are trees of phases built
// with the constructors below (Run, Sleep, Send, Loop, ...); the simulator
// compiles each into a flat instruction array once, so that running a task
// costs no allocation and no interface call.
//
// Time in a phase is simulated time. "Run" phases consume CPU time: they
// progress only while the task runs. "Spin" phases model busy loops that
// watch the clock: they end at a wall-clock (simulated) time, however much
// CPU the task got. Every other phase takes no CPU time of its own; the
// programs of a simulation may take at most 2^20 such steps without
// simulated time moving, beyond which the run ends with a livelock error.
type Phase struct {
	kind  phaseKind
	d, j  time.Duration // duration and uniform jitter, or period
	until time.Duration // absolute simulated time (SleepUntil, TimerUntil)
	ch    *Channel
	reply *Channel
	n     int
	body  []Phase
	label string
	hook  func(HookEvent)
	mode  TimerMode
}

type phaseKind uint8

const (
	phRun phaseKind = iota + 1
	phSpin
	phSpinFor
	phSleep
	phSleepUntil
	phTimer
	phRTTimer
	phSend
	phRecv
	phReply
	phYield
	phLoop
	phForever
	phLoopFor
	phLatency
	phMark
	phHook
	phSetNice
	phSetSlice
	phExit
	phSys
)

// TimerMode selects how a named periodic timer (rt-app's "timer" event)
// handles a missed expiry.
type TimerMode uint8

const (
	// TimerRelative: after a missed expiry the next period starts now.
	TimerRelative TimerMode = iota
	// TimerAbsolute: expiries stay on the grid start + k·period, missed or not.
	TimerAbsolute
)

// Run consumes d of CPU time: the phase ends once the task has run for d,
// however often it is preempted meanwhile.
func Run(d time.Duration) Phase { return Phase{kind: phRun, d: d} }

// RunJitter is Run for a duration drawn uniformly from [d, d+jitter) with
// the simulation's seeded generator.
func RunJitter(d, jitter time.Duration) Phase { return Phase{kind: phRun, d: d, j: jitter} }

// Spin is a CPU hog: the task runs until the simulation ends.
func Spin() Phase { return Phase{kind: phSpin} }

// SpinFor busy-waits on the clock: the phase ends d of simulated time after
// it started (at the first moment the task runs at or after that time), as
// a loop that polls gettimeofday does. Unlike Run, time spent preempted
// counts.
func SpinFor(d time.Duration) Phase { return Phase{kind: phSpinFor, d: d} }

// SpinUntil is SpinFor with an absolute end time.
func SpinUntil(t time.Duration) Phase { return Phase{kind: phSpinFor, until: t, n: 1} }

// Sleep blocks the task for d (nanosleep). A zero sleep does not block.
func Sleep(d time.Duration) Phase { return Phase{kind: phSleep, d: d} }

// SleepJitter is Sleep for a duration drawn uniformly from [d, d+jitter).
func SleepJitter(d, jitter time.Duration) Phase { return Phase{kind: phSleep, d: d, j: jitter} }

// SleepUntil blocks the task until the absolute simulated time t
// (clock_nanosleep with TIMER_ABSTIME); a time already passed does not block.
func SleepUntil(t time.Duration) Phase { return Phase{kind: phSleepUntil, until: t} }

// Timer sleeps until the next expiry of the task's periodic timer, as
// cyclictest's measuring loop does. The first expiry is one period after the
// phase first runs; each later one is the previous plus the period, moved on
// by whole periods while it is earlier than the moment the task resumed
// after its previous expiry (cyclictest's catch-up). An expiry already
// passed does not block. The expiry is the reference of a following Latency.
func Timer(period time.Duration) Phase { return Phase{kind: phTimer, d: period} }

// TimerUntil is Timer that ends the task (it exits) instead of sleeping
// when the next expiry would be after the absolute time end (cyclictest -D).
func TimerUntil(period, end time.Duration) Phase {
	return Phase{kind: phTimer, d: period, until: end, n: 1}
}

// NamedTimer is rt-app's "timer" event: a per-task timer, named so that
// several phases can share it, whose first reference is the moment the task
// first ran; each use adds one period and sleeps until then or, if that
// time has passed, does not sleep (and in TimerRelative mode restarts the
// grid at the current time). The expiry (or the current time, if it had
// passed) is the reference of a following Latency.
func NamedTimer(name string, period time.Duration, mode TimerMode) Phase {
	return Phase{kind: phRTTimer, d: period, label: name, mode: mode}
}

// Send writes n messages to ch, one at a time, blocking while ch is full
// (a pipe write). Each message is handed directly to a blocked receiver if
// there is one, which is then woken once its Recv is complete.
func Send(ch *Channel, n int) Phase { return Phase{kind: phSend, ch: ch, n: n} }

// SendRequest writes one message to ch that names replyTo as the channel
// for the answer (see Reply).
func SendRequest(ch, replyTo *Channel) Phase {
	return Phase{kind: phSend, ch: ch, reply: replyTo, n: 1}
}

// Reply writes one message to the reply channel named by the last message
// the task received; running it before any such message is a program error.
func Reply() Phase { return Phase{kind: phReply, n: 1} }

// Recv reads n messages from ch, one at a time, blocking while ch is empty
// (a pipe read). A sender blocked on a full ch is given the freed slot and is
// woken once its Send is complete. The send time of the last message read
// is the reference of a following Latency.
func Recv(ch *Channel, n int) Phase { return Phase{kind: phRecv, ch: ch, n: n} }

// Yield calls sched_yield: yield_task_fair, then a schedule. The task runs
// on at once if the pick chooses it again.
func Yield() Phase { return Phase{kind: phYield} }

// Loop runs body n times (n ≥ 0).
func Loop(n int, body ...Phase) Phase { return Phase{kind: phLoop, n: n, body: body} }

// Forever runs body until the simulation ends. The body must contain a
// phase that lets time pass (Run, Spin, a sleep, a timer, Send or Recv).
func Forever(body ...Phase) Phase { return Phase{kind: phForever, body: body} }

// LoopFor runs body while less than d of simulated time has passed since
// the loop started, testing before each iteration (while (now − start < d)).
func LoopFor(d time.Duration, body ...Phase) Phase {
	return Phase{kind: phLoopFor, d: d, body: body}
}

// Latency records a wakeup-latency sample in the task's histogram: the time
// from the reference of the last wakeup (a timer or sleep expiry, or the
// send time of the message that completed a Recv) to now, the moment the
// task runs this phase.
func Latency() Phase { return Phase{kind: phLatency} }

// Mark counts an occurrence of label for the task and remembers the time of
// the last one (loops done, requests served).
func Mark(label string) Phase { return Phase{kind: phMark, label: label} }

// Hook calls fn when the task reaches the phase. fn runs on the simulator's
// goroutine and must not retain the event.
func Hook(fn func(HookEvent)) Phase { return Phase{kind: phHook, hook: fn} }

// SetNice changes the task's nice value (set_user_nice).
func SetNice(nice int) Phase { return Phase{kind: phSetNice, n: nice} }

// SetSlice changes the task's slice (sched_setattr's sched_runtime; 0
// restores the base slice).
func SetSlice(d time.Duration) Phase { return Phase{kind: phSetSlice, d: d} }

// Exit ends the task. A program ends with an implicit Exit.
func Exit() Phase { return Phase{kind: phExit} }

// HookEvent is what a Hook receives.
type HookEvent struct {
	Now  time.Duration // simulated time
	Task int           // index of the task in the report
	Name string        // task name
	CPU  int           // CPU the task runs on
}

// opcode is a compiled instruction kind.
type opcode uint8

const (
	opRun opcode = iota // flag 1: a Sys phase (kernel mode)
	opSpin
	opSpinUntil // a = absolute end, or b = duration from the phase start
	opSleep
	opSleepUntil
	opTimer
	opRTTimer
	opSend
	opRecv
	opReply
	opYield
	opLoopInit
	opLoopNext
	opLoopForInit
	opLoopForNext
	opJump
	opLatency
	opMark
	opHook
	opSetNice
	opSetSlice
	opExit
)

// instr is one compiled instruction. Its fields are operands whose meaning
// depends on op; see the interpreter (exec.go).
type instr struct {
	op   opcode
	flag uint8 // timer mode; "has an end" for timers and spins
	slot int16 // loop-state or timer slot
	n    int32 // count, channel, label, hook index, nice, or jump target
	m    int32 // reply channel (−1: none), or loop end target
	a, b uint64
}

// program is a compiled program with the per-task state it needs.
type program struct {
	code   []instr
	slots  int // loop nesting depth
	timers int // named timers (and the cyclictest timer)
}

// compiler holds the simulation-wide tables that instructions refer to.
type compiler struct {
	chans  map[*Channel]int32
	chList []*Channel
	labels map[string]int32
	lNames []string
	hooks  []func(HookEvent)
	// noSlice refuses SetSlice: the kernel has no custom slices (v6.6).
	noSlice bool
}

// errNoCustomSlices refuses a custom slice under v6.6, whose sched_setattr
// ignores sched_runtime (KERNEL-SPEC-LTS Part I §6): a run that asked for
// one would silently not be the run it describes.
var errNoCustomSlices = errors.New("custom slices (sched_attr.sched_runtime) do not exist in v6.6")

func newCompiler() *compiler {
	return &compiler{chans: map[*Channel]int32{}, labels: map[string]int32{}}
}

func (c *compiler) channel(ch *Channel) (int32, error) {
	if ch == nil {
		return 0, fmt.Errorf("nil channel")
	}
	if err := ch.validate(); err != nil {
		return 0, err
	}
	if id, ok := c.chans[ch]; ok {
		return id, nil
	}
	id := int32(len(c.chList))
	c.chans[ch] = id
	c.chList = append(c.chList, ch)
	return id, nil
}

func (c *compiler) label(l string) int32 {
	if id, ok := c.labels[l]; ok {
		return id
	}
	id := int32(len(c.lNames))
	c.labels[l] = id
	c.lNames = append(c.lNames, l)
	return id
}

// durNs converts a non-negative duration to nanoseconds.
func durNs(what string, d time.Duration) (uint64, error) {
	if d < 0 {
		return 0, fmt.Errorf("%s: negative duration %v", what, d)
	}
	return uint64(d), nil
}

// progBuilder compiles one program.
type progBuilder struct {
	c      *compiler
	p      program
	timers map[string]int16
}

// compile turns a phase tree into a program ending with an Exit.
func (c *compiler) compile(phases []Phase) (*program, error) {
	b := &progBuilder{c: c, timers: map[string]int16{}}
	if err := b.seq(phases, 0); err != nil {
		return nil, err
	}
	b.emit(instr{op: opExit})
	if len(b.p.code) > math.MaxInt32 {
		return nil, fmt.Errorf("program too long")
	}
	return &b.p, nil
}

func (b *progBuilder) emit(in instr) int32 {
	b.p.code = append(b.p.code, in)
	return int32(len(b.p.code) - 1)
}

func (b *progBuilder) here() int32 { return int32(len(b.p.code)) }

func (b *progBuilder) seq(phases []Phase, depth int) error {
	for i := range phases {
		if err := b.phase(&phases[i], depth); err != nil {
			return err
		}
	}
	return nil
}

func (b *progBuilder) phase(p *Phase, depth int) error {
	switch p.kind {
	case phRun, phSleep:
		d, err := durNs("run/sleep", p.d)
		if err != nil {
			return err
		}
		j, err := durNs("jitter", p.j)
		if err != nil {
			return err
		}
		op := opRun
		if p.kind == phSleep {
			op = opSleep
		}
		b.emit(instr{op: op, a: d, b: j})
	case phSys:
		d, err := durNs("sys", p.d)
		if err != nil {
			return err
		}
		j, err := durNs("jitter", p.j)
		if err != nil {
			return err
		}
		b.emit(instr{op: opRun, flag: 1, a: d, b: j}) // flag 1: kernel mode
	case phSpin:
		b.emit(instr{op: opSpin})
	case phSpinFor:
		if p.n == 1 {
			t, err := durNs("spin end", p.until)
			if err != nil {
				return err
			}
			b.emit(instr{op: opSpinUntil, flag: 1, a: t})
		} else {
			d, err := durNs("spin", p.d)
			if err != nil {
				return err
			}
			b.emit(instr{op: opSpinUntil, b: d})
		}
	case phSleepUntil:
		t, err := durNs("sleep-until time", p.until)
		if err != nil {
			return err
		}
		b.emit(instr{op: opSleepUntil, a: t})
	case phTimer:
		per, err := durNs("timer period", p.d)
		if err != nil {
			return err
		}
		if per == 0 {
			return fmt.Errorf("timer period must be positive")
		}
		end, err := durNs("timer end", p.until)
		if err != nil {
			return err
		}
		slot := b.timer("\x00cyclic")
		b.emit(instr{op: opTimer, slot: slot, flag: uint8(p.n), a: per, b: end})
	case phRTTimer:
		per, err := durNs("timer period", p.d)
		if err != nil {
			return err
		}
		if per == 0 {
			return fmt.Errorf("timer %q: period must be positive", p.label)
		}
		slot := b.timer(p.label)
		b.emit(instr{op: opRTTimer, slot: slot, flag: uint8(p.mode), a: per})
	case phSend:
		if p.n < 0 || p.n > math.MaxInt32 {
			return fmt.Errorf("send: bad count %d", p.n)
		}
		id, err := b.c.channel(p.ch)
		if err != nil {
			return fmt.Errorf("send: %w", err)
		}
		if p.n == 0 {
			return nil
		}
		reply := int32(-1)
		if p.reply != nil {
			if reply, err = b.c.channel(p.reply); err != nil {
				return fmt.Errorf("send request: %w", err)
			}
		}
		b.emit(instr{op: opSend, n: id, m: reply, a: uint64(p.n)})
	case phReply:
		b.emit(instr{op: opReply, m: -1, a: 1})
	case phRecv:
		if p.n < 0 || p.n > math.MaxInt32 {
			return fmt.Errorf("recv: bad count %d", p.n)
		}
		id, err := b.c.channel(p.ch)
		if err != nil {
			return fmt.Errorf("recv: %w", err)
		}
		if p.n == 0 {
			return nil
		}
		b.emit(instr{op: opRecv, n: id, a: uint64(p.n)})
	case phYield:
		b.emit(instr{op: opYield})
	case phLoop:
		if p.n < 0 {
			return fmt.Errorf("loop: negative count %d", p.n)
		}
		if len(p.body) == 0 {
			return fmt.Errorf("loop: empty body")
		}
		if p.n == 0 {
			return nil
		}
		slot, err := b.slot(depth)
		if err != nil {
			return err
		}
		b.emit(instr{op: opLoopInit, slot: slot, a: uint64(p.n)})
		start := b.here()
		if err := b.seq(p.body, depth+1); err != nil {
			return err
		}
		b.emit(instr{op: opLoopNext, slot: slot, n: start})
	case phForever:
		if len(p.body) == 0 {
			return fmt.Errorf("forever: empty body")
		}
		if !passesTime(p.body) {
			return fmt.Errorf("forever: the body never lets time pass (add a Run, Spin, sleep, timer, Send or Recv)")
		}
		start := b.here()
		if err := b.seq(p.body, depth); err != nil {
			return err
		}
		b.emit(instr{op: opJump, n: start})
	case phLoopFor:
		d, err := durNs("loop-for", p.d)
		if err != nil {
			return err
		}
		if len(p.body) == 0 {
			return fmt.Errorf("loop-for: empty body")
		}
		if !passesTime(p.body) {
			return fmt.Errorf("loop-for: the body never lets time pass (add a Run, Spin, sleep, timer, Send or Recv)")
		}
		slot, err := b.slot(depth)
		if err != nil {
			return err
		}
		init := b.emit(instr{op: opLoopForInit, slot: slot, a: d})
		start := b.here()
		if err := b.seq(p.body, depth+1); err != nil {
			return err
		}
		b.emit(instr{op: opLoopForNext, slot: slot, n: start})
		b.p.code[init].n = b.here()
	case phLatency:
		b.emit(instr{op: opLatency})
	case phMark:
		b.emit(instr{op: opMark, n: b.c.label(p.label)})
	case phHook:
		if p.hook == nil {
			return fmt.Errorf("hook: nil function")
		}
		b.c.hooks = append(b.c.hooks, p.hook)
		b.emit(instr{op: opHook, n: int32(len(b.c.hooks) - 1)})
	case phSetNice:
		if p.n < -20 || p.n > 19 {
			return fmt.Errorf("set nice: %d outside -20..19", p.n)
		}
		b.emit(instr{op: opSetNice, n: int32(p.n)})
	case phSetSlice:
		if b.c.noSlice {
			return errNoCustomSlices
		}
		d, err := durNs("set slice", p.d)
		if err != nil {
			return err
		}
		b.emit(instr{op: opSetSlice, a: d})
	case phExit:
		b.emit(instr{op: opExit})
	default:
		return fmt.Errorf("invalid phase (use the constructors, e.g. sim.Run)")
	}
	return nil
}

func (b *progBuilder) slot(depth int) (int16, error) {
	if depth >= math.MaxInt16 {
		return 0, fmt.Errorf("loops nested too deeply")
	}
	if depth+1 > b.p.slots {
		b.p.slots = depth + 1
	}
	return int16(depth), nil
}

func (b *progBuilder) timer(name string) int16 {
	if s, ok := b.timers[name]; ok {
		return s
	}
	s := int16(b.p.timers)
	b.timers[name] = s
	b.p.timers++
	return s
}

// passesTime reports whether running body can let simulated time pass:
// it contains a phase that consumes CPU time, sleeps or may block.
func passesTime(body []Phase) bool {
	for i := range body {
		p := &body[i]
		switch p.kind {
		case phRun, phSleep, phSys:
			if p.d > 0 || p.j > 0 {
				return true
			}
		case phSpin, phSpinFor, phSleepUntil, phTimer, phRTTimer, phSend, phRecv, phReply, phExit:
			return true
		case phLoop, phForever, phLoopFor:
			if passesTime(p.body) {
				return true
			}
		}
	}
	return false
}
