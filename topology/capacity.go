package topology

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
)

// ErrBadCapacity is wrapped by the errors of the capacity functions and of
// BuildCapacities for a capacity list that no kernel would compute.
var ErrBadCapacity = errors.New("topology: bad CPU capacity")

// CapacitiesFromDMIPS returns arch_scale_cpu_capacity of every CPU as the
// arm64 device-tree code computes it once every cpufreq policy exists
// (KERNEL-SPEC-ASYM §1.1, topology_normalize_cpu_scale): each CPU's raw
// performance is its capacity-dmips-mhz times its policy's maximum
// frequency in kHz, and
//
//	capacity(c) = ⌊raw(c) · 1024 / max raw⌋
//
// in 64-bit arithmetic, so the fastest CPU gets exactly 1024. Both slices
// have one entry per CPU. It returns an error wrapping ErrBadCapacity for
// slices of different or zero length, a zero entry, or a product that does
// not fit 64 bits once multiplied by 1024.
func CapacitiesFromDMIPS(dmipsPerMHz, maxFreqKHz []uint64) ([]uint64, error) {
	if len(dmipsPerMHz) == 0 || len(dmipsPerMHz) != len(maxFreqKHz) {
		return nil, fmt.Errorf("%w: %d capacity-dmips-mhz values for %d frequencies", ErrBadCapacity, len(dmipsPerMHz), len(maxFreqKHz))
	}
	raw := make([]uint64, len(dmipsPerMHz))
	var top uint64
	for i, d := range dmipsPerMHz {
		f := maxFreqKHz[i]
		if d == 0 || f == 0 {
			return nil, fmt.Errorf("%w: cpu%d has capacity-dmips-mhz %d and max frequency %d kHz (want both > 0)", ErrBadCapacity, i, d, f)
		}
		hi, lo := bits.Mul64(d, f)
		if hi != 0 || lo > (1<<64-1)/CapacityScale {
			return nil, fmt.Errorf("%w: cpu%d: %d × %d kHz overflows", ErrBadCapacity, i, d, f)
		}
		raw[i] = lo
		top = max(top, lo)
	}
	for i, r := range raw {
		raw[i] = r * CapacityScale / top
	}
	return raw, nil
}

// CapacityEntry is one entry of asym_cap_list: a capacity and the CPUs
// that have it.
type CapacityEntry struct {
	Capacity uint64
	CPUs     *Mask // shared: do not modify
}

// ParseCapacities parses a per-CPU capacity list: comma-separated values,
// each "C" or "C*K" for K CPUs in a row of capacity C, such as
// "284*4,871*3,1024".
func ParseCapacities(s string) ([]uint64, error) {
	var caps []uint64
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		v, k, rep := strings.Cut(tok, "*")
		c, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q in %q (want C or C*K)", ErrBadCapacity, tok, s)
		}
		n := uint64(1)
		if rep {
			if n, err = strconv.ParseUint(k, 10, 64); err != nil || n == 0 || n > MaxCPUs {
				return nil, fmt.Errorf("%w: %q in %q (want a count 1-%d after *)", ErrBadCapacity, tok, s, MaxCPUs)
			}
		}
		if len(caps)+int(n) > MaxCPUs {
			return nil, fmt.Errorf("%w: %q lists more than %d CPUs", ErrTooLarge, s, MaxCPUs)
		}
		for range n {
			caps = append(caps, c)
		}
	}
	return caps, nil
}

// validateCapacities checks a per-CPU capacity list for a machine of n
// CPUs: one value per CPU, each in [1, 1024], the largest exactly 1024
// (the kernel normalises the fastest CPU to SCHED_CAPACITY_SCALE).
func validateCapacities(caps []uint64, n int) error {
	if len(caps) != n {
		return fmt.Errorf("%w: %d capacities for %d CPUs", ErrBadCapacity, len(caps), n)
	}
	var top uint64
	for cpu, c := range caps {
		if c < 1 || c > CapacityScale {
			return fmt.Errorf("%w: cpu%d capacity %d (want 1-%d)", ErrBadCapacity, cpu, c, CapacityScale)
		}
		top = max(top, c)
	}
	if top != CapacityScale {
		return fmt.Errorf("%w: the largest capacity is %d (want %d: the fastest CPU defines the scale)", ErrBadCapacity, top, CapacityScale)
	}
	return nil
}

