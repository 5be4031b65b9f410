package sim

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/schedmodel/fairclass/smp"
)

// Core scheduling in the simulator.
//
// The kernel's core scheduling lives in package smp (cookies, the
// core-wide pick, forced idle, task_tick_core, cookie stealing and the
// cookie checks of placement); the simulator only declares cookies,
// follows what smp does and reports it:
//
//   - A task's TaskOptions.Cookie is a number of the configuration: the
//     tasks with the same nonzero number share one smp cookie, as tasks a
//     prctl(PR_SCHED_CORE) CREATE and SHARE_TO would tag. The first task
//     of a number creates the cookie (smp's CoreCreate), the others are
//     made with it (smp.WithCookie), all before the run starts.
//   - Core scheduling is on exactly when smp has it on: a cookie lives on
//     a machine with SMT threads (Config.Machine's ThreadsPerCore ≥ 2);
//     the siblings are the machine's SMT threads. A cookie on a machine
//     without SMT is a configuration error (prctl's ENODEV).
//   - smp's Schedule is then the core-wide pick. The reschedules it asks
//     of the CPU's siblings come back through System.Resched, as every
//     other reschedule does, and the siblings pick (the pick a sibling
//     made for them) at their next preemption point.
//   - The simulator watches each CPU's forced idle (smp's CoreInfo) after
//     every call that may change it, to measure each CPU's forced-idle
//     time and count its periods, to charge each task the forced idle it
//     waited through and to draw forced idle in the trace. Every forced
//     idle ends when core scheduling goes off (the last cookied task
//     exits).

// coreSim is the simulator's side of core scheduling, present once a task
// has a cookie.
type coreSim struct {
	cookies map[uint64]smp.Cookie // configuration number → smp cookie
	cpus    []coreCPUSim
	// suffered is, by task index, the forced idle each task waited
	// through: the time it was queued, runnable, on a CPU held forced
	// idle.
	suffered []uint64
}

// coreCPUSim is what the simulator last saw of a CPU's forced idle.
type coreCPUSim struct {
	forced  bool
	since   uint64 // when the forced idle began, while forced
	periods uint64 // forced-idle periods that began
	total   uint64 // the length of those that ended
}

// removedCoreKeys refuses the keys of the simulator's former core rule.
func removedCoreKeys(offs offsets, pairs, rule json.RawMessage) error {
	const how = `core scheduling is the kernel's now: give tasks a "cookie" (tasks with the same number share one cookie), ` +
		`and the SMT siblings come from "machine"'s threads_per_core`
	if pairs != nil {
		return errAt(offs["core_pairs"], "core_pairs: no longer supported: %s", how)
	}
	if rule != nil {
		return errAt(offs["core_rule"], "core_rule: no longer supported: %s (the core-wide pick takes the highest-priority sibling pick, as the kernel's does)", how)
	}
	return nil
}

// cookieOf returns the smp cookie of a configuration cookie number, if a
// task created it already.
func (s *Sim) cookieOf(n uint64) (smp.Cookie, bool) {
	if n == 0 || s.core == nil {
		return 0, false
	}
	c, ok := s.core.cookies[n]
	return c, ok
}

// tagNew gives the new task st its configuration cookie n: the first task
// of a number creates its cookie (prctl CREATE); later ones were made
// with it (WithCookie) and need nothing.
func (s *Sim) tagNew(st *smp.Task, n uint64) error {
	if n == 0 {
		return nil
	}
	if _, ok := s.cookieOf(n); ok {
		return nil
	}
	c, err := s.sys.CoreCreate(st)
	if err != nil {
		if errors.Is(err, smp.ErrNoSMT) {
			return fmt.Errorf("cookie %d: %w (give \"machine\" a threads_per_core of 2 or more)", n, err)
		}
		return fmt.Errorf("cookie %d: %w", n, err)
	}
	if s.core == nil {
		s.core = &coreSim{cookies: map[uint64]smp.Cookie{}, cpus: make([]coreCPUSim, len(s.cpus))}
		// Forced-idle time charged to the running siblings' tasks
		// (core_forceidle_sum): accounting only, it decides nothing.
		s.sys.SetSchedstats(true)
	}
	s.core.cookies[n] = c
	return nil
}

