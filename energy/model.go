package energy

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// ErrBadModel is wrapped by every error of New, Load and Model.Rescale: a
// specification no kernel would register as an energy model.
var ErrBadModel = errors.New("energy: bad energy model")

// CapacityScale is SCHED_CAPACITY_SCALE, the capacity of the biggest CPU.
const CapacityScale = 1024

// MaxCPUs bounds the CPU ids a model may name.
const MaxCPUs = 1 << 16

// costScale is the factor of the cost's extra resolution (the 10 of
// ⌊10·P/performance⌋).
const costScale = 10

// State is one performance state (em_perf_state) of a domain, in ascending
// frequency within the domain.
type State struct {
	Frequency   uint64 // kHz
	Power       uint64 // µW
	Performance uint64 // ⌊capacity · Frequency / f_max⌋
	Cost        uint64 // ⌊10 · Power / Performance⌋, or as given for an artificial domain
	Inefficient bool   // EM_PERF_STATE_INEFFICIENT: a faster state costs no more
}

// Domain is one performance domain (em_perf_domain): the CPUs that share a
// clock, all of one capacity, and their states. Its invariants: at least
// one CPU, in ascending order; at least one state, in strictly ascending
// frequency; every performance and cost computed from the capacity as the
// package documentation says.
type Domain struct {
	cpus       []int
	capacity   uint64
	states     []State
	skip       bool // EM_PERF_DOMAIN_SKIP_INEFFICIENCIES
	artificial bool
	spec       DomainSpec // what it was built from, for Rescale
}

// CPUs returns the domain's CPUs in ascending order. Shared: do not modify.
func (d *Domain) CPUs() []int { return d.cpus }

// FirstCPU returns the domain's lowest CPU id.
func (d *Domain) FirstCPU() int { return d.cpus[0] }

// Capacity returns the capacity the performances were computed from
// (arch_scale_cpu_capacity of the first CPU).
func (d *Domain) Capacity() uint64 { return d.capacity }

// States returns the states in ascending frequency. Shared: do not modify.
func (d *Domain) States() []State { return d.states }

// SkipInefficiencies reports EM_PERF_DOMAIN_SKIP_INEFFICIENCIES: the
// domain has inefficient states and CPUEnergy passes over them.
func (d *Domain) SkipInefficiencies() bool { return d.skip }

// Artificial reports a domain whose costs were given rather than computed
// (EM_PERF_DOMAIN_ARTIFICIAL).
func (d *Domain) Artificial() bool { return d.artificial }

// StateFor is em_pd_get_efficient_state: the index of the lowest state
// whose performance reaches min(maxUtil, allowedCap), passing over
// inefficient states when the domain skips them, or the last state when
// none reaches it. O(states), no allocation.
func (d *Domain) StateFor(maxUtil, allowedCap uint64) int {
	m := min(maxUtil, allowedCap)
	for i := range d.states {
		ps := &d.states[i]
		if d.skip && ps.Inefficient {
			continue
		}
		if ps.Performance >= m {
			return i
		}
	}
	return len(d.states) - 1
}

// CPUEnergy is em_cpu_energy(pd, max_util, sum_util, allowed_cpu_cap): the
// estimated energy of the domain when its busiest CPU needs maxUtil
// (already with schedutil's headroom) and its CPUs together run sumUtil,
// the domain's CPUs being allowed up to allowedCap: cost_i · sumUtil for
// i = StateFor(maxUtil, allowedCap), and 0 when sumUtil is 0. The product
// saturates at the largest uint64 rather than wrapping. O(states), no
// allocation.
func (d *Domain) CPUEnergy(maxUtil, sumUtil, allowedCap uint64) uint64 {
	if sumUtil == 0 {
		return 0
	}
	hi, lo := bits.Mul64(d.states[d.StateFor(maxUtil, allowedCap)].Cost, sumUtil)
	if hi != 0 {
		return ^uint64(0)
	}
	return lo
}

// Model is an energy model: performance domains over disjoint sets of
// CPUs, in ascending order of their first CPU. Build one with New, Load
// or a preset.
type Model struct {
	domains []*Domain
	byCPU   []int32 // CPU id → index in domains, −1 for a CPU of none
}

// Domains returns the domains in ascending order of first CPU. Shared: do
// not modify.
func (m *Model) Domains() []*Domain { return m.domains }

// DomainOf returns the domain of cpu, or nil for a CPU no domain holds
// (or a negative id).
func (m *Model) DomainOf(cpu int) *Domain {
	if cpu < 0 || cpu >= len(m.byCPU) || m.byCPU[cpu] < 0 {
		return nil
	}
	return m.domains[m.byCPU[cpu]]
}

// NumCPUs returns one more than the largest CPU id of the model.
func (m *Model) NumCPUs() int { return len(m.byCPU) }