// BuildCapacities builds the domains of m with per-CPU original capacities
// caps (arch_scale_cpu_capacity, one value per CPU in CPU id order). It is
// Build with KERNEL-SPEC-ASYM §1–§2 on top: asym_cap_list (CapacityList),
// the SD_ASYM_CPUCAPACITY and SD_ASYM_CPUCAPACITY_FULL flags of every
// domain whose span holds several capacities (asym_cpu_capacity_classify,
// carried into the groups of the level above as child flags),
// sd_asym_cpucapacity (SDAsymCPUCapacity), sd_balance_shared
// (SDBalanceShared) and group capacities (the sum, minimum and maximum of
// the CPU capacities of each group). caps with every value 1024 (or nil)
// gives exactly Build's topology.
//
// Asymmetry needs cores of one thread (ThreadsPerCore = 1): the model does
// not take the kernel's SMT branches of the asymmetric code. It returns an
// error wrapping ErrBadCapacity for a bad list or an SMT machine with
// unequal capacities, and Build's errors for a bad machine.
func BuildCapacities(m Machine, caps []uint64) (*Topology, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if caps == nil {
		return Build(m)
	}
	if err := validateCapacities(caps, m.NumCPUs()); err != nil {
		return nil, err
	}
	asym := false
	for _, c := range caps {
		asym = asym || c != caps[0]
	}
	if !asym {
		return Build(m)
	}
	if m.ThreadsPerCore != 1 {
		return nil, fmt.Errorf("%w: unequal capacities on %v: asymmetric machines need one thread per core", ErrBadCapacity, m)
	}
	b := newBuilder(m)
	b.t.caps = append([]uint64(nil), caps...)
	b.asymCapacityScan()
	b.buildDomains()
	b.buildGroups()
	b.claimShared()
	for cpu := 0; cpu < b.n; cpu++ {
		b.attach(cpu)
	}
	b.finish()
	b.finishAsym()
	return b.t, nil
}

// asymCapacityScan is asym_cpu_capacity_scan: one list entry per distinct
// capacity, in descending order of capacity, each with its CPUs; the
// list stays empty on a symmetric machine.
func (b *builder) asymCapacityScan() {
	t := b.t
	for cpu, c := range t.caps {
		i := 0
		for i < len(t.capList) && t.capList[i].Capacity > c {
			i++
		}
		if i == len(t.capList) || t.capList[i].Capacity != c {
			t.capList = append(t.capList, CapacityEntry{})
			copy(t.capList[i+1:], t.capList[i:])
			t.capList[i] = CapacityEntry{Capacity: c, CPUs: NewMask(b.n)}
		}
		t.capList[i].CPUs.Set(cpu)
	}
	if len(t.capList) < 2 {
		t.capList = nil
	}
}

// asymClassify is asym_cpu_capacity_classify for a span within the whole
// machine: both flags when every capacity of the machine is in the span,
// SD_ASYM_CPUCAPACITY alone when some are missing, none when the span has
// one capacity.
func (b *builder) asymClassify(span *Mask) Flags {
	count, miss := 0, 0
	for _, e := range b.t.capList {
		if e.CPUs.Intersects(span) {
			count++
		} else {
			miss++
		}
	}
	switch {
	case count < 2:
		return 0
	case miss > 0:
		return SDAsymCPUCapacity
	}
	return SDAsymCPUCapacity | SDAsymCPUCapacityFull
}

// finishAsym sets what asymmetry adds after the domains are attached:
// sd_asym_cpucapacity and sd_balance_shared of every CPU (with the asym
// domain's own shared object when it is not the LLC domain,
// claim_asym_sched_domain_shared) and the group capacities.
func (b *builder) finishAsym() {
	t := b.t
	t.asymActive = len(t.capList) > 0 // some built domain spans two capacities
	t.sdAsym = make([]*Domain, b.n)
	t.balanceShared = make([]*Shared, b.n)
	var asymObj *Shared
	for cpu, chain := range t.domains {
		for _, d := range chain {
			if d.flags&SDAsymCPUCapacityFull != 0 {
				t.sdAsym[cpu] = d
				break
			}
		}
		d := t.sdAsym[cpu]
		switch {
		case d == nil:
			t.balanceShared[cpu] = t.LLCShared(cpu)
		case d == t.sdLLC[cpu]:
			t.balanceShared[cpu] = d.shared
		default:
			// One object for the whole asym span (the machine, here).
			if asymObj == nil {
				asymObj = &Shared{id: len(t.llc), span: d.span, weight: d.weight}
				t.asymShared = asymObj
			}
			t.balanceShared[cpu] = asymObj
		}
	}
	for _, g := range t.groups {
		g.setCapacity(t.caps)
	}
}

// setCapacity sets the group's sched_group_capacity from per-CPU
// capacities (nil: 1024 each), as update_group_capacity leaves it once
// the domains are built: the sum, minimum and maximum over its CPUs.
func (g *Group) setCapacity(caps []uint64) {
	g.capacity, g.minCap, g.maxCap = 0, 1<<64-1, 0
	for c := g.span.First(); c >= 0; c = g.span.Next(c) {
		v := uint64(CapacityScale)
		if caps != nil {
			v = caps[c]
		}
		g.capacity += v
		g.minCap = min(g.minCap, v)
		g.maxCap = max(g.maxCap, v)
	}
}

