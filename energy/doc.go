// Package energy models the kernel's energy model (include/linux/energy_model.h
// and kernel/power/energy_model.c, as KERNEL-SPEC-ASYM §8.2 specifies them):
// performance domains — CPUs that share a clock —, each with its performance
// states, and the arithmetic Energy-Aware Scheduling reads from them.
//
// # The arithmetic
//
// A performance state has a frequency f (kHz) and a power P (µW). Given the
// capacity C of its domain's CPUs (arch_scale_cpu_capacity of the first
// one) and f_max, the frequency of the domain's last state, it has
//
//	performance = ⌊C · f / f_max⌋
//	cost        = ⌊10 · P / performance⌋
//
// The cost is the power per unit of performance, scaled by 10 for
// resolution: running util units of work for one unit of time at that state
// costs cost · util. A state whose cost is not below the lowest cost of
// every faster state is inefficient: some faster state does the same work
// for no more energy. When a domain has inefficient states, Energy-Aware
// Scheduling skips them (the cpufreq driver accepted the marks; a domain
// can opt out with KeepInefficient).
//
// A device tree gives no powers, but a dynamic-power coefficient C_dyn
// (µW/MHz/V²) per CPU; with the voltage V (mV) of each state,
//
//	P = ⌊C_dyn · V² · ⌊f_Hz / 10⁶⌋ / 10⁶⌋   (DynamicPower)
//
// em_cpu_energy (Domain.CPUEnergy) estimates a domain's energy for a
// scheduling decision: the lowest state whose performance reaches the
// domain's largest CPU utilisation (the frequency schedutil would choose,
// after its 1.25 headroom, which the caller applies) prices the domain's
// summed utilisation:
//
//	energy = cost_i · sum_util,  i = min{ i : performance_i ≥ min(max_util, allowed_cap) }
//
// (the last state when none reaches it; 0 when sum_util is 0). The figure is
// a relative one, in µW·util/1024·10: the fair class only compares such
// estimates between candidate CPUs, and never observes the energy spent.
//
// # What is not modelled
//
// The policy's min/max frequency limits (every state is usable), runtime
// updates of the table, the units of artificial models beyond taking their
// cost as given (Spec's Artificial), and thermal or hardware pressure.
//
// # Presets
//
// Synthetic2x2 is KERNEL-SPEC-ASYM §10.3's machine for tests, with every
// number given by the spec. RB5 is the Qualcomm RB5's three domains. Its
// frequencies, capacity-dmips-mhz and dynamic-power coefficients are the
// device tree's (§10.1), but the voltages are not in the device tree (the
// cpufreq driver reads them from the hardware) and are therefore
// ASSUMED: each domain's voltage rises linearly with frequency between an
// assumed lowest and highest voltage (RB5VoltageRange). Every power, and so
// every cost, of the RB5 preset depends on those assumed voltages; the
// prime CPU's highest frequency (2 841.6 MHz, not the device tree's
// 3 091.2 MHz) is assumed as topology's rb5 preset assumes it.
//
// # Estimating a run's energy
//
// The fair class only compares estimates. A Meter turns a run's per-CPU
// utilisation over time into energy (µJ per CPU and per domain) and each
// domain's time in each state, charging a CPU its state's power for the
// share of time its utilisation keeps it busy.
//
// A Model is immutable once built and safe for concurrent use; StateFor,
// CPUEnergy and DomainOf allocate nothing.
package energy
