package topology

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// AS1: the RB5's device-tree values give 284/871/1024 with the prime at
// 2 841 600 kHz and 261/801/1024 at 3 091 200 kHz (KERNEL-SPEC-ASYM §10.1).
func TestCapacitiesFromDMIPSRB5(t *testing.T) {
	d := []uint64{448, 448, 448, 448, 1024, 1024, 1024, 1024}
	for _, tc := range []struct {
		f7   uint64
		want []uint64
	}{
		{2841600, []uint64{284, 284, 284, 284, 871, 871, 871, 1024}},
		{3091200, []uint64{261, 261, 261, 261, 801, 801, 801, 1024}},
	} {
		f := []uint64{1804800, 1804800, 1804800, 1804800, 2419200, 2419200, 2419200, tc.f7}
		got, err := CapacitiesFromDMIPS(d, f)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("f7 %d: %v, %v; want %v", tc.f7, got, err, tc.want)
		}
	}
	for _, p := range MachinePresets() {
		tp, err := p.Build()
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if err := tp.Check(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
}

func TestCapacityErrors(t *testing.T) {
	m := Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 1}
	for _, tc := range []struct {
		name string
		m    Machine
		caps []uint64
	}{
		{"one value for two CPUs", m, []uint64{1024}},
		{"zero capacity", m, []uint64{0, 1024}},
		{"above 1024", m, []uint64{1025, 1024}},
		{"no CPU of 1024", m, []uint64{512, 512}},
		{"asymmetric SMT", Machine{1, 1, 1, 2, Linear}, []uint64{512, 1024}},
	} {
		if _, err := BuildCapacities(tc.m, tc.caps); !errors.Is(err, ErrBadCapacity) {
			t.Errorf("%s: %v, want ErrBadCapacity", tc.name, err)
		}
	}
	if _, err := CapacitiesFromDMIPS([]uint64{1, 2}, []uint64{3}); !errors.Is(err, ErrBadCapacity) {
		t.Errorf("length mismatch: %v", err)
	}
	if _, err := CapacitiesFromDMIPS([]uint64{1 << 40}, []uint64{1 << 30}); !errors.Is(err, ErrBadCapacity) {
		t.Errorf("overflow: %v", err)
	}
	for _, s := range []string{"", "x", "5*0", "5*"} {
		if _, err := ParseCapacities(s); err == nil {
			t.Errorf("ParseCapacities(%q) accepted", s)
		}
	}
	if got, err := ParseCapacities("284*4,871*3,1024"); err != nil || len(got) != 8 || got[3] != 284 || got[6] != 871 || got[7] != 1024 {
		t.Errorf("ParseCapacities: %v, %v", got, err)
	}
	for _, s := range []string{"nope", "biglittle:4*284", "biglittle:0*284,4*1024", "biglittle:2*284,2*900"} {
		if _, err := LookupMachine(s); err == nil {
			t.Errorf("LookupMachine(%q) accepted", s)
		}
	}
}

