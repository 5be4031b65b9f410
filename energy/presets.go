package energy

import (
	"errors"
	"fmt"
)

// ErrUnknownPreset is wrapped by Lookup's error for a name that is no
// preset.
var ErrUnknownPreset = errors.New("energy: unknown energy-model preset")

// Synthetic2x2 returns KERNEL-SPEC-ASYM §10.3's machine for EAS tests:
// CPUs 0–1 of capacity 512 (states 500 000 and 1 000 000 kHz at 100 000
// and 400 000 µW: performance 256 and 512, costs 3906 and 7812), CPUs 2–3
// of capacity 1024 (1 000 000 and 2 000 000 kHz at 400 000 and
// 1 600 000 µW: performance 512 and 1024, costs 7812 and 15625). No state
// is inefficient. Its machine is topology.BigLittle(2, 2, 512, 1024).
func Synthetic2x2() *Model {
	m, err := New(Synthetic2x2Spec())
	if err != nil {
		panic(err) // constant input: cannot fail
	}
	return m
}

// Synthetic2x2Spec is Synthetic2x2's specification.
func Synthetic2x2Spec() Spec {
	return Spec{Domains: []DomainSpec{
		{CPUs: []int{0, 1}, Capacity: 512, States: []StateSpec{
			{FrequencyKHz: 500000, PowerUW: 100000},
			{FrequencyKHz: 1000000, PowerUW: 400000},
		}},
		{CPUs: []int{2, 3}, Capacity: 1024, States: []StateSpec{
			{FrequencyKHz: 1000000, PowerUW: 400000},
			{FrequencyKHz: 2000000, PowerUW: 1600000},
		}},
	}}
}

// The RB5's operating points (KERNEL-SPEC-ASYM §10.1), from the device
// tree, in kHz. The prime CPU's list stops at 2 841 600 kHz: the 3 091 200
// kHz entry belongs to other SM8250 parts, and topology's rb5 preset
// assumes the QRB5165's specified 2.84 GHz (rb5PrimeMax3091 adds it).
var (
	rb5LittleKHz = []uint64{300000, 403200, 518400, 614400, 691200, 787200, 883200, 979200, 1075200,
		1171200, 1248000, 1344000, 1420800, 1516800, 1612800, 1708800, 1804800}
	rb5GoldKHz = []uint64{710400, 825600, 940800, 1056000, 1171200, 1286400, 1382400, 1478400, 1574400,
		1670400, 1766400, 1862400, 1958400, 2054400, 2150400, 2246400, 2342400, 2419200}
	rb5PrimeKHz = []uint64{844800, 960000, 1075200, 1190400, 1305600, 1401600, 1516800, 1632000, 1747200,
		1862400, 1977600, 2073600, 2169600, 2265600, 2361600, 2457600, 2553600, 2649600, 2745600, 2841600}
)

// rb5PrimeMax3091 is the device tree's last prime OPP, used by the
// rb5-3091 variant.
const rb5PrimeMax3091 = 3091200

// VoltageRange is an ASSUMED voltage ramp of a performance domain: the
// voltage rises linearly with frequency from LowMV at the lowest state to
// HighMV at the highest, state i getting
// LowMV + ⌊(HighMV − LowMV)·(f_i − f_0)/(f_n − f_0)⌋ mV.
type VoltageRange struct{ LowMV, HighMV uint64 }

// RB5VoltageRange returns the voltages the RB5 preset ASSUMES for its
// little (CPUs 0–3), gold (4–6) and prime (7) domains: 570–900 mV,
// 620–1000 mV and 660–1050 mV. They are not the board's: the device tree
// has no voltages (qcom-cpufreq-hw reads them from the hardware's lookup
// table), so every RB5 power and cost is an estimate of the right order,
// to be replaced by the board's /sys/kernel/debug/energy_model values.
func RB5VoltageRange() (little, gold, prime VoltageRange) {
	return VoltageRange{570, 900}, VoltageRange{620, 1000}, VoltageRange{660, 1050}
}

