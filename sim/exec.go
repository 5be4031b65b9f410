package sim

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The interpreter: it runs a task's compiled program from its program
// counter while the task is the one its CPU runs, until the task starts a
// phase that takes time (Run, Spin), blocks, exits, or loses its CPU
// because of what it did (a wakeup it caused preempted it, a yield picked
// another task).

// resumeTask starts t progressing on c, after its switch-in and the switch
// cost: an interrupted Run or Spin phase continues (resumePhase), anything
// else goes on with the program.
func (s *Sim) resumeTask(c *cpu, t *task) {
	if t.inRun {
		s.resumePhase(c, t)
		return
	}
	t.progressing = true
	if !t.begun {
		t.begun = true
		t.firstRun = s.now
	}
	if t.timerWait > 0 {
		t.timers[t.timerWait-1].woke = s.now
		t.timerWait = 0
	}
	if t.pc == t.cycJump {
		s.cycleRun(c, t) // the decoded loop, resumed after its sleep
		return
	}
	s.exec(c, t)
}

// resumePhase is resumeTask for t inside a Run or Spin phase (inRun): the
// phase continues. resumeTask's first tests are left out, as they cannot
// pass there: t has run before (it started its phase after a resume), and
// waits on no periodic timer (that resume cleared any such wait, and the
// phase began after it).
func (s *Sim) resumePhase(c *cpu, t *task) {
	t.progressing = true
	if t.spin {
		t.segStart = s.now
		switch {
		case t.spinEnd == 0:
		case t.spinEnd <= s.now:
			s.phaseDone(c, t)
		default:
			s.postDone(t.spinEnd, t, c.id, t.gen)
		}
		return
	}
	if t.remaining == 0 {
		s.phaseDone(c, t)
		return
	}
	t.segStart = s.now
	s.postDone(addSat(s.now, wallFor(c, t.remaining)), t, c.id, t.gen)
}

// phaseDone ends the running task's Run or Spin phase and goes on.
func (s *Sim) phaseDone(c *cpu, t *task) {
	if t.pc+1 == t.cycSleep {
		s.cycleEnd(c, t) // the burst of the decoded loop
		return
	}
	wasSys := t.sys
	if t.spin {
		t.work += workIn(c, s.now-t.segStart)
	} else {
		t.work += t.remaining // the work left when the phase last resumed
	}
	t.inRun, t.spin, t.sys = false, false, false
	t.remaining, t.spinEnd = 0, 0
	t.pc++
	s.here = c.id
	if wasSys && !callGoesOn(t) && !s.returnToUser(c, t.idx) {
		return
	}
	s.exec(c, t)
}

// still reports whether t is still running on c in the same stint.
func (s *Sim) still(c *cpu, ti int32, gen uint32) bool {
	t := &s.tasks[ti]
	return t.gen == gen && t.state == stRunning && c.curr == ti
}

// errLivelock is returned when programs keep running without simulated
// time moving.
var errLivelock = errors.New("programs make no progress in time (livelock)")

