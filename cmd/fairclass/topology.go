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
every CPU of capacity 1024 unless --capacities or --machine gives others)
and prints them, per CPU, as the kernel shows them: the boot log of a
kernel booted with sched_verbose (spans, groups in the balancer's order
with their capacity), then the files of each domain directory (flags
spelled as the kernel spells them).

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
  --machine NAME    a machine preset instead of the shape flags: rb5
                    (capacities 284/871/1024), rb5-3091 (261/801/1024) or
                    biglittle:N*C,M*D (N little CPUs of capacity C, then M
                    big ones of capacity D)
  --capacities LIST per-CPU capacities for the shape, such as
                    284*4,871*3,1024 (C*K: K CPUs of capacity C)

With unequal capacities the output starts with one cpuN/cpu_capacity:C line
per CPU, as /sys/devices/system/cpu/cpuN/cpu_capacity shows it.
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
	machine := fs.String("machine", "", "")
	capList := fs.String("capacities", "", "")
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
	var caps []uint64
	if given(fs, "capacities") {
		if caps, err = topology.ParseCapacities(*capList); err != nil {
			return usageErr(err)
		}
	}
	if given(fs, "machine") {
		for _, name := range []string{"packages", "llcs", "cores", "threads", "numbering", "capacities"} {
			if given(fs, name) {
				return usageErr(fmt.Errorf("--machine and --%s exclude each other", name))
			}
		}
		p, err := topology.LookupMachine(*machine)
		if err != nil {
			return usageErr(err)
		}
		m, caps = p.Machine, p.Capacities
	}
	t, err := topology.BuildCapacities(m, caps)
	if err != nil {
		return usageErr(err)
	}
	if (given(fs, "cpu") && *cpu < 0) || *cpu >= t.NumCPUs() {
		return usageErr(fmt.Errorf("--cpu %d: the machine has CPUs 0-%d", *cpu, t.NumCPUs()-1))
	}
	if t.Asymmetric() {
		if err = t.WriteCapacities(stdout); err == nil {
			_, err = io.WriteString(stdout, "\n")
		}
	}
	if err != nil {
	} else if *cpu >= 0 {
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
