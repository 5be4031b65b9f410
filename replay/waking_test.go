package replay

import (
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/trace"
)

// A trace with sched_waking and no sched_wakeup (Perfetto's compact
// encoding) gives only the wakee's previous CPU; the replay places the
// wakeup where the task next runs, so its pick there needs no repair.
func TestWakingOnlyPlacesWhereTheTaskRuns(t *testing.T) {
	text := `  <idle>-0 [000] d..2. 1.000000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=A next_pid=10 next_prio=120
  A-10 [000] d..2. 1.000100000: sched_switch: prev_comm=A prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
  <idle>-0 [001] d..2. 1.000200000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=B next_pid=11 next_prio=120
  B-11 [001] d..2. 1.000300000: sched_waking: comm=A pid=10 prio=120 target_cpu=000
  B-11 [001] d..2. 1.000400000: sched_switch: prev_comm=B prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=A next_pid=10 next_prio=120
`
	evs, _, err := trace.ReadAll(strings.NewReader(text), trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Pinned(evs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The first switch of each CPU is unscored; the last two are scored
	// and agree: A blocks on CPU 0 (idle next), A runs on CPU 1 after B.
	if r.Coverage.Repairs != 0 || r.Overall.Scored != 2 || r.Overall.Agreed != 2 {
		t.Errorf("repairs %d, agreement %+v; want none and 2 of 2", r.Coverage.Repairs, r.Overall)
	}
}