// syncForced brings the simulator's view of c's forced idle to smp's,
// after a call that may have changed it (a pick on c): a forced idle that
// began is counted, one that ended is charged to the tasks that waited
// through it and drawn in the trace.
func (s *Sim) syncForced(c *cpu) {
	if !s.sys.CoreScheduling() {
		s.coreOff()
		return
	}
	k := &s.core.cpus[c.id]
	forced := s.sys.Core(int(c.id)).ForcedIdle
	if forced == k.forced {
		return
	}
	k.forced = forced
	if forced {
		k.since = s.now
		k.periods++
		s.forcedIdles++
		return
	}
	s.endForced(c, k.since, s.now)
}

// coreOff ends every forced idle when core scheduling goes off (the last
// cookied task exited): no CPU is held idle for a cookie any more,
// whatever smp's per-CPU flag, which only a core-wide pick clears, still
// says.
func (s *Sim) coreOff() {
	for i := range s.core.cpus {
		if k := &s.core.cpus[i]; k.forced {
			k.forced = false
			s.endForced(&s.cpus[i], k.since, s.now)
		}
	}
}

// checkForced verifies that the simulator's view of cpu's forced idle is
// smp's (Debug mode).
func (s *Sim) checkForced(cpu int) error {
	want := s.sys.CoreScheduling() && s.sys.Core(cpu).ForcedIdle
	if got := s.core.cpus[cpu].forced; got != want {
		return fmt.Errorf("CPU %d: the simulator sees forced idle %v, smp %v", cpu, got, want)
	}
	return nil
}

// endForced closes c's forced idle [since, end): each task queued on c and
// runnable then (or just switched in there) waited through it from the
// later of since and the start of its wait.
func (s *Sim) endForced(c *cpu, since, end uint64) {
	if end <= since {
		return
	}
	s.core.cpus[c.id].total += end - since
	for se := range c.rq.Tasks() {
		ti := s.taskOf(se)
		if ti < 0 {
			continue
		}
		t := &s.tasks[ti]
		if t.state != stRunnable && (t.state != stRunning || t.runCPU != c.id) {
			continue
		}
		from := max(since, t.runnableSince)
		if from >= end {
			continue
		}
		if n := int(ti) + 1; len(s.core.suffered) < n {
			s.core.suffered = append(s.core.suffered, make([]uint64, n-len(s.core.suffered))...)
		}
		s.core.suffered[ti] += end - from
	}
	if s.cfg.Trace {
		s.trace = append(s.trace, traceSlice{cpu: c.id, task: forcedIdleSlice, start: since, end: end})
	}
}

// forcedIdleSlice is the task index of a trace slice of forced idle.
const forcedIdleSlice = -1

// TaskCoreReport is a task's core scheduling, in a run where it was on.
type TaskCoreReport struct {
	// ForcedIdleSufferedNs is the forced idle the task waited through:
	// the time it was runnable, queued on a CPU that a core-wide pick
	// held idle (measured by the simulator from smp's forced-idle state).
	ForcedIdleSufferedNs uint64 `json:"forced_idle_suffered_ns"`
	// ForcedIdleCausedNs is smp's core_forceidle_sum: the siblings'
	// forced idle charged to the task while it ran (scaled, as the
	// kernel's schedstats scale it, by forced-idle CPUs per busy CPU).
	ForcedIdleCausedNs uint64 `json:"forced_idle_caused_ns"`
	// Stolen counts the times a forced-idle CPU stole the task
	// (sched_core_balance).
	Stolen uint64 `json:"stolen"`
}

