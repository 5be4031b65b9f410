package topology

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Flag sets of sd_init (KERNEL-SPEC-SMP §1.3): every level starts with
// NEWIDLE, EXEC, FORK, WAKE_AFFINE and PREFER_SIBLING, plus its level flags.
const (
	baseF = SDBalanceNewidle | SDBalanceExec | SDBalanceFork | SDWakeAffine | SDPreferSibling
	smtF  = baseF | SDShareCPUCapacity | SDShareLLC
	mcF   = baseF | SDShareLLC
	pkgF  = baseF
)

func mustBuild(t testing.TB, m Machine) *Topology {
	t.Helper()
	top, err := Build(m)
	if err != nil {
		t.Fatalf("Build(%v): %v", m, err)
	}
	if err := top.Check(); err != nil {
		t.Fatalf("Build(%v).Check: %v", m, err)
	}
	return top
}

// wantDomain is what a table test expects of one domain of one CPU.
type wantDomain struct {
	name         string
	level        int
	span         string
	flags        Flags
	pct, tries   uint64
	groups       string // group spans in the kernel's order, local first, "|"-separated
	groupFlags   Flags  // the flags every group of the domain carries
	ownsShared   bool
	imbNumaNr    uint64
	groupsCores  int // cores per group
	groupsWeight int // CPUs per group
}

// checkDomains compares cpu's domains with want, field by field; intervals
// are checked against the weight (w and 2w ms, §1.3).
func checkDomains(t *testing.T, top *Topology, cpu int, want []wantDomain) {
	t.Helper()
	got := top.Domains(cpu)
	if len(got) != len(want) {
		var names []string
		for _, d := range got {
			names = append(names, d.Name())
		}
		t.Fatalf("cpu%d: domains %v, want %d", cpu, names, len(want))
	}
	for i, w := range want {
		d := got[i]
		var spans []string
		for j := 0; j < d.NumGroups(); j++ {
			g := d.Group(j)
			spans = append(spans, g.Span().String())
			if g.Flags() != w.groupFlags {
				t.Errorf("cpu%d %s: group %v flags %v, want %v", cpu, w.name, g.Span(), g.Flags(), w.groupFlags)
			}
			if g.Cores() != w.groupsCores || g.Weight() != w.groupsWeight || g.Capacity() != 1024*uint64(w.groupsWeight) {
				t.Errorf("cpu%d %s: group %v has %d cores, weight %d, capacity %d; want %d, %d",
					cpu, w.name, g.Span(), g.Cores(), g.Weight(), g.Capacity(), w.groupsCores, w.groupsWeight)
			}
			if g.BalanceCPU() != g.Span().First() || g.MinCapacity() != 1024 || g.MaxCapacity() != 1024 {
				t.Errorf("cpu%d %s: group %v balance cpu %d, capacities %d/%d", cpu, w.name, g.Span(), g.BalanceCPU(), g.MinCapacity(), g.MaxCapacity())
			}
		}
		wt := d.Weight()
		checks := []struct {
			what      string
			got, want any
		}{
			{"name", d.Name(), w.name},
			{"level", d.Level(), w.level},
			{"span", d.Span().String(), w.span},
			{"flags", d.Flags(), w.flags},
			{"imbalance_pct", d.ImbalancePct(), w.pct},
			{"cache_nice_tries", d.CacheNiceTries(), w.tries},
			{"busy_factor", d.BusyFactor(), uint64(16)},
			{"min_interval", d.MinInterval(), uint64(wt)},
			{"max_interval", d.MaxInterval(), 2 * uint64(wt)},
			{"groups", strings.Join(spans, "|"), w.groups},
			{"owns shared", d.Shared() != nil, w.ownsShared},
			{"imb_numa_nr", d.ImbNumaNr(), w.imbNumaNr},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("cpu%d domain%d (%s): %s = %v, want %v", cpu, i, w.name, c.what, c.got, c.want)
			}
		}
	}
}

// hierarchyCase is one machine's expected domains for one CPU, with its
// sd_llc.
type hierarchyCase struct {
	name    string
	m       Machine
	cpu     int
	want    []wantDomain
	llcSize int
	llc     string // sd_llc's name, "" for none
}

