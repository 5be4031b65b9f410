package energy

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// The synthetic 2 + 2 machine's table (KERNEL-SPEC-ASYM §10.3), every
// column to the unit: performance ⌊cap·f/f_max⌋, cost ⌊10·P/perf⌋.
func TestSynthetic2x2TableToTheUnit(t *testing.T) {
	m := Synthetic2x2()
	want := [][]State{
		{{500000, 100000, 256, 3906, false}, {1000000, 400000, 512, 7812, false}},
		{{1000000, 400000, 512, 7812, false}, {2000000, 1600000, 1024, 15625, false}},
	}
	if len(m.Domains()) != 2 || m.Check() != nil || RB5().Check() != nil || RB5Alt().Check() != nil {
		t.Fatalf("%d domains; Check: %v", len(m.Domains()), m.Check())
	}
	for i, d := range m.Domains() {
		if !slices.Equal(d.States(), want[i]) {
			t.Errorf("domain %v: states %+v, want %+v", d.CPUs(), d.States(), want[i])
		}
		if d.SkipInefficiencies() {
			t.Errorf("domain %v skips inefficient states; the spec has none", d.CPUs())
		}
	}
	if d := m.DomainOf(3); d == nil || d.FirstCPU() != 2 || d.Capacity() != 1024 {
		t.Errorf("DomainOf(3) = %v", d)
	}
	if m.DomainOf(4) != nil || m.DomainOf(-1) != nil {
		t.Error("a CPU of no domain has one")
	}
}

