package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The ftrace text of a run has one line per context switch, wakeup, fork,
// migration and tick, the counts the report gives, each line shaped as
// the kernel's tracefs prints it.
func TestWriteFtraceCounts(t *testing.T) {
	cfg := Config{
		Seed: 1, CPUs: 4, Duration: 200 * time.Millisecond,
		Workloads: []Workload{Stress(3, TaskOptions{}), Hackbench(1, 4, 100_000_000, true, true, TaskOptions{})},
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := s.WriteFtrace(&out); err != nil {
		t.Fatal(err)
	}
	r, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]uint64{}
	for _, line := range strings.Split(out.String(), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		_, rest, ok := strings.Cut(line, "] d..2. ")
		if !ok {
			t.Fatalf("line %q: no CPU and flags columns", line)
		}
		_, body, ok := strings.Cut(rest, ": ")
		if !ok {
			t.Fatalf("line %q: no timestamp", line)
		}
		event, _, _ := strings.Cut(body, ":")
		count[event]++
	}
	if count["sched_switch"] != r.ContextSwitches || count["sched_wakeup"] != r.Placement.Wakeups ||
		count["sched_wakeup_new"] != r.Placement.Forks || count["sched_migrate_task"] != r.Migrations ||
		count["hrtimer_expire_entry"] != 4*200 {
		t.Errorf("lines %v; report: %d switches, %d wakeups, %d forks, %d migrations, want 800 ticks",
			count, r.ContextSwitches, r.Placement.Wakeups, r.Placement.Forks, r.Migrations)
	}
	if err := s.WriteFtrace(&out); err == nil {
		t.Error("WriteFtrace after the run: no error")
	}
}
