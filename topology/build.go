package topology

// Build builds the scheduling domains the kernel builds for m at boot
// (build_sched_domains in kernel/sched/topology.c, KERNEL-SPEC-SMP §1), by
// the kernel's own steps, so that the result is what a machine of that
// shape shows in /sys/kernel/debug/sched/domains:
//
//  1. For every CPU, one domain per level of the table SMT, MC, PKG,
//     bottom-up, stopping after the first level whose span is the whole
//     machine (build_sched_domain, sd_init).
//  2. For every domain, its groups: the spans of its child level inside
//     its span, or single CPUs at the bottom (build_sched_groups,
//     get_group); a group starts with its child's flags.
//  3. For every CPU, the sched_domain_shared of its topmost SD_SHARE_LLC
//     domain, and imb_numa_nr above it.
//  4. For every CPU in ascending order, the degeneration pass
//     (cpu_attach_domain): parents that add nothing are spliced out,
//     handing their shared object down, passing SD_PREFER_SIBLING down and
//     rewriting the grandparent's first group's flags; a degenerate base
//     domain is dropped and its parent's first group's flags cleared.
//  5. For every CPU, sd_llc and its size and ids (update_top_cache_domain).
//
// Build returns an error wrapping ErrBadMachine, ErrBadNumbering or
// ErrTooLarge if m is not a valid machine (Machine.Validate). Its cost is
// O(N·(N/64 + levels)) time and O(N²/64) words of memory for the one-CPU
// group spans of SMT machines.
func Build(m Machine) (*Topology, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b := newBuilder(m)
	b.buildDomains()
	b.buildGroups()
	b.claimShared()
	for cpu := 0; cpu < b.n; cpu++ {
		b.attach(cpu)
	}
	b.finish()
	return b.t, nil
}

// builder holds what Build needs between its steps.
type builder struct {
	t    *Topology
	m    Machine
	n    int
	nlev int       // levels built for every CPU (symmetric machine: the same for all)
	base []*Domain // per CPU: the bottom domain, nil once dropped
	// lists[k][u]: the groups of the level-k domains whose span is unit u
	// of level k, ascending; pos[k][v]: the index of the group of child
	// unit v in its list.
	lists [numKinds][][]*Group
	pos   [numKinds][]int
}

func newBuilder(m Machine) *builder {
	n := m.NumCPUs()
	t := &Topology{m: m, n: n}
	b := &builder{t: t, m: m, n: n}

	t.coords = make([]Coords, n)
	for cpu := range t.coords {
		t.coords[cpu] = m.coords(cpu)
	}
	nllc := m.Packages * m.LLCsPerPackage
	ncore := nllc * m.CoresPerLLC

	// All masks come from one arena: the machine, one per core, one per
	// LLC, and one per CPU for the one-CPU groups of an SMT level (a
	// one-thread core's mask serves as its CPU's mask).
	nmasks := 1 + ncore + nllc
	if m.ThreadsPerCore > 1 {
		nmasks += n
	}
	words := (n + 63) / 64
	arena := make([]uint64, nmasks*words)
	masks := make([]Mask, nmasks)
	next := 0
	newMask := func() *Mask {
		mk := &masks[next]
		*mk = Mask{words: arena[next*words : (next+1)*words : (next+1)*words], n: n}
		next++
		return mk
	}
	t.all = newMask()
	t.all.Fill()
	t.smt = make([]*Mask, ncore)
	for i := range t.smt {
		t.smt[i] = newMask()
	}
	t.llc = make([]*Mask, nllc)
	for i := range t.llc {
		t.llc[i] = newMask()
	}
	for cpu, c := range t.coords {
		t.smt[c.Core].Set(cpu)
		t.llc[c.LLC].Set(cpu)
	}
	t.single = make([]*Mask, n)
	for cpu := range t.single {
		if m.ThreadsPerCore > 1 {
			t.single[cpu] = newMask()
			t.single[cpu].Set(cpu)
		} else {
			t.single[cpu] = t.smt[t.coords[cpu].Core]
		}
	}

	// Levels: SMT always; MC unless SMT spans the machine; PKG unless MC
	// does (build_sched_domains stops once a span is the whole CPU map).
	b.nlev = 1
	if ncore > 1 {
		b.nlev = 2
		if nllc > 1 {
			b.nlev = 3
		}
	}
	return b
}

