package sim

import "fmt"

// check verifies, in debug mode (Config.Debug) after every event (and on
// several CPUs after every CPU's tick), the System's invariants (smp's
// Check: every runqueue's eevdf Check, and every task where the System
// believes it is) and the simulator's agreement with them:
//   - a CPU's running task is its runqueue's current entity and runs
//     there for the System too (task_cpu); an idle CPU, forced idle or
//     not, has none installed;
//   - a runnable task is queued (not delayed) on its task_cpu and not
//     running; a blocked or exited task is not queued, unless a blocked
//     one is delayed; the System agrees on each task's state.
//
// Under core scheduling smp's Check verifies the core invariants (the
// SMT threads of a settled core run one cookie or are forced idle, each
// core tree holds exactly its queued cookied tasks, core_pick_seq is
// consistent); the simulator's view of forced idle must match smp's.
//
// On one CPU a completion kept apart (donePosted) must be live, as step
// takes it without testing it (task.completes).
//
// The simulator's own runtime accounting is compared with eevdf's
// sum_exec_runtime at every switch-out (switchTo).
func (s *Sim) check() error {
	if err := s.sys.Check(); err != nil {
		return err
	}
	if t := s.doneTask; s.donePosted && !t.completes(s.doneGen) {
		return fmt.Errorf("the completion kept apart for %s (stint %d) is stale: stint %d, state %d, progressing %v, in a phase %v",
			t.name, s.doneGen, t.gen, t.state, t.progressing, t.inRun)
	}
	for i := range s.cpus {
		c := &s.cpus[i]
		curr := c.rq.Curr()
		if want := s.taskAt(c.curr); c.currT != want {
			return fmt.Errorf("CPU %d runs task %d but its task pointer is %p, want %p", i, c.curr, c.currT, want)
		}
		switch {
		case c.curr >= 0:
			t := &s.tasks[c.curr]
			if curr != t.se {
				return fmt.Errorf("CPU %d runs %s but its runqueue's current entity is %v", i, t.name, curr)
			}
			if t.state != stRunning || t.runCPU != c.id || t.st.CPU() != i {
				return fmt.Errorf("CPU %d runs %s in state %d on CPU %d (task_cpu %d)", i, t.name, t.state, t.runCPU, t.st.CPU())
			}
		case curr != nil:
			return fmt.Errorf("CPU %d idle but its runqueue runs %s", i, curr.Name())
		}
		if s.core != nil {
			if err := s.checkForced(i); err != nil {
				return err
			}
		}
	}
	for i := range s.tasks {
		t := &s.tasks[i]
		se := t.se
		switch t.state {
		case stRunnable:
			if !se.OnRq() || se.Delayed() || !t.st.Runnable() {
				return fmt.Errorf("runnable %s: on_rq %v, delayed %v, runnable for smp %v", t.name, se.OnRq(), se.Delayed(), t.st.Runnable())
			}
			if c := &s.cpus[t.st.CPU()]; c.curr == int32(i) {
				return fmt.Errorf("runnable %s is running on CPU %d", t.name, c.id)
			}
		case stRunning:
			if !t.st.Runnable() {
				return fmt.Errorf("running %s is not runnable for smp", t.name)
			}
		case stBlocked:
			if se.OnRq() && !se.Delayed() || !t.st.Sleeping() {
				return fmt.Errorf("blocked %s: queued %v, delayed %v, sleeping for smp %v", t.name, se.OnRq(), se.Delayed(), t.st.Sleeping())
			}
		case stExited:
			if se.OnRq() || !t.st.Dead() {
				return fmt.Errorf("exited %s: queued %v, dead for smp %v", t.name, se.OnRq(), t.st.Dead())
			}
		case stNew:
			if se.OnRq() {
				return fmt.Errorf("%s (not started) is queued", t.name)
			}
		}
	}
	return nil
}

// taskAt is the task of index ti, nil for −1 (idle).
func (s *Sim) taskAt(ti int32) *task {
	if ti < 0 {
		return nil
	}
	return &s.tasks[ti]
}