// Spec returns the specification the model was built from (its domains
// in the model's order, each with the capacity it has now), which New
// turns back into an equal model and which marshals to Load's JSON.
func (m *Model) Spec() Spec {
	var s Spec
	for _, d := range m.domains {
		ds := d.spec
		ds.CPUs = slices.Clone(d.cpus)
		ds.Capacity = d.capacity
		ds.States = slices.Clone(ds.States)
		s.Domains = append(s.Domains, ds)
	}
	return s
}

// Rescale returns the model with each domain's performances and costs
// recomputed for the capacity caps gives its first CPU, as the kernel
// recomputes them when CPU capacities change (caps[cpu] is
// arch_scale_cpu_capacity(cpu)). It fails, wrapping ErrBadModel, when caps
// has no entry for a CPU of the model, gives a domain's CPUs different
// capacities, or gives one out of 1..1024.
func (m *Model) Rescale(caps []uint64) (*Model, error) {
	s := m.Spec()
	for i := range s.Domains {
		ds := &s.Domains[i]
		for _, c := range ds.CPUs {
			if c >= len(caps) {
				return nil, fmt.Errorf("%w: domains[%d].cpus: cpu%d has no capacity (%d given)", ErrBadModel, i, c, len(caps))
			}
			if caps[c] != caps[ds.CPUs[0]] {
				return nil, fmt.Errorf("%w: domains[%d].cpus: cpu%d has capacity %d but cpu%d %d (a domain's CPUs share one capacity)", ErrBadModel, i, c, caps[c], ds.CPUs[0], caps[ds.CPUs[0]])
			}
		}
		if caps[ds.CPUs[0]] == 0 || caps[ds.CPUs[0]] > CapacityScale {
			return nil, fmt.Errorf("%w: domains[%d].capacity: %d (want 1-%d)", ErrBadModel, i, caps[ds.CPUs[0]], CapacityScale)
		}
		ds.Capacity = caps[ds.CPUs[0]]
	}
	return New(s)
}

// DynamicPower returns a state's power in µW from the device tree's
// dynamic-power-coefficient (µW/MHz/V²), the state's voltage in mV and its
// frequency in kHz, as the OPP library computes it:
// ⌊coeff · mV² · ⌊Hz/10⁶⌋ / 10⁶⌋. ok is false if the product does not fit
// 64 bits.
func DynamicPower(coeff, mV, kHz uint64) (power uint64, ok bool) {
	mhz := kHz * 1000 / 1000000 // ⌊Hz / 10⁶⌋
	hi, lo := bits.Mul64(coeff, mV)
	if hi != 0 {
		return 0, false
	}
	hi, lo = bits.Mul64(lo, mV)
	if hi != 0 {
		return 0, false
	}
	hi, lo = bits.Mul64(lo, mhz)
	if hi != 0 {
		return 0, false
	}
	return lo / 1000000, true
}

// Spec describes an energy model for New: its JSON form (Load) has the
// same field names.
type Spec struct {
	Domains []DomainSpec `json:"domains"`
}

// DomainSpec describes one performance domain.
type DomainSpec struct {
	// CPUs lists the domain's CPU ids (any order, no repeats).
	CPUs []int `json:"cpus"`
	// Capacity is arch_scale_cpu_capacity of the domain's CPUs, 1..1024;
	// 0 means 1024. smp rescales it to the machine's (Model.Rescale).
	Capacity uint64 `json:"capacity,omitempty"`
	// DynamicPowerCoefficient is the device tree's
	// dynamic-power-coefficient in µW/MHz/V², used for the states that
	// give a voltage instead of a power.
	DynamicPowerCoefficient uint64 `json:"dynamic_power_coefficient,omitempty"`
	// Artificial marks a model whose costs are given per state (Cost)
	// rather than computed; no state is then inefficient.
	Artificial bool `json:"artificial,omitempty"`
	// KeepInefficient leaves inefficient states usable: the domain does
	// not get SKIP_INEFFICIENCIES even when it has such states (a cpufreq
	// driver that did not accept the marks).
	KeepInefficient bool `json:"keep_inefficient,omitempty"`
	// States lists the performance states in strictly ascending frequency.
	States []StateSpec `json:"states"`
}

// StateSpec describes one performance state: its frequency and either its
// power or its voltage (with the domain's coefficient), and for an
// artificial domain its cost.
type StateSpec struct {
	FrequencyKHz uint64 `json:"frequency_khz"`
	PowerUW      uint64 `json:"power_uw,omitempty"`
	VoltageMV    uint64 `json:"voltage_mv,omitempty"`
	Cost         uint64 `json:"cost,omitempty"`
}

