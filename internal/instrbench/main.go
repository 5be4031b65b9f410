// Command instrbench counts the instructions the model and the simulator
// execute per operation, with callgrind, beside the kernel's own fair.c
// doing the same work (figures measured elsewhere, see kernelFigures).
// bench/instructions.sh builds and runs it; its header gives the setup.
//
// It writes the inputs from this repository's own code: the three one-CPU
// operation streams of sim/bench_test.go's BenchmarkSimulator (100 tasks,
// seed 1, the first 2 simulated seconds, logged in the scenario language
// by sim.Config.ScenarioLog) and the pick loops (n CPU-bound tasks, nice
// −5/0/5, slices 0.1/0.7/3 ms, a schedule every 300 µs). Then it runs
// itself under callgrind ("instrbench work ..."), twice per figure at two
// run lengths. Callgrind counts only the measured function (it starts
// with --collect-atstart=no, and the function turns counting on and off
// with a client request, callgrind_amd64.s), so that process start-up and
// parsing, whose maps hash with a seed of each process's own, add
// nothing; the difference of the two lengths cancels what every run does
// once (a runqueue and its tasks created, a simulation set up):
//
//   - model, per op: a stream replayed with scenario's Replayer.AdvanceTo
//     twice against once (B-tree), over the stream's operations;
//   - simulator, per op: the events of the 2 seconds (Sim.Step until the
//     end: the engine, the task programs, the metrics, smp's one-CPU layer
//     and the model) of two simulations against one, over the same
//     operation count; the report Run builds after them is not counted,
//     since what it cost in the runtime's page allocator varied from one
//     process to the next;
//   - pick loop, per schedule: the file replayed through warm-up and 40000
//     schedules against warm-up and 20000, over 20000, on each timeline.
//
// Every run has GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1, so that
// no collection and no preemption signal falls inside a measurement;
// the counts are then the same on every run within an instruction or
// two per operation. amd64 only (the client request).
//
// Usage:
//
//	instrbench [-valgrind PATH] [-keep DIR] [-only REGEXP]
//
// -keep keeps each run's callgrind output in DIR (cg.ROW.short and
// cg.ROW.long) for callgrind_annotate; -only measures the rows whose name
// matches.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "work" {
		if err := work(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "instrbench work:", err)
			os.Exit(1)
		}
		return
	}
	valgrind := flag.String("valgrind", "valgrind", "the valgrind `binary`")
	keep := flag.String("keep", "", "keep callgrind's output files in `DIR`")
	only := flag.String("only", "", "measure only the rows whose name matches `REGEXP`")
	flag.Parse()
	if err := run(os.Stdout, *valgrind, *keep, *only); err != nil {
		fmt.Fprintln(os.Stderr, "instrbench:", err)
		os.Exit(1)
	}
}

// plan is what one table measures: the streams' simulated time and the
// pick loops' measured schedules.
type plan struct {
	streamTime time.Duration
	schedules  int
	sizes      []int
}

var fullPlan = plan{streamTime: 2 * time.Second, schedules: 20000, sizes: pickSizes}

// A counter returns the instructions of one run of "instrbench work
// ARGS..."; name names the run (ROW.short or ROW.long).
type counter func(name string, args []string) (uint64, error)

func run(w io.Writer, valgrind, keep, only string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if runtime.GOARCH != "amd64" {
		return fmt.Errorf("callgrind's client request is written for amd64, not %s", runtime.GOARCH)
	}
	if _, err := exec.LookPath(valgrind); err != nil {
		return fmt.Errorf("valgrind not found (%w): apt-get install valgrind, or give -valgrind", err)
	}
	var match *regexp.Regexp
	if only != "" {
		if match, err = regexp.Compile(only); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "instrbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	out := dir
	if keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			return err
		}
		out = keep
	}
	count := func(name string, args []string) (uint64, error) {
		return callgrind(valgrind, filepath.Join(out, "cg."+name), self, args)
	}
	rows, err := measure(dir, fullPlan, match, count, os.Stderr)
	if err != nil {
		return err
	}
	writeTable(w, rows)
	return nil
}

// rdtscpAttempts bounds how often callgrind runs a measurement whose
// program died on RDTSCP.
const rdtscpAttempts = 5

// rdtscpUnhandled is how valgrind (3.19 and earlier) reports an RDTSCP
// instruction (0f 01 f9) it cannot translate. The Go runtime executes one
// only when a runtime lock is contended (lock2's spin reads the cycle
// counter), which under valgrind's one-thread-at-a-time schedule depends
// on timing: the program then dies of SIGILL, and the same run again
// usually does not.
var rdtscpUnhandled = []byte("unhandled instruction bytes: 0xF 0x1 0xF9")

