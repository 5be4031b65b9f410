package topology

import (
	"errors"
	"fmt"
)

// A Preset is the state a simulation starts from (KERNEL-SPEC-SMP §1.9).
type Preset int

const (
	// Boot is the state sched_init and sd_init leave: exact for a freshly
	// booted kernel. nr_idle_scan is 0 until the first periodic balance at
	// the LLC level, so select_idle_cpu scans nothing until then.
	Boot Preset = iota
	// Warm is a machine that has been up and idle for a while: every CPU
	// idle since T0, has_idle_cores set on SMT machines, nr_idle_scan at
	// its value for zero utilisation (the LLC weight), and with NOHZ idle
	// every CPU already in the nohz idle mask.
	Warm
)

var presetNames = [...]string{Boot: "boot", Warm: "warm"}

// String returns "boot" or "warm".
func (p Preset) String() string {
	if p >= 0 && int(p) < len(presetNames) {
		return presetNames[p]
	}
	return fmt.Sprintf("Preset(%d)", int(p))
}

// ErrBadPreset is wrapped by the preset functions' errors.
var ErrBadPreset = errors.New("topology: bad preset")

// ParsePreset parses "boot" or "warm".
func ParsePreset(s string) (Preset, error) {
	for i, name := range presetNames {
		if s == name {
			return Preset(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want boot or warm)", ErrBadPreset, s)
}

// RQInit is a runqueue's initial balancing state, the same for every CPU.
// The fields the kernel sets to the current jiffies at boot (next_balance,
// last_blocked_load_update_tick, the nohz next_balance and next_blocked)
// start at the simulation's first jiffy, in both presets.
type RQInit struct {
	CPUCapacity        uint64 // rq->cpu_capacity: CapacityScale
	AvgIdle            uint64 // rq->avg_idle in ns: 2·MigrationCost
	MaxIdleBalanceCost uint64 // rq->max_idle_balance_cost in ns: MigrationCost
	IdleStamp          uint64 // rq->idle_stamp in ns: 0 at boot, T0 warm
	Idle               bool   // the CPU runs its idle task (both presets)
	InNohzIdleMask     bool   // already in nohz.idle_cpus_mask (warm, NOHZ idle)
}

// SharedInit is an LLC's initial sched_domain_shared, the same for every
// LLC of a symmetric machine.
type SharedInit struct {
	NrBusyCPUs   int  // nr_busy_cpus: the LLC weight at boot, 0 warm with NOHZ idle
	HasIdleCores bool // has_idle_cores: false at boot, warm iff SMT
	NrIdleScan   int  // nr_idle_scan: 0 at boot, the LLC weight warm
}

// DomainInit is a domain's initial balancing state (sd_init). The fields
// set to jiffies (last_balance, last_decay_max_lb_cost) or sched_clock()
// (newidle_stamp) start at the simulation's first jiffy and clock.
type DomainInit struct {
	BalanceInterval  uint64 // balance_interval in ms: the span weight
	NrBalanceFailed  uint64 // nr_balance_failed: 0
	MaxNewidleLBCost uint64 // max_newidle_lb_cost in ns: 0
	NewidleCall      uint64 // newidle_call: 512
	NewidleSuccess   uint64 // newidle_success: 256 (a 50% success ratio)
	NewidleRatio     uint64 // newidle_ratio: 512
}

// Init returns d's initial balancing state.
func (d *Domain) Init() DomainInit {
	return DomainInit{
		BalanceInterval: d.minInterval,
		NewidleCall:     512,
		NewidleSuccess:  256,
		NewidleRatio:    512,
	}
}

// InitialRQ returns every runqueue's initial state under preset p. t0 is
// the clock (ns) at which the simulation starts; Warm needs t0 > 0, since an
// idle_stamp of 0 means "never idle" to the fork slow path. nohzIdle says
// whether idle CPUs stop their tick (mode B).
func (t *Topology) InitialRQ(p Preset, t0 uint64, nohzIdle bool) (RQInit, error) {
	rq := RQInit{
		CPUCapacity:        CapacityScale,
		AvgIdle:            2 * MigrationCost,
		MaxIdleBalanceCost: MigrationCost,
		Idle:               true,
	}
	switch p {
	case Boot:
	case Warm:
		if t0 == 0 {
			return RQInit{}, fmt.Errorf("%w: the warm preset needs a start clock T0 > 0", ErrBadPreset)
		}
		rq.IdleStamp = t0
		rq.InNohzIdleMask = nohzIdle
	default:
		return RQInit{}, fmt.Errorf("%w: %d", ErrBadPreset, int(p))
	}
	return rq, nil
}

// InitialShared returns every LLC's initial sched_domain_shared under
// preset p (it applies only to LLCs that have a Shared object).
func (t *Topology) InitialShared(p Preset, nohzIdle bool) (SharedInit, error) {
	w := t.m.CoresPerLLC * t.m.ThreadsPerCore
	switch p {
	case Boot:
		return SharedInit{NrBusyCPUs: w}, nil
	case Warm:
		s := SharedInit{NrBusyCPUs: w, HasIdleCores: t.SMTActive(), NrIdleScan: w}
		if nohzIdle {
			s.NrBusyCPUs = 0
		}
		return s, nil
	}
	return SharedInit{}, fmt.Errorf("%w: %d", ErrBadPreset, int(p))
}