// exec runs t's program; t is running on c and progressing.
func (s *Sim) exec(c *cpu, t *task) {
	gen := t.gen
	s.here = c.id
	for {
		s.steps++
		if s.steps > maxStepsAtOneTime {
			s.fail(errLivelock)
			return
		}
		in := &t.code[t.pc]
		switch in.op {
		case opRun:
			d := in.a
			if in.b > 0 {
				d += s.randN(in.b)
			}
			if d == 0 {
				t.pc++
				continue
			}
			t.inRun, t.remaining, t.segStart = true, d, s.now
			t.sys, t.sysLen = in.flag == 1, d
			end := addSat(s.now, wallFor(c, d))
			if !s.doneApart || t.gen != gen {
				s.postDone(end, t, c.id, gen)
				return
			}
			// postDone's live completion kept apart, written out for the
			// most common phase: one call less a run/sleep cycle.
			s.seq++
			s.donePosted = true
			s.doneAt, s.doneSeq, s.doneTask, s.doneGen = end, s.seq, t, gen
			return
		case opSpin:
			t.inRun, t.spin, t.spinEnd, t.segStart = true, true, 0, s.now
			return
		case opSpinUntil:
			end := in.a
			if in.flag == 0 {
				end = addSat(s.now, in.b)
			}
			if end <= s.now {
				t.pc++
				continue
			}
			t.inRun, t.spin, t.spinEnd, t.segStart = true, true, end, s.now
			s.postDone(end, t, c.id, gen)
			return
		case opSleep:
			d := in.a
			if in.b > 0 {
				d += s.randN(in.b)
			}
			t.pc++
			if d == 0 {
				continue
			}
			// sleepUntil, written out for the most common sleep: one
			// call less a run/sleep cycle.
			at := addSat(s.now, d)
			t.wakeGen++
			if t.slack > 0 {
				at = s.armSlack(c, t.idx, at)
			}
			s.postTimer(at, t.idx, t.wakeGen)
			s.block(c, t)
			return
		case opSleepUntil:
			t.pc++
			t.wakeRef = in.a
			if in.a <= s.now {
				continue
			}
			s.sleepUntil(c, t, in.a)
			return
		case opTimer:
			ts := &t.timers[in.slot]
			per := in.a
			if !ts.init {
				ts.init = true
				ts.next = addSat(s.now, per)
			} else {
				ts.next = addSat(ts.next, per)
				if ts.woke > ts.next {
					// cyclictest: while (now > next) next += interval;
					// k = ⌈(woke − next)/period⌉ periods skipped.
					k := (ts.woke - ts.next + per - 1) / per
					ts.next = addSat(ts.next, k*per)
				}
			}
			if in.flag == 1 && ts.next > in.b {
				s.exit(c, t)
				return
			}
			t.pc++
			t.wakeRef = ts.next
			if ts.next <= s.now {
				ts.woke = s.now
				continue
			}
			t.timerWait = in.slot + 1
			s.sleepUntil(c, t, ts.next)
			return
		case opRTTimer:
			ts := &t.timers[in.slot]
			if !ts.init {
				ts.init = true
				ts.next = t.firstRun
			}
			ts.next = addSat(ts.next, in.a)
			t.pc++
			if s.now < ts.next {
				t.wakeRef = ts.next
				s.sleepUntil(c, t, ts.next)
				return
			}
			t.wakeRef = s.now
			if TimerMode(in.flag) == TimerRelative {
				ts.next = s.now
			}
		case opSend:
			c.inCall = true
			ok := s.send(c, t.idx, in.n, in.m, in.a)
			c.inCall = false
			if !ok || !s.returnToUser(c, t.idx) {
				return
			}
		case opReply:
			if t.lastReply < 0 {
				s.fail(fmt.Errorf("%s: Reply without a request to answer", t.name))
				return
			}
			c.inCall = true
			ok := s.send(c, t.idx, t.lastReply, -1, 1)
			c.inCall = false
			if !ok || !s.returnToUser(c, t.idx) {
				return
			}
		case opRecv:
			c.inCall = true
			ok := s.recv(c, t.idx, in.n, in.a)
			c.inCall = false
			if !ok || !s.returnToUser(c, t.idx) {
				return
			}
		case opYield:
			t.pc++
			t.yields++
			if s.slog != nil {
				s.logOp("yield", "", "")
				s.slog.mute = true
			}
			s.rq(c).Yield() // yield_task_fair, then schedule()
			s.schedule(c)
			s.flushDue()
			if !s.still(c, t.idx, gen) {
				return
			}
		case opLoopInit:
			t.slots[in.slot] = in.a
			t.pc++
		case opLoopNext:
			t.slots[in.slot]--
			if t.slots[in.slot] > 0 {
				t.pc = in.n
			} else {
				t.pc++
			}
		case opLoopForInit:
			end := addSat(s.now, in.a)
			t.slots[in.slot] = end
			if s.now >= end {
				t.pc = in.n
			} else {
				t.pc++
			}
		case opLoopForNext:
			if s.now < t.slots[in.slot] {
				t.pc = in.n
			} else {
				t.pc++
			}
		case opJump:
			t.pc = in.n
		case opLatency:
			if s.now >= t.wakeRef {
				t.lat = append(t.lat, s.now-t.wakeRef)
			}
			t.pc++
		case opMark:
			m := &t.marks[in.n]
			m.count++
			m.last = s.now
			t.pc++
		case opHook:
			t.pc++
			s.hooks[in.n](HookEvent{Now: time.Duration(s.now), Task: int(t.idx), Name: t.name, CPU: int(c.id)})
		case opSetNice, opSetSlice:
			t.pc++
			if s.slog != nil {
				if in.op == opSetNice {
					s.logOp("renice", t.name, strconv.Itoa(int(in.n)))
				} else {
					s.logOp("slice", t.name, strconv.FormatUint(in.a, 10))
				}
			}
			var err error
			if in.op == opSetNice {
				err = s.rq(c).SetNice(t.se, int(in.n))
			} else {
				err = s.rq(c).SetSlice(t.se, in.a)
			}
			if err != nil {
				s.fail(err)
				return
			}
			if s.rq(c).NeedResched() {
				s.schedule(c)
				s.flushDue()
				if !s.still(c, t.idx, gen) {
					return
				}
			}
		case opExit:
			s.exit(c, t)
			return
		default:
			s.fail(fmt.Errorf("%s: bad instruction %d", t.name, in.op))
			return
		}
	}
}

