package replay

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/trace"
)

// randomTrace writes n events of every kind the replay reads, among a few
// pids (fair, real-time and deadline priorities, pid 0) on four CPUs, in
// no sensible order: switches from tasks the model does not run, wakeups
// of running tasks, migrations of anything, losses. Time advances by up
// to maxGap ns between some events.
func randomTrace(r *rand.Rand, n int, maxGap int64) string {
	states := []string{"R", "R+", "S", "D", "X", "Z", "I"}
	var b strings.Builder
	tm := int64(r.Intn(3)) * 1_000_000_000
	for range n {
		switch r.Intn(4) {
		case 0:
			tm += int64(r.Intn(2_000_000))
		case 1:
			tm += r.Int63n(maxGap)
		}
		cpu, pid, pid2 := r.Intn(4), r.Intn(9), r.Intn(9)
		prio := []int{120, 100, 139, 50, -1}[r.Intn(5)]
		ts := fmt.Sprintf("%d.%09d", tm/1e9, tm%1e9)
		switch r.Intn(6) {
		case 0:
			fmt.Fprintf(&b, "  a-%d [%03d] d..2. %s: sched_switch: prev_comm=a prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=b next_pid=%d next_prio=120\n",
				pid, cpu, ts, pid, prio, states[r.Intn(len(states))], pid2)
		case 1:
			fmt.Fprintf(&b, "  a-%d [%03d] d..2. %s: sched_wakeup: comm=b pid=%d prio=%d target_cpu=%03d\n", pid, cpu, ts, pid2, prio, r.Intn(4))
		case 2:
			fmt.Fprintf(&b, "  a-%d [%03d] d..2. %s: sched_wakeup_new: comm=b pid=%d prio=%d target_cpu=%03d\n", pid, cpu, ts, pid2, prio, r.Intn(4))
		case 3:
			fmt.Fprintf(&b, "  a-%d [%03d] d..2. %s: sched_migrate_task: comm=b pid=%d prio=%d orig_cpu=%d dest_cpu=%d\n", pid, cpu, ts, pid2, prio, r.Intn(4), r.Intn(4))
		case 4:
			fmt.Fprintf(&b, "  a-%d [%03d] d..2. %s: hrtimer_expire_entry: hrtimer=x function=tick_nohz_handler now=1\n", pid, cpu, ts)
		case 5:
			fmt.Fprintf(&b, "CPU:%d [LOST 3 EVENTS]\n", cpu)
		}
	}
	return b.String()
}

// Whatever a trace says, in whatever order, a pinned replay repairs the
// model instead of failing: every runqueue keeps its invariants after
// every event, and the counts add up. (Gaps stay under a minute: a task
// running unticked for days overflows the kernel's own s64 sums, which
// TestPinnedRandomHugeGaps only runs through.)
func TestPinnedRandomTraces(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 3000 {
		text := randomTrace(r, 1+r.Intn(40), 60_000_000_000)
		evs, _, _ := trace.ReadAll(strings.NewReader(text), trace.Options{Format: trace.FormatFtrace, Lenient: true})
		rep, err := Pinned(evs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Coverage
		if c.Scored+c.Inconsistent+c.OtherClass+c.BurnedIn != c.Picks || c.Used+c.NotUsed+c.Dropped != c.Events {
			t.Fatalf("counts do not add up: %+v\n%s", c, text)
		}
		e, _ := newEngine(evs, Options{})
		for e.i = 0; e.i < len(e.evs); e.i++ {
			e.step(&e.evs[e.i])
			for cpu := range e.cpus {
				if err := e.cpus[cpu].rq.Check(); err != nil {
					t.Fatalf("after event %d (%v): CPU %d: %v\n%s", e.i, e.evs[e.i].Kind, cpu, err, text)
				}
			}
		}
	}
}

// Gaps of days between events: nothing panics.
func TestPinnedRandomHugeGaps(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for range 2000 {
		text := randomTrace(r, 1+r.Intn(40), 1<<52)
		evs, _, _ := trace.ReadAll(strings.NewReader(text), trace.Options{Format: trace.FormatFtrace, Lenient: true})
		if _, err := Pinned(evs, Options{}); err != nil {
			t.Fatal(err)
		}
	}
}
