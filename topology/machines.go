package topology

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrUnknownMachine is wrapped by LookupMachine's error for a name that is
// no machine preset.
var ErrUnknownMachine = errors.New("topology: unknown machine preset")

// A MachinePreset is a named real or generic machine: its shape, its CPUs'
// capacities (nil: all 1024) and the kernel's HZ on it.
type MachinePreset struct {
	Name       string
	Doc        string   // one line: what the machine is and where its numbers come from
	Machine    Machine  // the shape
	Capacities []uint64 // per CPU arch_scale_cpu_capacity, nil when symmetric
	HZ         int      // CONFIG_HZ the machine's usual kernel is built with
}

// Build builds the preset's topology (BuildCapacities).
func (p MachinePreset) Build() (*Topology, error) {
	return BuildCapacities(p.Machine, p.Capacities)
}

// rb5 returns the Qualcomm RB5 (QRB5165/SM8250): four little CPUs 0–3
// (capacity-dmips-mhz 448, 1 804 800 kHz), three gold CPUs 4–6 (1024,
// 2 419 200 kHz) and the prime CPU 7 (1024, f7 kHz), one L3 over all eight
// (KERNEL-SPEC-ASYM §10.1, §2.8 case A). HZ 250 is arm64's defconfig.
func rb5(name string, f7 uint64, doc string) MachinePreset {
	d := []uint64{448, 448, 448, 448, 1024, 1024, 1024, 1024}
	f := []uint64{1804800, 1804800, 1804800, 1804800, 2419200, 2419200, 2419200, f7}
	caps, err := CapacitiesFromDMIPS(d, f)
	if err != nil {
		panic(err) // constant inputs: cannot fail
	}
	return MachinePreset{
		Name:       name,
		Doc:        doc,
		Machine:    Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 8, ThreadsPerCore: 1},
		Capacities: caps,
		HZ:         250,
	}
}

// MachinePresets returns the named machines, in a fixed order:
//
//   - "rb5": the Qualcomm RB5 with the prime CPU at 2 841.6 MHz, capacities
//     284 ×4, 871 ×3, 1024 (the default, KERNEL-SPEC-ASYM §10.1);
//   - "rb5-3091": the same board if its prime CPU reports 3 091.2 MHz,
//     capacities 261 ×4, 801 ×3, 1024 (the spec's alternative).
//
// The generic shape is BigLittle.
func MachinePresets() []MachinePreset {
	return []MachinePreset{
		rb5("rb5", 2841600, "Qualcomm RB5 (SM8250): 4 little + 3 gold + 1 prime, one L3, prime at 2841.6 MHz"),
		rb5("rb5-3091", 3091200, "Qualcomm RB5 (SM8250), alternative: prime at 3091.2 MHz"),
	}
}

// BigLittle returns a generic asymmetric machine of one LLC: little CPUs
// 0..little−1 of capacity littleCap, then big CPUs of capacity bigCap
// (the largest capacity must be 1024), HZ 250. It returns an error
// wrapping ErrBadCapacity or ErrBadMachine for counts below 1 or bad
// capacities.
func BigLittle(little, big int, littleCap, bigCap uint64) (MachinePreset, error) {
	if little < 1 || big < 1 || little > MaxCPUs || big > MaxCPUs-little {
		return MachinePreset{}, fmt.Errorf("%w: %d little + %d big CPUs (want at least 1 of each, at most %d in all)", ErrBadMachine, little, big, MaxCPUs)
	}
	caps := make([]uint64, little+big)
	for i := range caps {
		caps[i] = bigCap
		if i < little {
			caps[i] = littleCap
		}
	}
	m := Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: little + big, ThreadsPerCore: 1}
	if err := validateCapacities(caps, len(caps)); err != nil {
		return MachinePreset{}, err
	}
	name := fmt.Sprintf("biglittle:%d*%d,%d*%d", little, littleCap, big, bigCap)
	return MachinePreset{Name: name, Doc: "generic big.LITTLE, one LLC", Machine: m, Capacities: caps, HZ: 250}, nil
}

// LookupMachine returns the preset named name: one of MachinePresets, or
// "biglittle:N*C,M*D" for BigLittle(N, M, C, D).
func LookupMachine(name string) (MachinePreset, error) {
	for _, p := range MachinePresets() {
		if p.Name == name {
			return p, nil
		}
	}
	if rest, ok := strings.CutPrefix(name, "biglittle:"); ok {
		var n [2]int
		var c [2]uint64
		parts := strings.Split(rest, ",")
		if len(parts) == 2 {
			okAll := true
			for i, part := range parts {
				a, b, cut := strings.Cut(part, "*")
				x, err1 := strconv.Atoi(a)
				y, err2 := strconv.ParseUint(b, 10, 64)
				okAll = okAll && cut && err1 == nil && err2 == nil
				n[i], c[i] = x, y
			}
			if okAll {
				return BigLittle(n[0], n[1], c[0], c[1])
			}
		}
		return MachinePreset{}, fmt.Errorf("%w: %q (want biglittle:N*C,M*D, N little CPUs of capacity C then M big ones of D)", ErrUnknownMachine, name)
	}
	return MachinePreset{}, fmt.Errorf("%w: %q (want rb5, rb5-3091 or biglittle:N*C,M*D)", ErrUnknownMachine, name)
}