// AS2, case A: the RB5 has one MC domain per CPU spanning 0–7 with both
// asym flags, eight one-CPU groups of flags 0 whose capacity objects hold
// the CPU's capacity, sd_llc = sd_asym_cpucapacity = MC, one shared object
// serving both roles.
func TestRB5Topology(t *testing.T) {
	p, err := LookupMachine("rb5")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !tp.Asymmetric() || p.HZ != 250 {
		t.Fatalf("asymmetric %v, HZ %d", tp.Asymmetric(), p.HZ)
	}
	want := []uint64{284, 284, 284, 284, 871, 871, 871, 1024}
	if got := tp.Capacities(); !slices.Equal(got, want) {
		t.Fatalf("capacities %v, want %v", got, want)
	}
	list := tp.CapacityList()
	if len(list) != 3 || list[0].Capacity != 1024 || list[0].CPUs.String() != "7" ||
		list[1].Capacity != 871 || list[1].CPUs.String() != "4-6" || list[2].Capacity != 284 || list[2].CPUs.String() != "0-3" {
		t.Fatalf("asym_cap_list %v", list)
	}
	for cpu := range 8 {
		ds := tp.Domains(cpu)
		if len(ds) != 1 || ds[0].Kind() != MC || ds[0].Span().String() != "0-7" {
			t.Fatalf("cpu%d: domains %v", cpu, ds)
		}
		d := ds[0]
		if !d.Has(SDAsymCPUCapacity|SDAsymCPUCapacityFull|SDShareLLC|SDPreferSibling) || d.ImbalancePct() != 117 || d.CacheNiceTries() != 1 {
			t.Errorf("cpu%d: flags %v pct %d", cpu, d.Flags(), d.ImbalancePct())
		}
		if tp.SDAsymCPUCapacity(cpu) != d || tp.SDLLC(cpu) != d || d.Parent() != nil {
			t.Errorf("cpu%d: sd_asym %v sd_llc %v", cpu, tp.SDAsymCPUCapacity(cpu), tp.SDLLC(cpu))
		}
		if tp.SDBalanceShared(cpu) != tp.LLCShared(cpu) || tp.LLCShared(cpu) != tp.LLCShared(0) || tp.LLCShared(0) == nil {
			t.Errorf("cpu%d: shared objects differ", cpu)
		}
		if d.NumGroups() != 8 {
			t.Fatalf("cpu%d: %d groups", cpu, d.NumGroups())
		}
		for _, g := range d.Groups() {
			c := tp.CPUCapacity(g.FirstCPU())
			if g.Flags() != 0 || g.Capacity() != c || g.MinCapacity() != c || g.MaxCapacity() != c {
				t.Errorf("cpu%d group %d: flags %v cap %d/%d/%d", cpu, g.FirstCPU(), g.Flags(), g.Capacity(), g.MinCapacity(), g.MaxCapacity())
			}
		}
	}
	if tp.NumSharedIDs() != 1 {
		t.Errorf("NumSharedIDs %d", tp.NumSharedIDs())
	}
	var b strings.Builder
	tp.Write(&b, Dmesg)
	if !strings.Contains(b.String(), "groups: 0:{ span=0 cap=284 }, 1:{ span=1 cap=284 },") {
		t.Errorf("boot log:\n%s", b.String())
	}
	b.Reset()
	tp.WriteCapacities(&b)
	if !strings.HasPrefix(b.String(), "cpu0/cpu_capacity:284\n") || !strings.HasSuffix(b.String(), "cpu7/cpu_capacity:1024\n") {
		t.Errorf("capacities:\n%s", b.String())
	}
	// max_allowed_capacity: the largest capacity among the allowed CPUs.
	m := tp.NewMask()
	for _, tc := range []struct {
		cpus []int
		want uint64
	}{{[]int{0, 1, 2, 3}, 284}, {[]int{2, 5}, 871}, {[]int{0, 7}, 1024}, {nil, 1024}} {
		m.Reset()
		for _, c := range tc.cpus {
			m.Set(c)
		}
		if got := tp.MaxAllowedCapacity(m); got != tc.want {
			t.Errorf("MaxAllowedCapacity(%v) = %d, want %d", m, got, tc.want)
		}
	}
}

// AS2, case B with equal LLC sizes: two LLCs of different capacities give
// a symmetric MC per LLC and a PKG with both flags, whose groups are the
// LLCs with summed capacities; the PKG domain has its own shared object,
// sd_balance_shared of every CPU.
func TestSeparateLLCsTopology(t *testing.T) {
	m := Machine{Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 2, ThreadsPerCore: 1}
	tp, err := BuildCapacities(m, []uint64{1024, 1024, 446, 446})
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Check(); err != nil {
		t.Fatal(err)
	}
	for cpu := range 4 {
		ds := tp.Domains(cpu)
		if len(ds) != 2 || ds[0].Flags()&(SDAsymCPUCapacity|SDAsymCPUCapacityFull) != 0 || !ds[1].Has(SDAsymCPUCapacity|SDAsymCPUCapacityFull) {
			t.Fatalf("cpu%d: %v", cpu, ds)
		}
		if tp.SDAsymCPUCapacity(cpu) != ds[1] {
			t.Errorf("cpu%d: sd_asym_cpucapacity %v", cpu, tp.SDAsymCPUCapacity(cpu))
		}
		sh := tp.SDBalanceShared(cpu)
		if sh == nil || sh.ID() != 2 || sh == tp.LLCShared(cpu) || sh.Weight() != 4 {
			t.Errorf("cpu%d: sd_balance_shared %v", cpu, sh)
		}
		gs := ds[1].Groups()
		if gs[0].Capacity() != 2048 || gs[1].Capacity() != 892 || gs[1].MinCapacity() != 446 || gs[0].MaxCapacity() != 1024 {
			t.Errorf("cpu%d: PKG group capacities %d, %d", cpu, gs[0].Capacity(), gs[1].Capacity())
		}
	}
	if tp.NumSharedIDs() != 3 {
		t.Errorf("NumSharedIDs %d", tp.NumSharedIDs())
	}
}

// A capacity list with every CPU at 1024 (or none) gives Build's topology:
// no asym flag, key off, the same printout.
func TestEqualCapacitiesAreSymmetric(t *testing.T) {
	for _, m := range []Machine{{1, 1, 2, 1, Linear}, {2, 2, 4, 2, X86}} {
		caps := make([]uint64, m.NumCPUs())
		for i := range caps {
			caps[i] = 1024
		}
		a, err := Build(m)
		if err != nil {
			t.Fatal(err)
		}
		b, err := BuildCapacities(m, caps)
		if err != nil {
			t.Fatal(err)
		}
		if b.Asymmetric() || b.SDAsymCPUCapacity(0) != nil || b.Capacities() != nil || a.String() != b.String() {
			t.Errorf("%v: asymmetric %v", m, b.Asymmetric())
		}
	}
}