// em_cpu_energy with the numbers of worked example AS12: the lowest state
// that reaches max_util prices the summed util.
func TestCPUEnergyWorkedExampleAS12(t *testing.T) {
	m := Synthetic2x2()
	little, big := m.DomainOf(0), m.DomainOf(2)
	for _, c := range []struct {
		name                    string
		d                       *Domain
		maxUtil, sumUtil, allow uint64
		want                    uint64
	}{
		{"big base: 375 fits state 0", big, 375, 300, 1024, 2343600},
		{"big with p on prev", big, 375, 400, 1024, 3124800},
		{"little base: 187 fits state 0", little, 187, 150, 512, 585900},
		{"little with p on CPU 1", little, 187, 250, 512, 976500},
		{"little with p on CPU 0: 312 needs state 1", little, 312, 250, 512, 1953000},
		{"nothing to run costs nothing", big, 900, 0, 1024, 0},
		{"beyond the top state: the top state", little, 900, 10, 512, 78120},
		{"allowed capacity caps max_util", big, 900, 10, 512, 78120},
	} {
		if got := c.d.CPUEnergy(c.maxUtil, c.sumUtil, c.allow); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// The RB5's performances are KERNEL-SPEC-ASYM §10.1's lists; its powers
// follow DynamicPower at the assumed voltages, and no state is
// inefficient (the cost rises with the voltage).
func TestRB5PerformancesAndAssumedCosts(t *testing.T) {
	m := RB5()
	wantPerf := [][]uint64{
		{47, 63, 81, 96, 108, 123, 138, 154, 169, 184, 196, 211, 223, 238, 253, 268, 284},
		{255, 297, 338, 380, 421, 463, 497, 532, 566, 601, 635, 670, 705, 739, 774, 808, 843, 871},
		{304, 345, 387, 428, 470, 505, 546, 588, 629, 671, 712, 747, 781, 816, 851, 885, 920, 954, 989, 1024},
	}
	wantCPUs := [][]int{{0, 1, 2, 3}, {4, 5, 6}, {7}}
	for i, d := range m.Domains() {
		var perf []uint64
		for _, s := range d.States() {
			perf = append(perf, s.Performance)
			if s.Inefficient {
				t.Errorf("domain %v: state %d kHz inefficient", d.CPUs(), s.Frequency)
			}
		}
		if !slices.Equal(perf, wantPerf[i]) || !slices.Equal(d.CPUs(), wantCPUs[i]) {
			t.Errorf("domain %d: cpus %v performances %v", i, d.CPUs(), perf)
		}
	}
	// The lowest and highest states of each domain, from the assumed
	// voltages: little 570 mV at 300 MHz: ⌊105·570²·300/10⁶⌋ = 10 234 µW,
	// cost ⌊102 340/47⌋ = 2177; prime 1050 mV at 2841 MHz: ⌊444·1050²·2841/10⁶⌋
	// = 1 390 697 µW, cost ⌊13 906 970/1024⌋ = 13 581.
	ends := []struct {
		cpu, state  int
		power, cost uint64
	}{
		{0, 0, 10234, 2177}, {0, 16, 153430, 5402},
		{4, 0, 103438, 4056}, {4, 17, 916801, 10525},
		{7, 0, 163235, 5369}, {7, 19, 1390697, 13581},
	}
	for _, e := range ends {
		s := m.DomainOf(e.cpu).States()[e.state]
		if s.Power != e.power || s.Cost != e.cost {
			t.Errorf("cpu%d state %d: power %d cost %d, want %d %d", e.cpu, e.state, s.Power, s.Cost, e.power, e.cost)
		}
	}
	alt := RB5Alt()
	if p := alt.DomainOf(7).States(); len(p) != 21 || p[0].Performance != 279 || alt.DomainOf(0).Capacity() != 261 {
		t.Errorf("rb5-3091: prime first performance %d of %d states, little capacity %d", p[0].Performance, len(p), alt.DomainOf(0).Capacity())
	}
}

// DynamicPower is the OPP library's ⌊C·mV²·⌊Hz/10⁶⌋/10⁶⌋: the frequency
// is floored to whole MHz first.
func TestDynamicPower(t *testing.T) {
	for _, c := range []struct{ coeff, mv, khz, want uint64 }{
		{105, 570, 300000, 10234},
		{379, 1000, 2419200, 916801}, // 2419.2 MHz counts as 2419
		{444, 1050, 2841600, 1390697},
		{1, 1, 999, 0},
	} {
		if got, ok := DynamicPower(c.coeff, c.mv, c.khz); !ok || got != c.want {
			t.Errorf("DynamicPower(%d, %d, %d) = %d %v, want %d", c.coeff, c.mv, c.khz, got, ok, c.want)
		}
	}
	if _, ok := DynamicPower(1<<40, 1<<20, 1<<20); ok {
		t.Error("an overflowing product is reported as fine")
	}
}

// A state that costs no less than a faster one is inefficient, and the
// domain then skips it, unless the domain keeps inefficient states.
func TestInefficientStatesAreSkipped(t *testing.T) {
	spec := Spec{Domains: []DomainSpec{{CPUs: []int{0}, States: []StateSpec{
		{FrequencyKHz: 500, PowerUW: 1000},  // perf 512, cost 19
		{FrequencyKHz: 750, PowerUW: 3000},  // perf 768, cost 39: dearer than the top
		{FrequencyKHz: 1000, PowerUW: 2000}, // perf 1024, cost 19
	}}}}
	m, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	d := m.DomainOf(0)
	var marks []bool
	for _, s := range d.States() {
		marks = append(marks, s.Inefficient)
	}
	// The lowest state's cost 19 equals the top's: it is inefficient too.
	if !slices.Equal(marks, []bool{true, true, false}) || !d.SkipInefficiencies() {
		t.Fatalf("marks %v skip %v", marks, d.SkipInefficiencies())
	}
	if i := d.StateFor(100, 1024); i != 2 {
		t.Errorf("util 100 picks state %d, want the efficient state 2", i)
	}
	spec.Domains[0].KeepInefficient = true
	m, _ = New(spec)
	if i := m.DomainOf(0).StateFor(100, 1024); i != 0 || m.DomainOf(0).SkipInefficiencies() {
		t.Errorf("keep_inefficient: util 100 picks state %d", i)
	}
}

// Rescale recomputes performances and costs for the machine's capacities.
func TestRescale(t *testing.T) {
	m, err := Synthetic2x2().Rescale([]uint64{256, 256, 1024, 1024})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.DomainOf(0).States(); s[0].Performance != 128 || s[0].Cost != 7812 || s[1].Cost != 15625 {
		t.Errorf("rescaled little states %+v", s)
	}
	for _, caps := range [][]uint64{{512, 512, 1024}, {512, 500, 1024, 1024}, {0, 0, 1024, 1024}} {
		if _, err := Synthetic2x2().Rescale(caps); !errors.Is(err, ErrBadModel) {
			t.Errorf("Rescale(%v): %v", caps, err)
		}
	}
}

// Load decodes strictly and names the field of every error; the JSON a
// model marshals to loads back into the same model.
func TestLoadJSON(t *testing.T) {
	b, err := json.Marshal(Synthetic2x2())
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range m.Domains() {
		if !slices.Equal(d.States(), Synthetic2x2().Domains()[i].States()) {
			t.Errorf("domain %d after a round trip: %+v", i, d.States())
		}
	}
	rb5, err := json.Marshal(RB5())
	if err != nil {
		t.Fatal(err)
	}
	if m, err := LoadBytes(rb5); err != nil || m.DomainOf(7).States()[19].Cost != 13581 {
		t.Errorf("RB5 round trip: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":1,"power_uw":1,"volts":1}]}]}`, `unknown field "volts"`},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":"fast"}]}]}`, "domains.states.frequency_khz"},
		{`{"domains":[]}`, "domains: none"},
		{`{"domains":[{"cpus":[],"states":[]}]}`, "domains[0].cpus: empty"},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":2,"power_uw":1},{"frequency_khz":1,"power_uw":1}]}]}`, "domains[0].states[1].frequency_khz"},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":1000}]}]}`, "domains[0].states[0].power_uw: missing"},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":1000,"voltage_mv":800}]}]}`, "no dynamic_power_coefficient"},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":1000,"power_uw":5,"voltage_mv":800}]}]}`, "both power_uw and voltage_mv"},
		{`{"domains":[{"cpus":[0],"capacity":2000,"states":[{"frequency_khz":1,"power_uw":1}]}]}`, "domains[0].capacity"},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":1,"power_uw":1}]},{"cpus":[0],"states":[{"frequency_khz":1,"power_uw":1}]}]}`, "cpu0 is in two domains"},
		{`{"domains":[{"cpus":[0,0],"states":[{"frequency_khz":1,"power_uw":1}]}]}`, "cpu0 twice"},
		{`{"domains":[{"cpus":[-1],"states":[{"frequency_khz":1,"power_uw":1}]}]}`, "cpu-1"},
		{`{"domains":[{"cpus":[0],"capacity":1,"states":[{"frequency_khz":1,"power_uw":1},{"frequency_khz":2000,"power_uw":1}]}]}`, "performance"},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":1,"power_uw":1,"cost":3}]}]}`, "not artificial"},
		{`{"domains":[{"cpus":[0],"artificial":true,"states":[{"frequency_khz":1}]}]}`, "domains[0].states[0].cost: missing"},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":1,"power_uw":1}]}]} {}`, "data after"},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":1,"Power_uw":1}]}]}`, `domains[0].states[0].Power_uw: unknown field "Power_uw"`},
		{`{"domains":[{"cpus":[0],"states":[{"frequency_khz":100,"power_uw":1},{}]}]}`, "domains[0].states[1].frequency_khz: 0"},
	} {
		_, err := Load(strings.NewReader(c.in))
		if !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s): %v, want an ErrBadModel naming %q", c.in, err, c.want)
		}
	}
}

// An artificial domain takes its costs as given and marks nothing.
func TestArtificialDomain(t *testing.T) {
	m, err := New(Spec{Domains: []DomainSpec{{CPUs: []int{0}, Capacity: 800, Artificial: true, States: []StateSpec{
		{FrequencyKHz: 2, Cost: 3}, {FrequencyKHz: 3, Cost: 4}, {FrequencyKHz: 4, Cost: 5}, {FrequencyKHz: 5, Cost: 6},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := m.DomainOf(0)
	if !d.Artificial() || d.SkipInefficiencies() || d.States()[0].Performance != 320 || d.CPUEnergy(500, 10, 800) != 50 {
		t.Errorf("artificial domain: %+v", d.States())
	}
}

// Lookup finds every preset and names the valid ones otherwise.
func TestLookup(t *testing.T) {
	for _, p := range Presets() {
		if m, err := Lookup(p.Name); err != nil || m == nil || p.Doc == "" {
			t.Errorf("Lookup(%q): %v", p.Name, err)
		}
	}
	if _, err := Lookup("pixel"); !errors.Is(err, ErrUnknownPreset) || !strings.Contains(err.Error(), "rb5") {
		t.Errorf("Lookup(pixel): %v", err)
	}
	if n := RB5().NumCPUs(); n != 8 {
		t.Errorf("RB5 NumCPUs %d", n)
	}
}

// The queries allocate nothing.
func TestQueriesDoNotAllocate(t *testing.T) {
	d := RB5().DomainOf(4)
	if n := testing.AllocsPerRun(100, func() { _ = d.CPUEnergy(600, 1200, 871) }); n != 0 {
		t.Errorf("CPUEnergy allocates %v times", n)
	}
}
