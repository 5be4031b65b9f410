package topology

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Format selects how Write prints a topology. Every format prints, per
// CPU, texts a real kernel shows, so that a user can hold the output
// against a machine of the same shape:
//
//   - the boot log of the domains the CPU attaches (sched_domain_debug, in
//     dmesg of a kernel booted with sched_verbose): each domain's span and
//     name, and its groups in the kernel's order, local group first, each
//     as "FIRST:{ span=LIST }" with " cap=C" when its capacity is not 1024;
//   - then, for Debugfs and Proc, one "cpuN/domainM/FILE:VALUE" line per
//     file of the CPU's domain directories, files in name order, values as
//     the kernel prints them (flags as names, each followed by a space).
type Format int

const (
	// Debugfs lists /sys/kernel/debug/sched/domains/cpuN/domainM (v5.13
	// on; present when /sys/kernel/debug/sched/verbose is Y): busy_factor,
	// cache_nice_tries, flags, groups_flags (the local group's flags),
	// imbalance_pct, level, max_interval, max_newidle_lb_cost,
	// min_interval, name. The same listing from a machine:
	//
	//	cd /sys/kernel/debug/sched/domains && grep -H '' $(ls -dv cpu*/domain*/*)
	Debugfs Format = iota
	// Proc lists /proc/sys/kernel/sched_domain/cpuN/domainM as v5.10–v5.12
	// had it (moved to debugfs in v5.13): busy_factor, cache_nice_tries,
	// flags, imbalance_pct, max_interval, max_newidle_lb_cost,
	// min_interval, name — flags named, with today's flag names.
	Proc
	// Dmesg prints the boot log alone, ending with the root domain's span
	// as a sched_verbose kernel does.
	Dmesg
)

var formatNames = [...]string{Debugfs: "debugfs", Proc: "proc", Dmesg: "dmesg"}

// String returns "debugfs", "proc" or "dmesg".
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ErrBadFormat is wrapped by ParseFormat's and Write's errors.
var ErrBadFormat = errors.New("topology: unknown format")

// ErrBadCPU is wrapped by WriteCPU's error for an id that is not a CPU.
var ErrBadCPU = errors.New("topology: no such CPU")

// ParseFormat parses "debugfs", "proc" or "dmesg".
func ParseFormat(s string) (Format, error) {
	for i, name := range formatNames {
		if s == name {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want debugfs, proc or dmesg)", ErrBadFormat, s)
}

// String returns every CPU's domains in the Debugfs format.
func (t *Topology) String() string {
	var b strings.Builder
	t.Write(&b, Debugfs)
	return b.String()
}

// Write prints every CPU's domains in format f, CPUs in ascending order
// separated by blank lines (Dmesg: one log, as the kernel writes it).
func (t *Topology) Write(w io.Writer, f Format) error {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Errorf("%w: %d", ErrBadFormat, int(f))
	}
	bw := bufio.NewWriter(w)
	for cpu := 0; cpu < t.n; cpu++ {
		if cpu > 0 && f != Dmesg {
			bw.WriteByte('\n')
		}
		t.writeCPU(bw, f, cpu)
	}
	if f == Dmesg {
		fmt.Fprintf(bw, "root domain span: %v\n", t.all)
	}
	return bw.Flush()
}

// WriteCPU prints one CPU's domains in format f.
func (t *Topology) WriteCPU(w io.Writer, f Format, cpu int) error {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Errorf("%w: %d", ErrBadFormat, int(f))
	}
	if !t.valid(cpu) {
		return fmt.Errorf("%w: %d (the machine has CPUs 0-%d)", ErrBadCPU, cpu, t.n-1)
	}
	bw := bufio.NewWriter(w)
	t.writeCPU(bw, f, cpu)
	return bw.Flush()
}

func (t *Topology) writeCPU(w *bufio.Writer, f Format, cpu int) {
	t.writeBootLog(w, cpu)
	if f == Dmesg {
		return
	}
	for _, d := range t.domains[cpu] {
		for _, file := range domainFiles {
			if f == Proc && file.debugfsOnly {
				continue
			}
			fmt.Fprintf(w, "cpu%d/domain%d/%s:%s\n", cpu, d.index, file.name, file.value(d))
		}
	}
}

// domainFiles are the files of a domain directory in name order, with
// their contents without the final newline.
var domainFiles = []struct {
	name        string
	debugfsOnly bool
	value       func(d *Domain) string
}{
	{"busy_factor", false, func(d *Domain) string { return strconv.FormatUint(d.busyFactor, 10) }},
	{"cache_nice_tries", false, func(d *Domain) string { return strconv.FormatUint(d.cacheNiceTries, 10) }},
	{"flags", false, func(d *Domain) string { return d.flags.Debugfs() }},
	{"groups_flags", true, func(d *Domain) string { return d.LocalGroup().flags.Debugfs() }},
	{"imbalance_pct", false, func(d *Domain) string { return strconv.FormatUint(d.imbalancePct, 10) }},
	{"level", true, func(d *Domain) string { return strconv.Itoa(d.level) }},
	{"max_interval", false, func(d *Domain) string { return strconv.FormatUint(d.maxInterval, 10) }},
	// A runtime statistic: 0 until the first newly idle balance.
	{"max_newidle_lb_cost", false, func(d *Domain) string { return "0" }},
	{"min_interval", false, func(d *Domain) string { return strconv.FormatUint(d.minInterval, 10) }},
	{"name", false, func(d *Domain) string { return d.Name() }},
}

// writeBootLog prints what sched_domain_debug logs when cpu attaches its
// domains, without the log level and timestamp.
func (t *Topology) writeBootLog(w *bufio.Writer, cpu int) {
	chain := t.domains[cpu]
	if len(chain) == 0 {
		fmt.Fprintf(w, "CPU%d attaching NULL sched-domain.\n", cpu)
		return
	}
	fmt.Fprintf(w, "CPU%d attaching sched-domain(s):\n", cpu)
	for i, d := range chain {
		fmt.Fprintf(w, "%*s domain-%d: span=%v level=%s\n", i, "", i, d.span, d.Name())
		fmt.Fprintf(w, "%*s groups:", i+1, "")
		for j := 0; j < len(d.groups); j++ {
			g := d.Group(j)
			fmt.Fprintf(w, " %d:{ span=%v", g.FirstCPU(), g.span)
			if c := g.Capacity(); c != CapacityScale {
				fmt.Fprintf(w, " cap=%d", c)
			}
			w.WriteString(" }")
			if j < len(d.groups)-1 {
				w.WriteByte(',')
			}
		}
		w.WriteByte('\n')
	}
}
