package topology

import (
	"errors"
	"fmt"
)

// MaxCPUs is the largest machine Build accepts: 8192 CPUs, the largest
// CONFIG_NR_CPUS an x86-64 kernel can be built with (MAXSMP). Spans are
// full-width bitmaps, so a topology of N CPUs holds about N²/64 words for
// its one-CPU groups: 8 MiB at the limit.
const MaxCPUs = 8192

// Numbering says which CPU id each hardware thread gets. Scan orders are
// ascending CPU id (and "wrap from k"), so the numbering decides which idle
// CPU a scan finds first: the kernel's choices depend on it.
type Numbering int

const (
	// Linear numbers the threads of a core next to each other:
	// cpu = ((s·L + l)·C + c)·T + t. Sibling threads are adjacent, so an
	// SMT domain spans "0-1", an LLC "0-7". This is the default.
	Linear Numbering = iota
	// X86 numbers the first thread of every core first, then the second
	// thread of every core, as x86 firmware enumerates them:
	// cpu = t·(S·L·C) + (s·L + l)·C + c. Siblings are N/T apart, so an SMT
	// domain spans "0,8" and an LLC "0-3,8-11".
	X86
)

var numberingNames = [...]string{Linear: "linear", X86: "x86"}

// String returns "linear" or "x86".
func (n Numbering) String() string {
	if n >= 0 && int(n) < len(numberingNames) {
		return numberingNames[n]
	}
	return fmt.Sprintf("Numbering(%d)", int(n))
}

// ParseNumbering parses "linear" or "x86".
func ParseNumbering(s string) (Numbering, error) {
	for i, name := range numberingNames {
		if s == name {
			return Numbering(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want linear or x86)", ErrBadNumbering, s)
}

// Errors wrapped by Build's errors.
var (
	ErrBadMachine   = errors.New("topology: bad machine")
	ErrBadNumbering = errors.New("topology: unknown numbering")
	ErrTooLarge     = errors.New("topology: machine too large")
)

// A Machine is a symmetric machine: Packages sockets, each with
// LLCsPerPackage last-level caches, each shared by CoresPerLLC cores of
// ThreadsPerCore SMT threads; every CPU has capacity 1024. Numbering says
// how its Packages·LLCsPerPackage·CoresPerLLC·ThreadsPerCore CPUs are
// numbered.
//
// The whole machine is one NUMA node (KERNEL-SPEC-SMP §0.2): the packages
// only group LLCs, and the scheduler sees them as the groups of its top
// domain when there is more than one LLC.
type Machine struct {
	Packages       int       // sockets, at least 1
	LLCsPerPackage int       // last-level caches of each package, at least 1
	CoresPerLLC    int       // cores sharing each LLC, at least 1
	ThreadsPerCore int       // SMT threads of each core, at least 1 (1: no SMT)
	Numbering      Numbering // how the CPUs are numbered (default Linear)
}

// NumCPUs returns the number of CPUs of a valid machine.
func (m Machine) NumCPUs() int {
	return m.Packages * m.LLCsPerPackage * m.CoresPerLLC * m.ThreadsPerCore
}

// String describes m as "2x1x4x2 linear" (packages × LLCs per package ×
// cores per LLC × threads per core).
func (m Machine) String() string {
	return fmt.Sprintf("%dx%dx%dx%d %v", m.Packages, m.LLCsPerPackage, m.CoresPerLLC, m.ThreadsPerCore, m.Numbering)
}

// Validate reports what is wrong with m, or nil: every count must be at
// least 1, the numbering known, and the machine no larger than MaxCPUs.
func (m Machine) Validate() error {
	counts := [...]struct {
		name string
		v    int
	}{
		{"packages", m.Packages},
		{"LLCs per package", m.LLCsPerPackage},
		{"cores per LLC", m.CoresPerLLC},
		{"threads per core", m.ThreadsPerCore},
	}
	n := 1
	for _, c := range counts {
		if c.v < 1 {
			return fmt.Errorf("%w: %d %s (want at least 1)", ErrBadMachine, c.v, c.name)
		}
		// Each factor is at most MaxCPUs before the product is checked, so
		// the product never overflows.
		if c.v > MaxCPUs {
			return fmt.Errorf("%w: %d %s (at most %d CPUs)", ErrTooLarge, c.v, c.name, MaxCPUs)
		}
		n *= c.v
		if n > MaxCPUs {
			return fmt.Errorf("%w: %v has more than %d CPUs", ErrTooLarge, m, MaxCPUs)
		}
	}
	if m.Numbering != Linear && m.Numbering != X86 {
		return fmt.Errorf("%w: %d", ErrBadNumbering, int(m.Numbering))
	}
	return nil
}

// Coords places a CPU in the machine. LLC and Core are global indices:
// LLC = s·L + l counts LLCs across packages, Core = LLC·C + c counts cores
// across LLCs; both number their units in ascending order of the unit's
// first CPU, under either numbering.
type Coords struct {
	Package int // the package (socket), 0..Packages−1
	LLC     int // the LLC across the machine, 0..Packages·LLCsPerPackage−1
	Core    int // the core across the machine, 0..LLCs·CoresPerLLC−1
	Thread  int // the SMT thread within the core, 0..ThreadsPerCore−1
}

// coords returns the place of cpu (0 ≤ cpu < NumCPUs) in a valid m.
func (m Machine) coords(cpu int) Coords {
	c, t := m.CoresPerLLC, m.ThreadsPerCore
	var core, thread int
	switch m.Numbering {
	case X86:
		cores := m.Packages * m.LLCsPerPackage * c
		thread, core = cpu/cores, cpu%cores
	default:
		thread, core = cpu%t, cpu/t
	}
	llc := core / c
	return Coords{Package: llc / m.LLCsPerPackage, LLC: llc, Core: core, Thread: thread}
}

// cpuOf returns the CPU id of thread t of global core index core.
func (m Machine) cpuOf(core, thread int) int {
	if m.Numbering == X86 {
		return thread*m.Packages*m.LLCsPerPackage*m.CoresPerLLC + core
	}
	return core*m.ThreadsPerCore + thread
}
