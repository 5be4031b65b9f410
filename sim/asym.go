package sim

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/schedmodel/fairclass/topology"
)

// Asymmetric machines (KERNEL-SPEC-ASYM): per-CPU capacities, named
// machine presets, and work measured at capacity 1024.
//
// A Run or Sys phase is an amount of CPU work: the CPU time it takes on a
// CPU of capacity 1024. On a CPU of capacity C it progresses at C/1024 of
// wall speed, so it runs 1024/C times longer there, and the kernel charges
// that longer time (sum_exec_runtime, vruntime and the task clock are wall
// time as always; only the PELT clock is scaled, by package eevdf). The
// arithmetic is integer and rounds so that work never runs ahead of the
// time it took:
//
//   - a running segment of e ns on capacity C does ⌊e·C/1024⌋ ns of work
//     (workIn), never more than the phase has left;
//   - a phase with w ns of work left completes ⌈w·1024/C⌉ ns after it
//     resumes (wallFor): the first nanosecond at which the segment's work
//     reaches w, since ⌊⌈w·1024/C⌉·C/1024⌋ ≥ w.
//
// A phase cut into k segments therefore takes at most k − 1 ns longer than
// one uninterrupted run of it, and the same events give the same
// nanoseconds on every run. At capacity 1024 both maps are the identity:
// a symmetric machine's numbers are what they were before capacities.
// A Spin phase lasts its wall time on every CPU (SpinFor, SpinUntil, or
// for ever) and counts as work at C/1024 of it; sleeps and
// Config.SwitchCost are wall time and no work.

// resolveMachine returns the machine, the per-CPU capacities (nil when
// every CPU has capacity 1024) and the HZ default of the configuration:
// MachinePreset's if one is named (Machine, CPUs and Capacities must then
// be unset or agree with it), else machine() with Capacities and 1000.
func (cfg *Config) resolveMachine() (topology.Machine, []uint64, int, error) {
	if cfg.MachinePreset == "" {
		m, err := cfg.machine()
		if err != nil {
			return m, nil, 0, err
		}
		return m, cfg.Capacities, 1000, nil
	}
	p, err := topology.LookupMachine(cfg.MachinePreset)
	if err != nil {
		return topology.Machine{}, nil, 0, fmt.Errorf("machine preset: %w", err)
	}
	if cfg.Machine != (topology.Machine{}) && cfg.Machine != p.Machine {
		return p.Machine, nil, 0, fmt.Errorf("machine %v and machine preset %s (%v) disagree", cfg.Machine, p.Name, p.Machine)
	}
	if cfg.CPUs != 0 && cfg.CPUs != p.Machine.NumCPUs() {
		return p.Machine, nil, 0, fmt.Errorf("cpus %d and machine preset %s (%d CPUs) disagree", cfg.CPUs, p.Name, p.Machine.NumCPUs())
	}
	if cfg.Capacities != nil && !slices.Equal(cfg.Capacities, p.Capacities) {
		return p.Machine, nil, 0, fmt.Errorf("capacities %v and machine preset %s (%v) disagree", cfg.Capacities, p.Name, p.Capacities)
	}
	return p.Machine, p.Capacities, p.HZ, nil
}

// buildTopology builds the machine's scheduling domains with its
// capacities (topology.BuildCapacities), wrapping a capacity error so
// that it names the configuration's key.
func buildTopology(m topology.Machine, caps []uint64) (*topology.Topology, error) {
	if caps == nil {
		return topology.Build(m)
	}
	top, err := topology.BuildCapacities(m, caps)
	if err != nil {
		return nil, fmt.Errorf("capacities: %w", err)
	}
	return top, nil
}

// wallFor returns the wall time c needs for work ns of work:
// ⌈work·1024/C⌉, saturating at the largest time.
func wallFor(c *cpu, work uint64) uint64 {
	if c.capacity == topology.CapacityScale {
		return work
	}
	hi, lo := bits.Mul64(work, topology.CapacityScale)
	lo, carry := bits.Add64(lo, c.capacity-1, 0)
	hi += carry
	if hi >= c.capacity {
		return ^uint64(0)
	}
	q, _ := bits.Div64(hi, lo, c.capacity)
	return q
}

// workIn returns the work c does in wall ns of running: ⌊wall·C/1024⌋.
func workIn(c *cpu, wall uint64) uint64 {
	if c.capacity == topology.CapacityScale {
		return wall
	}
	hi, lo := bits.Mul64(wall, c.capacity)
	q, _ := bits.Div64(hi, lo, topology.CapacityScale) // hi < C ≤ 1024
	return q
}