// unit returns the unit of level k that holds cpu: its core, its LLC, or
// the machine.
func (b *builder) unit(k Kind, cpu int) int {
	switch k {
	case SMT:
		return b.t.coords[cpu].Core
	case MC:
		return b.t.coords[cpu].LLC
	}
	return 0
}

// unitSpan returns the span of unit u of level k.
func (b *builder) unitSpan(k Kind, u int) *Mask {
	switch k {
	case SMT:
		return b.t.smt[u]
	case MC:
		return b.t.llc[u]
	}
	return b.t.all
}

// unitWeight returns the number of CPUs of a unit of level k.
func (b *builder) unitWeight(k Kind) int {
	switch k {
	case SMT:
		return b.m.ThreadsPerCore
	case MC:
		return b.m.ThreadsPerCore * b.m.CoresPerLLC
	}
	return b.n
}

func (b *builder) numUnits(k Kind) int {
	switch k {
	case SMT:
		return len(b.t.smt)
	case MC:
		return len(b.t.llc)
	}
	return 1
}

// childUnit returns the unit one level below k that holds cpu, the CPU
// itself below SMT: the groups of level k are the child units.
func (b *builder) childUnit(k Kind, cpu int) int {
	if k == SMT {
		return cpu
	}
	return b.unit(k-1, cpu)
}

func (b *builder) childSpan(k Kind, v int) *Mask {
	if k == SMT {
		return b.t.single[v]
	}
	return b.unitSpan(k-1, v)
}

// sdInit sets a freshly built domain of level k and span weight w as
// sd_init does.
func sdInit(d *Domain, k Kind, span *Mask, w int) {
	d.kind, d.level, d.span, d.weight = k, int(k), span, w
	d.minInterval, d.maxInterval = uint64(w), 2*uint64(w)
	d.busyFactor, d.imbalancePct, d.cacheNiceTries = DefaultBusyFactor, 117, 0
	d.flags = SDBalanceNewidle | SDBalanceExec | SDBalanceFork | SDWakeAffine | SDPreferSibling | k.levelFlags()
	switch {
	case d.flags&SDShareCPUCapacity != 0:
		d.imbalancePct = 110
	case d.flags&SDShareLLC != 0:
		d.imbalancePct = 117
		d.cacheNiceTries = 1
	default:
		d.cacheNiceTries = 1
	}
}

// buildDomains is step 1: every CPU's chain of nlev domains.
func (b *builder) buildDomains() {
	all := make([]Domain, b.n*b.nlev)
	b.base = make([]*Domain, b.n)
	for cpu := 0; cpu < b.n; cpu++ {
		chain := all[cpu*b.nlev : (cpu+1)*b.nlev]
		var child *Domain
		for k := range chain {
			d := &chain[k]
			d.cpu = cpu
			sdInit(d, Kind(k), b.unitSpan(Kind(k), b.unit(Kind(k), cpu)), b.unitWeight(Kind(k)))
			d.flags |= b.asymClassify(d.span)
			if child != nil {
				child.parent, d.child = d, child
			}
			child = d
		}
		b.base[cpu] = &chain[0]
	}
}

