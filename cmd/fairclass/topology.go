package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/schedmodel/fairclass/topology"
)

const topologyHelp = `Usage: fairclass topology [flags]

Builds the scheduling domains the kernel builds for a machine of packages x
LLCs per package x cores per LLC x SMT threads per core (one NUMA node,
every CPU of capacity 1024) and prints them, per CPU, as the kernel shows
them: the boot log of a kernel booted with sched_verbose (spans, groups in
the balancer's order with their capacity), then the files of each domain
directory (flags spelled as the kernel spells them).

On a real machine (as root, with debugfs mounted):
  echo Y > /sys/kernel/debug/sched/verbose
  cd /sys/kernel/debug/sched/domains && grep -H '' $(ls -dv cpu*/domain*/*)
and "dmesg" after booting with sched_verbose for the spans and groups.

Flags:
  --packages N      sockets (default 1)
  --llcs N          last-level caches per package (default 1)
  --cores N         cores per LLC (default 4)
  --threads N       SMT threads per core (default 2)
  --numbering NAME  linear (siblings adjacent, default) or x86 (siblings
                    N/threads apart)
  --format NAME     debugfs (default): /sys/kernel/debug/sched/domains;
                    proc: /proc/sys/kernel/sched_domain of v5.10-v5.12;
                    dmesg: the boot log alone
  --cpu N           only CPU N (default: every CPU)
`

func topologyCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("topology", flag.ContinueOnError)
	var m topology.Machine
	fs.IntVar(&m.Packages, "packages", 1, "")
	fs.IntVar(&m.LLCsPerPackage, "llcs", 1, "")
	fs.IntVar(&m.CoresPerLLC, "cores", 4, "")
	fs.IntVar(&m.ThreadsPerCore, "threads", 2, "")
	numbering := fs.String("numbering", "linear", "")
	format := fs.String("format", "debugfs", "")
	cpu := fs.Int("cpu", -1, "")
	if _, code, done := parseArgs(fs, args, 0, "", topologyHelp, stdout, stderr); done {
		return code
	}
	usageErr := func(err error) int {
		fmt.Fprintf(stderr, "fairclass topology: %s\n", reason(err, "topology"))
		return 2
	}
	var err error
	if m.Numbering, err = topology.ParseNumbering(*numbering); err != nil {
		return usageErr(err)
	}
	f, err := topology.ParseFormat(*format)
	if err != nil {
		return usageErr(err)
	}
	t, err := topology.Build(m)
	if err != nil {
		return usageErr(err)
	}
	if (given(fs, "cpu") && *cpu < 0) || *cpu >= t.NumCPUs() {
		return usageErr(fmt.Errorf("--cpu %d: the machine has CPUs 0-%d", *cpu, t.NumCPUs()-1))
	}
	if *cpu >= 0 {
		err = t.WriteCPU(stdout, f, *cpu)
	} else {
		err = t.Write(stdout, f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fairclass topology: %v\n", err)
		return 1
	}
	return 0
}
