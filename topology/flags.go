package topology

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
)

// Flags is a domain's (or a group's) set of SD_* flags, with the kernel's
// bit values: include/linux/sched/sd_flags.h lists the flags in bit order,
// and the current list has no SD_OVERLAP (overlapping NUMA groups are now
// recognised by SD_NUMA) and has SD_SHARE_LLC where older kernels said
// SD_SHARE_PKG_RESOURCES. The low four bits double as wake flags: WF_EXEC
// is SD_BALANCE_EXEC, WF_FORK is SD_BALANCE_FORK, WF_TTWU is SD_BALANCE_WAKE.
type Flags uint32

// The SD_* flags, named after the kernel's.
const (
	SDBalanceNewidle      Flags = 1 << iota // SD_BALANCE_NEWIDLE: balance when about to go idle
	SDBalanceExec                           // SD_BALANCE_EXEC: balance on exec
	SDBalanceFork                           // SD_BALANCE_FORK: balance on fork and clone
	SDBalanceWake                           // SD_BALANCE_WAKE: balance on wakeup (never set by sd_init)
	SDWakeAffine                            // SD_WAKE_AFFINE: consider the waking CPU for a wakee
	SDAsymCPUCapacity                       // SD_ASYM_CPUCAPACITY: members differ in capacity
	SDAsymCPUCapacityFull                   // SD_ASYM_CPUCAPACITY_FULL: every capacity of the system is in the span
	SDShareCPUCapacity                      // SD_SHARE_CPUCAPACITY: members share a core (SMT)
	SDCluster                               // SD_CLUSTER: members share a cluster
	SDShareLLC                              // SD_SHARE_LLC: members share the last-level cache
	SDSerialize                             // SD_SERIALIZE: one balancer at a time, system-wide
	SDAsymPacking                           // SD_ASYM_PACKING: place busy tasks on preferred CPUs
	SDPreferSibling                         // SD_PREFER_SIBLING: spread to sibling groups first
	SDNUMA                                  // SD_NUMA: the domain crosses NUMA nodes

	numFlags = iota
)

// NeedsGroups is the set of flags with the SDF_NEEDS_GROUPS metaflag: they
// only mean something on a domain with more than one group, so the
// degeneration tests ignore them on a one-group domain (the kernel's
// SD_DEGENERATE_GROUPS_MASK). It is every flag but SD_WAKE_AFFINE.
const NeedsGroups = SDBalanceNewidle | SDBalanceExec | SDBalanceFork | SDBalanceWake |
	SDAsymCPUCapacity | SDAsymCPUCapacityFull | SDShareCPUCapacity | SDCluster |
	SDShareLLC | SDSerialize | SDAsymPacking | SDPreferSibling | SDNUMA

// SharedChild is the set of flags with the SDF_SHARED_CHILD metaflag: a
// domain that has one has it in every child too, so a search for the
// highest domain with such a flag stops at the first domain without it.
const SharedChild = SDBalanceNewidle | SDBalanceExec | SDBalanceFork | SDBalanceWake |
	SDWakeAffine | SDShareCPUCapacity | SDShareLLC

// SharedParent is the set of flags with the SDF_SHARED_PARENT metaflag: a
// domain that has one has it in every parent too.
const SharedParent = SDAsymCPUCapacity | SDAsymCPUCapacityFull | SDSerialize | SDNUMA

var flagNames = [numFlags]string{
	"SD_BALANCE_NEWIDLE",
	"SD_BALANCE_EXEC",
	"SD_BALANCE_FORK",
	"SD_BALANCE_WAKE",
	"SD_WAKE_AFFINE",
	"SD_ASYM_CPUCAPACITY",
	"SD_ASYM_CPUCAPACITY_FULL",
	"SD_SHARE_CPUCAPACITY",
	"SD_CLUSTER",
	"SD_SHARE_LLC",
	"SD_SERIALIZE",
	"SD_ASYM_PACKING",
	"SD_PREFER_SIBLING",
	"SD_NUMA",
}

// Has reports whether every flag of g is in f.
func (f Flags) Has(g Flags) bool { return f&g == g }

// Names returns the names of f's flags in bit order, as the kernel spells
// them ("SD_BALANCE_NEWIDLE"); a bit the kernel does not define is named
// "0x…".
func (f Flags) Names() []string {
	var names []string
	for x := f; x != 0; x &= x - 1 {
		i := bits.TrailingZeros32(uint32(x))
		if i < numFlags {
			names = append(names, flagNames[i])
		} else {
			names = append(names, fmt.Sprintf("%#x", uint32(1)<<i))
		}
	}
	return names
}

// String returns f's flag names in bit order joined by "|", or "0".
func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	return strings.Join(f.Names(), "|")
}

// Debugfs returns f as the kernel's flags files show it
// (/sys/kernel/debug/sched/domains/cpuN/domainM/flags and groups_flags):
// each name followed by one space, in bit order, without the final newline;
// no flag at all is the empty string.
func (f Flags) Debugfs() string {
	var b strings.Builder
	for _, n := range f.Names() {
		b.WriteString(n)
		b.WriteByte(' ')
	}
	return b.String()
}

// ErrBadFlag is wrapped by ParseFlags' errors.
var ErrBadFlag = errors.New("topology: unknown SD flag")

// ParseFlags parses flag names separated by spaces, commas or "|", the way
// String and the kernel's flags files print them ("0" and "" are no flag).
// It reads back what a real machine's debugfs shows, so the two can be
// compared; the older name SD_SHARE_PKG_RESOURCES is accepted for
// SD_SHARE_LLC.
func ParseFlags(s string) (Flags, error) {
	var f Flags
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '|'
	}) {
		if tok == "0" {
			continue
		}
		if tok == "SD_SHARE_PKG_RESOURCES" {
			tok = "SD_SHARE_LLC"
		}
		found := false
		for i, n := range flagNames {
			if n == tok {
				f |= 1 << i
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("%w: %q", ErrBadFlag, tok)
		}
	}
	return f, nil
}
