// Command fairclass replays scenarios on the fairclass model of the Linux
// fair scheduling class.
//
//	fairclass replay FILE [--table] [--backend btree|rbtree] [--features TOKENS] [--kernel K] [--trace OUT]
//	fairclass sim CONFIG.json [--json OUT] [--csv OUT] [--trace OUT] [--seed N]
//	fairclass bench [--sizes LIST]
//	fairclass help [TOPIC]
//
// Run "fairclass help" for the details.
package main

import (
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
