package sim

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// ftraceLog writes a run as the raw text of the kernel's tracefs trace
// file (the format package trace reads as FormatFtrace), so that a
// simulated run can go through the same replay as a real kernel's trace.
//
// The events are those a kernel records with sched_switch, sched_wakeup,
// sched_wakeup_new, sched_migrate_task and the tick's timer (an
// hrtimer_expire_entry of tick_nohz_handler), each at the simulated ns and
// in the order the simulator made the calls — the order of KERNEL-SPEC-SMP
// §7.3. Task i is pid i+1 under its name cut to the kernel's 15 bytes
// (spaces made underscores), idle is pid 0; prio is 120 + nice. A move that
// package smp made inside a call (a wakeup placed elsewhere, newly idle,
// periodic or active balancing) is written as sched_migrate_task before
// the next line, or when the call returns.
type ftraceLog struct {
	w    *bufio.Writer
	cpu  []int32 // each task's CPU as last written (−1: not created)
	comm []string
	line []byte
	err  error
}

// WriteFtrace makes the run write itself to w as ftrace text while it
// runs (buffered; Run flushes it at the end, a caller driving Step calls
// FlushFtrace). It must be called before the first Step; it fails after.
// A write error ends the run with that error. Writing costs a line per
// event and a scan of the tasks per line (for the moves package smp made),
// nothing when WriteFtrace was not called.
func (s *Sim) WriteFtrace(w io.Writer) error {
	if s.now != 0 || s.events != 0 {
		return errors.New("ftrace: WriteFtrace after the run started")
	}
	l := &ftraceLog{w: bufio.NewWriterSize(w, 1<<16), cpu: make([]int32, len(s.tasks)), comm: make([]string, len(s.tasks))}
	for i := range s.tasks {
		l.cpu[i] = -1
		c := []byte(s.tasks[i].name)
		if len(c) > 15 {
			c = c[:15]
		}
		for j, b := range c {
			if b == ' ' || b == '\t' || b == '\n' || b == '\r' {
				c[j] = '_'
			}
		}
		l.comm[i] = string(c)
	}
	l.w.WriteString("# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:")
	l.w.WriteString(strconv.Itoa(len(s.cpus)))
	l.w.WriteString("\n#\n#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n#              | |         |   |||||     |         |\n")
	s.ftrace = l
	return nil
}

// FlushFtrace writes out what the ftrace text holds buffered and returns
// the first write error, if any (nil without WriteFtrace).
func (s *Sim) FlushFtrace() error {
	if s.ftrace == nil {
		return nil
	}
	s.flushFtrace()
	return s.ftrace.err
}

// flushFtrace ends the ftrace text; a write error ends the run with it.
func (s *Sim) flushFtrace() {
	if l := s.ftrace; l != nil {
		if err := l.w.Flush(); err != nil && l.err == nil {
			l.err = err
		}
		if l.err != nil && s.err == nil {
			s.err, s.halt = l.err, true
		}
	}
}

// The hooks the simulator calls; each does nothing unless WriteFtrace was
// called, and inlines to that test.

func (s *Sim) ftraceSwitch(c *cpu, prev, next int32) {
	if s.ftrace != nil {
		s.ftrace.sw(s, c, prev, next)
	}
}

func (s *Sim) ftraceWake(ti, waker int32, isNew bool) {
	if s.ftrace != nil {
		s.ftrace.wake(s, ti, waker, isNew)
	}
}

func (s *Sim) ftraceTick(c *cpu) {
	if s.ftrace != nil {
		s.ftrace.tick(s, c)
	}
}

func (s *Sim) ftraceMoves() {
	if s.ftrace != nil {
		s.ftrace.moves(s)
	}
}

// head starts a line as the kernel's trace file lays it out: the task
// column (comm right-aligned in 16 columns, a dash, the pid left-aligned in
// 7: the kernel's "%16s-%-7d"), the CPU, the flags and the time, seconds
// right-aligned in 5 columns, then the event name. The time has nine
// digits after the point, not the file's six: the simulation's times are
// whole ns, and a replay of the text must see them as they were (package
// trace reads either).
func (l *ftraceLog) head(s *Sim, cpu int32, pid int32, event string) {
	b := l.line[:0]
	comm := "<idle>"
	if pid > 0 {
		comm = l.comm[pid-1]
	}
	for n := len(comm); n < 16; n++ {
		b = append(b, ' ')
	}
	b = append(b, comm...)
	b = append(b, '-')
	n := len(b)
	b = strconv.AppendInt(b, int64(pid), 10)
	for len(b)-n < 7 {
		b = append(b, ' ')
	}
	b = append(b, " ["...)
	if cpu < 100 {
		b = append(b, '0')
	}
	if cpu < 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(cpu), 10)
	b = append(b, "] d..2. "...)
	sec := s.now / 1e9
	for d := uint64(10000); d > 1 && sec < d; d /= 10 {
		b = append(b, ' ')
	}
	b = strconv.AppendUint(b, sec, 10)
	b = append(b, '.')
	n = len(b)
	b = strconv.AppendUint(b, s.now%1e9+1e9, 10) // 1 followed by nine digits
	b = append(b[:n], b[n+1:]...)
	b = append(b, ": "...)
	b = append(b, event...)
	b = append(b, ": "...)
	l.line = b
}

