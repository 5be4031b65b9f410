package sim

import "fmt"

// check verifies, in debug mode (Config.Debug) after every event, every
// runqueue's invariants (eevdf's Check) and the simulator's agreement with
// them:
//   - a CPU's running task is its runqueue's current entity; a CPU forced
//     idle keeps its task installed; an idle CPU has none;
//   - a runnable task is queued (not delayed) on its CPU and not running;
//     a blocked or exited task is not queued, unless a blocked one is
//     delayed;
//   - the two CPUs of a core-scheduling pair run tasks of one cookie.
//
// The simulator's own runtime accounting is compared with eevdf's
// sum_exec_runtime at every switch-out (switchOut).
func (s *Sim) check() error {
	for i := range s.cpus {
		c := &s.cpus[i]
		if err := c.rq.Check(); err != nil {
			return fmt.Errorf("CPU %d: %w", i, err)
		}
		curr := c.rq.Curr()
		switch {
		case c.curr >= 0:
			t := &s.tasks[c.curr]
			if curr != t.se {
				return fmt.Errorf("CPU %d runs %s but its runqueue's current entity is %v", i, t.name, curr)
			}
			if t.state != stRunning || t.cpu != c.id {
				return fmt.Errorf("CPU %d runs %s in state %d on CPU %d", i, t.name, t.state, t.cpu)
			}
		case curr != nil:
			return fmt.Errorf("CPU %d idle but its runqueue runs %s", i, curr.Name())
		}
		if c.sibling > int32(i) && c.curr >= 0 {
			if o := &s.cpus[c.sibling]; o.curr >= 0 && s.tasks[c.curr].cookie != s.tasks[o.curr].cookie {
				return fmt.Errorf("core pair %d/%d runs cookies %d and %d", i, c.sibling,
					s.tasks[c.curr].cookie, s.tasks[o.curr].cookie)
			}
		}
	}
	for i := range s.tasks {
		t := &s.tasks[i]
		se := t.se
		switch t.state {
		case stRunnable:
			if !se.OnRq() || se.Delayed() {
				return fmt.Errorf("runnable %s: on_rq %v, delayed %v", t.name, se.OnRq(), se.Delayed())
			}
			c := &s.cpus[t.cpu]
			if c.curr == int32(i) {
				return fmt.Errorf("runnable %s is running on CPU %d", t.name, t.cpu)
			}
		case stBlocked:
			if se.OnRq() && !se.Delayed() {
				return fmt.Errorf("blocked %s is queued and not delayed", t.name)
			}
		case stExited, stNew:
			if se.OnRq() {
				return fmt.Errorf("%s (state %d) is queued", t.name, t.state)
			}
		}
	}
	return nil
}
