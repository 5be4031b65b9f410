package replay

import (
	"bytes"
	"testing"

	"github.com/schedmodel/fairclass/trace"
)

// FuzzPinned: whatever events a trace holds (read leniently from any
// text), a pinned replay neither panics nor, when no two events are more
// than a minute apart, leaves a runqueue broken (longer unticked runs
// overflow the kernel's own s64 sums: see TestPinnedRandomHugeGaps), and
// its counts add up.
func FuzzPinned(f *testing.F) {
	f.Add([]byte("  <idle>-0 [000] d..2. 1.0: sched_wakeup_new: comm=A pid=10 prio=120 target_cpu=000\n" +
		"  <idle>-0 [000] d..2. 1.0: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=A next_pid=10 next_prio=120\n" +
		"  A-10 [000] d..2. 1.0001: sched_wakeup: comm=B pid=11 prio=130 target_cpu=001\n" +
		"  A-10 [001] d..2. 1.0002: sched_migrate_task: comm=B pid=11 prio=130 orig_cpu=1 dest_cpu=0\n" +
		"  A-10 [000] d..h. 1.001: hrtimer_expire_entry: hrtimer=x function=tick_nohz_handler now=1\n" +
		"  A-10 [000] d..2. 1.0015: sched_switch: prev_comm=A prev_pid=10 prev_prio=120 prev_state=R+ ==> next_comm=B next_pid=11 next_prio=130\n" +
		"CPU:0 [LOST 3 EVENTS]\n" +
		"  B-11 [000] d..2. 1.002: sched_switch: prev_comm=B prev_pid=11 prev_prio=130 prev_state=X ==> next_comm=rt next_pid=12 next_prio=50\n"))
	f.Add([]byte("  a-1 [003] d..2. 5.0: sched_migrate_task: comm=a pid=1 prio=120 orig_cpu=3 dest_cpu=2\n" +
		"  a-1 [003] d..2. 5.0: sched_migrate_task: comm=b pid=2 prio=120 orig_cpu=3 dest_cpu=2\n" +
		"  a-1 [002] d..2. 5.0: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		evs, _, _ := trace.ReadAll(bytes.NewReader(data), trace.Options{Format: trace.FormatFtrace, Lenient: true})
		for i := range evs {
			// Keep the CPU ids small: a replay allocates per CPU.
			for _, c := range []*int32{&evs[i].CPU, &evs[i].TargetCPU, &evs[i].OrigCPU} {
				if *c > 64 {
					*c %= 64
				}
			}
		}
		r, err := Pinned(evs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := r.Coverage
		if c.Scored+c.Inconsistent+c.OtherClass+c.BurnedIn != c.Picks || r.Overall.Agreed > r.Overall.Scored || c.Scored != r.Overall.Scored {
			t.Fatalf("counts do not add up: %+v, %+v", c, r.Overall)
		}
		e, _ := newEngine(evs, Options{})
		for i := 1; i < len(e.evs); i++ {
			if e.evs[i].Time-e.evs[i-1].Time > 60_000_000_000 || e.evs[i].Time < 0 {
				return
			}
		}
		for e.i = 0; e.i < len(e.evs); e.i++ {
			e.step(&e.evs[e.i])
			for cpu := range e.cpus {
				if err := e.cpus[cpu].rq.Check(); err != nil {
					t.Fatalf("after event %d (%v): CPU %d: %v", e.i, e.evs[e.i].Kind, cpu, err)
				}
			}
		}
	})
}
