package topology

import "math/bits"

// Global constants the balancer reads (KERNEL-SPEC-SMP §1.10, §1.11).
const (
	// CapacityScale is SCHED_CAPACITY_SCALE, the capacity of every CPU of
	// the model (arch_scale_cpu_capacity; no SMT discount in current
	// kernels).
	CapacityScale = 1024
	// DefaultBusyFactor is sd_init's busy_factor.
	DefaultBusyFactor = 16
	// MigrationCost is sysctl_sched_migration_cost in ns (not scaled by
	// the CPU count).
	MigrationCost = 500000
	// NrMigrate is sysctl_sched_nr_migrate: tasks a balance pass may
	// examine.
	NrMigrate = 32
	// NrMigrateBreak is SCHED_NR_MIGRATE_BREAK (not PREEMPT_RT).
	NrMigrateBreak = 32
	// MaxPinnedInterval is MAX_PINNED_INTERVAL in ms, the cap on a
	// balance interval that all-pinned failures keep doubling.
	MaxPinnedInterval = 512
	// LoadAvgPeriod is LOAD_AVG_PERIOD in ms, the PELT half-life.
	LoadAvgPeriod = 32
	// NormalizedBaseSlice is normalized_sysctl_sched_base_slice in ns: the
	// base slice before scaling by the CPU count.
	NormalizedBaseSlice = 700000
)

// TunableScaling is sysctl_sched_tunable_scaling: how the base slice grows
// with the number of CPUs.
type TunableScaling int

const (
	ScalingNone   TunableScaling = iota // SCHED_TUNABLESCALING_NONE: factor 1
	ScalingLog                          // SCHED_TUNABLESCALING_LOG (default): 1 + ilog2(cpus)
	ScalingLinear                       // SCHED_TUNABLESCALING_LINEAR: cpus
)

// SchedFactor returns get_update_sysctl_factor: with cpus = min(ncpus, 8)
// online CPUs, 1 (NONE), 1 + ilog2(cpus) (LOG) or cpus (LINEAR). A count
// below 1 is taken as 1, an unknown scaling as LOG.
func SchedFactor(ncpus int, s TunableScaling) uint64 {
	cpus := uint64(min(max(ncpus, 1), 8))
	switch s {
	case ScalingNone:
		return 1
	case ScalingLinear:
		return cpus
	}
	return 1 + uint64(bits.Len64(cpus)-1)
}

// BaseSliceFor returns sysctl_sched_base_slice for ncpus online CPUs under
// the default LOG scaling (KERNEL-SPEC §2.4): 0.7 ms × (1 + ilog2(min(ncpus,
// 8))), that is 0.7, 1.4, 2.1 and 2.8 ms for 1, 2–3, 4–7 and ≥ 8 CPUs, in
// ns.
func BaseSliceFor(ncpus int) uint64 {
	return NormalizedBaseSlice * SchedFactor(ncpus, ScalingLog)
}

// BaseSlice returns the base slice every runqueue of this machine uses, in
// ns: BaseSliceFor(NumCPUs()). A multi-CPU simulator passes it to every
// runqueue.
func (t *Topology) BaseSlice() uint64 { return BaseSliceFor(t.n) }

// MaxLoadBalanceInterval returns max_load_balance_interval in jiffies for a
// kernel ticking at hz: ⌊hz·N/10⌋ once all N CPUs are up (HZ/10 before).
// The balancer clamps every balance interval to it. A hz below 1 gives 0.
func (t *Topology) MaxLoadBalanceInterval(hz int) uint64 {
	if hz < 1 {
		return 0
	}
	return uint64(hz) * uint64(t.n) / 10
}
