package topology

// A Topology is a machine and the scheduling domains the kernel builds for
// it. It is immutable after Build and safe for concurrent reads; every
// query below is O(1) and allocates nothing. A CPU id outside
// 0..NumCPUs()-1 is answered with a zero value (nil, -1 or false), never a
// panic.
type Topology struct {
	m      Machine
	n      int
	depth  int
	coords []Coords
	all    *Mask
	smt    []*Mask // per core: cpu_smt_mask
	llc    []*Mask // per LLC: cpu_coregroup_mask
	single []*Mask // per CPU: the CPU alone

	domains [][]*Domain // per CPU: rq->sd and its parents, bottom-up
	sdLLC   []*Domain   // per CPU: sd_llc, or nil
	shareID []int       // per CPU: sd_share_id
	shared  []*Shared   // per LLC: sd_llc_shared, or nil
	groups  []*Group    // by ID

	// Asymmetric capacities (KERNEL-SPEC-ASYM); all nil when symmetric.
	caps          []uint64        // per CPU: arch_scale_cpu_capacity
	capList       []CapacityEntry // asym_cap_list, descending capacity
	asymActive    bool            // sched_asym_cpucap_active()
	sdAsym        []*Domain       // per CPU: sd_asym_cpucapacity, or nil
	balanceShared []*Shared       // per CPU: sd_balance_shared
	asymShared    *Shared         // the asym domain's own object above the LLCs, or nil
}

// Machine returns the machine the topology was built for.
func (t *Topology) Machine() Machine { return t.m }

// NumCPUs returns the number of CPUs.
func (t *Topology) NumCPUs() int { return t.n }

// All returns the mask of every CPU (cpu_active_mask, the root domain's
// span). Shared: do not modify.
func (t *Topology) All() *Mask { return t.all }

// NewMask returns an empty mask sized for this machine's CPUs, for the
// caller's own sets (idle CPUs, a task's allowed CPUs, scan scratch).
func (t *Topology) NewMask() *Mask { return NewMask(t.n) }

func (t *Topology) valid(cpu int) bool { return uint(cpu) < uint(t.n) }

// Coords returns cpu's place in the machine; ok is false for an id that is
// not a CPU.
func (t *Topology) Coords(cpu int) (c Coords, ok bool) {
	if !t.valid(cpu) {
		return Coords{}, false
	}
	return t.coords[cpu], true
}

// CPU returns the id of thread thread of global core core (Coords.Core), or
// -1 if there is no such thread.
func (t *Topology) CPU(core, thread int) int {
	if uint(core) >= uint(len(t.smt)) || uint(thread) >= uint(t.m.ThreadsPerCore) {
		return -1
	}
	return t.m.cpuOf(core, thread)
}

// Domains returns cpu's domains, lowest first (rq->sd, then its parents):
// the directories domain0, domain1, … of
// /sys/kernel/debug/sched/domains/cpuN. It is empty for a one-CPU machine,
// which has no domain. The slice is shared: do not modify.
func (t *Topology) Domains(cpu int) []*Domain {
	if !t.valid(cpu) {
		return nil
	}
	return t.domains[cpu]
}

// Base returns cpu's lowest domain (rq->sd), or nil if it has none.
func (t *Topology) Base(cpu int) *Domain {
	if !t.valid(cpu) || len(t.domains[cpu]) == 0 {
		return nil
	}
	return t.domains[cpu][0]
}

// Depth returns the number of domains each CPU has (every CPU has the same
// number on a symmetric machine).
func (t *Topology) Depth() int { return t.depth }

// NumDomainIDs returns the number of domains, NumCPUs()·Depth(): the bound
// of Domain.ID.
func (t *Topology) NumDomainIDs() int { return t.n * t.depth }

// NumGroupIDs returns the number of groups of surviving domains: the bound
// of Group.ID.
func (t *Topology) NumGroupIDs() int { return len(t.groups) }

// GroupByID returns the group with the given ID, or nil.
func (t *Topology) GroupByID(id int) *Group {
	if uint(id) >= uint(len(t.groups)) {
		return nil
	}
	return t.groups[id]
}

// LowestFlagDomain returns cpu's lowest domain with every flag of f, or nil
// (lowest_flag_domain).
func (t *Topology) LowestFlagDomain(cpu int, f Flags) *Domain {
	for _, d := range t.Domains(cpu) {
		if d.flags&f == f {
			return d
		}
	}
	return nil
}

// HighestFlagDomain returns cpu's highest domain with every flag of f, or
// nil (highest_flag_domain). For a flag that children share
// (SharedChild), the search stops at the first domain without it.
func (t *Topology) HighestFlagDomain(cpu int, f Flags) *Domain {
	var hd *Domain
	for _, d := range t.Domains(cpu) {
		if d.flags&f == f {
			hd = d
			continue
		}
		if f&SharedChild != 0 {
			break
		}
	}
	return hd
}

// NumCores returns the number of SMT cores.
func (t *Topology) NumCores() int { return len(t.smt) }

