package topology

import "fmt"

// Check verifies the invariants of a built topology and returns the first
// violation, or nil. Tests call it on every machine they build; it costs
// O(N·depth + N²/64).
//
//   - Every CPU's chain is linked both ways, bottom-up in level order, its
//     indices and IDs dense; every span holds the CPU and its child's span.
//   - A domain's groups partition its span in ascending order of their
//     first CPU; the local group holds the CPU and equals the child's span
//     (a single CPU at the bottom); a group's flags are the child's flags,
//     or 0 without a child; group weight, cores and IDs are consistent.
//   - CPUs whose domains at a level have the same span share the span's
//     group objects, in the same order.
//   - sd_llc is the highest SD_SHARE_LLC domain, the only one holding the
//     LLC's Shared object, shared by the LLC's CPUs; its span is the LLC.
//   - Group capacities are the sums, minima and maxima of their CPUs'; the
//     asym flags are those of each span; sd_asym_cpucapacity is the lowest
//     domain with SD_ASYM_CPUCAPACITY_FULL.
func (t *Topology) Check() error {
	checked := make(map[*Group]bool) // group lists already checked, by first group
	for cpu := 0; cpu < t.n; cpu++ {
		if err := t.checkCPU(cpu, checked); err != nil {
			return fmt.Errorf("cpu%d: %w", cpu, err)
		}
	}
	for id, g := range t.groups {
		if g.id != id {
			return fmt.Errorf("group %d has id %d", id, g.id)
		}
	}
	return t.checkAsym()
}

func (t *Topology) checkCPU(cpu int, checked map[*Group]bool) error {
	chain := t.domains[cpu]
	if len(chain) != t.depth {
		return fmt.Errorf("%d domains, want %d", len(chain), t.depth)
	}
	var llc *Domain
	for i, d := range chain {
		switch {
		case d.cpu != cpu || d.index != i || d.id != cpu*t.depth+i:
			return fmt.Errorf("domain%d: cpu %d, index %d, id %d", i, d.cpu, d.index, d.id)
		case i > 0 && (d.child != chain[i-1] || chain[i-1].parent != d || d.level <= d.child.level):
			return fmt.Errorf("domain%d: not linked to its child", i)
		case i == 0 && d.child != nil, i == len(chain)-1 && d.parent != nil:
			return fmt.Errorf("domain%d: dangling link", i)
		case !d.span.Test(cpu):
			return fmt.Errorf("domain%d: span %v lacks the CPU", i, d.span)
		case d.weight != d.span.Weight():
			return fmt.Errorf("domain%d: weight %d, span %v", i, d.weight, d.span)
		case d.child != nil && !d.child.span.SubsetOf(d.span):
			return fmt.Errorf("domain%d: span %v does not hold its child's %v", i, d.span, d.child.span)
		case d.minInterval != uint64(d.weight) || d.maxInterval != 2*uint64(d.weight):
			return fmt.Errorf("domain%d: intervals %d/%d for weight %d", i, d.minInterval, d.maxInterval, d.weight)
		}
		if err := t.checkGroups(cpu, d, checked); err != nil {
			return fmt.Errorf("domain%d (%s): %w", i, d.Name(), err)
		}
		if d.shared != nil && d != t.sdLLC[cpu] {
			return fmt.Errorf("domain%d holds a Shared object but is not sd_llc", i)
		}
	}
	for _, d := range chain {
		if d.flags&SDShareLLC == 0 {
			break
		}
		llc = d
	}
	if llc != t.sdLLC[cpu] {
		return fmt.Errorf("sd_llc is %v, want %v", t.sdLLC[cpu], llc)
	}
	if llc != nil {
		s := llc.shared
		switch {
		case s == nil:
			return fmt.Errorf("sd_llc without a Shared object")
		case s != t.shared[t.coords[cpu].LLC] || s.id != t.coords[cpu].LLC:
			return fmt.Errorf("sd_llc's Shared object is not the LLC's")
		case !llc.span.Equal(t.llc[s.id]) || s.weight != llc.weight:
			return fmt.Errorf("sd_llc spans %v, the LLC %v", llc.span, t.llc[s.id])
		case t.shareID[cpu] != llc.span.First():
			return fmt.Errorf("sd_share_id %d", t.shareID[cpu])
		}
	} else if t.shareID[cpu] != cpu {
		return fmt.Errorf("sd_share_id %d without sd_llc", t.shareID[cpu])
	}
	return nil
}

func (t *Topology) checkGroups(cpu int, d *Domain, checked map[*Group]bool) error {
	if len(d.groups) == 0 || d.local < 0 || d.local >= len(d.groups) {
		return fmt.Errorf("no local group")
	}
	local := d.LocalGroup()
	if !local.span.Test(cpu) {
		return fmt.Errorf("local group %v lacks the CPU", local.span)
	}
	if d.child != nil && !local.span.Equal(d.child.span) || d.child == nil && local.weight != 1 {
		return fmt.Errorf("local group %v is not the child's span", local.span)
	}
	// The span's first CPU has the same group objects.
	if o := t.domains[d.span.First()][d.index]; o.span != d.span || &o.groups[0] != &d.groups[0] || len(o.groups) != len(d.groups) {
		return fmt.Errorf("groups not shared with cpu%d", d.span.First())
	}
	// The list itself, once per span.
	if checked[d.groups[0]] {
		return nil
	}
	checked[d.groups[0]] = true
	covered := NewMask(t.n)
	prev := -1
	for j, g := range d.groups {
		first := g.span.First()
		switch {
		case first <= prev:
			return fmt.Errorf("group %d (%v) out of order", j, g.span)
		case g.span.Intersects(covered):
			return fmt.Errorf("group %d (%v) overlaps another", j, g.span)
		case !g.span.SubsetOf(d.span):
			return fmt.Errorf("group %d (%v) outside the span", j, g.span)
		case g.weight != g.span.Weight():
			return fmt.Errorf("group %d: weight %d", j, g.weight)
		case g.id < 0 || g.id >= len(t.groups) || t.groups[g.id] != g:
			return fmt.Errorf("group %d: id %d", j, g.id)
		case g.kind != d.kind:
			return fmt.Errorf("group %d of level %v", j, g.kind)
		}
		cores := 0
		for c := first; c >= 0; c = g.span.Next(c) {
			if t.smt[t.coords[c].Core].FirstAnd(g.span) == c {
				cores++
			}
		}
		if g.cores != cores {
			return fmt.Errorf("group %d: %d cores, want %d", j, g.cores, cores)
		}
		want := Flags(0)
		if d.child != nil {
			want = d.child.flags
		}
		if g.flags != want {
			return fmt.Errorf("group %d (%v): flags %v, want %v", j, g.span, g.flags, want)
		}
		covered.Or(covered, g.span)
		prev = first
	}
	if !covered.Equal(d.span) {
		return fmt.Errorf("groups cover %v, span %v", covered, d.span)
	}
	return nil
}
