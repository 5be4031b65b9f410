package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/scenario"
	"github.com/schedmodel/fairclass/sim"
)

// A stream is one of sim/bench_test.go's one-CPU cases: 100 tasks on one
// CPU, hogs of them CPU hogs, the others alternating a CPU burst of
// 50..500 µs with a sleep of 0.1..2 ms (benchConfig, seed 1).
type stream struct {
	name  string
	hogs  int
	title string
}

var streams = []stream{
	{"sleepers", 0, "sleepers (100 run/sleep)"},
	{"hogs", 100, "hogs (100 CPU hogs)"},
	{"mixed", 50, "mixed (50 + 50)"},
}

// streamConfig is benchConfig(100, hogs, d) of sim/bench_test.go, which a
// test file keeps out of reach: the same tasks, names and seed.
func streamConfig(hogs int, d time.Duration) sim.Config {
	const tasks = 100
	var specs []sim.TaskSpec
	for i := range tasks - hogs {
		specs = append(specs, sim.TaskSpec{Name: fmt.Sprintf("t%d", i), Program: []sim.Phase{
			sim.Forever(sim.RunJitter(50*time.Microsecond, 450*time.Microsecond), sim.SleepJitter(100*time.Microsecond, 1900*time.Microsecond)),
		}})
	}
	for i := range hogs {
		specs = append(specs, sim.TaskSpec{Name: fmt.Sprintf("hog%d", i), Program: []sim.Phase{sim.Spin()}})
	}
	return sim.Config{Seed: 1, Duration: d, Workloads: []sim.Workload{sim.Custom("bench", specs...)}}
}

// writeStream runs the simulation of s for d and writes the scenario log
// its run produced (Config.ScenarioLog) to dir/NAME.txt.
func writeStream(dir string, s stream, d time.Duration) error {
	var log bytes.Buffer
	cfg := streamConfig(s.hogs, d)
	cfg.ScenarioLog = &log
	sm, err := sim.New(cfg)
	if err != nil {
		return fmt.Errorf("stream %s: %w", s.name, err)
	}
	if _, err := sm.Run(); err != nil {
		return fmt.Errorf("stream %s: %w", s.name, err)
	}
	return os.WriteFile(filepath.Join(dir, s.name+".txt"), log.Bytes(), 0o644)
}

// The pick loop: n CPU-bound tasks with the root BenchmarkPick's mix of
// nice values and slices (the same generator and seed), all created at 0,
// then a schedule every 300 µs.
var (
	pickSizes  = []int{16, 256, 4096}
	pickNice   = []int{-5, 0, 5}
	pickSlice  = []uint64{100000, 700000, 3000000}
	pickPeriod = uint64(300000)
)

// pickWarm is the number of schedules before the steady state, as in the
// root BenchmarkPick: every task has run a few times.
func pickWarm(n int) int { return 4*n + 1000 }

// pickHeader is the number of operations before the first schedule: one
// new per task.
func pickHeader(n int) int { return n }

// writePickLoop writes dir/pick-N.txt: n tasks and pickWarm(n)+schedules
// schedules.
func writePickLoop(dir string, n, schedules int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# pick loop: %d CPU-bound tasks, a schedule every %d ns\n", n, pickPeriod)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	for i := range n {
		nice := pickNice[rng.IntN(3)]
		slice := pickSlice[rng.IntN(3)]
		fmt.Fprintf(&b, "task t%d nice=%d slice=%d\n", i, nice, slice)
	}
	for i := range n {
		fmt.Fprintf(&b, "0 new t%d\n", i)
	}
	for k := range pickWarm(n) + schedules {
		fmt.Fprintf(&b, "%d schedule\n", uint64(k)*pickPeriod)
	}
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("pick-%d.txt", n)), []byte(b.String()), 0o644)
}

func parseFile(path string) (*scenario.Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return scenario.Parse(f, filepath.Base(path))
}

func backendOf(s string) (eevdf.Backend, error) {
	switch s {
	case "btree":
		return eevdf.BTree, nil
	case "rbtree":
		return eevdf.RBTree, nil
	}
	return 0, fmt.Errorf("backend %q: want btree or rbtree", s)
}

