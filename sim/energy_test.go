package sim

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/energy"
)

// rb5EnergyConfig is the RB5 for 300 ms with a light periodic task and a
// hog from 100 ms; model is an "energy_model" line or nothing.
func rb5EnergyConfig(t *testing.T, model string) []byte {
	t.Helper()
	return []byte(`{
  "seed": 3,
  "machine": {"preset": "rb5"},` + model + `
  "duration": "300ms",
  "workloads": [{"kind": "tasks", "name": "w", "tasks": [
    {"name": "light", "program": [{"forever": [{"timer": "16ms"}, {"run": "1ms"}]}]},
    {"name": "hog", "start": "100ms", "program": [{"spin": true}]}]}]
}`)
}

func simulateJSON(t *testing.T, data []byte) *Report {
	t.Helper()
	cfg, err := ParseConfig(data, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Without "energy_model" the report has no energy section and its JSON
// and CSV no energy field; EnergyEstimateOnly prices a run without
// changing one number of it.
func TestEnergyEstimateOnlyChangesNothing(t *testing.T) {
	plain := simulateJSON(t, rb5EnergyConfig(t, ""))
	if plain.Energy != nil {
		t.Fatal("a run without a model has an energy section")
	}
	var js, cs bytes.Buffer
	if err := plain.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := plain.WriteCSV(&cs); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), `"energy"`) || strings.Contains(cs.String(), "energy,") {
		t.Error("the JSON or CSV of a run without a model mentions energy")
	}
	cfg, err := ParseConfig(rb5EnergyConfig(t, `"energy_model": "rb5",`), ".")
	if err != nil {
		t.Fatal(err)
	}
	cfg.EnergyEstimateOnly = true
	priced, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := priced.Energy
	if e == nil || e.Enabled || e.Placements != 0 || e.OverutilizedNs != 0 {
		t.Fatalf("estimate only: energy %+v, want a section with EAS off", e)
	}
	if e.Meter.TotalUJ <= 0 || e.Meter.ElapsedNs != 300e6 {
		t.Errorf("estimate only: %.1f µJ over %d ns, want some energy over 300 ms", e.Meter.TotalUJ, e.Meter.ElapsedNs)
	}
	priced.Energy = nil
	var a, b bytes.Buffer
	plain.WriteJSON(&a)
	priced.WriteJSON(&b)
	if a.String() != b.String() {
		t.Error("pricing a run changed its report")
	}
}

// With the RB5's model EAS is on: wakeups are placed by energy, the hog
// sets the root overutilized, and the report's sums agree: the CPUs'
// energies add up to their domains' and the domains' to the total, every
// domain's residency covers the sampled time, and the text, JSON and CSV
// carry the section.
func TestEnergyReportOnRB5(t *testing.T) {
	r := simulateJSON(t, rb5EnergyConfig(t, `"energy_model": "rb5",`))
	e := r.Energy
	if e == nil || !e.Enabled {
		t.Fatalf("energy %+v, want EAS on", e)
	}
	if e.Placements == 0 || e.OverutilizedSet == 0 || e.OverutilizedNs == 0 {
		t.Errorf("placements %d, overutilized set %d, %d ns: want each positive", e.Placements, e.OverutilizedSet, e.OverutilizedNs)
	}
	m := &e.Meter
	if m.ElapsedNs != r.EndNs {
		t.Errorf("sampled %d ns of a %d ns run (every tick instant, the last at the end)", m.ElapsedNs, r.EndNs)
	}
	var dom float64
	for _, d := range m.Domains {
		var cpus float64
		for _, c := range m.CPUs {
			for _, id := range d.CPUs {
				if c.CPU == id {
					cpus += c.UJ
				}
			}
		}
		if diff := cpus - d.UJ; diff > 1e-6*d.UJ || diff < -1e-6*d.UJ {
			t.Errorf("domain %v: %.3f µJ, its CPUs %.3f", d.CPUs, d.UJ, cpus)
		}
		var res uint64
		for _, st := range d.Residency {
			res += st.Ns
		}
		if res != m.ElapsedNs {
			t.Errorf("domain %v: residency %d ns of %d", d.CPUs, res, m.ElapsedNs)
		}
		dom += d.UJ
	}
	if diff := dom - m.TotalUJ; diff > 1e-6*dom || diff < -1e-6*dom {
		t.Errorf("domains %.3f µJ, total %.3f", dom, m.TotalUJ)
	}
	var text, js, cs bytes.Buffer
	r.WriteText(&text)
	r.WriteJSON(&js)
	r.WriteCSV(&cs)
	for _, c := range []struct{ out, want string }{
		{text.String(), "energy (estimate at schedutil's states, time at max frequency): EAS on"},
		{text.String(), "  domain 0-3: "},
		{js.String(), `"eas_placements"`},
		{cs.String(), "energy,pd4-6,uj,"},
		{cs.String(), "energy,,overutilized_ns,"},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("report lacks %q", c.want)
		}
	}
}

// "energy_model" takes a preset name, a file or an inline object, and
// its errors name the key at its position.
func TestEnergyModelConfigKey(t *testing.T) {
	dir := t.TempDir()
	spec, err := json.Marshal(energy.Synthetic2x2().Spec())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "em.json"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	base := func(model string) []byte {
		return []byte(`{"cpus": 4, "duration": "10ms",
 "energy_model": ` + model + `,
 "workloads": [{"kind": "tasks", "name": "w", "tasks": [{"name": "hog", "program": [{"spin": true}]}]}]}`)
	}
	for _, c := range []struct {
		name, model string
		domains     int
		err         string
	}{
		{"preset", `"rb5"`, 3, ""},
		{"file", `"em.json"`, 2, ""},
		{"inline", string(spec), 2, ""},
		{"unknown preset", `"rb9"`, 0, "config:2:18: energy_model"},
		{"missing file", `"nope.json"`, 0, "config:2:18: energy_model"},
		{"bad field", `{"domains": [{"cpus": [0], "sates": []}]}`, 0, "config:2:18: energy_model"},
		{"wrong type", `7`, 0, "config:2:18: energy_model"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig(base(c.model), dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.EnergyModel == nil || len(cfg.EnergyModel.Domains()) != c.domains {
				t.Fatalf("model %v, want %d domains", cfg.EnergyModel, c.domains)
			}
		})
	}
}

// A sample of the meter at a tick allocates nothing.
func TestEnergySampleAllocatesNothing(t *testing.T) {
	cfg, err := ParseConfig(rb5EnergyConfig(t, `"energy_model": "rb5",`), ".")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		s.now += s.tickNsec
		s.sampleEnergy()
	})
	if allocs != 0 {
		t.Errorf("sampleEnergy allocates %.1f times", allocs)
	}
}
