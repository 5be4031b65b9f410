package topology

import "fmt"

// Kind is a level of the kernel's default topology table (default_topology
// in kernel/sched/topology.c), bottom-up. The model has no cluster level.
type Kind int

const (
	SMT Kind = iota // SMT siblings of one core: span cpu_smt_mask
	MC              // cores sharing a last-level cache: span cpu_coregroup_mask
	PKG             // the CPUs of the NUMA node, here the whole machine
	numKinds
)

var kindNames = [numKinds]string{SMT: "SMT", MC: "MC", PKG: "PKG"}

// String returns the level's name as the kernel spells it: "SMT", "MC",
// "PKG" (the debugfs name file, the "level=" of the boot log).
func (k Kind) String() string {
	if k >= 0 && k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// levelFlags returns the topology flags a level's sd_flags function
// contributes: cpu_smt_flags, cpu_core_flags, none for PKG.
func (k Kind) levelFlags() Flags {
	switch k {
	case SMT:
		return SDShareCPUCapacity | SDShareLLC
	case MC:
		return SDShareLLC
	}
	return 0
}

// A Domain is one CPU's sched_domain at one level. Every CPU owns its own
// Domain objects, as in the kernel, so that per-CPU balancing state
// (last_balance, balance_interval, nr_balance_failed, the newidle costs)
// can hang off them: index it by ID. What a domain shares with the other
// CPUs of its span — the span mask, the groups and their capacity, the
// LLC's Shared object — is shared by pointer.
//
// A Domain holds the static values the kernel's sd_init and the
// degeneration pass leave in it; nothing changes after Build. Invariants:
// the span holds the domain's CPU and its child's span; the groups
// partition the span in ascending order of their first CPU; the local
// group holds the CPU and, when there is a child, equals the child's span.
type Domain struct {
	cpu, index, id int
	kind           Kind
	level          int
	span           *Mask
	weight         int
	flags          Flags

	minInterval, maxInterval uint64
	busyFactor, imbalancePct uint64
	cacheNiceTries           uint64
	imbNumaNr                uint64

	parent, child *Domain
	groups        []*Group // ascending first CPU; shared by the span's CPUs
	local         int      // index of the local group in groups
	shared        *Shared
}

// CPU returns the CPU that owns the domain.
func (d *Domain) CPU() int { return d.cpu }

// Index returns the domain's position in its CPU's hierarchy, 0 at the
// bottom: the M of /sys/kernel/debug/sched/domains/cpuN/domainM.
func (d *Domain) Index() int { return d.index }

// ID returns a dense index over all domains of the topology, 0 ≤ ID <
// NumDomainIDs(): CPU-major, bottom-up (Domains(cpu)[i].ID() =
// cpu·Depth() + i). Per-CPU balancing state can live in a slice indexed by
// it.
func (d *Domain) ID() int { return d.id }

// Kind returns the topology level the domain was built for.
func (d *Domain) Kind() Kind { return d.kind }

// Name returns the level's name, "SMT", "MC" or "PKG" (sd->name).
func (d *Domain) Name() string { return d.kind.String() }

// Level returns sd->level: the level's position in the table of levels
// built for the CPU, counted before degeneration (SMT 0, MC 1, PKG 2) and
// not renumbered when a level is removed, so a machine without SMT has MC
// at level 1 as its lowest domain. A kernel built with
// CONFIG_SCHED_CLUSTER numbers MC and PKG one higher.
func (d *Domain) Level() int { return d.level }

// Span returns the CPUs of the domain (sched_domain_span). Shared: do not
// modify.
func (d *Domain) Span() *Mask { return d.span }

// Weight returns the number of CPUs of the span (span_weight).
func (d *Domain) Weight() int { return d.weight }

// Flags returns the domain's SD_* flags after degeneration.
func (d *Domain) Flags() Flags { return d.flags }

// Has reports whether the domain has every flag of f.
func (d *Domain) Has(f Flags) bool { return d.flags&f == f }

// MinInterval returns min_interval in ms (the span weight).
func (d *Domain) MinInterval() uint64 { return d.minInterval }

// MaxInterval returns max_interval in ms (twice the span weight).
func (d *Domain) MaxInterval() uint64 { return d.maxInterval }

// BusyFactor returns busy_factor (16): a busy CPU balances the domain
// busy_factor times less often.
func (d *Domain) BusyFactor() uint64 { return d.busyFactor }

// ImbalancePct returns imbalance_pct: 110 at SMT, 117 elsewhere.
func (d *Domain) ImbalancePct() uint64 { return d.imbalancePct }

// CacheNiceTries returns cache_nice_tries: 0 at SMT, 1 at MC and PKG.
func (d *Domain) CacheNiceTries() uint64 { return d.cacheNiceTries }

// ImbNumaNr returns imb_numa_nr, which build_sched_domains sets on the
// parents of the LLC domain (adjust_numa_imbalance) and which the balancer
// reads only on SD_NUMA domains, so never in this model; 0 elsewhere.
func (d *Domain) ImbNumaNr() uint64 { return d.imbNumaNr }

// Parent returns the next domain up, or nil at the top.
func (d *Domain) Parent() *Domain { return d.parent }

// Child returns the next domain down, or nil at the bottom.
func (d *Domain) Child() *Domain { return d.child }

// Shared returns the LLC's sched_domain_shared if d is its CPU's sd_llc,
// else nil. One object per LLC, shared by the sd_llc domains of its CPUs.
func (d *Domain) Shared() *Shared { return d.shared }

// NumGroups returns the number of groups of the domain.
func (d *Domain) NumGroups() int { return len(d.groups) }

// Group returns the domain's i-th group in the kernel's order: the local
// group first (i = 0), then the others in ascending order of their first
// CPU, wrapping around — the circular list sd->groups walks. i is taken
// modulo NumGroups, so Group(NumGroups()) is the local group again.
func (d *Domain) Group(i int) *Group {
	n := len(d.groups)
	i %= n
	if i < 0 {
		i += n
	}
	i += d.local
	if i >= n {
		i -= n
	}
	return d.groups[i]
}

// LocalGroup returns sd->groups, the group that holds the domain's CPU.
func (d *Domain) LocalGroup() *Group { return d.groups[d.local] }

// LocalGroupIndex returns the local group's position in Groups().
func (d *Domain) LocalGroupIndex() int { return d.local }

// Groups returns the domain's groups in ascending order of their first CPU
// (the kernel's order rotated back to start at the lowest group; walk
// Group(0..NumGroups()-1) for the kernel's order). Shared by all CPUs of
// the span: do not modify.
func (d *Domain) Groups() []*Group { return d.groups }

// A Group is a sched_group with its sched_group_capacity: in a domain
// without overlapping groups (every domain of this model) the two are one
// to one, and both are shared by every CPU whose domain of that level
// contains the group. Its ID is dense over the topology's groups, for
// per-group state (sgc->imbalance, sgc->next_update).
type Group struct {
	id     int
	kind   Kind // the level of the domains the group belongs to
	span   *Mask
	weight int
	cores  int
	flags  Flags

	capacity, minCap, maxCap uint64 // sched_group_capacity
}

// ID returns a dense index over the topology's groups, 0 ≤ ID <
// NumGroupIDs().
func (g *Group) ID() int { return g.id }

// Kind returns the level of the domains whose group this is.
func (g *Group) Kind() Kind { return g.kind }

// Span returns the group's CPUs (sched_group_span). Shared: do not modify.
func (g *Group) Span() *Mask { return g.span }

// Weight returns the number of CPUs of the group (group_weight).
func (g *Group) Weight() int { return g.weight }

// Cores returns the number of distinct SMT cores in the group (sg->cores).
func (g *Group) Cores() int { return g.cores }

// Flags returns sg->flags: the flags of the surviving child domain that
// spans the group, or 0 when the domain has no child (KERNEL-SPEC-SMP §1.4
// rule 4). The balancer reads SD_SHARE_CPUCAPACITY and SD_PREFER_SIBLING
// here.
func (g *Group) Flags() Flags { return g.flags }

// BalanceMask returns the group's balance mask, which is its span in a
// domain without overlapping groups. Shared: do not modify.
func (g *Group) BalanceMask() *Mask { return g.span }

// BalanceCPU returns group_balance_cpu: the first CPU of the balance mask,
// the only CPU that balances the parent level on the group's behalf.
func (g *Group) BalanceCPU() int { return g.span.First() }

// FirstCPU returns the group's first CPU, which is also the id the kernel
// gives its capacity object (sgc->id, the number before ":{" in the boot
// log).
func (g *Group) FirstCPU() int { return g.span.First() }

// Capacity returns sgc->capacity, the sum of its CPUs' capacities:
// 1024·weight on a symmetric machine (KERNEL-SPEC-ASYM §1.3).
func (g *Group) Capacity() uint64 { return g.capacity }

// MinCapacity returns sgc->min_capacity, the smallest CPU capacity in the
// group: CapacityScale on a symmetric machine.
func (g *Group) MinCapacity() uint64 { return g.minCap }

// MaxCapacity returns sgc->max_capacity, the largest CPU capacity in the
// group: CapacityScale on a symmetric machine.
func (g *Group) MaxCapacity() uint64 { return g.maxCap }

// Shared is an LLC's sched_domain_shared: one object per LLC, owned by the
// LLC's sd_llc domains (per_cpu sd_llc_shared, and sd_balance_shared on a
// symmetric machine). The runtime fields (nr_busy_cpus, has_idle_cores,
// nr_idle_scan) belong to the caller: index them by ID, which is the LLC's
// index (Topology.LLC). A machine whose cores have one thread and whose LLCs
// one core has no LLC domain and no Shared object.
type Shared struct {
	id     int
	span   *Mask
	weight int
}

// ID returns the LLC index of the Shared object, 0 ≤ ID < NumLLCs().
func (s *Shared) ID() int { return s.id }

// Span returns the CPUs of the LLC. Shared: do not modify.
func (s *Shared) Span() *Mask { return s.span }

// Weight returns the number of CPUs of the LLC, the boot value of
// nr_busy_cpus.
func (s *Shared) Weight() int { return s.weight }