// sleepUntil blocks the running task t until the absolute time at.
func (s *Sim) sleepUntil(c *cpu, t *task, at uint64) {
	t.wakeGen++
	if t.slack > 0 {
		at = s.armSlack(c, t.idx, at)
	}
	s.postTimer(at, t.idx, t.wakeGen)
	s.block(c, t)
}

// exit ends t: a dequeue that is never delayed (a dead task), then schedule.
func (s *Sim) exit(c *cpu, t *task) {
	t.exitAt = s.now
	s.live--
	s.halt = s.halt || s.live == 0
	s.blockDead(c, t)
}

// send writes the rest of t's current Send (n messages, reply channel
// reply) to channel ch. It returns true when the Send is complete and t
// still runs, false when t blocked or lost its CPU.
func (s *Sim) send(c *cpu, ti, ch, reply int32, n uint64) bool {
	t := &s.tasks[ti]
	gen := t.gen
	cs := &s.chans[ch]
	if t.opLeft == 0 {
		t.opLeft = n
	}
	for {
		if r, ok := cs.recvQ.peek(); ok {
			// Hand the message to the first blocked receiver.
			rt := &s.tasks[r]
			cs.sent++
			cs.received++
			rt.lastReply = reply
			rt.opLeft--
			t.opLeft--
			done := t.opLeft == 0
			if done {
				t.pc++
			}
			if rt.opLeft == 0 {
				cs.recvQ.pop()
				rt.pc++
				rt.wakeRef = s.now
				s.wake(rt, ti, cs.def.sync) // the sender wakes the receiver
				s.flushDue()
				if !s.still(c, ti, gen) {
					return false
				}
			}
			if done {
				return true
			}
			continue
		}
		if cs.buf.len() < cs.def.capacity {
			cs.buf.push(msg{stamp: s.now, replyTo: reply})
			cs.sent++
			cs.maxFill = max(cs.maxFill, cs.buf.len())
			t.opLeft--
			if t.opLeft == 0 {
				t.pc++
				return true
			}
			continue
		}
		cs.sendQ.push(ti)
		s.block(c, t)
		return false
	}
}

// recv reads the rest of t's current Recv (n messages) from channel ch,
// with the same result as send.
func (s *Sim) recv(c *cpu, ti, ch int32, n uint64) bool {
	t := &s.tasks[ti]
	gen := t.gen
	cs := &s.chans[ch]
	if t.opLeft == 0 {
		t.opLeft = n
	}
	for {
		m, ok := cs.buf.pop()
		if !ok {
			cs.recvQ.push(ti)
			s.block(c, t)
			return false
		}
		cs.received++
		t.lastReply = m.replyTo
		t.wakeRef = m.stamp
		t.opLeft--
		done := t.opLeft == 0
		if done {
			t.pc++
		}
		if w, ok := cs.sendQ.peek(); ok {
			// The freed slot goes to the first blocked sender.
			st := &s.tasks[w]
			reply := int32(-1)
			if sin := &st.code[st.pc]; sin.op == opSend {
				reply = sin.m
			}
			cs.buf.push(msg{stamp: s.now, replyTo: reply})
			cs.sent++
			st.opLeft--
			if st.opLeft == 0 {
				cs.sendQ.pop()
				st.pc++
				s.wake(st, ti, cs.def.sync) // the receiver wakes the sender
				s.flushDue()
				if !s.still(c, ti, gen) {
					return false
				}
			}
		}
		if done {
			return true
		}
	}
}
