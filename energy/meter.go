package energy

import (
	"fmt"
	"math/bits"
)

// A Meter estimates the energy a run spends, from the utilisation of each
// CPU over time and a model: what the fair class never computes (it only
// compares estimates), for reports. Each sample of dt ns runs every
// domain at the state schedutil would choose for its busiest CPU — the
// lowest state whose performance reaches max over the domain's CPUs of
// min(u + ⌊u/4⌋, capacity) (map_util_perf's headroom) — and charges each
// CPU
//
//	E = P_i · (u / performance_i) · dt = cost_i · u · dt / 10   µW·ns,
//
// its state's power for the fraction of the time its utilisation keeps it
// busy at that state's speed. Sums are kept exactly (128 bits of
// cost·util·ns); Microjoules converts them (1 cost·util·ns = 10⁻¹⁰ µJ).
// Idle power is not modelled: an energy model has no idle states. A Meter
// is not safe for concurrent use; Add allocates nothing.
type Meter struct {
	m       *Model
	cpu     []u128     // per CPU id
	dom     []u128     // per domain, Model.Domains() order
	res     [][]uint64 // per domain, ns in each state
	elapsed uint64
}

// u128 is an unsigned 128-bit sum.
type u128 struct{ hi, lo uint64 }

// add adds a·b·c, the product of three 64-bit values that must fit 128
// bits (cost · util · ns: about 2^14 · 2^10 · 2^40).
func (s *u128) add(a, b, c uint64) {
	hi, lo := bits.Mul64(a, b)
	h2, l2 := bits.Mul64(lo, c)
	h2 += hi * c
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, l2, 0)
	s.hi += h2 + carry
}

// microjoules converts a sum of cost·util·ns.
func (s u128) microjoules() float64 {
	return (float64(s.hi)*(1<<64) + float64(s.lo)) * 1e-10
}

// NewMeter returns a Meter of model m, every sum zero. A nil model gives
// a Meter whose Add fails with ErrBadModel and whose totals are zero.
func NewMeter(m *Model) *Meter {
	if m == nil {
		return &Meter{}
	}
	mt := &Meter{m: m, cpu: make([]u128, m.NumCPUs()), dom: make([]u128, len(m.domains))}
	for _, d := range m.domains {
		mt.res = append(mt.res, make([]uint64, len(d.states)))
	}
	return mt
}

// Add accounts dt ns during which CPU c had utilisation utils[c] (the
// scale of capacities: cpu_util_cfs, at most the CPU's capacity; a larger
// value counts as the capacity). It fails, changing nothing, if utils has
// no entry for a CPU of the model.
func (mt *Meter) Add(dt uint64, utils []uint64) error {
	if mt == nil || mt.m == nil {
		return fmt.Errorf("%w: a Meter without a model", ErrBadModel)
	}
	if len(utils) < len(mt.cpu) {
		return fmt.Errorf("%w: %d utilisations for a model of %d CPUs", ErrBadModel, len(utils), len(mt.cpu))
	}
	for k, d := range mt.m.domains {
		var maxUtil uint64
		for _, c := range d.cpus {
			// map_util_perf's 25 % headroom on the utilisation capped at
			// the capacity first, so that no value wraps around.
			u := min(utils[c], d.capacity)
			maxUtil = max(maxUtil, min(u+u>>2, d.capacity))
		}
		i := d.StateFor(maxUtil, d.capacity)
		mt.res[k][i] += dt
		cost := d.states[i].Cost
		for _, c := range d.cpus {
			u := min(utils[c], d.capacity)
			mt.cpu[c].add(cost, u, dt)
			mt.dom[k].add(cost, u, dt)
		}
	}
	mt.elapsed += dt
	return nil
}

// Elapsed returns the time accounted, ns.
func (mt *Meter) Elapsed() uint64 {
	if mt == nil {
		return 0
	}
	return mt.elapsed
}

// CPUMicrojoules returns CPU cpu's estimated energy, µJ (0 for a CPU of
// no domain).
func (mt *Meter) CPUMicrojoules(cpu int) float64 {
	if mt == nil || cpu < 0 || cpu >= len(mt.cpu) {
		return 0
	}
	return mt.cpu[cpu].microjoules()
}

// DomainMicrojoules returns domain k's (Model.Domains() order) estimated
// energy, µJ; 0 for a bad index.
func (mt *Meter) DomainMicrojoules(k int) float64 {
	if mt == nil || k < 0 || k >= len(mt.dom) {
		return 0
	}
	return mt.dom[k].microjoules()
}

// Residency returns how long domain k spent in each of its states, ns, in
// state order (a copy; nil for a bad index).
func (mt *Meter) Residency(k int) []uint64 {
	if mt == nil || k < 0 || k >= len(mt.res) {
		return nil
	}
	return append([]uint64(nil), mt.res[k]...)
}

// MeterReport is a Meter's totals in plain values, for JSON and tables.
type MeterReport struct {
	ElapsedNs uint64            `json:"elapsed_ns"`
	TotalUJ   float64           `json:"total_uj"`
	CPUs      []CPUEnergy       `json:"cpus"`
	Domains   []DomainEnergyRow `json:"domains"`
}

// CPUEnergy is one CPU's row of a MeterReport.
type CPUEnergy struct {
	CPU int     `json:"cpu"`
	UJ  float64 `json:"uj"`
}

// DomainEnergyRow is one domain's row of a MeterReport: its energy and
// its time in each state (frequency, ns).
type DomainEnergyRow struct {
	CPUs      []int          `json:"cpus"`
	UJ        float64        `json:"uj"`
	Residency []StateSeconds `json:"residency"`
}

// StateSeconds is a state's residency.
type StateSeconds struct {
	FrequencyKHz uint64 `json:"frequency_khz"`
	Ns           uint64 `json:"ns"`
}

// Report returns the totals: per CPU of a domain (ascending), per domain with its
// residency (states never used included), and the sum.
func (mt *Meter) Report() MeterReport {
	if mt == nil || mt.m == nil {
		return MeterReport{}
	}
	r := MeterReport{ElapsedNs: mt.elapsed}
	for k, d := range mt.m.domains {
		row := DomainEnergyRow{CPUs: append([]int(nil), d.cpus...), UJ: mt.DomainMicrojoules(k)}
		for i, st := range d.states {
			row.Residency = append(row.Residency, StateSeconds{FrequencyKHz: st.Frequency, Ns: mt.res[k][i]})
		}
		r.Domains = append(r.Domains, row)
		r.TotalUJ += row.UJ
	}
	for c := range mt.cpu {
		if mt.m.DomainOf(c) != nil {
			r.CPUs = append(r.CPUs, CPUEnergy{CPU: c, UJ: mt.CPUMicrojoules(c)})
		}
	}
	return r
}