func runHierarchyCases(t *testing.T, tests []hierarchyCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := mustBuild(t, tc.m)
			checkDomains(t, top, tc.cpu, tc.want)
			if got := top.SDLLCSize(tc.cpu); got != tc.llcSize {
				t.Errorf("sd_llc_size %d, want %d", got, tc.llcSize)
			}
			name := ""
			if d := top.SDLLC(tc.cpu); d != nil {
				name = d.Name()
			}
			if name != tc.llc {
				t.Errorf("sd_llc %q, want %q", name, tc.llc)
			}
			if (top.LLCShared(tc.cpu) != nil) != (tc.llc != "") {
				t.Errorf("sd_llc_shared %v with sd_llc %q", top.LLCShared(tc.cpu), tc.llc)
			}
		})
	}
}

// TestA1TopologyTables is KERNEL-SPEC-SMP §6.1 A1: the domains of four
// machines (packages, LLCs per package, cores per LLC, threads per core),
// intervals w and 2w ms (checkDomains), group order rotated to the local
// group.
func TestA1TopologyTables(t *testing.T) {
	runHierarchyCases(t, []hierarchyCase{
		{"1x1x4x2 has SMT and MC, no PKG; MC's groups are cores carrying SMT's flags", Machine{1, 1, 4, 2, Linear}, 0, []wantDomain{
			{name: "SMT", level: 0, span: "0-1", flags: smtF, pct: 110, tries: 0,
				groups: "0|1", groupsCores: 1, groupsWeight: 1},
			{name: "MC", level: 1, span: "0-7", flags: mcF, pct: 117, tries: 1,
				groups: "0-1|2-3|4-5|6-7", groupFlags: smtF, ownsShared: true, groupsCores: 1, groupsWeight: 2},
		}, 8, "MC"},
		{"2x1x4x2 adds PKG of 16 with two groups", Machine{2, 1, 4, 2, Linear}, 0, []wantDomain{
			{name: "SMT", level: 0, span: "0-1", flags: smtF, pct: 110, tries: 0,
				groups: "0|1", groupsCores: 1, groupsWeight: 1},
			{name: "MC", level: 1, span: "0-7", flags: mcF, pct: 117, tries: 1,
				groups: "0-1|2-3|4-5|6-7", groupFlags: smtF, ownsShared: true, groupsCores: 1, groupsWeight: 2},
			{name: "PKG", level: 2, span: "0-15", flags: pkgF, pct: 117, tries: 1,
				groups: "0-7|8-15", groupFlags: mcF, imbNumaNr: 2, groupsCores: 4, groupsWeight: 8},
		}, 8, "MC"},
		{"1x1x8x1 has MC only, eight one-CPU groups with flags 0", Machine{1, 1, 8, 1, Linear}, 0, []wantDomain{
			{name: "MC", level: 1, span: "0-7", flags: mcF, pct: 117, tries: 1,
				groups: "0|1|2|3|4|5|6|7", groupFlags: 0, ownsShared: true, groupsCores: 1, groupsWeight: 1},
		}, 8, "MC"},
		{"1x2x1x2 has SMT owning shared, then PKG of 4", Machine{1, 2, 1, 2, Linear}, 0, []wantDomain{
			{name: "SMT", level: 0, span: "0-1", flags: smtF, pct: 110, tries: 0,
				groups: "0|1", ownsShared: true, groupsCores: 1, groupsWeight: 1},
			{name: "PKG", level: 2, span: "0-3", flags: pkgF, pct: 117, tries: 1,
				groups: "0-1|2-3", groupFlags: smtF, imbNumaNr: 2, groupsCores: 1, groupsWeight: 2},
		}, 2, "SMT"},
		{"groups are rotated to start at the local group", Machine{2, 1, 4, 2, Linear}, 13, []wantDomain{
			{name: "SMT", level: 0, span: "12-13", flags: smtF, pct: 110, tries: 0,
				groups: "13|12", groupsCores: 1, groupsWeight: 1},
			{name: "MC", level: 1, span: "8-15", flags: mcF, pct: 117, tries: 1,
				groups: "12-13|14-15|8-9|10-11", groupFlags: smtF, ownsShared: true, groupsCores: 1, groupsWeight: 2},
			{name: "PKG", level: 2, span: "0-15", flags: pkgF, pct: 117, tries: 1,
				groups: "8-15|0-7", groupFlags: mcF, imbNumaNr: 2, groupsCores: 4, groupsWeight: 8},
		}, 8, "MC"},
	})
}

