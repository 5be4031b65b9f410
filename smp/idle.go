package smp

import "github.com/schedmodel/fairclass/eevdf"

// What makes a CPU idle, in the kernel's several senses (KERNEL-SPEC-SMP
// §0.4), and the state an idle CPU keeps: has_idle_cores (§3.6 rule 4) and
// avg_idle (§5.4 rule 15).

// idleCPU is idle_cpu: the CPU runs its idle task and has nothing queued.
// The model has no remote-wakeup queue (ttwu_pending): a wakeup enqueues at
// once, and the queued task hides the CPU from later tests, as the pending
// flag does.
func (s *System) idleCPU(cpu int) bool {
	rq := s.cpus[cpu].rq
	return rq.Curr() == nil && rq.NrRunning() == 0
}

// availableIdleCPU is available_idle_cpu: idle_cpu, and not a preempted
// vCPU (never, on the modelled machine).
func (s *System) availableIdleCPU(cpu int) bool { return s.idleCPU(cpu) }

// schedIdleRq is sched_idle_rq: tasks are queued and all of them are
// SCHED_IDLE.
func (s *System) schedIdleRq(cpu int) bool {
	rq := s.cpus[cpu].rq
	n := rq.NrRunning()
	return n > 0 && n == rq.NrIdle()
}

// chooseSchedIdleRq is choose_sched_idle_rq: a CPU that only runs SCHED_IDLE
// tasks is as good as idle for a task that is not SCHED_IDLE itself.
func (s *System) chooseSchedIdleRq(cpu int, p *Task) bool {
	return s.schedIdleRq(cpu) && p.se.Policy() != eevdf.PolicyIdle
}

// chooseIdleCPU is choose_idle_cpu: an idle CPU, or one that chooseSchedIdleRq
// accepts for p.
func (s *System) chooseIdleCPU(cpu int, p *Task) bool {
	return s.availableIdleCPU(cpu) || s.chooseSchedIdleRq(cpu, p)
}

// isCoreIdle is is_core_idle: every other thread of cpu's core is idle_cpu.
func (s *System) isCoreIdle(cpu int) bool {
	smt := s.top.SMTMask(cpu)
	for c := smt.First(); c >= 0; c = smt.Next(c) {
		if c != cpu && !s.idleCPU(c) {
			return false
		}
	}
	return true
}

// updateIdleCore is update_idle_core, from set_next_task_idle when cpu
// switches to its idle task: with SMT, the LLC's has_idle_cores is set if
// every other thread of cpu's core is available-idle (cpu itself is not
// tested: it is becoming idle). Only select_idle_cpu clears it.
func (s *System) updateIdleCore(cpu int) {
	if !s.top.SMTActive() {
		return
	}
	l := s.llcOf(cpu)
	if l == nil || l.hasIdleCores {
		return
	}
	smt := s.top.SMTMask(cpu)
	for c := smt.First(); c >= 0; c = smt.Next(c) {
		if c != cpu && !s.availableIdleCPU(c) {
			return
		}
	}
	l.hasIdleCores = true
}

// updateRqAvgIdle is update_rq_avg_idle, from put_prev_task_idle when cpu
// leaves its idle task: an idle period that began with a failed newly idle
// balance (idle_stamp set) is a sample of avg_idle, a running average
// (update_avg: avg += (sample − avg)/8, truncated toward zero) capped at
// twice max_idle_balance_cost.
func (s *System) updateRqAvgIdle(cpu int) {
	c := &s.cpus[cpu]
	if c.idleStamp == 0 {
		return
	}
	sample := s.now - c.idleStamp
	c.avgIdle = updateAvg(c.avgIdle, sample)
	c.avgIdle = min(c.avgIdle, 2*c.maxIdleBalanceCost)
	c.idleStamp = 0
}

// updateAvg is update_avg: avg + (sample − avg)/8 in signed 64-bit
// arithmetic, the division truncating toward zero.
func updateAvg(avg, sample uint64) uint64 {
	diff := int64(sample - avg)
	return uint64(int64(avg) + diff/8)
}
