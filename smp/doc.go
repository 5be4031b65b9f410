// Package smp models the Linux kernel's fair scheduling class across CPUs —
// kernel/sched/fair.c and the core.c paths around it at mainline
// 673dab7eac16, as KERNEL-SPEC-SMP specifies them: how a waking or new task
// reaches a CPU (select_task_rq_fair: wake_wide, wake_affine,
// select_idle_sibling and its scans, the fork and exec slow path), what a
// move between CPUs does to the task's EEVDF and PELT state, and how the
// load balancer moves tasks that wait while other CPUs could run them
// (newly idle, periodic and active balancing, NOHZ idle balancing).
//
// A System is a machine (package topology) with one eevdf.CfsRq per CPU, all
// keeping PELT signals, all with the base slice scaled by the CPU count as
// the kernel scales it. A simulator drives it at the moments the kernel's
// core code would run, in the serial order of KERNEL-SPEC-SMP §7.3:
//
//	SetClock(t)                  every CPU's task clock, and the jiffies
//	TryToWakeUp, WakeUpNew       wakeups (by a task, or a timer) and forks
//	Block, Exit                  the running task sleeps or ends; __schedule
//	Tick(cpu), ascending          task_tick_fair, then the balance softirq;
//	                              Schedule(cpu) if RQ(cpu).NeedResched()
//	RunPending                   ILB kicks and CPU stopper works of the instant
//	Resched → Schedule           the reschedules the System's operations asked for
//
// Advance(t) does all but the task-initiated rows for a caller without an
// event loop of its own: the ticks of every tick instant up to t, the
// pending work and the reschedules (see its example). Tick, Schedule,
// Exec, WakeUpNew and TryToWakeUp keep the kernel's shape and ignore bad
// input; their twins on Checked return an error saying what was wrong.
//
// A replay of a multi-CPU scenario (SMP-SCENARIOS, package scenario) needs
// a little more than a simulator does, and has it here: Fork (a child of
// whatever runs on a CPU, its idle task included, inheriting that parent's
// waker statistics), TryToWakeUpFrom (a wakeup run on a given CPU, whose
// idle task may be the waker), Balance (the balance softirq on one CPU),
// Yield, RunStoppers (each stopper work and the busiest CPU's reschedule at
// once), WithJiffies0, WithBaseSlice, and the balancing state and trace
// (Domain, NextBalance, WithEvents, Events).
//
// Everything the kernel decides in those paths is decided here, in the
// kernel's order, and is deterministic: the only randomness of the fair
// class, sched_rng, is one seeded generator per CPU (WithSeed), drawn where
// the kernel draws it. Newly idle balancing needs a cost for each domain
// it balances; the model charges a configurable, deterministic one
// (WithNewidleCost) and the CPU does not spend it.
//
// Two tick modes (WithNohz): NohzOff, every CPU ticks and balances itself
// (mode A, exact for a kernel booted with nohz=off); NohzIdle, an idle CPU
// stops its tick (TickStopped) and an idle load balancer kicked by busy
// CPUs balances for it and decays its blocked load (mode B).
//
// The files follow the concerns of the code they model: select.go
// (select_task_rq_fair and the idle scans), slowpath.go (the fork and exec
// path, group classification), migrate.go (set_task_cpu and the moves),
// load.go (the PELT-derived loads), idle.go (what makes a CPU idle,
// has_idle_cores, avg_idle), core.go (the core.c entry points), newidle.go,
// periodic.go, balance.go (sched_balance_rq and its statistics), active.go
// (the CPU stopper's push), nohz.go, groups.go (task groups on a System),
// rng.go (sched_rng), conserve.go (the
// work-conservation accounting, Conservation, which observes and decides
// nothing), coresched.go (core scheduling).
//
// Core scheduling (KERNEL-SPEC-CORESCHED) is on while any cookie lives
// (CoreCreate, CoreShare, WithCookie; a child inherits its parent's):
// every CPU then picks core-wide among the SMT threads of its core
// (Schedule), a task alone next to a forced-idle sibling is rescheduled
// after half a slice (Tick), a CPU forced idle steals a task of its core's
// cookie, newly idle balancing never runs, and the idle scan, the fork and
// exec slow path and task_hot test cookies. Core reports the per-core and
// per-CPU state. With no cookie the System is exactly the one without.
//
// The base machine is the symmetric one of KERNEL-SPEC-SMP §0 (asymmetric
// capacities and an energy model are described below): every CPU of
// capacity 1024, one NUMA node, no asymmetric packing, no uclamp, no NUMA
// balancing, no bandwidth control, no RT or deadline tasks, no IRQ or steal time, every CPU active; the
// branches those features select are taken as the spec says. The
// remote-wakeup queue, IPIs and the CPU stopper act at once (§7.3), and
// update_group_capacity, which never changes a value on this machine, is
// not run.
//
// Task groups (WithRunqueueOptions(eevdf.WithHierarchy(h)), h counting the
// machine's CPUs; KERNEL-SPEC-GROUPS-SMP) are modelled across CPUs within
// that scope: every group has a queue and an entity on every CPU; each
// CPU's group queues publish into the group's load totals at most once
// per ms and only past the 1/64 threshold, in the serial order of the
// ticks; task_h_load, which detach_tasks' migrate_load, wake_affine_weight
// and cpu_load_without read, goes through the task's group queue on its
// CPU with the per-queue h_load cache refreshed top-down once per jiffy;
// the blocked-load update walks each CPU's leaf list in the kernel's
// insertion order; and the group writes (NewGroup, SetCPUWeight,
// SetCPUWeightNice, SetGroupIdle, MoveToGroup, in groups.go) bring the
// CPUs' clocks to now and walk them in ascending order. Tasks below idle
// groups make a CPU sched-idle. All of this is exact: the kernel's answers
// with groups on two and four CPUs replay field for field, and the worked
// examples of KERNEL-SPEC-GROUPS-SMP §11 are tests (those stated on an
// idealized saturated state, §11.3–§11.5, on the nearest state a run
// reaches, with the same conclusions). System.Check verifies that every
// group's totals are the sums of what the CPUs published and each CPU's
// leaf-list order. What is not exact is the concurrency: a kernel's CPUs
// tick and publish at the same time, the model in ascending CPU order,
// so which CPU sees whose fresh contribution is the model's serial order
// (a comparison with a kernel must fix the same). Not modelled: bandwidth
// control (throttling changes leaf-list membership and PELT clocks),
// cpusets (tg_cpus is the machine's CPU count), autogroup, CPU hotplug,
// group removal.
//
// On an asymmetric machine (KERNEL-SPEC-ASYM; a topology from
// topology.BuildCapacities or a preset such as "rb5") each CPU has its own
// capacity: every runqueue keeps a PELT clock scaled by it, cpu_util is
// capped at it, wakeups test that the task fits and scan with
// select_idle_capacity, and a CPU running a task too big for it records a
// misfit that a bigger CPU's balance pulls, by active balance when the
// task runs alone (fits.go, idlecapacity.go, misfit.go). The System runs
// tasks in wall time; a little CPU's slower execution of a task's work is
// the simulator's to model.
//
// Energy-aware scheduling (KERNEL-SPEC-ASYM §6, §8) needs an energy model
// (WithEnergyModel, package energy: perf domains, their performance states
// and costs). EAS is then on exactly when the kernel's
// sched_energy_enabled() would be (EnergyEnabled: an asymmetric machine
// whose every CPU has a perf domain; schedutil and frequency invariance
// assumed). While the root domain is not overutilized (Overutilized; a
// CPU is when its utilisation reaches 80 % of its capacity,
// CPUOverutilized) a wakeup goes where find_energy_efficient_cpu says at
// once — prev unless another CPU that fits adds strictly less energy,
// counted by EnergyStats —, the balancer moves nothing but misfit tasks,
// and no group is overloaded. The flag is set by a wakeup's enqueue and by
// the tick on an overutilized CPU, and rewritten by every balance of the
// top domain, the only place it clears (energy.go, overutil.go, feec.go).
// CPUs still run at their maximum frequency: only the energy estimate
// uses the performance state schedutil would choose from utilisation
// (with its 1.25 headroom), so results with EAS on are decision-exact and
// timing-approximate. Without a model every decision and number is the
// one of a System without EAS.
//
// A PELT last_update_time of 0 means "never attached", so a task forked at
// clock 0 is not aged as the kernel, whose clocks are far from 0 by then,
// would age it: start simulations at a positive clock.
package smp
