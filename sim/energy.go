package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedmodel/fairclass/energy"
)

// Energy-aware scheduling in the simulator (KERNEL-SPEC-ASYM §6, §8):
// Config.EnergyModel is attached to the System with smp.WithEnergyModel,
// and a run's energy is estimated by an energy.Meter sampled at every tick
// instant.
//
// Time runs at every CPU's maximum frequency (the PELT clock and the speed
// of work); only the estimate uses the performance state schedutil would
// pick from each domain's busiest CPU (map_util_perf: u + u/4, the 1.25
// headroom). The estimate is therefore decision-exact and
// timing-approximate: a task that would run longer at a lower frequency
// runs as long as at the highest here.

// energyMeter is a run's energy accounting: the Meter of the System's
// (rescaled) model, the utilisation buffer it reads, and the root
// domain's overutilized time, all sampled at tick instants.
type energyMeter struct {
	m     *energy.Meter
	utils []uint64
	// last is the simulated time of the previous sample: a sample
	// accounts the time since it at the utilisations it reads.
	last uint64
	// overNs is the time during which the root domain was overutilized,
	// each interval charged to the state read at its closing sample.
	overNs uint64
}

// newEnergyMeter sets up the run's meter when Config.EnergyModel is set:
// the System's rescaled model, or with EnergyEstimateOnly the model
// rescaled here as smp would (capacities of 1024 on a symmetric machine).
func (s *Sim) newEnergyMeter() error {
	m := s.sys.EnergyModel()
	if m == nil && s.cfg.EnergyModel != nil {
		caps := s.top.Capacities()
		if caps == nil {
			caps = make([]uint64, s.top.NumCPUs())
			for i := range caps {
				caps[i] = 1024
			}
		}
		if s.cfg.EnergyModel.NumCPUs() > len(caps) {
			return fmt.Errorf("energy model names cpu%d, the machine has CPUs 0-%d", s.cfg.EnergyModel.NumCPUs()-1, len(caps)-1)
		}
		var err error
		if m, err = s.cfg.EnergyModel.Rescale(caps); err != nil {
			return fmt.Errorf("energy model: %w", err)
		}
	}
	if m == nil {
		return nil
	}
	s.meter = &energyMeter{m: energy.NewMeter(m), utils: make([]uint64, s.top.NumCPUs())}
	return nil
}

// sampleEnergy is one Meter.Add at a tick instant, after the CPUs' ticks:
// the interval since the previous sample at each CPU's cpu_util_cfs now.
// It allocates nothing.
func (s *Sim) sampleEnergy() {
	e := s.meter
	dt := s.now - e.last
	if dt == 0 {
		return
	}
	for i := range e.utils {
		e.utils[i] = s.sys.CPUUtil(i)
	}
	if err := e.m.Add(dt, e.utils); err != nil {
		s.fail(err)
		return
	}
	if s.sys.EnergyEnabled() && s.sys.Overutilized() {
		e.overNs += dt
	}
	e.last = s.now
}

// EnergyReport is a run's energy estimate and the EAS counters, present
// only when Config.EnergyModel is set.
type EnergyReport struct {
	// Enabled is smp's EnergyEnabled: the model covers every CPU of an
	// asymmetric machine without SMT, so wakeups are placed by energy.
	Enabled bool `json:"enabled"`
	// Meter is the estimate: energy per CPU and per performance domain
	// (µJ) and each domain's time in every performance state, over the
	// sampled time (ElapsedNs, tick instants up to the end).
	Meter energy.MeterReport `json:"meter"`
	// Placements counts wakeups placed by find_energy_efficient_cpu,
	// Moved those that left their previous CPU, and Skipped the wakeups
	// that found the root domain overutilized.
	Placements uint64 `json:"eas_placements"`
	Moved      uint64 `json:"eas_moved"`
	Skipped    uint64 `json:"eas_skipped"`
	// OverutilizedNs is the time the root domain was overutilized, from
	// the flag read at each sample; OverutilizedSet and
	// OverutilizedCleared count its transitions.
	OverutilizedNs      uint64 `json:"overutilized_ns"`
	OverutilizedSet     uint64 `json:"overutilized_set"`
	OverutilizedCleared uint64 `json:"overutilized_cleared"`
}

// energyReport builds the report's energy section (nil without a model).
func (s *Sim) energyReport() *EnergyReport {
	e := s.meter
	if e == nil {
		return nil
	}
	st := s.sys.EnergyStats()
	return &EnergyReport{
		Enabled:             s.sys.EnergyEnabled(),
		Meter:               e.m.Report(),
		Placements:          st.Placements,
		Moved:               st.Moved,
		Skipped:             st.Skipped,
		OverutilizedNs:      e.overNs,
		OverutilizedSet:     st.OverutilizedSet,
		OverutilizedCleared: st.OverutilizedCleared,
	}
}

