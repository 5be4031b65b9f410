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
		{"smtPair", smtPair, "SMT {0-1}", []string{"one core of 2 SMT threads", "domains SMT {0-1}", "CPUs 0 and 1 are one core-scheduled pair"}},
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

// The core-scheduled pair of seed 004 is a real core: its two CPUs are
// SMT siblings of the topology, not only paired by core scheduling.
func TestCorePairIsOneCore(t *testing.T) {
	topo, err := topology.Build(smtPair.topo)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range smtPair.corePairs {
		if topo.Core(p[0]) != topo.Core(p[1]) {
			t.Errorf("core pair %v: CPUs on cores %d and %d", p, topo.Core(p[0]), topo.Core(p[1]))
		}
	}
}