// task appends prefix+comm, pid and prio of task ti; idle (−1) is
// swapper/CPU, pid 0, prio 120.
func (l *ftraceLog) task(prefix string, s *Sim, ti, cpu int32) {
	b := append(l.line, prefix...)
	b = append(b, "comm="...)
	prio := 120
	if ti < 0 {
		b = append(b, "swapper/"...)
		b = strconv.AppendInt(b, int64(cpu), 10)
	} else {
		b = append(b, l.comm[ti]...)
		prio += s.tasks[ti].se.Nice()
	}
	b = append(b, ' ')
	b = append(b, prefix...)
	b = append(b, "pid="...)
	b = strconv.AppendInt(b, int64(ti+1), 10)
	b = append(b, ' ')
	b = append(b, prefix...)
	b = append(b, "prio="...)
	b = strconv.AppendInt(b, int64(prio), 10)
	l.line = b
}

func (l *ftraceLog) end() {
	l.line = append(l.line, '\n')
	if _, err := l.w.Write(l.line); err != nil && l.err == nil {
		l.err = err
	}
}

// moves writes sched_migrate_task for every created task whose CPU
// changed since the last line, on the CPU it left.
func (l *ftraceLog) moves(s *Sim) {
	for i := range s.tasks {
		t := &s.tasks[i]
		if l.cpu[i] < 0 || t.state == stNew || t.state == stExited {
			continue
		}
		if cpu := int32(t.st.CPU()); cpu != l.cpu[i] {
			orig := l.cpu[i]
			l.head(s, orig, s.cpus[orig].curr+1, "sched_migrate_task")
			l.task("", s, int32(i), 0)
			l.line = append(l.line, " orig_cpu="...)
			l.line = strconv.AppendInt(l.line, int64(orig), 10)
			l.line = append(l.line, " dest_cpu="...)
			l.line = strconv.AppendInt(l.line, int64(cpu), 10)
			l.end()
			l.cpu[i] = cpu
		}
	}
}

// sw writes c's switch from prev to next (−1: idle); prev's state is R+
// if it stays runnable, X if it exited, S otherwise.
func (l *ftraceLog) sw(s *Sim, c *cpu, prev, next int32) {
	l.moves(s)
	l.head(s, c.id, prev+1, "sched_switch")
	l.task("prev_", s, prev, c.id)
	state := "S"
	if prev >= 0 {
		switch s.tasks[prev].state {
		case stRunnable:
			state = "R+"
		case stExited:
			state = "X"
		}
	} else {
		state = "R"
	}
	l.line = append(l.line, " prev_state="...)
	l.line = append(l.line, state...)
	l.line = append(l.line, " ==> "...)
	l.task("next_", s, next, c.id)
	l.end()
}

// wake writes the wakeup (or wakeup_new) of ti with its target CPU, on
// the waker's CPU (a timer's: the CPU it expired on).
func (l *ftraceLog) wake(s *Sim, ti, waker int32, isNew bool) {
	l.moves(s)
	t := &s.tasks[ti]
	target := int32(t.st.CPU())
	cpu, pid := target, int32(0)
	switch {
	case waker >= 0 && s.tasks[waker].runCPU >= 0:
		cpu, pid = s.tasks[waker].runCPU, waker+1
	case s.here >= 0:
		cpu, pid = s.here, s.cpus[s.here].curr+1
	}
	if pid == 0 && cpu >= 0 {
		pid = s.cpus[cpu].curr + 1
	}
	event := "sched_wakeup"
	if isNew {
		event = "sched_wakeup_new"
	}
	l.head(s, cpu, pid, event)
	l.task("", s, ti, 0)
	l.line = append(l.line, " target_cpu="...)
	if target < 100 {
		l.line = append(l.line, '0')
	}
	if target < 10 {
		l.line = append(l.line, '0')
	}
	l.line = strconv.AppendInt(l.line, int64(target), 10)
	l.end()
	l.cpu[ti] = target
}

// tick writes the expiry of c's tick timer.
func (l *ftraceLog) tick(s *Sim, c *cpu) {
	l.moves(s)
	l.head(s, c.id, c.curr+1, "hrtimer_expire_entry")
	l.line = append(l.line, "hrtimer=00000000"...)
	l.line = strconv.AppendUint(l.line, 0x10000000+uint64(c.id), 16)
	l.line = append(l.line, " function=tick_nohz_handler now="...)
	l.line = strconv.AppendUint(l.line, s.now, 10)
	l.end()
}
