package sim

// The run/sleep cycle's decoded form. The most common program shape is a
// loop of a CPU burst and a sleep, Forever(RunJitter(a, b),
// SleepJitter(c, d)), compiled to the three instructions
//
//	k:   Run   a, b
//	k+1: Sleep c, d
//	k+2: Jump  k
//
// A task with such a loop keeps the pcs of its Sleep and of its Jump and
// the four operands in fields of its own (decodeCycle, at New). At the
// end of its burst (in step or phaseDone) and at its resume after the
// sleep (in step or resumeTask) it runs cycleEnd and cycleRun instead of
// phaseDone's general case and the interpreter: one test of the pc where
// the interpreter found each instruction in the program (an index and a
// bounds check), dispatched on its opcode through the jump table and went
// round its loop, three times a cycle.
//
// Both do exactly what the interpreter does at those pcs, program step
// for program step: the same draws in the same order, the same state
// left behind, and the same count of steps at the current time
// (s.steps), so that the livelock guard fails at the same step. A decoded
// loop needs a and c positive, so that neither phase can draw a zero
// duration (the interpreter goes on past a zero Run or Sleep in the same
// visit, which the decoded form does not follow).

// decodeCycle finds t's first Run–Sleep–Jump loop with positive minimum
// durations, and sets t's decoded form from it; without one, cycSleep and
// cycJump stay −1, a pc no program reaches.
func (t *task) decodeCycle() {
	t.cycSleep, t.cycJump = -1, -1
	code := t.code
	for k := 0; k+2 < len(code); k++ {
		run, sleep, jump := &code[k], &code[k+1], &code[k+2]
		if run.op != opRun || run.flag != 0 || run.a == 0 ||
			sleep.op != opSleep || sleep.a == 0 ||
			jump.op != opJump || jump.n != int32(k) {
			continue
		}
		t.cycSleep, t.cycJump = int32(k+1), int32(k+2)
		t.cycRunA, t.cycRunB = run.a, run.b
		t.cycSleepA, t.cycSleepB = sleep.a, sleep.b
		return
	}
}

// cycleEnd ends the burst of t's decoded loop (t.pc == t.cycSleep−1,
// t running on c and progressing in it) and takes the one program step
// that follows, its Sleep: phaseDone's work for a Run phase that is no
// Sys phase (its spin, sys and spinEnd, which phaseDone clears, are clear
// in such a phase already), then exec's opSleep, in one function where
// they were two and the interpreter's loop. step calls it for the
// completion kept apart, phaseDone for the others.
func (s *Sim) cycleEnd(c *cpu, t *task) {
	t.work += t.remaining // the work left when the phase last resumed
	t.inRun, t.remaining = false, 0
	t.pc++
	s.here = c.id
	s.steps++
	if s.steps > maxStepsAtOneTime {
		s.fail(errLivelock)
		return
	}
	d := t.cycSleepA // positive: the sleep blocks (decodeCycle)
	if t.cycSleepB > 0 {
		d += s.randN(t.cycSleepB)
	}
	t.pc++
	at := addSat(s.now, d)
	t.wakeGen++
	if t.slack > 0 {
		at = s.armSlack(c, t.idx, at)
	}
	// postTimer, written out: one call less a cycle.
	s.seq++
	e := s.queue.add()
	e.at, e.seq, e.ord, e.task, e.cpu, e.gen, e.kind, e.cls = at, s.seq, s.now, t.idx, -1, t.wakeGen, evWake, clsTimer
	e.key = e.orderKey()
	s.queue.up()
	s.block(c, t)
}

// cycleRun is resumeTask for t at the Jump of its decoded loop (t.pc ==
// t.cycJump), where t resumes after its sleep on c: it starts to
// progress and takes two program steps, the Jump and the Run it jumps
// to, which starts the next burst as exec's opRun does. resumeTask's
// other tests are left out, as they cannot pass there: t is in no phase
// (its pc is at a Jump), has run before (it has slept in its loop), and
// waits on no periodic timer (it slept in its loop's Sleep, after a
// resume that cleared any such wait). Where the second step would pass
// the livelock guard's bound, the interpreter takes the two steps
// instead, and fails at the same one.
func (s *Sim) cycleRun(c *cpu, t *task) {
	t.progressing = true
	if s.steps >= maxStepsAtOneTime-1 {
		s.exec(c, t)
		return
	}
	s.steps += 2
	s.here = c.id
	t.pc = t.cycJump - 2
	d := t.cycRunA // positive: the burst takes time (decodeCycle)
	if t.cycRunB > 0 {
		d += s.randN(t.cycRunB)
	}
	t.inRun, t.remaining, t.segStart = true, d, s.now
	t.sys, t.sysLen = false, d
	end := addSat(s.now, wallFor(c, d))
	if !s.doneApart {
		s.postDone(end, t, c.id, t.gen)
		return
	}
	// postDone's live completion kept apart, as in exec: t has not
	// left the CPU since it resumed, so its stint is still t.gen.
	s.seq++
	s.donePosted = true
	s.doneAt, s.doneSeq, s.doneTask, s.doneGen = end, s.seq, t, t.gen
}
