package smp

import (
	"fmt"
	"slices"

	"github.com/schedmodel/fairclass/energy"
)

// Energy-Aware Scheduling on a System (KERNEL-SPEC-ASYM §2.7, §6, §8): an
// energy model attached with WithEnergyModel, the perf domains the kernel
// builds from it, and whether EAS is on. Without a model nothing here is
// ever reached: every EAS test reads easOn, false, and the System takes
// exactly the paths it takes without this file.
//
// The model keeps every CPU at its maximum frequency for time (execution
// speed and the PELT clock, §1.7); only the energy estimates of
// find_energy_efficient_cpu compute the state schedutil would pick from
// utilisation (map_util_perf's 1.25 headroom). With EAS on, results are
// decision-exact and timing-approximate.

// easState is what EAS adds to a System: the model (rescaled to the
// machine's capacities), rd->pd, the root domain's overutilized flag and
// counters.
type easState struct {
	model    *energy.Model    // nil: no energy model
	pds      []*energy.Domain // rd->pd: descending first CPU; nil when EAS is off
	overutil bool             // rd->overutilized (only while EAS is on)
	stats    EnergyStats
	view     easView // find_energy_efficient_cpu's snapshot, reused (feec.go)
}

// EnergyStats counts what Energy-Aware Scheduling did.
type EnergyStats struct {
	// Placements counts wakeups placed by find_energy_efficient_cpu
	// (KERNEL-SPEC-ASYM §4.1); Moved those among them that left prev.
	Placements, Moved uint64
	// Skipped counts wakeups that found the root domain overutilized and
	// took the idle-capacity path instead.
	Skipped uint64
	// OverutilizedSet and OverutilizedCleared count the root domain's
	// overutilized flag turning on and off (§6).
	OverutilizedSet, OverutilizedCleared uint64
}

// WithEnergyModel attaches an energy model (package energy) to the
// machine: one performance domain per cpufreq policy, each domain's CPUs
// of one capacity. The model is rescaled to the machine's capacities
// (energy.Model.Rescale, as the kernel recomputes performances from
// arch_scale_cpu_capacity). EAS is then on exactly when the kernel's
// sched_energy_enabled() would be (EnergyEnabled): the machine has an
// asymmetric domain (sd_asym_cpucapacity), no SMT, and the model covers
// every CPU — the schedutil governor, frequency invariance and
// kernel.sched_energy_aware = 1 being assumed with a model. A model that
// misses a CPU leaves EAS off, as a CPU without an energy model leaves
// the kernel without perf domains. New fails with ErrBadOption for a nil
// model, a CPU the machine does not have, or a domain whose CPUs have
// different capacities.
func WithEnergyModel(m *energy.Model) Option {
	return func(c *config) error {
		if m == nil {
			return fmt.Errorf("%w: nil energy model", ErrBadOption)
		}
		c.energy = m
		return nil
	}
}

// initEnergy is build_perf_domains at domain-build time (§2.7): the model
// rescaled to the machine, and rd->pd when every condition holds.
func (s *System) initEnergy(m *energy.Model) error {
	if m == nil {
		return nil
	}
	if m.NumCPUs() > len(s.caps) {
		return fmt.Errorf("%w: the energy model names cpu%d, the machine has CPUs 0-%d", ErrBadOption, m.NumCPUs()-1, len(s.caps)-1)
	}
	rm, err := m.Rescale(s.caps)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadOption, err)
	}
	s.eas.model = rm
	covered := 0
	for _, d := range rm.Domains() {
		covered += len(d.CPUs())
	}
	if !s.energyPossible() || covered != len(s.caps) {
		return nil
	}
	// The kernel prepends each domain as it meets its first CPU: the list
	// runs in descending order of first CPU.
	s.eas.pds = slices.Clone(rm.Domains())
	slices.Reverse(s.eas.pds)
	s.easOn = true
	return nil
}

// energyPossible is sched_is_eas_possible's machine part: some CPU has an
// asymmetric domain covering every capacity, and SMT is off.
func (s *System) energyPossible() bool {
	if !s.asym || s.top.SMTActive() {
		return false
	}
	for cpu := range s.caps {
		if s.top.SDAsymCPUCapacity(cpu) != nil {
			return true
		}
	}
	return false
}

// EnergyModel returns the energy model attached with WithEnergyModel,
// rescaled to the machine's capacities, or nil.
func (s *System) EnergyModel() *energy.Model { return s.eas.model }

// EnergyEnabled reports sched_energy_enabled(): the root domain has perf
// domains, so wakeups are placed by energy while it is not overutilized.
func (s *System) EnergyEnabled() bool { return s.easOn }

// PerfDomains returns rd->pd, the perf domains in the kernel's list order
// (descending first CPU), or nil when EAS is off. Shared: do not modify.
func (s *System) PerfDomains() []*energy.Domain { return s.eas.pds }

// EnergyStats returns the EAS counters (all zero while EAS is off).
func (s *System) EnergyStats() EnergyStats { return s.eas.stats }

// checkEnergy is System.Check's part for EAS: with EAS off the root
// domain's own flag is never written (is_rd_overutilized reads true) and
// nothing was counted; with EAS on, rd->pd holds every CPU once, in
// descending order of first CPU, each domain priced for its CPUs'
// capacity. (Whether the flag matches its definition is not an invariant
// between its update points: a CPU's utilisation moves at every PELT
// update, the flag only at a wakeup, a tick or a balance.)
func (s *System) checkEnergy() error {
	if !s.easOn {
		if s.eas.overutil || s.eas.stats != (EnergyStats{}) || s.eas.pds != nil {
			return fmt.Errorf("EAS off, but overutilized %v, perf domains %d, stats %+v", s.eas.overutil, len(s.eas.pds), s.eas.stats)
		}
		return nil
	}
	seen := make([]bool, len(s.caps))
	for k, d := range s.eas.pds {
		if k > 0 && d.FirstCPU() >= s.eas.pds[k-1].FirstCPU() {
			return fmt.Errorf("perf domain %v listed after %v: rd->pd runs in descending first CPU", d.CPUs(), s.eas.pds[k-1].CPUs())
		}
		for _, c := range d.CPUs() {
			if c >= len(seen) || seen[c] {
				return fmt.Errorf("perf domain %v: cpu%d outside the machine or in two domains", d.CPUs(), c)
			}
			seen[c] = true
			if s.capacityOf(c) != d.Capacity() {
				return fmt.Errorf("perf domain %v priced for capacity %d, cpu%d has %d", d.CPUs(), d.Capacity(), c, s.capacityOf(c))
			}
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return fmt.Errorf("EAS on, but cpu%d is in no perf domain", i)
	}
	return nil
}

// CPUUtil returns cpu_util_cfs(cpu): the root queue's utilisation (the
// larger of util_avg and util_est), at most the CPU's capacity, as of its
// last PELT update (an idle CPU's is not decayed until something updates
// it, as schedutil reads it); 0 for a bad id. It is what an energy.Meter
// samples per CPU to estimate a run's energy.
func (s *System) CPUUtil(cpu int) uint64 {
	if uint(cpu) >= uint(len(s.cpus)) {
		return 0
	}
	return s.cpuUtilCfs(cpu)
}