// replayOps parses the scenario at path and replays it reps times from a
// fresh runqueue, each time its first ops operations (all of them when
// ops < 0), with Replayer.Advance: the model's work and the replayer's
// dispatch, nothing printed.
func replayOps(path string, bk eevdf.Backend, reps, ops int) error {
	sc, err := parseFile(path)
	if err != nil {
		return err
	}
	switch {
	case ops < 0:
		ops = len(sc.Ops)
	case ops > len(sc.Ops):
		return fmt.Errorf("%s: %d operations asked for, %d in the file", path, ops, len(sc.Ops))
	}
	rs := make([]*scenario.Replayer, reps)
	for i := range rs {
		if rs[i], err = scenario.NewReplayer(sc, scenario.Options{Backend: bk}); err != nil {
			return err
		}
	}
	return replays(rs, ops)
}

// replays advances each replayer by ops operations (Replayer.AdvanceTo):
// the measured part of replayOps, the only one counted (toggleCollect).
// Parsing, whose maps hash with a seed of each process's own, would add a
// different count to each run, and the replayers' creation (the runqueue,
// the entities) is no operation.
func replays(rs []*scenario.Replayer, ops int) error {
	toggleCollect()
	defer toggleCollect()
	for _, r := range rs {
		if err := r.AdvanceTo(ops); err != nil {
			return err
		}
	}
	return nil
}

// simulate runs the simulation of the stream named name for d, reps
// times, each a fresh sim.New and a whole Run (its report included),
// without a scenario log.
func simulate(name string, d time.Duration, reps int) error {
	for _, s := range streams {
		if s.name != name {
			continue
		}
		sims := make([]*sim.Sim, reps)
		for i := range sims {
			var err error
			if sims[i], err = sim.New(streamConfig(s.hogs, d)); err != nil {
				return err
			}
		}
		return simulations(sims)
	}
	return fmt.Errorf("no stream %q", name)
}

// simulations runs each simulation to its end and builds its report. The
// events are the measured part of simulate, the only one counted: sim.New,
// the set-up, is not, and neither is the report that Run builds once the
// events are spent (see events).
func simulations(sims []*sim.Sim) error {
	settleHeap()
	toggleCollect()
	events(sims)
	toggleCollect()
	for _, sm := range sims {
		if _, err := sm.Run(); err != nil {
			return err
		}
	}
	return nil
}

// events steps each simulation until it has ended (Sim.Step), which is
// Run's loop without the report Run builds after it. The report allocates
// some hundred kilobytes once a run, and what that cost in the runtime's
// page allocator depended on the process's earlier allocations (the
// parser's maps, hashed with a seed of each process's own): counted, it
// moved the simulator's rows by up to 20 instructions an operation from
// one run of the command to the next. Step's error is left to Run, which
// returns it: Step returns false once there is one, so the loop costs
// what Run's own does, one call and one test an event.
func events(sims []*sim.Sim) {
	for _, sm := range sims {
		for more, _ := sm.Step(); more; more, _ = sm.Step() {
		}
	}
}

// heapReserve is the size of the block settleHeap has the heap map before
// a count: far above what a counted run allocates (its report, and the
// first events' growth of the simulation's slices and timeline nodes).
const heapReserve = 64 << 20

// sink keeps settleHeap's block reachable until the block is dropped, so
// that the compiler allocates it on the heap.
var sink []byte

// settleHeap maps the heap the counted region will allocate from before
// counting begins. With GOGC=off the heap only grows, and whether an
// allocation inside a count found its pages mapped or had the runtime's
// page allocator grow the heap (tens of thousands of instructions, once)
// varied from one process to the next, moving the simulator's rows by up
// to 20 instructions an operation (hogs, the shortest stream). A block of
// heapReserve bytes, allocated and then freed by a collection, leaves
// that much mapped and free, and the counted allocations take their pages
// from it.
func settleHeap() {
	sink = make([]byte, heapReserve)
	sink = nil
	runtime.GC()
}