// New builds a model from s: for each domain its states' powers (given,
// or DynamicPower of the voltage), performances, costs and inefficiency
// marks. It fails with an error wrapping ErrBadModel that names the field
// (domains[i].states[j].power_uw, …): no domain, a domain without CPUs or
// states, a CPU id outside 0..MaxCPUs−1 or in two domains, a capacity
// above 1024, frequencies that do not strictly ascend or are 0, a state
// with neither power nor voltage (or both), a voltage without a
// coefficient, a power of 0, a performance of 0 (its cost would divide by
// zero), an artificial domain's state without a cost, a cost given outside
// an artificial domain.
func New(s Spec) (*Model, error) {
	if len(s.Domains) == 0 {
		return nil, fmt.Errorf("%w: domains: none", ErrBadModel)
	}
	m := &Model{}
	top := -1
	for i := range s.Domains {
		d, err := newDomain(&s.Domains[i], i)
		if err != nil {
			return nil, err
		}
		top = max(top, d.cpus[len(d.cpus)-1])
		m.domains = append(m.domains, d)
	}
	m.byCPU = make([]int32, top+1)
	for i := range m.byCPU {
		m.byCPU[i] = -1
	}
	slices.SortFunc(m.domains, func(a, b *Domain) int { return a.cpus[0] - b.cpus[0] })
	for k, d := range m.domains {
		for _, c := range d.cpus {
			if m.byCPU[c] >= 0 {
				return nil, fmt.Errorf("%w: domains: cpu%d is in two domains", ErrBadModel, c)
			}
			m.byCPU[c] = int32(k)
		}
	}
	return m, nil
}

// newDomain builds domain i of a Spec.
func newDomain(ds *DomainSpec, i int) (*Domain, error) {
	where := fmt.Sprintf("domains[%d]", i)
	if len(ds.CPUs) == 0 {
		return nil, fmt.Errorf("%w: %s.cpus: empty", ErrBadModel, where)
	}
	cpus := slices.Clone(ds.CPUs)
	slices.Sort(cpus)
	for k, c := range cpus {
		if c < 0 || c >= MaxCPUs {
			return nil, fmt.Errorf("%w: %s.cpus: cpu%d (want 0-%d)", ErrBadModel, where, c, MaxCPUs-1)
		}
		if k > 0 && cpus[k-1] == c {
			return nil, fmt.Errorf("%w: %s.cpus: cpu%d twice", ErrBadModel, where, c)
		}
	}
	capacity := ds.Capacity
	if capacity == 0 {
		capacity = CapacityScale
	}
	if capacity > CapacityScale {
		return nil, fmt.Errorf("%w: %s.capacity: %d (want 1-%d)", ErrBadModel, where, capacity, CapacityScale)
	}
	if len(ds.States) == 0 {
		return nil, fmt.Errorf("%w: %s.states: empty", ErrBadModel, where)
	}
	d := &Domain{cpus: cpus, capacity: capacity, artificial: ds.Artificial, spec: *ds}
	d.spec.States = slices.Clone(ds.States)
	d.states = make([]State, len(ds.States))
	for j := range ds.States {
		if f := ds.States[j].FrequencyKHz; f == 0 || (j > 0 && f <= ds.States[j-1].FrequencyKHz) {
			return nil, fmt.Errorf("%w: %s.states[%d].frequency_khz: %d (want > 0 and above the previous state's)", ErrBadModel, where, j, f)
		}
	}
	fmax := ds.States[len(ds.States)-1].FrequencyKHz
	for j := range ds.States {
		st := &ds.States[j]
		sw := fmt.Sprintf("%s.states[%d]", where, j)
		p, err := statePower(ds, st, sw)
		if err != nil {
			return nil, err
		}
		hi, lo := bits.Mul64(capacity, st.FrequencyKHz)
		perf := lo / fmax
		if hi != 0 {
			return nil, fmt.Errorf("%w: %s.frequency_khz: %d overflows", ErrBadModel, sw, st.FrequencyKHz)
		}
		if perf == 0 {
			return nil, fmt.Errorf("%w: %s.frequency_khz: performance ⌊%d·%d/%d⌋ is 0", ErrBadModel, sw, capacity, st.FrequencyKHz, fmax)
		}
		cost := st.Cost
		switch {
		case ds.Artificial && st.Cost == 0:
			return nil, fmt.Errorf("%w: %s.cost: missing (an artificial domain gives each state's cost)", ErrBadModel, sw)
		case !ds.Artificial && st.Cost != 0:
			return nil, fmt.Errorf("%w: %s.cost: %d given, but the domain is not artificial (costs are computed)", ErrBadModel, sw, st.Cost)
		case !ds.Artificial:
			if p > ^uint64(0)/costScale {
				return nil, fmt.Errorf("%w: %s.power_uw: %d overflows", ErrBadModel, sw, p)
			}
			cost = costScale * p / perf
		}
		d.states[j] = State{Frequency: st.FrequencyKHz, Power: p, Performance: perf, Cost: cost}
	}
	if !ds.Artificial {
		// em_compute_costs: from the fastest state down, a state that
		// costs no less than every faster one is inefficient.
		lowest := ^uint64(0)
		for j := len(d.states) - 1; j >= 0; j-- {
			if d.states[j].Cost >= lowest {
				d.states[j].Inefficient = true
				d.skip = !ds.KeepInefficient
			} else {
				lowest = d.states[j].Cost
			}
		}
	}
	return d, nil
}

