package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
)

const benchHelp = `Usage: fairclass bench [flags]

Measures the pick path of both timelines: n CPU-bound entities with a mix
of nice -5/0/5 and slices 0.1/0.7/3 ms; each operation runs the current
entity for one slice and schedules (charge, deadline renewal, pick, put the
previous entity back, install the next). Prints ns per operation and the
subtree aggregates a pick examined. For figures to compare, use the
benchmarks (go test -bench BenchmarkPick at the repository's root, with
benchstat).

Flags:
  --sizes LIST    entity counts, comma separated (default 16,256,4096,65536)
`

func benchCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sizes := fs.String("sizes", "16,256,4096,65536", "")
	if _, code, done := parseArgs(fs, args, 0, "", benchHelp, stdout, stderr); done {
		return code
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 1<<20 {
			fmt.Fprintf(stderr, "fairclass bench: --sizes: %q is not a size in 1..%d\n", s, 1<<20)
			return 2
		}
		ns = append(ns, n)
	}
	fmt.Fprintf(stdout, "%-8s %8s %12s %14s\n", "timeline", "n", "ns/op", "visited/pick")
	for _, b := range []eevdf.Backend{eevdf.BTree, eevdf.RBTree} {
		for _, n := range ns {
			ns, visited, err := measurePick(b, n)
			if err != nil {
				fmt.Fprintf(stderr, "fairclass bench: %v\n", err)
				return 1
			}
			fmt.Fprintf(stdout, "%-8v %8d %12.1f %14.2f\n", b, n, ns, visited)
		}
	}
	return 0
}

// measurePick runs the steady pick loop under testing.Benchmark.
func measurePick(backend eevdf.Backend, n int) (nsPerOp, visitedPerPick float64, err error) {
	rq, err := eevdf.NewCfsRq(eevdf.WithTimeline(backend))
	if err != nil {
		return 0, 0, err
	}
	nices, slices := []int{-5, 0, 5}, []uint64{100000, 700000, 3000000}
	for i := 0; i < n; i++ {
		// A fixed pattern instead of random draws: every combination, in turn.
		se, err := eevdf.NewEntity(strconv.Itoa(i), eevdf.WithNice(nices[i%3]), eevdf.WithSlice(slices[(i/3)%3]))
		if err != nil {
			return 0, 0, err
		}
		if err := rq.Enqueue(se, eevdf.EnqueueInitial); err != nil {
			return 0, 0, err
		}
	}
	rq.PickNext()
	var now uint64
	step := func() {
		now += rq.Curr().Slice()
		rq.SetClock(now)
		rq.PickNext()
	}
	for i := 0; i < 4*n+1000; i++ {
		step()
	}
	before := rq.Stats()
	res := testing.Benchmark(func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			step()
		}
	})
	st := rq.Stats()
	picks := float64(st.Picks - before.Picks)
	if picks == 0 {
		picks = 1
	}
	return float64(res.T.Nanoseconds()) / float64(res.N), float64(st.Visited-before.Visited) / picks, nil
}