// Asymmetric reports sched_asym_cpucap_active(): some domain was built
// with SD_ASYM_CPUCAPACITY, i.e. the CPUs do not all have one capacity.
func (t *Topology) Asymmetric() bool { return t.asymActive }

// Capacities returns every CPU's original capacity in CPU id order, a
// copy; nil for a symmetric machine (every CPU 1024).
func (t *Topology) Capacities() []uint64 {
	if t.caps == nil {
		return nil
	}
	return append([]uint64(nil), t.caps...)
}

// CapacityList returns asym_cap_list: one entry per distinct capacity in
// descending order, empty on a symmetric machine. Shared: do not modify.
func (t *Topology) CapacityList() []CapacityEntry { return t.capList }

// MaxAllowedCapacity returns what set_task_max_allowed_capacity stores for
// a task allowed on the CPUs of allowed: the capacity of the first (the
// largest) asym_cap_list entry with an allowed CPU; 1024 on a symmetric
// machine or when no entry intersects. O(entries·N/64), no allocation.
func (t *Topology) MaxAllowedCapacity(allowed *Mask) uint64 {
	for _, e := range t.capList {
		if allowed != nil && e.CPUs.Intersects(allowed) {
			return e.Capacity
		}
	}
	return CapacityScale
}

// SDAsymCPUCapacity returns sd_asym_cpucapacity(cpu): cpu's lowest domain
// with SD_ASYM_CPUCAPACITY_FULL, or nil (symmetric machine, bad id).
func (t *Topology) SDAsymCPUCapacity(cpu int) *Domain {
	if !t.valid(cpu) || t.sdAsym == nil {
		return nil
	}
	return t.sdAsym[cpu]
}

// SDBalanceShared returns sd_balance_shared(cpu): the shared object of
// sd_asym_cpucapacity(cpu) when there is one, else sd_llc_shared(cpu).
// When the asym domain is the LLC domain (one LLC over every capacity) the
// two are the LLC's object. When it lies above the LLCs its object is not
// an LLC's: its ID is NumLLCs() (see NumSharedIDs), and it is not any
// Domain's Shared().
func (t *Topology) SDBalanceShared(cpu int) *Shared {
	if !t.valid(cpu) {
		return nil
	}
	if t.balanceShared == nil {
		return t.LLCShared(cpu)
	}
	return t.balanceShared[cpu]
}

// NumSharedIDs returns the bound of Shared.ID over every shared object:
// NumLLCs(), plus one when an asym domain above the LLCs has its own.
func (t *Topology) NumSharedIDs() int {
	if t.asymShared != nil {
		return len(t.llc) + 1
	}
	return len(t.llc)
}

// WriteCapacities prints every CPU's capacity as
// /sys/devices/system/cpu/cpuN/cpu_capacity shows it, one
// "cpuN/cpu_capacity:C" line per CPU, so that the list can be compared
// with `grep -H ” /sys/devices/system/cpu/cpu*/cpu_capacity` on a machine.
func (t *Topology) WriteCapacities(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for cpu := 0; cpu < t.n; cpu++ {
		fmt.Fprintf(bw, "cpu%d/cpu_capacity:%d\n", cpu, t.CPUCapacity(cpu))
	}
	return bw.Flush()
}

// checkAsym is Check's part for capacities: every group's capacity is the
// sum, minimum and maximum of its CPUs'; a domain carries the asym flags
// asym_cpu_capacity_classify gives its span; sd_asym_cpucapacity is the
// lowest domain with SD_ASYM_CPUCAPACITY_FULL.
func (t *Topology) checkAsym() error {
	for _, g := range t.groups {
		var sum, lo, hi uint64 = 0, 1<<64 - 1, 0
		for c := g.span.First(); c >= 0; c = g.span.Next(c) {
			v := t.CPUCapacity(c)
			sum, lo, hi = sum+v, min(lo, v), max(hi, v)
		}
		if g.capacity != sum || g.minCap != lo || g.maxCap != hi {
			return fmt.Errorf("group %d: capacity %d/%d/%d, want %d/%d/%d", g.id, g.capacity, g.minCap, g.maxCap, sum, lo, hi)
		}
	}
	b := &builder{t: t}
	for cpu := 0; cpu < t.n; cpu++ {
		var lowest *Domain
		for _, d := range t.domains[cpu] {
			want := b.asymClassify(d.span)
			if got := d.flags & (SDAsymCPUCapacity | SDAsymCPUCapacityFull); got != want {
				return fmt.Errorf("cpu%d domain%d: asym flags %v, want %v", cpu, d.index, got, want)
			}
			if lowest == nil && want&SDAsymCPUCapacityFull != 0 {
				lowest = d
			}
		}
		if t.SDAsymCPUCapacity(cpu) != lowest {
			return fmt.Errorf("cpu%d: sd_asym_cpucapacity is not the lowest complete asym domain", cpu)
		}
	}
	return nil
}
