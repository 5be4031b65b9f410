// Command fairclass replays scenarios on the fairclass model of the Linux
// fair scheduling class.
//
//	fairclass replay FILE [--table] [--backend btree|rbtree] [--features TOKENS] [--kernel K] [--trace OUT]
//	fairclass sim CONFIG.json [--json OUT] [--csv OUT] [--trace OUT] [--seed N]
//	fairclass bench [--sizes LIST]
//	fairclass topology [--packages N --llcs N --cores N --threads N] [--numbering linear|x86] [--format debugfs|proc|dmesg]
//	fairclass help [TOPIC]
//
// Run "fairclass help" for the details.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command line, separated from main for tests: it returns the
// exit status (0 success, 1 failure, 2 usage).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "replay":
		return replayCmd(args[1:], stdin, stdout, stderr)
	case "sim":
		return simCmd(args[1:], stdout, stderr)
	case "bench":
		return benchCmd(args[1:], stdout, stderr)
	case "topology":
		return topologyCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		return helpCmd(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "fairclass: unknown command %q\n\n%s", args[0], usage)
	return 2
}

const usage = `fairclass models the Linux kernel's fair scheduling class (EEVDF) number for number.

Usage:
  fairclass replay FILE [flags]   replay a scenario, one JSON object per operation
  fairclass sim CONFIG.json       run a simulation described in JSON and print its report
  fairclass bench                 measure the pick path of both timelines
  fairclass topology              print the scheduling domains of a machine
  fairclass help [TOPIC]          more help: replay, sim, bench, scenario, features

Run "fairclass help replay" (sim, bench) for the flags.
`

func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return 0
	}
	switch args[0] {
	case "replay":
		fmt.Fprint(stdout, replayHelp)
	case "sim":
		fmt.Fprint(stdout, simHelp)
	case "bench":
		fmt.Fprint(stdout, benchHelp)
	case "topology":
		fmt.Fprint(stdout, topologyHelp)
	case "scenario":
		fmt.Fprint(stdout, scenarioHelp)
	case "features":
		fmt.Fprint(stdout, featuresHelp())
	default:
		fmt.Fprintf(stderr, "fairclass: no help on %q (try replay, sim, bench, scenario, features)\n", args[0])
		return 2
	}
	return 0
}

// parseArgs parses a subcommand's flags, which may come before or after its
// arguments, and checks that it got want arguments (what names one). It
// returns the arguments, or, with done, the exit status: 0 after printing
// the help that -h asked for, 2 on a usage error.
func parseArgs(fs *flag.FlagSet, args []string, want int, what, help string, stdout, stderr io.Writer) (pos []string, code int, done bool) {
	fs.SetOutput(io.Discard)
	pos, err := parseInterleaved(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, help)
		return nil, 0, true
	case err != nil:
		fmt.Fprintf(stderr, "fairclass %s: %v\n\n%s", fs.Name(), err, help)
		return nil, 2, true
	case len(pos) != want && want == 0:
		fmt.Fprintf(stderr, "fairclass %s: unexpected argument %q\n\n%s", fs.Name(), pos[0], help)
		return nil, 2, true
	case len(pos) != want:
		fmt.Fprintf(stderr, "fairclass %s: want one %s, got %d\n\n%s", fs.Name(), what, len(pos), help)
		return nil, 2, true
	}
	return pos, 0, false
}

// parseInterleaved parses flags that may come before or after the
// positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