// buildGroups is step 2: the groups of every level, shared by the domains
// of a span, and each domain's local group.
func (b *builder) buildGroups() {
	t := b.t
	coreSeen, stamp := make([]int, len(t.smt)), 0
	for k := Kind(0); int(k) < b.nlev; k++ {
		// One group object per child unit (get_group hands out the object
		// of the child span's first CPU), carrying the child's flags.
		var flags Flags
		if k > SMT {
			var child Domain
			sdInit(&child, k-1, b.childSpan(k, 0), b.unitWeight(k-1))
			flags = child.flags
		}
		nchild := b.n
		if k > SMT {
			nchild = b.numUnits(k - 1)
		}
		objs := make([]Group, nchild)
		b.pos[k] = make([]int, nchild)
		for v := range objs {
			span := b.childSpan(k, v)
			stamp++
			cores := 0
			for c := span.First(); c >= 0; c = span.Next(c) {
				if core := t.coords[c].Core; coreSeen[core] != stamp {
					coreSeen[core] = stamp
					cores++
				}
			}
			objs[v] = Group{id: -1, kind: k, span: span, weight: span.Weight(), cores: cores, flags: flags}
			if k > SMT {
				objs[v].flags |= b.asymClassify(span)
			}
			objs[v].setCapacity(nil)
		}
		// Each span's groups in ascending order of their first CPU: an
		// ascending walk of the span meets every group first at its first
		// CPU.
		b.lists[k] = make([][]*Group, b.numUnits(k))
		seen := make([]int, nchild)
		for u := range b.lists[k] {
			span := b.unitSpan(k, u)
			var list []*Group
			for c := span.First(); c >= 0; c = span.Next(c) {
				v := b.childUnit(k, c)
				if seen[v] != u+1 {
					seen[v] = u + 1
					b.pos[k][v] = len(list)
					list = append(list, &objs[v])
				}
			}
			b.lists[k][u] = list
		}
	}
	// The kernel links a CPU's groups starting from the group that holds
	// the CPU and continuing with the group of the next uncovered CPU in
	// "wrap from cpu" order; under both numberings that is the ascending
	// list rotated to start at the local group (TestGroupOrderIsWrapOrder).
	for cpu, d := range b.base {
		for ; d != nil; d = d.parent {
			d.groups = b.lists[d.kind][b.unit(d.kind, cpu)]
			d.local = b.pos[d.kind][b.childUnit(d.kind, cpu)]
		}
	}
}

// claimShared is step 3: the topmost SD_SHARE_LLC domain of every CPU
// claims the LLC's sched_domain_shared (init_sched_domain_shared), and the
// domains above it get imb_numa_nr (adjust_numa_imbalance).
func (b *builder) claimShared() {
	t := b.t
	shared := make([]*Shared, len(t.llc))
	for cpu, sd := range b.base {
		for sd.parent != nil && sd.parent.flags&SDShareLLC != 0 {
			sd = sd.parent
		}
		if sd.flags&SDShareLLC == 0 {
			continue
		}
		llc := t.coords[cpu].LLC
		if shared[llc] == nil {
			shared[llc] = &Shared{id: llc, span: sd.span, weight: sd.weight}
		}
		sd.shared = shared[llc]
		if sd.parent != nil {
			adjustNumaImbalance(sd)
		}
	}
}

// adjustNumaImbalance sets imb_numa_nr on the parents of the LLC domain
// sd: the number of LLCs in the parent (an eighth of the parent if it has
// one LLC), at least 1, scaled up the hierarchy by how many first-NUMA-level
// spans each parent covers (one here: there is no NUMA level).
func adjustNumaImbalance(sd *Domain) {
	p := sd.parent
	nrLLCs := p.weight / sd.weight
	imb := nrLLCs
	if nrLLCs == 1 {
		imb = p.weight >> 3
	}
	imb = max(1, imb)
	p.imbNumaNr = uint64(imb)
	numa := p.parent
	for numa != nil && numa.flags&SDNUMA == 0 {
		numa = numa.parent
	}
	imbSpan := p.weight
	if numa != nil {
		imbSpan = numa.weight
	}
	for ; p != nil; p = p.parent {
		p.imbNumaNr = uint64(imb * max(1, p.weight/imbSpan))
	}
}

// sdDegenerate is sd_degenerate: a domain of one CPU, or one whose flags
// need groups it does not have and that is not SD_WAKE_AFFINE, does
// nothing.
func sdDegenerate(d *Domain) bool {
	if d.weight == 1 {
		return true
	}
	if d.flags&NeedsGroups != 0 && len(d.groups) > 1 {
		return false
	}
	return d.flags&SDWakeAffine == 0
}