// workNow is t's work done so far, including the running segment of a
// Run or Sys phase.
func (s *Sim) workNow(ti int32) uint64 {
	t := &s.tasks[ti]
	w := t.work
	if t.state == stRunning && t.progressing && t.inRun {
		d := workIn(&s.cpus[t.runCPU], s.now-t.segStart)
		if !t.spin {
			d = min(d, t.remaining)
		}
		w += d
	}
	return w
}

// jsonAsym is the part of "machine" that asymmetric machines add:
//
//	"machine": {"preset": "rb5"}                  // or "rb5-3091"
//	"machine": {"preset": "biglittle", "little": 4, "big": 4,
//	            "little_capacity": 446, "big_capacity": 1024}
//	"machine": {"cores_per_llc": 4, "capacities": [512, 512, 1024, 1024]}
//
// A preset is the whole machine: shape and capacities come from it (no
// count, "numbering" or "capacities" beside it) and its HZ is the default
// of "hz". "capacities" gives a machine of the shape keys one capacity
// per CPU.
type jsonAsym struct {
	Preset         string   `json:"preset"`
	Capacities     []uint64 `json:"capacities"`
	Little         *int     `json:"little"`
	Big            *int     `json:"big"`
	LittleCapacity *uint64  `json:"little_capacity"`
	BigCapacity    *uint64  `json:"big_capacity"`
}

// apply sets cfg's machine from "machine": Machine (and Capacities), or
// MachinePreset.
func (j *jsonMachine) apply(cfg *Config) error {
	bl := j.Little != nil || j.Big != nil || j.LittleCapacity != nil || j.BigCapacity != nil
	if j.Preset == "" {
		if bl {
			return fmt.Errorf(`"little", "big", "little_capacity" and "big_capacity" need "preset": "biglittle"`)
		}
		m, err := j.machine()
		if err != nil {
			return err
		}
		cfg.Machine, cfg.Capacities = m, j.Capacities
		if j.Capacities != nil {
			// Checked here, to point at "machine" rather than fail in New.
			if _, err := topology.BuildCapacities(m, j.Capacities); err != nil {
				return fmt.Errorf("capacities: %w", err)
			}
		}
		return nil
	}
	if j.Packages != nil || j.LLCsPerPackage != nil || j.CoresPerLLC != nil || j.ThreadsPerCore != nil || j.Numbering != "" || j.Capacities != nil {
		return fmt.Errorf("preset %q is a whole machine: leave out its counts, numbering and capacities", j.Preset)
	}
	name := j.Preset
	switch {
	case name == "biglittle":
		if j.Little == nil || j.Big == nil || j.LittleCapacity == nil || j.BigCapacity == nil {
			return fmt.Errorf(`preset "biglittle" needs "little", "big", "little_capacity" and "big_capacity"`)
		}
		name = fmt.Sprintf("biglittle:%d*%d,%d*%d", *j.Little, *j.LittleCapacity, *j.Big, *j.BigCapacity)
	case bl:
		return fmt.Errorf(`"little", "big", "little_capacity" and "big_capacity" belong to "preset": "biglittle", not %q`, name)
	}
	if _, err := topology.LookupMachine(name); err != nil {
		return err
	}
	cfg.MachinePreset = name
	return nil
}

// reportWork fills in the capacities and the work of r on an asymmetric
// machine (nothing on a symmetric one, whose reports stay as they were).
func (s *Sim) reportWork(r *Report) {
	r.Capacities = s.top.Capacities()
	if r.Capacities == nil {
		return
	}
	for i := range r.Tasks {
		r.Tasks[i].WorkNs = s.workNow(int32(i))
	}
	for i := range r.Workloads {
		wr := &r.Workloads[i]
		for _, t := range r.Tasks[wr.FirstTask : wr.FirstTask+wr.NTasks] {
			wr.WorkNs += t.WorkNs
		}
	}
}

// capacitiesText is the capacities as the report prints them: runs of
// equal capacities as C×N ("284x4 871x3 1024": CPUs 0–3 at 284, 4–6 at 871, 7 at 1024), in CPU id order.
func capacitiesText(caps []uint64) string {
	var b []byte
	for i := 0; i < len(caps); {
		j := i + 1
		for j < len(caps) && caps[j] == caps[i] {
			j++
		}
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, caps[i], 10)
		if j-i > 1 {
			b = append(b, "x"...)
			b = strconv.AppendInt(b, int64(j-i), 10)
		}
		i = j
	}
	return string(b)
}
