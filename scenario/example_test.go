package scenario_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/schedmodel/fairclass/scenario"
)

// Replay a worked example and print one JSON object per operation, as
// "fairclass replay" does; here only a few fields are printed.
func ExampleReplay() {
	src := `task A
task B slice=300000
0       new A
0       schedule
500000  new B        # a shorter request: B preempts A
500000  schedule
`
	sc, err := scenario.Parse(strings.NewReader(src), "example.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	err = scenario.Replay(sc, scenario.Options{}, func(r *scenario.Result) error {
		fmt.Printf("%d %-8s curr=%-2s resched=%v\n", r.I, r.Op, r.Curr, r.Resched)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 0 new      curr=   resched=true
	// 1 schedule curr=A  resched=false
	// 2 new      curr=A  resched=true
	// 3 schedule curr=B  resched=false
}

// JSONWriter prints the replay format, one object per line.
func ExampleJSONWriter() {
	sc, _ := scenario.Parse(strings.NewReader("task A\n0 new A\n"), "one.txt")
	scenario.Replay(sc, scenario.Options{}, scenario.JSONWriter(os.Stdout))
	// Output:
	// {"i":0,"t":0,"op":"new","task":"A","V":18446744073708503040,"curr":null,"resched":true,"picked":null,"tasks":[{"name":"A","on_rq":true,"delayed":false,"vruntime":18446744073708503040,"deadline":18446744073708853040,"vlag":0,"lag":0,"eligible":true,"weight":1024,"slice":700000,"sum_exec":0}]}
}

// Advance replays without a per-operation snapshot; the runqueue is read
// at the end.
func ExampleReplayer_Advance() {
	src := `task A
task B slice=300000
0       new A
0       schedule
500000  new B
500000  schedule
800000  tick
`
	sc, err := scenario.Parse(strings.NewReader(src), "advance.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := scenario.NewReplayer(sc, scenario.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for !r.Done() {
		if err := r.Advance(); err != nil {
			fmt.Println(err)
			return
		}
	}
	a, b := r.Entity(0), r.Entity(1)
	fmt.Printf("curr=%s resched=%v\n", r.RunQueue().Curr().Name(), r.RunQueue().NeedResched())
	fmt.Printf("A ran %d ns, B ran %d ns\n", a.SumExecRuntime(), b.SumExecRuntime())
	// Output:
	// curr=B resched=true
	// A ran 500000 ns, B ran 300000 ns
}

// AdvanceTo replays a stretch of the scenario in one call: here up to
// the tick, the state read there, then to the end.
func ExampleReplayer_AdvanceTo() {
	src := `task A
task B slice=300000
0       new A
0       schedule
500000  new B
500000  schedule
800000  tick
800000  schedule
`
	sc, err := scenario.Parse(strings.NewReader(src), "advanceto.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := scenario.NewReplayer(sc, scenario.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range []int{5, len(sc.Ops)} {
		if err := r.AdvanceTo(n); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("after %d operations: curr=%s resched=%v\n", n, r.RunQueue().Curr().Name(), r.RunQueue().NeedResched())
	}
	// Output:
	// after 5 operations: curr=B resched=true
	// after 6 operations: curr=A resched=false
}