// Core returns the global index of cpu's core (Coords.Core), or -1.
func (t *Topology) Core(cpu int) int {
	if !t.valid(cpu) {
		return -1
	}
	return t.coords[cpu].Core
}

// SMTMask returns cpu's SMT siblings, itself included (cpu_smt_mask): the
// mask select_idle_core and is_core_idle walk. It is the CPU alone when
// cores have one thread. Shared: do not modify; nil for a bad id.
func (t *Topology) SMTMask(cpu int) *Mask {
	if !t.valid(cpu) {
		return nil
	}
	return t.smt[t.coords[cpu].Core]
}

// SMTActive reports sched_smt_active(): some core has two or more threads.
func (t *Topology) SMTActive() bool { return t.m.ThreadsPerCore >= 2 }

// NumLLCs returns the number of last-level caches, Packages·LLCsPerPackage.
// With one single-thread core per LLC every CPU is its own LLC.
func (t *Topology) NumLLCs() int { return len(t.llc) }

// LLC returns the index of cpu's LLC, 0 ≤ LLC < NumLLCs(), or -1. LLCs are
// numbered in ascending order of their first CPU; this is also the
// kernel's sd_llc_id (SDLLCID).
func (t *Topology) LLC(cpu int) int {
	if !t.valid(cpu) {
		return -1
	}
	return t.coords[cpu].LLC
}

// LLCSpan returns the CPUs of LLC llc (cpu_coregroup_mask of its CPUs), or
// nil. Shared: do not modify.
func (t *Topology) LLCSpan(llc int) *Mask {
	if uint(llc) >= uint(len(t.llc)) {
		return nil
	}
	return t.llc[llc]
}

// SDLLC returns sd_llc(cpu): cpu's highest domain with SD_SHARE_LLC, or
// nil when there is none (one single-thread core per LLC, or one CPU).
func (t *Topology) SDLLC(cpu int) *Domain {
	if !t.valid(cpu) {
		return nil
	}
	return t.sdLLC[cpu]
}

// SDLLCSize returns sd_llc_size(cpu): the weight of sd_llc, 1 when there
// is none (0 for a bad id).
func (t *Topology) SDLLCSize(cpu int) int {
	if !t.valid(cpu) {
		return 0
	}
	if d := t.sdLLC[cpu]; d != nil {
		return d.weight
	}
	return 1
}

// SDLLCID returns sd_llc_id(cpu), or -1. The kernel hands out these ids
// densely, one per LLC (the CPU's cpu_coregroup_mask), in the order
// build_sched_domains first meets each LLC while walking the CPUs upwards;
// at boot that is the LLC index (LLC). Kernels before the cache-aware
// scheduling work used the first CPU of sd_llc's span instead, which is
// what SDShareID returns; both partition the CPUs the same way.
func (t *Topology) SDLLCID(cpu int) int { return t.LLC(cpu) }

// SDShareID returns sd_share_id(cpu): the first CPU of sd_llc's span, or
// cpu itself when there is no sd_llc (there are no clusters, which would
// otherwise give the cluster's first CPU); -1 for a bad id.
func (t *Topology) SDShareID(cpu int) int {
	if !t.valid(cpu) {
		return -1
	}
	return t.shareID[cpu]
}

// LLCShared returns sd_llc_shared(cpu), the Shared object of cpu's sd_llc,
// or nil when there is no sd_llc. On a symmetric machine
// sd_balance_shared(cpu) is the same object.
func (t *Topology) LLCShared(cpu int) *Shared {
	if !t.valid(cpu) || t.sdLLC[cpu] == nil {
		return nil
	}
	return t.sdLLC[cpu].shared
}

// SharedByID returns the Shared object of LLC llc, or nil when it has none.
func (t *Topology) SharedByID(llc int) *Shared {
	if uint(llc) >= uint(len(t.shared)) {
		return nil
	}
	return t.shared[llc]
}

// CPUsShareCache reports cpus_share_cache(a, b): a = b, or both have the
// same sd_llc_id.
func (t *Topology) CPUsShareCache(a, b int) bool {
	if !t.valid(a) || !t.valid(b) {
		return false
	}
	return a == b || t.coords[a].LLC == t.coords[b].LLC
}

// CPUsShareResources reports cpus_share_resources(a, b): a = b, or both
// have the same sd_share_id. Without clusters it answers as
// CPUsShareCache.
func (t *Topology) CPUsShareResources(a, b int) bool {
	if !t.valid(a) || !t.valid(b) {
		return false
	}
	return a == b || t.shareID[a] == t.shareID[b]
}

// CPUCapacity returns arch_scale_cpu_capacity(cpu) and, with no RT, IRQ or
// pressure to subtract, capacity_of(cpu): CapacityScale for every CPU of a
// symmetric machine, the CPU's own capacity on one built by
// BuildCapacities (0 for a bad id).
func (t *Topology) CPUCapacity(cpu int) uint64 {
	if !t.valid(cpu) {
		return 0
	}
	if t.caps != nil {
		return t.caps[cpu]
	}
	return CapacityScale
}