// CPUCoreReport is a CPU's core scheduling, in a run where it was on.
// Its forced-idle time is CPUReport.ForcedIdleNs.
type CPUCoreReport struct {
	ForcedIdles uint64 `json:"forced_idles"` // forced-idle periods that began
	Steals      uint64 `json:"steals"`       // tasks it stole while forced idle
	TickCore    uint64 `json:"tick_core"`    // reschedules task_tick_core asked of it
}

// coreReport fills r's core-scheduling parts; nothing without a cookie,
// so that every report of a run without core scheduling stays as it was.
func (s *Sim) coreReport(r *Report) {
	if s.core == nil {
		return
	}
	r.CoreScheduling = true
	r.ForcedPicks = 0
	for i := range r.CPUStats {
		ci := s.sys.Core(i)
		k := &s.core.cpus[i]
		r.CPUStats[i].ForcedIdleNs = k.total
		if k.forced {
			r.CPUStats[i].ForcedIdleNs += s.now - k.since
		}
		if s.sys.Topology().SMTMask(i).First() == i {
			r.ForcedPicks += ci.FastPicks // a core's count, kept by its first thread
		}
		r.CPUStats[i].Core = &CPUCoreReport{ForcedIdles: k.periods, Steals: ci.Steals, TickCore: ci.TickCore}
	}
	for i := range r.Tasks {
		t := &s.tasks[i]
		tc := &TaskCoreReport{ForcedIdleCausedNs: t.st.ForceIdleSum(), Stolen: t.st.CoreSteals()}
		if i < len(s.core.suffered) {
			tc.ForcedIdleSufferedNs = s.core.suffered[i]
		}
		r.Tasks[i].Core = tc
	}
	s.coreOpen(r)
}

// coreOpen adds to r what the forced idles still open at the end of the
// run would add when they end: the waiting tasks' share and the trace
// slices.
func (s *Sim) coreOpen(r *Report) {
	for i := range s.cpus {
		k := &s.core.cpus[i]
		if !k.forced || s.now <= k.since {
			continue
		}
		c := &s.cpus[i]
		for se := range c.rq.Tasks() {
			ti := s.taskOf(se)
			if ti < 0 || s.tasks[ti].state != stRunnable {
				continue
			}
			if from := max(k.since, s.tasks[ti].runnableSince); from < s.now {
				r.Tasks[ti].Core.ForcedIdleSufferedNs += s.now - from
			}
		}
		if s.cfg.Trace {
			r.trace = append(r.trace, traceSlice{cpu: c.id, task: forcedIdleSlice, start: k.since, end: s.now})
		}
	}
}

// writeCore prints the core-scheduling section of the text report.
func (r *Report) writeCore(w *bufio.Writer) {
	fmt.Fprintf(w, "core scheduling (forced picks: taken from a sibling's core-wide pick; forced idles: periods):\n")
	fmt.Fprintf(w, "  %-6s %16s %8s %10s\n", "cpu", "forced idle ms", "steals", "tick_core")
	for _, c := range r.CPUStats {
		var steals, tick uint64
		if c.Core != nil {
			steals, tick = c.Core.Steals, c.Core.TickCore
		}
		fmt.Fprintf(w, "  %-6d %16s %8d %10d\n", c.CPU, ms3(c.ForcedIdleNs), steals, tick)
	}
	fmt.Fprintf(w, "  %-20s %8s %18s %18s %8s\n", "task", "cookie", "fi suffered ms", "fi caused ms", "stolen")
	for _, t := range r.Tasks {
		if t.Core == nil {
			continue
		}
		fmt.Fprintf(w, "  %-20s %8d %18s %18s %8d\n", trunc(t.Name, 20), t.Cookie, ms3(t.Core.ForcedIdleSufferedNs), ms3(t.Core.ForcedIdleCausedNs), t.Core.Stolen)
	}
}
