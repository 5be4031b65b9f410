package main

import (
	"strings"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/topology"
)

// domainsOf lists CPU 0's scheduling domains as "NAME {span}".
func domainsOf(t *testing.T, m machine) string {
	t.Helper()
	topo, err := topology.Build(m.topo)
	if err != nil {
		t.Fatalf("%v: %v", m.topo, err)
	}
	var l []string
	for _, d := range topo.Domains(0) {
		l = append(l, d.Name()+" {"+d.Span().String()+"}")
	}
	return strings.Join(l, " ")
}

// Each experiment's machine builds the domains its thread's machine has,
// and its printed description says so.
func TestMachinesAreTheThreads(t *testing.T) {
	for _, tt := range []struct {
		name    string
		m       machine
		domains string
		says    []string
	}{
		{"rb5", rb5, "MC {0-7}", []string{"8 CPUs, one LLC of 8 single-thread cores", "Snapdragon RB5", "capacities [284 284 284 284 871 871 871 1024] (rb5)", "base slice 2.8ms, HZ=250", "timer slack 50µs"}},
		{"rb5Quick", rb5Quick, "MC {0-1}", []string{"2 CPUs", "--quick", "Snapdragon RB5", "capacities [284 1024]", "HZ=250"}},
		{"assumed8", assumed8, "MC {0-7}", []string{"8 CPUs, one LLC", "an assumption: the thread names no machine"}},
		{"pinnedCPU", pinnedCPU, "", []string{"1 CPU", "no scheduling domains", "taskset -c 1", "base slice 700µs"}},
		{"smtPair", smtPair, "SMT {0-1}", []string{"one core of 2 SMT threads", "domains SMT {0-1}", "core scheduling: the kernel's (package smp), on the core's SMT threads"}},
	} {
		if got := domainsOf(t, tt.m); got != tt.domains {
			t.Errorf("%s: CPU 0's domains %q, want %q", tt.name, got, tt.domains)
		}
		d := tt.m.describe(time.Second)
		for _, s := range tt.says {
			if !strings.Contains(d, s) {
				t.Errorf("%s: description lacks %q:\n%s", tt.name, s, d)
			}
		}
		cfg := tt.m.config(1, time.Millisecond, parse(""), sim.Stress(1, sim.TaskOptions{}))
		r, err := sim.Simulate(cfg)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if r.Machine != tt.m.topo.String() || r.CPUs != tt.m.cpus() {
			t.Errorf("%s: the simulation ran on %s (%d CPUs), want %v", tt.name, r.Machine, r.CPUs, tt.m.topo)
		}
	}
}

// Seed 004's core-scheduled machine is a real core: CPUs 0 and 1 are SMT
// siblings of the topology, which is where smp's core scheduling finds
// them.
func TestCorePairIsOneCore(t *testing.T) {
	topo, err := topology.Build(smtPair.topo)
	if err != nil {
		t.Fatal(err)
	}
	if !smtPair.coreSched || !topo.SMTActive() || topo.Core(0) != topo.Core(1) {
		t.Errorf("core scheduling %v, SMT %v, CPUs 0 and 1 on cores %d and %d", smtPair.coreSched, topo.SMTActive(), topo.Core(0), topo.Core(1))
	}
}
