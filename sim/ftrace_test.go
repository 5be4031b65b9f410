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

// A line starts as the kernel's trace file starts it ("%16s-%-7d", the
// CPU in three digits, the flags, seconds right-aligned in five columns),
// with nine digits of ns after the point, and building it allocates
// nothing once the line buffer has grown.
func TestFtraceLineLayout(t *testing.T) {
	l := &ftraceLog{comm: []string{"a", "kworker/u16:3-e"}, line: make([]byte, 0, 256)}
	s := &Sim{}
	for _, tc := range []struct {
		now      uint64
		cpu, pid int32
		want     string
	}{
		{1_000_000_007, 3, 1, "               a-1       [003] d..2.     1.000000007: sched_switch: "},
		{12_345_678_901_234, 117, 2, " kworker/u16:3-e-2       [117] d..2. 12345.678901234: sched_switch: "},
		{0, 0, 0, "          <idle>-0       [000] d..2.     0.000000000: sched_switch: "},
	} {
		s.now = tc.now
		l.head(s, tc.cpu, tc.pid, "sched_switch")
		if got := string(l.line); got != tc.want {
			t.Errorf("line\n%q, want\n%q", got, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { l.head(s, 5, 1, "sched_switch") }); n != 0 {
		t.Errorf("a line head allocates %v times", n)
	}
}
