package smp

import (
	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// Capacities and fitness on asymmetric machines (KERNEL-SPEC-ASYM §1–§3).
// On a symmetric machine every capacity is 1024, s.asym is false, and none
// of the asymmetric branches is taken: the symmetric paths are unchanged.

// capacityOf is capacity_of(cpu) = arch_scale_cpu_capacity(cpu): with no
// RT, DL, IRQ or pressure, a CPU's capacity is its original capacity
// (§1.2).
func (s *System) capacityOf(cpu int) uint64 { return s.caps[cpu] }

// fitsCapacity is fits_capacity(u, c): u is below 80 % of c, u·1280 <
// c·1024 (§1.4).
func fitsCapacity(u, c uint64) bool { return u*1280 < c*1024 }

// capacityGreater is capacity_greater(a, b): a is more than about 5 %
// above b, a·1024 > b·1078 (§1.4).
func capacityGreater(a, b uint64) bool { return a*1024 > b*1078 }

// utilFitsCPU is util_fits_cpu(u, 0, 1024, cpu) with uclamp off (§3.1):
// fits_capacity against capacity_of.
func (s *System) utilFitsCPU(u uint64, cpu int) bool { return fitsCapacity(u, s.capacityOf(cpu)) }

// taskFitsCPU is task_fits_cpu (§3.2): p's task_util_est fits cpu.
func (s *System) taskFitsCPU(p *Task, cpu int) bool { return s.utilFitsCPU(taskUtilEst(p), cpu) }

// asymFitsCPU is asym_fits_cpu (§3.3, T = 1): true on a symmetric machine,
// else util_fits_cpu.
func (s *System) asymFitsCPU(u uint64, cpu int) bool { return !s.asym || s.utilFitsCPU(u, cpu) }

// initCapacities reads the per-CPU capacities of the topology and returns
// the option that gives each runqueue its CPU's capacity (nil on a
// symmetric machine: the PELT clock is the task clock).
func (s *System) initCapacities(t *topology.Topology) {
	s.asym = t.Asymmetric()
	s.caps = make([]uint64, t.NumCPUs())
	for i := range s.caps {
		s.caps[i] = t.CPUCapacity(i)
	}
}

// rqCapacityOption returns the eevdf option of CPU cpu's runqueue on an
// asymmetric machine: its capacity, for the PELT clock and a new task's
// initial utilization (§1.6, §1.8); nil on a symmetric machine.
func (s *System) rqCapacityOption(cpu int) eevdf.Option {
	if !s.asym {
		return nil
	}
	return eevdf.WithCapacity(s.caps[cpu])
}

// setTaskMaxAllowedCapacity is set_task_max_allowed_capacity (§2.6): the
// capacity of the largest CPU p may run on, recomputed only while the
// asym key is on (1024 otherwise, as the init task's).
func (s *System) setTaskMaxAllowedCapacity(p *Task) {
	p.maxAllowedCap = topology.CapacityScale
	if s.asym {
		p.maxAllowedCap = s.top.MaxAllowedCapacity(p.allowed)
	}
}

// CPUCapacity returns capacity_of(cpu), 0 for a bad id.
func (s *System) CPUCapacity(cpu int) uint64 {
	if uint(cpu) >= uint(len(s.caps)) {
		return 0
	}
	return s.caps[cpu]
}

// MaxAllowedCapacity returns p.max_allowed_capacity: the capacity of the
// largest CPU p may use, 1024 on a symmetric machine (0 for nil).
func (t *Task) MaxAllowedCapacity() uint64 {
	if t == nil {
		return 0
	}
	return t.maxAllowedCap
}
