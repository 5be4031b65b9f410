// Package topology models the scheduling domains the Linux kernel builds for
// a machine (kernel/sched/topology.c at mainline 673dab7eac16, specified in
// KERNEL-SPEC-SMP §1): which levels exist for each CPU, their spans, SD_*
// flags, balancing intervals and thresholds, their groups in the order the
// balancer walks them, and the per-CPU shortcuts the fair class reads
// (sd_llc, sd_llc_size, sd_llc_id, sd_share_id, sd_llc_shared). It is the
// static half of the fair class across CPUs; package smp keeps the runtime
// state and hangs it off the objects here by their dense IDs.
//
// # The model
//
// A Machine is Packages × LLCsPerPackage × CoresPerLLC × ThreadsPerCore
// CPUs of capacity 1024, numbered Linear (SMT siblings adjacent, the
// default) or X86 (siblings N/T apart), in one NUMA node. Build runs the
// kernel's construction on it step by step — the generic table of levels
// SMT, MC, PKG, sd_init's values, build_sched_groups, the claim of the LLC's
// sched_domain_shared, cpu_attach_domain's degeneration pass with its
// flag hand-downs, update_top_cache_domain — rather than writing down its
// outcome, so every case of KERNEL-SPEC-SMP §1.5 comes out as the kernel's
// does:
//
//	machine (S·L, C, T)     levels for each CPU          remarks
//	T ≥ 2, C ≥ 2, S·L ≥ 2   SMT, MC, PKG                 MC is sd_llc
//	T = 1                   MC, PKG                      MC's groups are CPUs with flags 0
//	C = 1, T ≥ 2            SMT, PKG                     SMT is sd_llc and owns Shared
//	C·T = 1                 PKG                          no sd_llc: each CPU its own LLC
//	S·L = 1                 SMT, MC (or what remains)    PKG is never built
//	N = 1                   none                         no balancing
//
// Domains are per CPU (each CPU owns its Domain objects, for its balancing
// state); spans, groups and Shared objects are shared by pointer between
// the CPUs that see them, as in the kernel. CPU sets are Masks: bitmaps of
// any size (up to MaxCPUs, 8192), iterated in the kernel's orders without
// allocating.
//
// # Asymmetric capacities
//
// BuildCapacities builds the same domains with a capacity per CPU
// (arch_scale_cpu_capacity, KERNEL-SPEC-ASYM §1–§2; CapacitiesFromDMIPS
// computes it from device-tree values): asym_cap_list (CapacityList),
// SD_ASYM_CPUCAPACITY and SD_ASYM_CPUCAPACITY_FULL on the domains whose
// span holds several capacities, sd_asym_cpucapacity, sd_balance_shared,
// group capacities as sums, minima and maxima, and max_allowed_capacity
// (MaxAllowedCapacity). Asymmetry needs cores of one thread. The named
// machines are MachinePresets (the RB5, "rb5" and "rb5-3091") and
// BigLittle; LookupMachine finds them by name.
//
// # Reading it back
//
// Write prints a topology as the kernel shows it — the sched_verbose boot
// log with spans and groups, the files of /sys/kernel/debug/sched/domains
// (or the older /proc/sys/kernel/sched_domain) with flags spelled as the
// kernel spells them — so that it can be compared with a real machine;
// "fairclass topology" prints it from the command line.
//
// # Also here
//
// The scaled base slice (BaseSlice: 0.7 ms × (1 + ilog2(min(N, 8)))),
// max_load_balance_interval (MaxLoadBalanceInterval), the balancer's global
// constants (MigrationCost, NrMigrate, …), and the boot and warm start
// states of runqueues, domains and LLCs (InitialRQ, InitialShared,
// Domain.Init).
//
// # Not modelled
//
// SD_ASYM_PACKING and the energy model of EAS (perf domains); the
// cluster level (CONFIG_SCHED_CLUSTER — a kernel with it numbers MC and
// PKG one level higher but builds the same domains when the cluster mask
// equals the SMT mask); architecture topology tables (x86 ITMT); more than
// one NUMA node, hence NUMA distances, SD_NUMA levels, overlapping groups
// and SD_SERIALIZE; isolated CPUs (isolcpus, nohz_full housekeeping),
// cpuset partitions and relax_domain_level; CPU hotplug (the topology is
// the one built at boot with every CPU online).
package topology