// TestHierarchies covers every row of KERNEL-SPEC-SMP §1.5 under both
// numberings: which levels survive, their flags and groups, the flags the
// groups carry (and so whether PREFER_SIBLING is seen on groups), and which
// domain owns the LLC's shared object.
func TestHierarchies(t *testing.T) {
	runHierarchyCases(t, []hierarchyCase{
		{"general case keeps SMT, MC and PKG", Machine{2, 1, 4, 2, Linear}, 9, []wantDomain{
			{name: "SMT", level: 0, span: "8-9", flags: smtF, pct: 110, groups: "9|8", groupsCores: 1, groupsWeight: 1},
			{name: "MC", level: 1, span: "8-15", flags: mcF, pct: 117, tries: 1, groups: "8-9|10-11|12-13|14-15",
				groupFlags: smtF, ownsShared: true, groupsCores: 1, groupsWeight: 2},
			{name: "PKG", level: 2, span: "0-15", flags: pkgF, pct: 117, tries: 1, groups: "8-15|0-7",
				groupFlags: mcF, imbNumaNr: 2, groupsCores: 4, groupsWeight: 8},
		}, 8, "MC"},
		{"general case, x86 numbering: siblings N/T apart", Machine{2, 1, 4, 2, X86}, 9, []wantDomain{
			{name: "SMT", level: 0, span: "1,9", flags: smtF, pct: 110, groups: "9|1", groupsCores: 1, groupsWeight: 1},
			{name: "MC", level: 1, span: "0-3,8-11", flags: mcF, pct: 117, tries: 1, groups: "1,9|2,10|3,11|0,8",
				groupFlags: smtF, ownsShared: true, groupsCores: 1, groupsWeight: 2},
			{name: "PKG", level: 2, span: "0-15", flags: pkgF, pct: 117, tries: 1, groups: "0-3,8-11|4-7,12-15",
				groupFlags: mcF, imbNumaNr: 2, groupsCores: 4, groupsWeight: 8},
		}, 8, "MC"},
		{"one thread per core drops SMT: MC groups are CPUs with flags 0, no prefer_sibling on them", Machine{2, 1, 4, 1, Linear}, 5, []wantDomain{
			{name: "MC", level: 1, span: "4-7", flags: mcF, pct: 117, tries: 1, groups: "5|6|7|4",
				ownsShared: true, groupsCores: 1, groupsWeight: 1},
			{name: "PKG", level: 2, span: "0-7", flags: pkgF, pct: 117, tries: 1, groups: "4-7|0-3",
				groupFlags: mcF, imbNumaNr: 2, groupsCores: 4, groupsWeight: 4},
		}, 4, "MC"},
		{"one thread per core, x86 numbering is the same", Machine{2, 1, 4, 1, X86}, 5, []wantDomain{
			{name: "MC", level: 1, span: "4-7", flags: mcF, pct: 117, tries: 1, groups: "5|6|7|4",
				ownsShared: true, groupsCores: 1, groupsWeight: 1},
			{name: "PKG", level: 2, span: "0-7", flags: pkgF, pct: 117, tries: 1, groups: "4-7|0-3",
				groupFlags: mcF, imbNumaNr: 2, groupsCores: 4, groupsWeight: 4},
		}, 4, "MC"},
		{"one core per LLC splices MC out: SMT is the LLC domain and owns shared", Machine{1, 2, 1, 2, Linear}, 3, []wantDomain{
			{name: "SMT", level: 0, span: "2-3", flags: smtF, pct: 110, groups: "3|2",
				ownsShared: true, groupsCores: 1, groupsWeight: 1},
			{name: "PKG", level: 2, span: "0-3", flags: pkgF, pct: 117, tries: 1, groups: "2-3|0-1",
				groupFlags: smtF, imbNumaNr: 2, groupsCores: 1, groupsWeight: 2},
		}, 2, "SMT"},
		{"one core per LLC, x86 numbering", Machine{2, 2, 1, 2, X86}, 6, []wantDomain{
			{name: "SMT", level: 0, span: "2,6", flags: smtF, pct: 110, groups: "6|2",
				ownsShared: true, groupsCores: 1, groupsWeight: 1},
			{name: "PKG", level: 2, span: "0-7", flags: pkgF, pct: 117, tries: 1, groups: "2,6|3,7|0,4|1,5",
				groupFlags: smtF, imbNumaNr: 4, groupsCores: 1, groupsWeight: 2},
		}, 2, "SMT"},
		{"one single-thread core per LLC leaves PKG alone over single CPUs with flags 0", Machine{2, 2, 1, 1, Linear}, 2, []wantDomain{
			{name: "PKG", level: 2, span: "0-3", flags: pkgF, pct: 117, tries: 1, groups: "2|3|0|1",
				imbNumaNr: 4, groupsCores: 1, groupsWeight: 1},
		}, 1, ""},
		{"one LLC never builds PKG: MC is the top domain", Machine{1, 1, 4, 2, Linear}, 6, []wantDomain{
			{name: "SMT", level: 0, span: "6-7", flags: smtF, pct: 110, groups: "6|7", groupsCores: 1, groupsWeight: 1},
			{name: "MC", level: 1, span: "0-7", flags: mcF, pct: 117, tries: 1, groups: "6-7|0-1|2-3|4-5",
				groupFlags: smtF, ownsShared: true, groupsCores: 1, groupsWeight: 2},
		}, 8, "MC"},
		{"one LLC, x86 numbering", Machine{1, 1, 4, 2, X86}, 6, []wantDomain{
			{name: "SMT", level: 0, span: "2,6", flags: smtF, pct: 110, groups: "6|2", groupsCores: 1, groupsWeight: 1},
			{name: "MC", level: 1, span: "0-7", flags: mcF, pct: 117, tries: 1, groups: "2,6|3,7|0,4|1,5",
				groupFlags: smtF, ownsShared: true, groupsCores: 1, groupsWeight: 2},
		}, 8, "MC"},
		{"one LLC of single-thread cores keeps MC only", Machine{1, 1, 8, 1, Linear}, 3, []wantDomain{
			{name: "MC", level: 1, span: "0-7", flags: mcF, pct: 117, tries: 1, groups: "3|4|5|6|7|0|1|2",
				ownsShared: true, groupsCores: 1, groupsWeight: 1},
		}, 8, "MC"},
		{"one core keeps SMT only, spanning the machine", Machine{1, 1, 1, 4, Linear}, 2, []wantDomain{
			{name: "SMT", level: 0, span: "0-3", flags: smtF, pct: 110, groups: "2|3|0|1",
				ownsShared: true, groupsCores: 1, groupsWeight: 1},
		}, 4, "SMT"},
		{"one CPU has no domain", Machine{1, 1, 1, 1, Linear}, 0, nil, 1, ""},
	})
}