// The RB5's device-tree dynamic-power-coefficient values, µW/MHz/V².
const (
	rb5LittleCoeff = 105
	rb5GoldCoeff   = 379
	rb5PrimeCoeff  = 444
)

// RB5 returns the Qualcomm RB5's energy model for topology's "rb5" preset
// (capacities 284, 871, 1024): three domains {0–3}, {4–6}, {7} with the
// device tree's frequencies (the prime's up to 2 841 600 kHz) and
// dynamic-power coefficients 105, 379 and 444, and powers from
// DynamicPower at the ASSUMED voltages of RB5VoltageRange. Performances
// are those of KERNEL-SPEC-ASYM §10.1; the costs depend on the assumed
// voltages.
func RB5() *Model { return rb5Model(rb5PrimeKHz, []uint64{284, 871, 1024}) }

// RB5Alt returns the model for topology's "rb5-3091" preset: the prime
// domain gains the 3 091 200 kHz state and the capacities are 261, 801,
// 1024. The voltages are assumed as in RB5, the prime's ramp ending at
// 3 091 200 kHz.
func RB5Alt() *Model {
	return rb5Model(append(append([]uint64(nil), rb5PrimeKHz...), rb5PrimeMax3091), []uint64{261, 801, 1024})
}

// rb5Model builds the RB5 model with the prime's frequencies and the
// three domains' capacities.
func rb5Model(prime []uint64, caps []uint64) *Model {
	little, gold, primeV := RB5VoltageRange()
	m, err := New(Spec{Domains: []DomainSpec{
		rampDomain([]int{0, 1, 2, 3}, caps[0], rb5LittleCoeff, rb5LittleKHz, little),
		rampDomain([]int{4, 5, 6}, caps[1], rb5GoldCoeff, rb5GoldKHz, gold),
		rampDomain([]int{7}, caps[2], rb5PrimeCoeff, prime, primeV),
	}})
	if err != nil {
		panic(err) // constant input: cannot fail
	}
	return m
}

// rampDomain is a domain whose states' voltages follow the ramp v.
func rampDomain(cpus []int, capacity, coeff uint64, khz []uint64, v VoltageRange) DomainSpec {
	d := DomainSpec{CPUs: cpus, Capacity: capacity, DynamicPowerCoefficient: coeff}
	f0, fn := khz[0], khz[len(khz)-1]
	for _, f := range khz {
		mv := v.LowMV + (v.HighMV-v.LowMV)*(f-f0)/(fn-f0)
		d.States = append(d.States, StateSpec{FrequencyKHz: f, VoltageMV: mv})
	}
	return d
}

// Preset is a named energy model.
type Preset struct {
	Name  string
	Doc   string // one line: what the model is and what is assumed
	Model *Model
}

// Presets returns the named models in a fixed order: "rb5" and
// "rb5-3091" (for topology's presets of the same names; voltages
// assumed), "synthetic-2x2" (KERNEL-SPEC-ASYM §10.3, for the machine
// "biglittle:2*512,2*1024").
func Presets() []Preset {
	return []Preset{
		{"rb5", "Qualcomm RB5: device-tree frequencies and coefficients, ASSUMED voltages", RB5()},
		{"rb5-3091", "Qualcomm RB5 with the prime at 3091.2 MHz, ASSUMED voltages", RB5Alt()},
		{"synthetic-2x2", "KERNEL-SPEC-ASYM §10.3: CPUs 0-1 capacity 512, 2-3 capacity 1024", Synthetic2x2()},
	}
}

// Lookup returns the preset model named name.
func Lookup(name string) (*Model, error) {
	for _, p := range Presets() {
		if p.Name == name {
			return p.Model, nil
		}
	}
	return nil, fmt.Errorf("%w: %q (want rb5, rb5-3091 or synthetic-2x2)", ErrUnknownPreset, name)
}
