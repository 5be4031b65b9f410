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
// The documentation is in docs/ (docs/README.md is its index): a page per
// topic, and every long result with the command that regenerates it. The
// design documents are in docs/spec: DESIGN.md, the API contract, and the
// specifications of the kernel behaviour modelled (KERNEL-SPEC.md,
// KERNEL-SPEC-GROUPS.md, KERNEL-SPEC-SMP.md and the others). Comments
// throughout the code cite them by name and section, as in
// "KERNEL-SPEC-SMP §7.3".
//
// This root package holds no code. Its Example is the one README.md
// shows; its tests benchmark the pick path of every timeline against
// naive baselines, and keep the documentation honest: the copies in
// docs/spec equal their originals in ../shared, every citation of a
// design document names a section that exists, every relative link of
// the documentation leads somewhere, and the README's example is the
// tested one.
package fairclass
