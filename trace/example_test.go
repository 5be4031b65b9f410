package trace_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/schedmodel/fairclass/trace"
)

// Two lines of a tracefs trace file: a wakeup and the switch it causes.
const twoLines = `# tracer: nop
     threaded-ml-32307 [001] d..4 21926.770245: sched_wakeup: comm=AudioOutputDevi pid=32308 prio=120 target_cpu=002
          <idle>-0     [002] d..2 21926.770261: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=AudioOutputDevi next_pid=32308 next_prio=120
`

func ExampleReader_Next() {
	r, err := trace.NewReader(strings.NewReader(twoLines), trace.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		switch ev.Kind {
		case trace.KindWakeup:
			fmt.Printf("%d ns: %s woken by pid %d onto CPU %d\n", ev.Time, ev.Task.Comm, ev.Ctx, ev.TargetCPU)
		case trace.KindSwitch:
			fmt.Printf("%d ns: CPU %d switches %s (%v) to %s\n", ev.Time, ev.CPU, ev.Task.Comm, ev.PrevState, ev.Next.Comm)
		}
	}
	fmt.Println("format:", r.Format())
	// Output:
	// 21926770245000 ns: AudioOutputDevi woken by pid 32307 onto CPU 2
	// 21926770261000 ns: CPU 2 switches swapper/2 (R) to AudioOutputDevi
	// format: ftrace
}

func ExampleReadAll_lenient() {
	in := twoLines + "this line is not a trace line\n"
	evs, st, err := trace.ReadAll(strings.NewReader(in), trace.Options{Lenient: true, Name: "t.txt"})
	fmt.Println(len(evs), "events,", st.Skipped, "line skipped:", st.First, err)
	_, _, err = trace.ReadAll(strings.NewReader(in), trace.Options{Name: "t.txt"})
	fmt.Println(err)
	// Output:
	// 2 events, 1 line skipped: t.txt:4: no [CPU] column <nil>
	// t.txt:4: no [CPU] column
}

func ExampleRebuildEvents() {
	evs, _, err := trace.ReadAll(strings.NewReader(twoLines+
		`  AudioOutputDevi-32308 [002] d..2 21926.770300: sched_switch: prev_comm=AudioOutputDevi prev_pid=32308 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120
`), trace.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rb := trace.RebuildEvents(evs)
	task := rb.Tasks[32308]
	for _, run := range task.Runs {
		fmt.Printf("%s ran on CPU %d for %d ns, then %s\n", task.Comm, run.CPU, run.End-run.Start, run.How)
	}
	// The first pick on a CPU is not consistent: the trace had not shown
	// what ran there before it.
	for _, p := range rb.Picks[2] {
		fmt.Printf("CPU 2 picked %d from %v (consistent: %v)\n", p.Next, p.Runnable, p.Consistent())
	}
	// Output:
	// AudioOutputDevi ran on CPU 2 for 39000 ns, then blocked
	// CPU 2 picked 32308 from [32308] (consistent: false)
	// CPU 2 picked 0 from [] (consistent: true)
}
