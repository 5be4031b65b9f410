package sim

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/schedmodel/fairclass/eevdf"
)

// scenarioLog writes a one-CPU run in the scenario language (package
// scenario, "fairclass replay"): the header, one declaration per task, and
// one operation per core-side sequence the simulator drove, so that the run
// can be replayed operation by operation and compared with the kernel's.
//
// Each simulator sequence is one scenario operation: task creation is
// "new", a wakeup "wakeup", a block "sleep" (the dequeue and the
// schedule), a tick "tick", a preemption point "schedule", a sched_yield
// "yield", a nice or slice change "renice" or "slice". Exits (a dequeue
// with DEQUEUE_SPECIAL) and sync wakeups under NEXT_BUDDY have no scenario
// operation; an exit ends the run with an error.
type scenarioLog struct {
	w    *bufio.Writer
	mute bool // the next schedule belongs to a sleep or a yield
}

// errExitNotScenario reports an exit while writing a scenario.
var errExitNotScenario = errors.New("scenario log: a task exits, which the scenario language cannot express (keep programs running until the stop time)")

func (s *Sim) startScenarioLog(w io.Writer) error {
	if len(s.cpus) != 1 {
		return errors.New("scenario log: the scenario language models one CPU")
	}
	l := &scenarioLog{w: bufio.NewWriter(w)}
	fmt.Fprintf(l.w, "# simulated by package sim, seed %d\n", s.cfg.Seed)
	if s.cfg.Kernel != eevdf.KernelV73 {
		// The language has no kernel line: the replay names it.
		fmt.Fprintf(l.w, "# replay with --kernel %v\n", s.cfg.Kernel)
	}
	if d := s.feat.Diff(s.kernelDefaults()); d != "" {
		fmt.Fprintf(l.w, "features %s\n", d)
	}
	fmt.Fprintf(l.w, "base_slice %d\nhz %d\n", s.baseSlice, s.cfg.HZ)
	if len(s.cfg.Groups) > 0 {
		fmt.Fprintf(l.w, "cgroup_mode %s\n", s.cfg.CgroupMode)
	}
	for _, g := range s.cfg.Groups {
		if !validScenarioName(g.Name) {
			return fmt.Errorf("scenario log: group name %q (letters, digits, _ - . ; at most 64)", g.Name)
		}
		fmt.Fprintf(l.w, "group %s", g.Name)
		if g.Parent != "" && g.Parent != "/" {
			fmt.Fprintf(l.w, " parent=%s", g.Parent)
		}
		switch {
		case g.Idle:
			l.w.WriteString(" idle")
		case g.Nice != nil:
			fmt.Fprintf(l.w, " nice=%d", *g.Nice)
		case g.Weight != 0:
			fmt.Fprintf(l.w, " weight=%d", g.Weight)
		}
		l.w.WriteString("\n")
	}
	for i := range s.tasks {
		t := &s.tasks[i]
		if !validScenarioName(t.name) {
			return fmt.Errorf("scenario log: task name %q (letters, digits, _ - . ; at most 64)", t.name)
		}
		fmt.Fprintf(l.w, "task %s nice=%d policy=%s", t.name, t.se.Nice(), t.se.Policy())
		if t.slice != 0 {
			fmt.Fprintf(l.w, " slice=%d", t.slice)
		}
		if g := t.se.Group(); g != nil && g.Parent() != nil {
			fmt.Fprintf(l.w, " group=%s", g.Name())
		}
		l.w.WriteString("\n")
	}
	s.slog = l
	return nil
}

func validScenarioName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// logOp writes one operation; task and arg may be empty.
func (s *Sim) logOp(op, task, arg string) {
	l := s.slog
	fmt.Fprintf(l.w, "%d %s", s.now, op)
	if task != "" {
		l.w.WriteString(" " + task)
	}
	if arg != "" {
		l.w.WriteString(" " + arg)
	}
	l.w.WriteString("\n")
}

// flushScenarioLog ends the log.
func (s *Sim) flushScenarioLog() {
	if s.slog != nil {
		if err := s.slog.w.Flush(); err != nil {
			s.fail(err)
		}
	}
}