// sdParentDegenerate is sd_parent_degenerate: the parent adds nothing to d
// if it is degenerate itself, or spans the same CPUs with no flag d lacks
// (flags that need groups not counting when the parent has one group).
func sdParentDegenerate(d, parent *Domain) bool {
	if sdDegenerate(parent) {
		return true
	}
	if !d.span.Equal(parent.span) {
		return false
	}
	pflags := parent.flags
	if len(parent.groups) == 1 {
		pflags &^= NeedsGroups
	}
	return pflags&^d.flags == 0
}

// attach is step 4 for one CPU, cpu_attach_domain's removal of the domains
// that do not contribute. Groups are shared, so the flags it writes into a
// first group are seen by every CPU whose domain has that group.
func (b *builder) attach(cpu int) {
	base := b.base[cpu]
	for tmp := base; tmp != nil; {
		parent := tmp.parent
		if parent == nil {
			break
		}
		if !sdParentDegenerate(tmp, parent) {
			tmp = parent
			continue
		}
		tmp.parent = parent.parent
		if parent.shared != nil {
			tmp.shared, parent.shared = parent.shared, nil
		}
		if gp := parent.parent; gp != nil {
			gp.child = tmp
			gp.LocalGroup().flags = tmp.flags
		}
		// The spans match, so the parent's preference for siblings holds
		// for tmp too.
		if parent.flags&SDPreferSibling != 0 {
			tmp.flags |= SDPreferSibling
		}
		parent.parent, parent.child = nil, nil
	}
	if base != nil && sdDegenerate(base) {
		b.base[cpu] = base.parent
		if p := base.parent; p != nil {
			// The group flags were the dropped child's: clear them. The
			// kernel clears only the first group here; every group is some
			// CPU's first group, so all end up cleared.
			p.LocalGroup().flags = 0
			p.child = nil
		}
		base.parent, base.shared = nil, nil
	}
}

// finish is step 5: each CPU's surviving chain, dense ids, sd_llc and the
// LLC ids (update_top_cache_domain).
func (b *builder) finish() {
	t := b.t
	t.domains = make([][]*Domain, b.n)
	t.sdLLC = make([]*Domain, b.n)
	t.shareID = make([]int, b.n)
	t.shared = make([]*Shared, len(t.llc))
	depth := 0
	for d := b.base[0]; d != nil; d = d.parent {
		depth++
	}
	t.depth = depth
	ptrs := make([]*Domain, b.n*depth)
	for cpu := range t.domains {
		chain := ptrs[cpu*depth : cpu*depth : (cpu+1)*depth]
		for d := b.base[cpu]; d != nil; d = d.parent {
			d.index, d.id = len(chain), cpu*depth+len(chain)
			chain = append(chain, d)
		}
		t.domains[cpu] = chain

		// highest_flag_domain(cpu, SD_SHARE_LLC): SD_SHARE_LLC is a
		// shared-child flag, so the search stops at the first domain
		// without it.
		var llc *Domain
		for _, d := range chain {
			if d.flags&SDShareLLC == 0 {
				break
			}
			llc = d
		}
		t.sdLLC[cpu] = llc
		t.shareID[cpu] = cpu
		if llc != nil {
			t.shareID[cpu] = llc.span.First()
			if llc.shared != nil {
				t.shared[llc.shared.id] = llc.shared
			}
		}
	}
	// Group ids: level by level, span by span, each span's groups in
	// ascending order; only the groups of surviving domains.
	var used [numKinds][]bool
	for k := 0; k < b.nlev; k++ {
		used[k] = make([]bool, len(b.lists[k]))
	}
	for cpu, chain := range t.domains {
		for _, d := range chain {
			used[d.kind][b.unit(d.kind, cpu)] = true
		}
	}
	for k := 0; k < b.nlev; k++ {
		for u, list := range b.lists[k] {
			if !used[k][u] {
				continue
			}
			for _, g := range list {
				if g.id < 0 {
					g.id = len(t.groups)
					t.groups = append(t.groups, g)
				}
			}
		}
	}
}