// callgrind runs self with args under callgrind and returns the
// instructions it collected. A run that died on an RDTSCP valgrind cannot
// translate is run again, up to rdtscpAttempts times: counting starts and
// stops at the measured function, so a run that ends counts the same.
func callgrind(valgrind, outFile, self string, args []string) (uint64, error) {
	var stderr bytes.Buffer
	for attempt := 1; ; attempt++ {
		cmd := exec.Command(valgrind, append([]string{"--tool=callgrind", "--callgrind-out-file=" + outFile,
			"--collect-atstart=no", self, "work"}, args...)...)
		cmd.Env = append(os.Environ(), "GOGC=off", "GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1")
		stderr.Reset()
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil {
			break
		}
		if attempt < rdtscpAttempts && bytes.Contains(stderr.Bytes(), rdtscpUnhandled) {
			continue
		}
		return 0, fmt.Errorf("%s work %s: %w\n%s", valgrind, strings.Join(args, " "), err, stderr.String())
	}
	m := regexp.MustCompile(`Collected : (\d+)`).FindSubmatch(stderr.Bytes())
	if m == nil {
		return 0, fmt.Errorf("work %s: no instruction count in callgrind's output:\n%s", strings.Join(args, " "), stderr.String())
	}
	return strconv.ParseUint(string(m[1]), 10, 64)
}

// A row is one line of the table: a workload, its operation count, and
// instructions per operation of the model on each timeline and of the
// simulator (0: not measured).
type row struct {
	name, title string
	ops         int // operations in a stream; schedules in a pick loop
	pick        bool
	kernel      float64
	btree       float64
	rbtree      float64
	sim         float64
}

// measure writes the inputs into dir and measures every row of p whose
// name matches match (all when nil) with count, logging progress to log.
func measure(dir string, p plan, match *regexp.Regexp, count counter, log io.Writer) ([]row, error) {
	want := func(name string) bool { return match == nil || match.MatchString(name) }
	// diff is (count(long) − count(short)) / per.
	diff := func(name string, short, long []string, per int) (float64, error) {
		a, err := count(name+".short", short)
		if err != nil {
			return 0, err
		}
		b, err := count(name+".long", long)
		if err != nil {
			return 0, err
		}
		if b < a {
			return 0, fmt.Errorf("%s: the longer run counted fewer instructions (%d < %d)", name, b, a)
		}
		return float64(b-a) / float64(per), nil
	}
	var rows []row
	for _, s := range streams {
		if !want(s.name) {
			continue
		}
		fmt.Fprintf(log, "instrbench: %s stream\n", s.name)
		if err := writeStream(dir, s, p.streamTime); err != nil {
			return nil, err
		}
		file := filepath.Join(dir, s.name+".txt")
		sc, err := parseFile(file)
		if err != nil {
			return nil, err
		}
		r := row{name: s.name, title: s.title, ops: len(sc.Ops), kernel: kernelFigures[s.name]}
		if r.btree, err = diff(s.name+".model", []string{"replay", file, "btree", "1"}, []string{"replay", file, "btree", "2"}, r.ops); err != nil {
			return nil, err
		}
		d := strconv.FormatInt(int64(p.streamTime), 10)
		if r.sim, err = diff(s.name+".sim", []string{"sim", s.name, d, "1"}, []string{"sim", s.name, d, "2"}, r.ops); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	for _, n := range p.sizes {
		name := fmt.Sprintf("pick-%d", n)
		if !want(name) {
			continue
		}
		fmt.Fprintf(log, "instrbench: pick loop, %d tasks\n", n)
		if err := writePickLoop(dir, n, 2*p.schedules); err != nil {
			return nil, err
		}
		file := filepath.Join(dir, name+".txt")
		short := strconv.Itoa(pickHeader(n) + pickWarm(n) + p.schedules)
		long := strconv.Itoa(pickHeader(n) + pickWarm(n) + 2*p.schedules)
		r := row{name: name, title: fmt.Sprintf("pick loop, n = %d", n), ops: p.schedules, pick: true, kernel: kernelFigures[name]}
		var err error
		if r.btree, err = diff(name+".btree", []string{"replay", file, "btree", "1", short}, []string{"replay", file, "btree", "1", long}, p.schedules); err != nil {
			return nil, err
		}
		if r.rbtree, err = diff(name+".rbtree", []string{"replay", file, "rbtree", "1", short}, []string{"replay", file, "rbtree", "1", long}, p.schedules); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, errors.New("no row matches")
	}
	return rows, nil
}

// work is the measured program: "replay FILE BACKEND REPS [OPS]" or "sim
// STREAM DURATION_NS REPS".
func work(args []string) error {
	atoi := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q: want a count", s)
		}
		return n, nil
	}
	switch {
	case len(args) >= 4 && len(args) <= 5 && args[0] == "replay":
		bk, err := backendOf(args[2])
		if err != nil {
			return err
		}
		reps, err := atoi(args[3])
		if err != nil {
			return err
		}
		ops := -1
		if len(args) == 5 {
			if ops, err = atoi(args[4]); err != nil {
				return err
			}
		}
		return replayOps(args[1], bk, reps, ops)
	case len(args) == 4 && args[0] == "sim":
		d, err := atoi(args[2])
		if err != nil {
			return err
		}
		reps, err := atoi(args[3])
		if err != nil {
			return err
		}
		return simulate(args[1], time.Duration(d), reps)
	}
	return fmt.Errorf("%q: want replay FILE BACKEND REPS [OPS] or sim STREAM DURATION_NS REPS", strings.Join(args, " "))
}
