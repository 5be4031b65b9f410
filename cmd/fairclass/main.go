// Command fairclass replays scenarios on the fairclass model of the Linux
// fair scheduling class.
//
//	fairclass replay FILE [--table] [--backend btree|rbtree] [--features TOKENS] [--kernel K] [--trace OUT]
//	fairclass sim CONFIG.json [--json OUT] [--csv OUT] [--trace OUT] [--seed N] [--quiet]
//	fairclass bench [--sizes LIST]
//	fairclass topology [--packages N --llcs N --cores N --threads N] [--numbering linear|x86] [--format debugfs|proc|dmesg]
//	fairclass trace import [--lenient] [--kernel REL] [--format NAME] FILE
//	fairclass help [TOPIC]
//
// Run "fairclass help" for the details. Exit status: 0 success, 1 failure
// (a file that cannot be read or written, an input that is wrong), 2 a
// usage error. Every error is one line on standard error; errors in a
// scenario or a configuration start with FILE:LINE:COL.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is a subcommand of fairclass.
type command struct {
	name    string // as typed: "fairclass NAME"
	args    string // what follows the name in the usage list
	summary string // one line for the usage list
	help    string // "fairclass help NAME" and "fairclass NAME -h"
	// run is the entry: the arguments after the name; it returns the
	// exit status (0 success, 1 failure, 2 usage).
	run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order the usage shows them; help
// and dispatch both read it, so a new subcommand is one entry here.
func commands() []command {
	return []command{
		{"replay", "FILE [flags]", "replay a scenario, one JSON object per operation", replayHelp, replayCmd},
		{"sim", "CONFIG.json", "run a simulation described in JSON and print its report", simHelp, simCmd},
		{"bench", "", "measure the pick path of both timelines", benchHelp, benchCmd},
		{"topology", "", "print the scheduling domains of a machine", topologyHelp, topologyCmd},
		{"trace", "import|replay FILE", "print a recorded kernel trace as JSON lines, or replay it through the model", traceHelp + "\n" + traceReplayHelp, traceCmd},
	}
}

// topics are the help topics that are not subcommands.
func topics() []struct{ name, text string } {
	return []struct{ name, text string }{
		{"scenario", scenarioHelp},
		{"features", featuresHelp()},
	}
}

// run is the command line, separated from main for tests: it returns the
// exit status (0 success, 1 failure, 2 usage).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return helpCmd(args[1:], stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "fairclass: unknown command %q (want %s; run \"fairclass help\")\n", args[0], orList(commandNames()))
	return 2
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// topicNames are the topics "fairclass help" knows: every subcommand, then
// the other topics.
func topicNames() []string {
	names := commandNames()
	for _, t := range topics() {
		names = append(names, t.name)
	}
	return names
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// usage is what "fairclass help" prints.
func usage() string {
	var b strings.Builder
	b.WriteString("fairclass models the Linux kernel's fair scheduling class (EEVDF) number for number.\n\nUsage:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-30s  %s\n", strings.TrimSpace("fairclass "+c.name+" "+c.args), c.summary)
	}
	fmt.Fprintf(&b, "  %-30s  more help: %s\n", "fairclass help [TOPIC]", strings.Join(topicNames(), ", "))
	fmt.Fprintf(&b, "\nRun \"fairclass help COMMAND\" (%s) for its flags.\n", strings.Join(commandNames(), ", "))
	return b.String()
}

func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage())
		return 0
	}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "fairclass help: one topic at a time, got %d\n", len(args))
		return 2
	}
	for _, c := range commands() {
		if c.name == args[0] {
			fmt.Fprint(stdout, c.help)
			return 0
		}
	}
	for _, t := range topics() {
		if t.name == args[0] {
			fmt.Fprint(stdout, t.text)
			return 0
		}
	}
	fmt.Fprintf(stderr, "fairclass help: no help on %q (topics: %s)\n", args[0], strings.Join(topicNames(), ", "))
	return 2
}

// parseArgs parses a subcommand's flags, which may come before or after its
// arguments, and checks that it got want arguments (what names one). It
// returns the arguments, or, with done, the exit status: 0 after printing
// the help that -h asked for, 2 after a one-line usage error.
func parseArgs(fs *flag.FlagSet, args []string, want int, what, help string, stdout, stderr io.Writer) (pos []string, code int, done bool) {
	fs.SetOutput(io.Discard)
	pos, err := parseInterleaved(fs, args)
	var msg string
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, help)
		return nil, 0, true
	case err != nil:
		msg = err.Error()
	case len(pos) != want && want == 0:
		msg = fmt.Sprintf("unexpected argument %q", pos[0])
	case len(pos) != want:
		msg = fmt.Sprintf("want one %s, got %d", what, len(pos))
	default:
		return pos, 0, false
	}
	fmt.Fprintf(stderr, "fairclass %s: %s; see \"fairclass help %s\"\n", fs.Name(), msg, fs.Name())
	return nil, 2, true
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

// given reports whether the flag name was set on the command line, so
// that an explicit value is checked even where it equals the default.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// reason is err's message without a leading "pkg: ", for a message that
// already names its command, flag or file: "--features: unknown feature",
// not "--features: features: unknown feature".
func reason(err error, pkg string) string {
	return strings.TrimPrefix(err.Error(), pkg+": ")
}