// statePower is a state's power: given, or computed from its voltage.
func statePower(ds *DomainSpec, st *StateSpec, sw string) (uint64, error) {
	switch {
	case st.PowerUW != 0 && st.VoltageMV != 0:
		return 0, fmt.Errorf("%w: %s: both power_uw and voltage_mv (give one)", ErrBadModel, sw)
	case st.PowerUW != 0:
		return st.PowerUW, nil
	case st.VoltageMV == 0:
		if ds.Artificial {
			return 0, nil // an artificial state's power is not read
		}
		return 0, fmt.Errorf("%w: %s.power_uw: missing (give power_uw, or voltage_mv with the domain's dynamic_power_coefficient)", ErrBadModel, sw)
	case ds.DynamicPowerCoefficient == 0:
		return 0, fmt.Errorf("%w: %s.voltage_mv: the domain has no dynamic_power_coefficient", ErrBadModel, sw)
	}
	p, ok := DynamicPower(ds.DynamicPowerCoefficient, st.VoltageMV, st.FrequencyKHz)
	if !ok {
		return 0, fmt.Errorf("%w: %s.voltage_mv: %d overflows the power", ErrBadModel, sw, st.VoltageMV)
	}
	if p == 0 {
		return 0, fmt.Errorf("%w: %s.voltage_mv: %d gives a power of 0 µW", ErrBadModel, sw, st.VoltageMV)
	}
	return p, nil
}

// Check recomputes everything New derives and returns the first
// difference, or nil: every domain's CPUs ascend and map back to it, its
// states ascend in frequency, and each state's performance, cost and
// inefficiency mark are what the package documentation's formulas give;
// the domain skips inefficient states exactly when it has some and does
// not keep them. O(CPUs + states).
func (m *Model) Check() error {
	for k, d := range m.domains {
		if len(d.cpus) == 0 || len(d.states) == 0 {
			return fmt.Errorf("domain %d: %d CPUs, %d states", k, len(d.cpus), len(d.states))
		}
		if k > 0 && m.domains[k-1].cpus[0] >= d.cpus[0] {
			return fmt.Errorf("domain %d: first CPU %d not after the previous domain's", k, d.cpus[0])
		}
		for i, c := range d.cpus {
			if (i > 0 && d.cpus[i-1] >= c) || m.DomainOf(c) != d {
				return fmt.Errorf("domain %d: cpu%d out of order or not mapped to it", k, c)
			}
		}
		fmax := d.states[len(d.states)-1].Frequency
		lowest, any := ^uint64(0), false
		for j := len(d.states) - 1; j >= 0; j-- {
			st := d.states[j]
			if j > 0 && d.states[j-1].Frequency >= st.Frequency {
				return fmt.Errorf("domain %d: state %d's frequency %d does not ascend", k, j, st.Frequency)
			}
			hi, lo := bits.Mul64(d.capacity, st.Frequency)
			if hi != 0 || st.Performance != lo/fmax {
				return fmt.Errorf("domain %d state %d: performance %d, want ⌊%d·%d/%d⌋", k, j, st.Performance, d.capacity, st.Frequency, fmax)
			}
			if d.artificial {
				if st.Inefficient {
					return fmt.Errorf("domain %d state %d: an artificial state marked inefficient", k, j)
				}
				continue
			}
			if want := costScale * st.Power / st.Performance; st.Cost != want {
				return fmt.Errorf("domain %d state %d: cost %d, want ⌊10·%d/%d⌋ = %d", k, j, st.Cost, st.Power, st.Performance, want)
			}
			ineff := st.Cost >= lowest
			if st.Inefficient != ineff {
				return fmt.Errorf("domain %d state %d: inefficient %v, want %v", k, j, st.Inefficient, ineff)
			}
			if ineff {
				any = true
			} else {
				lowest = st.Cost
			}
		}
		if d.skip != (any && !d.spec.KeepInefficient) {
			return fmt.Errorf("domain %d: skip inefficiencies %v with inefficient states %v", k, d.skip, any)
		}
	}
	for c, k := range m.byCPU {
		if k >= 0 && !slices.Contains(m.domains[k].cpus, c) {
			return fmt.Errorf("cpu%d mapped to domain %d, which does not hold it", c, k)
		}
	}
	return nil
}