// writeEnergyText prints the energy section of the text report.
func (r *Report) writeEnergyText(w io.Writer) {
	e := r.Energy
	if e == nil {
		return
	}
	m := &e.Meter
	state := "off (the machine or the model does not allow it)"
	if e.Enabled {
		state = "on"
	}
	fmt.Fprintf(w, "energy (estimate at schedutil's states, time at max frequency): EAS %s, %.1f uJ over %s s\n",
		state, m.TotalUJ, s3(m.ElapsedNs))
	fmt.Fprintf(w, "  EAS placements %d (moved %d), skipped while overutilized %d; overutilized %s s (set %d, cleared %d)\n",
		e.Placements, e.Moved, e.Skipped, s3(e.OverutilizedNs), e.OverutilizedSet, e.OverutilizedCleared)
	for _, d := range m.Domains {
		fmt.Fprintf(w, "  domain %s: %.1f uJ; residency", cpuList(d.CPUs), d.UJ)
		for _, st := range d.Residency {
			if st.Ns > 0 {
				fmt.Fprintf(w, " %d kHz %.1f%%", st.FrequencyKHz, 100*float64(st.Ns)/float64(max(m.ElapsedNs, 1)))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  per CPU (uJ):")
	for _, c := range m.CPUs {
		fmt.Fprintf(w, " %d:%.1f", c.CPU, c.UJ)
	}
	fmt.Fprintln(w)
}

// writeEnergyCSV writes the energy rows of the CSV report.
func (r *Report) writeEnergyCSV(row func(scope, name, metric, value string)) {
	e := r.Energy
	if e == nil {
		return
	}
	u := func(v uint64) string { return fmt.Sprint(v) }
	f := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	row("energy", "", "eas_enabled", fmt.Sprint(e.Enabled))
	row("energy", "", "elapsed_ns", u(e.Meter.ElapsedNs))
	row("energy", "", "total_uj", f(e.Meter.TotalUJ))
	row("energy", "", "eas_placements", u(e.Placements))
	row("energy", "", "eas_moved", u(e.Moved))
	row("energy", "", "eas_skipped", u(e.Skipped))
	row("energy", "", "overutilized_ns", u(e.OverutilizedNs))
	row("energy", "", "overutilized_set", u(e.OverutilizedSet))
	row("energy", "", "overutilized_cleared", u(e.OverutilizedCleared))
	for _, c := range e.Meter.CPUs {
		row("energy", fmt.Sprintf("cpu%d", c.CPU), "uj", f(c.UJ))
	}
	for _, d := range e.Meter.Domains {
		name := "pd" + cpuList(d.CPUs)
		row("energy", name, "uj", f(d.UJ))
		for _, st := range d.Residency {
			row("energy", name, fmt.Sprintf("residency_ns@%dkHz", st.FrequencyKHz), u(st.Ns))
		}
	}
}

// cpuList formats CPU ids as "0-3" for a contiguous run, else "0,2,5".
func cpuList(cpus []int) string {
	if len(cpus) == 0 {
		return ""
	}
	contiguous := true
	for i := 1; i < len(cpus); i++ {
		if cpus[i] != cpus[i-1]+1 {
			contiguous = false
		}
	}
	if contiguous && len(cpus) > 1 {
		return fmt.Sprintf("%d-%d", cpus[0], cpus[len(cpus)-1])
	}
	parts := make([]string, len(cpus))
	for i, c := range cpus {
		parts[i] = fmt.Sprint(c)
	}
	return strings.Join(parts, ",")
}

// parseEnergyModel reads "energy_model": a preset name (energy.Lookup:
// "rb5", "rb5-3091", …), a file of energy's JSON form (a name ending in
// .json, relative to dir), or the model inline as an object. Its errors
// carry no position; the caller places them at the key.
func parseEnergyModel(raw json.RawMessage, dir string) (*energy.Model, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, fmt.Errorf("energy_model: %w", err)
		}
		if strings.HasSuffix(name, ".json") {
			p := name
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("energy_model: %w", err)
			}
			m, err := energy.LoadBytes(data)
			if err != nil {
				return nil, fmt.Errorf("energy_model %s: %w", name, err)
			}
			return m, nil
		}
		m, err := energy.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("energy_model: %w", err)
		}
		return m, nil
	}
	m, err := energy.LoadBytes(raw)
	if err != nil {
		return nil, fmt.Errorf("energy_model: %w", err)
	}
	return m, nil
}
