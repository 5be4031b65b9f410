// Package fairclass is a model of the Linux kernel's fair scheduling class
// (EEVDF, kernel/sched/fair.c) that agrees with the kernel number for
// number, with the tools to use it: feature toggles for every SCHED_FEAT
// and for the patches under discussion, a scenario language, a
// discrete-event simulator, fuzz tests of the lag invariants and
// benchmarks of the pick path.
//
// The packages, from the bottom up:
//
//   - features: the fair class's feature toggles and the seed-patch toggles;
//   - rbtree, btree: generic augmented trees (the red-black one is the
//     kernel's timeline structure);
//   - pelt: the kernel's per-entity load tracking arithmetic;
//   - eevdf: SchedEntity, CfsRq and the fair-class operations, task groups,
//     PELT signals, and the timeline's own B+-tree;
//   - topology: machines and the scheduling domains the kernel builds;
//   - smp: the fair class across CPUs — placement, migration, balancing;
//   - scenario: the scenario language, its replay and its output;
//   - sim: the simulator and its workloads, driving smp.
//
// This root package holds no code; its tests benchmark the pick path of
// every timeline against naive baselines.
package fairclass
