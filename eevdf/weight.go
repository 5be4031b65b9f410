package eevdf

// The kernel's load-weight constants and tables (kernel/sched/sched.h,
// kernel/sched/core.c).

const (
	// schedFixedpointShift is SCHED_FIXEDPOINT_SHIFT: the resolution of the
	// weight scale.
	schedFixedpointShift = 10

	// Nice0Load is NICE_0_LOAD on a 64-bit kernel: the weight of a nice-0
	// task, scaled up by 2^10 (1024 << 10).
	Nice0Load uint64 = 1 << (2 * schedFixedpointShift)

	// minShares is MIN_SHARES, the floor of an effective weight (unscaled).
	minShares uint64 = 2

	// weightIdlePrio and wmultIdlePrio are WEIGHT_IDLEPRIO and
	// WMULT_IDLEPRIO, the weight of a SCHED_IDLE task.
	weightIdlePrio uint64 = 3
	wmultIdlePrio  uint32 = 1431655765

	// MinNice and MaxNice bound the nice values (include/linux/sched/prio.h).
	MinNice = -20 // the highest priority
	MaxNice = 19  // the lowest priority

	// MinCustomSlice and MaxCustomSlice bound a custom slice as
	// sched_setattr clamps sched_runtime for a fair task (0.1 ms .. 100 ms).
	MinCustomSlice uint64 = 100000    // 0.1 ms
	MaxCustomSlice uint64 = 100000000 // 100 ms

	// DefaultBaseSlice is normalized_sysctl_sched_base_slice: 0.70 ms.
	DefaultBaseSlice uint64 = 700000

	// DefaultTickNsec is TICK_NSEC at HZ=1000.
	DefaultTickNsec uint64 = 1000000

	// migrationCost is sysctl_sched_migration_cost, read by preempt_sync.
	migrationCost uint64 = 500000
)

// scaleLoad is scale_load: an unscaled weight (1024 = nice 0) to the
// 64-bit kernel's resolution.
func scaleLoad(w uint64) uint64 { return w << schedFixedpointShift }

// scaleLoadDown is scale_load_down: 0 stays 0, anything else is shifted
// down and floored at 2.
func scaleLoadDown(w uint64) uint64 {
	if w == 0 {
		return 0
	}
	return max(2, w>>schedFixedpointShift)
}

// prioToWeight is sched_prio_to_weight: nice -20 .. 19. Each step is about
// 1.25x, so one nice level moves about 10% of the CPU between two tasks.
var prioToWeight = [40]uint64{
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548, 7620, 6100, 4904, 3906,
	/*  -5 */ 3121, 2501, 1991, 1586, 1277,
	/*   0 */ 1024, 820, 655, 526, 423,
	/*   5 */ 335, 272, 215, 172, 137,
	/*  10 */ 110, 87, 70, 56, 45,
	/*  15 */ 36, 29, 23, 18, 15,
}

// prioToWmult is sched_prio_to_wmult: the precomputed 2^32/weight of
// prioToWeight, used only by the fixed-point division (not always the
// floor: nice -18 has 76040 where 2^32/56483 = 76039.6).
var prioToWmult = [40]uint32{
	/* -20 */ 48388, 59856, 76040, 92818, 118348,
	/* -15 */ 147320, 184698, 229616, 287308, 360437,
	/* -10 */ 449829, 563644, 704093, 875809, 1099582,
	/*  -5 */ 1376151, 1717300, 2157191, 2708050, 3363326,
	/*   0 */ 4194304, 5237765, 6557202, 8165337, 10153587,
	/*   5 */ 12820798, 15790321, 19976592, 24970740, 31350126,
	/*  10 */ 39045157, 49367440, 61356676, 76695844, 95443717,
	/*  15 */ 119304647, 148102320, 186737708, 238609294, 286331153,
}

// loadWeight is struct load_weight: a scaled weight and the cached inverse
// that only the fixed-point division reads (0: compute it on demand).
type loadWeight struct {
	weight uint64
	inv    uint32
}

// NiceWeight returns the scaled-down weight of a nice level (1024 for nice
// 0), as sched_prio_to_weight gives it. It returns 0 outside -20..19.
func NiceWeight(nice int) uint64 {
	if nice < MinNice || nice > MaxNice {
		return 0
	}
	return prioToWeight[nice-MinNice]
}

// setLoadWeight is set_load_weight without the runqueue side: the weight a
// task's policy and static priority give it. SCHED_IDLE tasks weigh
// WEIGHT_IDLEPRIO whatever their nice.
func setLoadWeight(policy Policy, nice int) loadWeight {
	if policy == PolicyIdle {
		return loadWeight{scaleLoad(weightIdlePrio), wmultIdlePrio}
	}
	i := nice - MinNice
	return loadWeight{scaleLoad(prioToWeight[i]), prioToWmult[i]}
}
