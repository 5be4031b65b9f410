#!/usr/bin/env bash
# bench/instructions.sh: instructions per operation of the model and of the
# simulator, counted by callgrind, beside the kernel's own fair.c doing the
# same work.
#
# Setup (once): valgrind, for callgrind (Debian and Ubuntu:
#   sudo apt-get install valgrind
# ); Go as for the rest of the repository. CI does not run this command.
#
# What it measures (one table, in instructions, the same on every run):
#   - the three one-CPU operation streams of sim/bench_test.go's
#     BenchmarkSimulator (100 tasks, seed 1, the first 2 simulated seconds:
#     sleepers, hogs, mixed), logged in the scenario language by
#     sim.Config.ScenarioLog and regenerated here from this repository's
#     code. "model" is scenario's Replayer.AdvanceTo over the stream (the
#     model with the replayer's dispatch, B-tree timeline) per operation;
#     "simulator" the same 2 seconds simulated event by event (Sim.Step to
#     the end; sim.New and the report are not counted) over the same
#     operation count;
#   - the pick loop: n = 16, 256 and 4096 CPU-bound tasks (nice -5/0/5,
#     slices 0.1/0.7/3 ms), a schedule every 300 us, per schedule in the
#     steady state, with both timelines;
#   - beside them, the kernel's figures, measured elsewhere (the pinned
#     fair.c, gcc 12 -O2, the same operations in core.c's order, callgrind)
#     and not reproducible from this repository.
#
# How: internal/instrbench writes the inputs, then runs itself under
# callgrind at two run lengths per figure (a stream replayed or simulated
# twice against once; a pick loop's warm-up and 40000 schedules against
# warm-up and 20000), with GOGC=off GOMAXPROCS=1
# GODEBUG=asyncpreemptoff=1, and divides the difference. Callgrind counts
# only the measured function (a client request turns counting on and
# off), so start-up and parsing count nothing, and the difference cancels
# what each run does once. A run that dies of SIGILL on an RDTSCP valgrind
# 3.19 cannot translate (the Go runtime reads the cycle counter when one of
# its locks is contended) is run again, up to five times. amd64 only.
# About 35 s on a 2-vCPU machine.
#
# Usage, from anywhere in the repository:
#   bash bench/instructions.sh                     # the whole table
#   bash bench/instructions.sh -only 'pick-16$'    # rows whose name matches
#   bash bench/instructions.sh -keep /tmp/cg       # keep callgrind's files,
#       # then: callgrind_annotate --auto=no /tmp/cg/cg.sleepers.model.long
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind not found: sudo apt-get install valgrind" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/instrbench" ./internal/instrbench
"$bin/instrbench" "$@"