// survivors returns the levels of §1.5's table for a machine, from the
// table's conditions rather than by the kernel's rules: SMT survives with
// two threads a core, MC with two cores an LLC, PKG with two LLCs.
func survivors(m Machine) string {
	sl, c, tt := m.Packages*m.LLCsPerPackage, m.CoresPerLLC, m.ThreadsPerCore
	var lv []string
	if tt >= 2 {
		lv = append(lv, "SMT")
	}
	if c >= 2 {
		lv = append(lv, "MC")
	}
	if sl >= 2 {
		lv = append(lv, "PKG")
	}
	return strings.Join(lv, ",")
}

// TestEveryShapeDegeneratesAsTheTableSays builds every machine with up to
// three of each unit, both numberings, and checks the surviving levels
// against §1.5's conditions and every structural invariant (Check).
func TestEveryShapeDegeneratesAsTheTableSays(t *testing.T) {
	for _, num := range []Numbering{Linear, X86} {
		for s := 1; s <= 3; s++ {
			for l := 1; l <= 3; l++ {
				for c := 1; c <= 3; c++ {
					for th := 1; th <= 3; th++ {
						m := Machine{s, l, c, th, num}
						top := mustBuild(t, m)
						for cpu := 0; cpu < top.NumCPUs(); cpu++ {
							var names []string
							for _, d := range top.Domains(cpu) {
								names = append(names, d.Name())
							}
							if got, want := strings.Join(names, ","), survivors(m); got != want {
								t.Fatalf("%v cpu%d: levels %q, want %q", m, cpu, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// kernelGroupOrder lists a domain's groups as build_sched_groups links
// them: walk the span "wrap from cpu"; every CPU not yet covered starts the
// group of its child span (the CPU alone at the bottom).
func kernelGroupOrder(top *Topology, d *Domain) []string {
	covered := NewMask(top.NumCPUs())
	var out []string
	for c := d.Span().FirstWrap(d.CPU()); c >= 0; c = d.Span().NextWrap(c, d.CPU()) {
		if covered.Test(c) {
			continue
		}
		span := MaskOf(top.NumCPUs(), c)
		// The child's span as built, before degeneration: the CPU's core for
		// MC, its LLC for PKG.
		switch d.Kind() {
		case MC:
			span = top.SMTMask(c)
		case PKG:
			span = top.LLCSpan(top.LLC(c))
		}
		covered.Or(covered, span)
		out = append(out, span.String())
	}
	return out
}

// TestGroupOrderIsWrapOrder checks that rotating the ascending group list
// to the local group gives the kernel's order for every CPU and domain of
// machines of both numberings.
func TestGroupOrderIsWrapOrder(t *testing.T) {
	for _, m := range []Machine{
		{2, 3, 4, 2, Linear}, {2, 3, 4, 2, X86}, {3, 1, 3, 4, X86}, {1, 3, 1, 3, X86},
		{2, 2, 3, 1, X86}, {1, 1, 5, 3, X86}, {4, 1, 1, 1, Linear},
	} {
		top := mustBuild(t, m)
		for cpu := 0; cpu < top.NumCPUs(); cpu++ {
			for _, d := range top.Domains(cpu) {
				var got []string
				for j := 0; j < d.NumGroups(); j++ {
					got = append(got, d.Group(j).Span().String())
				}
				if want := kernelGroupOrder(top, d); strings.Join(got, "|") != strings.Join(want, "|") {
					t.Fatalf("%v cpu%d %s: groups %v, kernel order %v", m, cpu, d.Name(), got, want)
				}
			}
		}
	}
}

func TestGroupsAndSharedObjectsAreSharedBetweenCPUs(t *testing.T) {
	top := mustBuild(t, Machine{2, 1, 4, 2, X86})
	// CPUs 1 and 9 are siblings; 1 and 2 share the LLC; 1 and 4 only the
	// package.
	d1, d9, d2, d4 := top.Domains(1), top.Domains(9), top.Domains(2), top.Domains(4)
	if d1[0] == d9[0] {
		t.Fatal("two CPUs share a Domain object")
	}
	if d1[0].Span() != d9[0].Span() || d1[0].Groups()[0] != d9[0].Groups()[0] {
		t.Error("siblings do not share the SMT span and groups")
	}
	if d1[0].LocalGroup() == d9[0].LocalGroup() {
		t.Error("siblings have the same local SMT group")
	}
	if d1[1].LocalGroup() != d9[1].LocalGroup() || d1[1].Group(1) != d2[1].LocalGroup() {
		t.Error("MC groups are not shared")
	}
	if d1[1].Shared() == nil || d1[1].Shared() != d2[1].Shared() || d1[1].Shared() == d4[1].Shared() {
		t.Error("the LLC's Shared object is not one per LLC")
	}
	if d1[2].Group(1) != d4[2].LocalGroup() {
		t.Error("PKG groups are not shared")
	}
	if top.LLCShared(1) != top.SharedByID(0) || top.SharedByID(1).Span().String() != "4-7,12-15" || top.SharedByID(1).Weight() != 8 {
		t.Errorf("Shared objects: %v %v", top.LLCShared(1), top.SharedByID(1))
	}
}

func TestIDsAreDense(t *testing.T) {
	top := mustBuild(t, Machine{2, 2, 3, 2, X86})
	seen := make([]bool, top.NumDomainIDs())
	for cpu := 0; cpu < top.NumCPUs(); cpu++ {
		for _, d := range top.Domains(cpu) {
			if seen[d.ID()] {
				t.Fatalf("domain id %d twice", d.ID())
			}
			seen[d.ID()] = true
		}
	}
	for id, ok := range seen {
		if !ok {
			t.Fatalf("domain id %d unused", id)
		}
	}
	// Groups: 24 CPUs (SMT groups) + 12 cores (MC groups) + 4 LLCs (PKG).
	if got := top.NumGroupIDs(); got != 24+12+4 {
		t.Errorf("%d group ids, want 40", got)
	}
	for id := 0; id < top.NumGroupIDs(); id++ {
		if top.GroupByID(id).ID() != id {
			t.Fatalf("group %d has id %d", id, top.GroupByID(id).ID())
		}
	}
	if top.GroupByID(-1) != nil || top.GroupByID(top.NumGroupIDs()) != nil {
		t.Error("GroupByID out of range is not nil")
	}
}

func TestLLCIdsAndSharing(t *testing.T) {
	tests := []struct {
		name          string
		m             Machine
		a, b          int
		share         bool
		llcA, shareID int
	}{
		{"SMT siblings share the cache (x86)", Machine{2, 1, 4, 2, X86}, 1, 9, true, 0, 0},
		{"cores of one LLC share it (x86)", Machine{2, 1, 4, 2, X86}, 9, 3, true, 0, 0},
		{"different LLCs do not (x86)", Machine{2, 1, 4, 2, X86}, 9, 12, false, 0, 0},
		{"second LLC's id is its index, share id its first CPU", Machine{2, 1, 4, 2, X86}, 12, 4, true, 1, 4},
		{"second LLC, linear", Machine{1, 2, 4, 2, Linear}, 9, 15, true, 1, 8},
		{"no LLC domain: every CPU its own LLC", Machine{4, 1, 1, 1, Linear}, 2, 3, false, 2, 2},
		{"a CPU shares with itself", Machine{4, 1, 1, 1, Linear}, 2, 2, true, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := mustBuild(t, tc.m)
			if got := top.CPUsShareCache(tc.a, tc.b); got != tc.share {
				t.Errorf("cpus_share_cache(%d, %d) = %v", tc.a, tc.b, got)
			}
			if got := top.CPUsShareResources(tc.a, tc.b); got != tc.share {
				t.Errorf("cpus_share_resources(%d, %d) = %v", tc.a, tc.b, got)
			}
			if top.LLC(tc.a) != tc.llcA || top.SDLLCID(tc.a) != tc.llcA || top.SDShareID(tc.a) != tc.shareID {
				t.Errorf("cpu%d: LLC %d, sd_llc_id %d, sd_share_id %d; want %d, %d, %d",
					tc.a, top.LLC(tc.a), top.SDLLCID(tc.a), top.SDShareID(tc.a), tc.llcA, tc.llcA, tc.shareID)
			}
		})
	}
}

func TestSMTMaskAndCoords(t *testing.T) {
	top := mustBuild(t, Machine{2, 1, 2, 4, X86})
	// 16 CPUs, 4 cores: core k has threads k, k+4, k+8, k+12.
	if got := top.SMTMask(6).String(); got != "2,6,10,14" {
		t.Errorf("SMT mask of 6: %s", got)
	}
	if c, ok := top.Coords(6); !ok || c != (Coords{Package: 1, LLC: 1, Core: 2, Thread: 1}) {
		t.Errorf("coords of 6: %+v", c)
	}
	if top.CPU(2, 3) != 14 || top.CPU(4, 0) != -1 || top.CPU(0, 4) != -1 {
		t.Errorf("CPU(2,3) = %d", top.CPU(2, 3))
	}
	if !top.SMTActive() || mustBuild(t, Machine{2, 1, 2, 1, X86}).SMTActive() {
		t.Error("SMTActive")
	}
	if top.NumCores() != 4 || top.NumLLCs() != 2 || top.Core(14) != 2 || top.LLCSpan(1).String() != "2-3,6-7,10-11,14-15" {
		t.Errorf("cores %d, LLCs %d, core of 14 %d, LLC 1 %v", top.NumCores(), top.NumLLCs(), top.Core(14), top.LLCSpan(1))
	}
	lin := mustBuild(t, Machine{2, 1, 2, 4, Linear})
	if got := lin.SMTMask(6).String(); got != "4-7" {
		t.Errorf("linear SMT mask of 6: %s", got)
	}
}

func TestFlagDomainSearch(t *testing.T) {
	top := mustBuild(t, Machine{2, 1, 4, 2, Linear})
	for _, tc := range []struct {
		f               Flags
		lowest, highest string
	}{
		{SDShareLLC, "SMT", "MC"},
		{SDShareCPUCapacity, "SMT", "SMT"},
		{SDBalanceFork, "SMT", "PKG"},
		{SDBalanceWake, "", ""},
		{SDNUMA, "", ""},
	} {
		name := func(d *Domain) string {
			if d == nil {
				return ""
			}
			return d.Name()
		}
		if lo, hi := name(top.LowestFlagDomain(3, tc.f)), name(top.HighestFlagDomain(3, tc.f)); lo != tc.lowest || hi != tc.highest {
			t.Errorf("%v: lowest %q highest %q, want %q %q", tc.f, lo, hi, tc.lowest, tc.highest)
		}
	}
}

func TestBadMachinesAreErrors(t *testing.T) {
	tests := []struct {
		m    Machine
		want error
	}{
		{Machine{}, ErrBadMachine},
		{Machine{0, 1, 1, 1, Linear}, ErrBadMachine},
		{Machine{1, -1, 1, 1, Linear}, ErrBadMachine},
		{Machine{1, 1, 0, 1, Linear}, ErrBadMachine},
		{Machine{1, 1, 1, -8, Linear}, ErrBadMachine},
		{Machine{1, 1, 1, 1, Numbering(2)}, ErrBadNumbering},
		{Machine{1, 1, 1, 1, Numbering(-1)}, ErrBadNumbering},
		{Machine{1, 1, MaxCPUs + 1, 1, Linear}, ErrTooLarge},
		{Machine{2, 2, 2048, 2, Linear}, ErrTooLarge},
		{Machine{1 << 40, 1 << 40, 1 << 40, 1 << 40, Linear}, ErrTooLarge},
		{Machine{8192, 8192, 8192, 8192, Linear}, ErrTooLarge},
	}
	for _, tc := range tests {
		top, err := Build(tc.m)
		if !errors.Is(err, tc.want) || top != nil {
			t.Errorf("Build(%v) = %v, %v; want %v", tc.m, top, err, tc.want)
		}
	}
	if _, err := Build(Machine{1, 1, MaxCPUs, 1, Linear}); err != nil {
		t.Errorf("a machine of MaxCPUs: %v", err)
	}
}

func TestBadCPUIdsAreZeroValues(t *testing.T) {
	top := mustBuild(t, Machine{1, 1, 2, 2, Linear})
	for _, cpu := range []int{-1, 4, 1 << 30} {
		if top.Domains(cpu) != nil || top.Base(cpu) != nil || top.SDLLC(cpu) != nil || top.LLCShared(cpu) != nil ||
			top.SMTMask(cpu) != nil || top.LLC(cpu) != -1 || top.Core(cpu) != -1 || top.SDShareID(cpu) != -1 ||
			top.SDLLCSize(cpu) != 0 || top.CPUsShareCache(cpu, 0) || top.CPUsShareResources(0, cpu) ||
			top.CPUCapacity(cpu) != 0 || top.LowestFlagDomain(cpu, 0) != nil {
			t.Errorf("cpu %d answered", cpu)
		}
		if _, ok := top.Coords(cpu); ok {
			t.Errorf("Coords(%d) ok", cpu)
		}
	}
	if top.LLCSpan(1) != nil || top.SharedByID(-1) != nil {
		t.Error("LLC index out of range answered")
	}
}

func TestNumberingNames(t *testing.T) {
	for _, n := range []Numbering{Linear, X86} {
		got, err := ParseNumbering(n.String())
		if err != nil || got != n {
			t.Errorf("ParseNumbering(%q) = %v, %v", n, got, err)
		}
	}
	if _, err := ParseNumbering("intel"); !errors.Is(err, ErrBadNumbering) {
		t.Errorf("ParseNumbering(intel): %v", err)
	}
	if s := Numbering(7).String(); s != "Numbering(7)" {
		t.Error(s)
	}
	if s := fmt.Sprint(Machine{2, 1, 4, 2, X86}); s != "2x1x4x2 x86" {
		t.Error(s)
	}
}
