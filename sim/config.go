package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// Config describes one simulation.
type Config struct {
	// Seed seeds the PCG generator behind every random draw of the
	// simulator (jittered phases, StartJitter) and smp's sched_rng, the
	// fair class's own generator. The same Config and Seed give
	// byte-identical reports.
	Seed uint64
	// CPUs is the number of CPUs, 1..topology.MaxCPUs (default 1): the
	// shorthand for a Machine of CPUs single-thread cores in one LLC.
	CPUs int
	// Machine is the simulated machine (packages × LLCs × cores × SMT
	// threads, and its CPU numbering), whose scheduling domains package
	// topology builds and whose fair class package smp runs. The zero
	// Machine means the CPUs shorthand; giving both, they must agree.
	Machine topology.Machine
	// MachinePreset names a machine of package topology
	// (topology.LookupMachine: "rb5", "rb5-3091", or
	// "biglittle:N*C,M*D" for N little CPUs of capacity C then M big ones
	// of D): its shape, its CPUs' capacities and, unless HZ is set, its HZ
	// (250 for the RB5 and biglittle). Machine, CPUs and Capacities may
	// then be left zero; given, they must agree with it.
	MachinePreset string
	// Capacities are the CPUs' original capacities
	// (arch_scale_cpu_capacity, in CPU id order, the largest 1024); nil
	// gives every CPU 1024. Unequal capacities make the machine
	// asymmetric (KERNEL-SPEC-ASYM): smp places and balances by them, a
	// Run or Sys phase's work takes 1024/C times its CPU time at capacity
	// 1024 on a CPU of capacity C, and reports give capacities and work.
	Capacities []uint64
	// EnergyModel, if set, is attached to the machine's fair class with
	// smp.WithEnergyModel (rescaled to its capacities): on an asymmetric
	// machine without SMT it turns energy-aware scheduling on
	// (KERNEL-SPEC-ASYM §6, §8), and the report gains an energy section
	// (Report.Energy). nil leaves every path and number as without EAS.
	EnergyModel *energy.Model
	// EnergyEstimateOnly keeps EnergyModel out of the fair class: EAS
	// stays off and every placement is what it is without a model, while
	// the report still estimates the run's energy with it (rescaled to
	// the machine's capacities). It is how a run without EAS is priced
	// beside one with it.
	EnergyEstimateOnly bool
	// Nohz is the tick mode of idle CPUs: smp.NohzOff (the default, the
	// mode KERNEL-SPEC-SMP calls exact: every CPU ticks, idle or not, so
	// that an idle CPU runs its own periodic balancing) or smp.NohzIdle
	// (an idle CPU stops its tick until it runs a task again; idle CPUs
	// are then balanced by smp's idle load balancer).
	Nohz smp.NohzMode
	// Preset is the state the machine starts in (KERNEL-SPEC-SMP §1.9);
	// nil means topology.Warm: a machine that has been up and idle, with
	// has_idle_cores set on SMT machines and nr_idle_scan at the LLC size,
	// as a benchmark finds it. topology.Boot is a freshly booted kernel,
	// whose nr_idle_scan of 0 keeps select_idle_cpu from scanning until
	// the first periodic balance of the LLC domain. On one CPU nothing
	// reads it.
	Preset *topology.Preset
	// Duration is the stop time: events up to and including it are
	// processed. It must be positive. The run ends earlier if every task
	// exits.
	Duration time.Duration
	// Kernel is the kernel whose fair class every runqueue follows
	// (default eevdf.KernelV73, the modelled mainline): its arithmetic,
	// base slice and feature defaults, as eevdf.WithKernel gives them.
	// Placement and balancing (package smp) stay the modelled kernel's
	// for every preset. An earlier kernel runs no task groups (eevdf
	// models groups for the single runqueue of v7.3 only) and no lazy
	// preemption before v6.13.
	Kernel eevdf.Kernel
	// Features is the fair-class feature set; nil means the defaults of
	// Kernel (features.Preset). A feature Kernel's features.h lacks is an
	// error; the seed toggles exist under every kernel.
	Features *features.Set
	// BaseSlice overrides sysctl_sched_base_slice; 0 keeps the kernel's
	// value for the machine: 700 µs × (1 + ilog2(min(CPUs, 8))), that is
	// 0.7, 1.4, 2.1 and 2.8 ms for 1, 2–3, 4–7 and 8 or more CPUs (750 µs
	// for the factor under v6.12 and v6.6).
	BaseSlice time.Duration
	// HZ is the tick rate (default 1000, or MachinePreset's); TICK_NSEC =
	// (10^9 + HZ/2) / HZ is the tick period and enters the lag clamp.
	HZ int
	// Timeline selects the runqueue's timeline backend.
	Timeline eevdf.Backend
	// Preempt is the preemption model (default eevdf.PreemptFull, what
	// arm64's defconfig builds): where a reschedule request takes effect
	// (see the package documentation). Lazy makes the fair class's
	// requests lazy; none and voluntary only preempt a Sys phase at its
	// end or at its CondReschEvery / MightReschEvery points.
	Preempt eevdf.PreemptModel
	// CondReschEvery is the CPU time between cond_resched() points in a
	// Sys phase, honoured under the none and voluntary models; 0: none.
	CondReschEvery time.Duration
	// MightReschEvery is the CPU time between might_resched() points (a
	// might_sleep() on a mutex or an allocation) in a Sys phase, honoured
	// under the voluntary model; 0: none.
	MightReschEvery time.Duration
	// TimerSlack is the timer slack of every task that does not set its
	// own (TaskOptions.TimerSlack): a timed sleep wakes up to that much
	// after its expiry (see the package documentation). The default 0
	// fires every timer on time; the kernel's default for fair tasks is
	// 50 µs, which a configuration models with "timer_slack": "50us".
	TimerSlack time.Duration
	// WakeupCost delays the reschedule that a wakeup requests (the IPI and
	// the path to the preemption point); 0 preempts at once.
	WakeupCost time.Duration
	// SwitchCost is CPU time spent after each context switch before the new
	// task makes progress; it is charged to that task, as the kernel charges
	// whatever runs after its exec_start.
	SwitchCost time.Duration
	// StartJitter, if positive, delays each task's creation by a uniform
	// draw from [0, StartJitter) of the seeded generator, drawn in creation
	// order: the phase of task creation against the tick and against the
	// other tasks, which differs from one run of a real machine to the
	// next. With it, different seeds give different runs of built-in
	// workloads that have no random phases of their own.
	StartJitter time.Duration
	// Groups are the task groups (cgroups with the cpu controller),
	// created in order before any task; a workload names its group in
	// TaskOptions.Group. With groups every CPU's runqueue keeps PELT
	// signals.
	Groups []Group
	// CgroupMode is the share function of the groups (default
	// eevdf.ModeConcur).
	CgroupMode eevdf.CgroupMode
	// Workloads are the tasks to run, created in order.
	Workloads []Workload
	// ShareInterval, if positive, samples every task's CPU time at that
	// interval (Report.Shares), for runtime-share plots; each sample
	// allocates a row of one counter per task.
	ShareInterval time.Duration
	// Trace records the schedule (what each CPU ran, and the migrations)
	// for Report.WriteTrace.
	Trace bool
	// Debug checks the System's invariants (smp's Check: every runqueue's,
	// and every task's whereabouts) and the simulator's own bookkeeping
	// after every event (on several CPUs, also after every CPU's tick);
	// the first violation ends the run with an error. It slows the run
	// down by the size of the queues and the number of CPUs.
	Debug bool
	// ScenarioLog, if set, receives the run in the scenario language
	// (package scenario, "fairclass replay"): one operation per core-side
	// sequence the simulator drives, for replay and comparison with the
	// kernel. One CPU only; a task exit ends the run with an error.
	ScenarioLog io.Writer
	// Progress, if set, is called with the fraction of the stop time
	// simulated so far, about every 1% and with 1 at the end, from the
	// simulating goroutine.
	Progress func(frac float64)
}

// LoadConfig reads a JSON configuration file (see ParseConfig). An error
// reading the file is the file system's; any other is a *ConfigError
// named after path: "PATH:LINE:COL: reason".
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	return parseConfig(data, path, filepath.Dir(path))
}

// ParseConfig parses a JSON configuration; dir resolves relative file
// names in it (rt-app files). Durations are strings
// in Go syntax ("700us", "2.8ms", "30s") or integers of nanoseconds.
//
//	{
//	  "seed": 1,                      // Config.Seed
//	  "cpus": 1,                      // Config.CPUs: N single-thread cores in one LLC
//	  "machine": {"packages": 1, "llcs_per_package": 1, "cores_per_llc": 4,
//	              "threads_per_core": 2, "numbering": "linear"},  // or "x86"; a missing count is 1
//	                                  // + "capacities": [C, ...] per CPU; or a whole machine:
//	                                  // {"preset": "rb5"} (or "rb5-3091"), {"preset": "biglittle",
//	                                  // "little": N, "big": M, "little_capacity": C, "big_capacity": 1024}
//	  "energy_model": "rb5",          // Config.EnergyModel: a preset (energy.Lookup), a .json file or
//	                                  // an inline model (energy.Load); EAS on an asymmetric machine
//	  "nohz": "off",                  // or "idle"
//	  "preset": "warm",               // or "boot"
//	  "duration": "30s",              // Config.Duration
//	  "kernel": "v7.3",               // or v7.1, v7.0, v6.18, v6.12, v6.6 (Config.Kernel)
//	  "features": "NO_PLACE_LAG",     // debugfs tokens applied to the kernel's defaults
//	  "base_slice": "700us",
//	  "hz": 1000,                     // default 1000, or the machine preset's (250 for rb5)
//	  "timeline": "btree",            // or "rbtree"
//	  "preempt": "full",              // or "lazy", "voluntary", "none" (Config.Preempt)
//	  "cond_resched_every": "0", "might_resched_every": "0",
//	  "timer_slack": "0",             // "50us" is the kernel's default for fair tasks
//	  "wakeup_cost": "0", "switch_cost": "0",
//	  "start_jitter": "1ms",          // Config.StartJitter
//	  "share_interval": "100ms",
//	  "trace": false, "debug": false,
//	  "groups": [{"name": "batch", "parent": "", "weight": 10, "nice": null, "idle": false}, ...],
//	  "cgroup_mode": "concur",        // up, smp, concur, max, tasks
//	  "workloads": [ WORKLOAD, ... ]
//	}
//
// A group's "weight" is cgroup v2's cpu.weight, 1..10000; absent, the
// group keeps the default 100 (an explicit 0 is an error, as the kernel
// refuses it). "nice" writes cpu.weight.nice instead; "idle" makes it an
// idle group; "parent" names a group declared before it ("" or "/": the
// root).
//
// Every WORKLOAD object has a "kind", an optional "name", and the task
// attributes "group" (a name from "groups"; default the root), "nice",
// "policy" ("normal", "batch", "idle"), "slice", "cpus" (a list), "cookie"
// (core scheduling: tasks with the same nonzero number share a cookie; it
// needs a "machine" with threads_per_core ≥ 2), "start" and
// "timer_slack". The keys "core_pairs" and "core_rule" of the simulator's
// former core-scheduling rule are refused. The other keys by kind (absent means the default
// documented on the Go type; an explicit 0 is an error where the Go type
// reads 0 as that default, and means what it documents elsewhere: no
// distance, no duration or loop limit, no timeout):
//
//	cyclictest:   threads, interval, distance, duration, loops, work, sys_work
//	hackbench:    groups, fds, loops, pipe, threads, datasize, write_cost, read_cost, user_cost, capacity
//	stress:       n, timeout
//	yield_loop:   yield_for, yield_cost, spin_for
//	massive_intr: n, runtime, sleeptime, duration
//	schbench:     message_threads, workers, cputime, sleeptime, message_cost
//	rtapp:        file (an rt-app JSON file, relative to the config's
//	              directory) or rtapp (the rt-app object inline)
//	tasks:        channels: [{"name", "capacity", "sync"}],
//	              tasks: [{"name", "instances", task attributes..., "program": [PHASE, ...]}]
//
// A PHASE is an object with one action key:
//
//	{"run": "1ms", "jitter": "100us"}   {"sys": "5us", "jitter": "0"}
//	{"spin": true}  {"spin": "5s"}  {"spin_until": "30s"}
//	{"sleep": "1ms", "jitter": "0"}     {"sleep_until": "2s"}
//	{"timer": "1ms", "until": "10s"}    {"latency": true}
//	{"send": "CHANNEL", "n": 1, "reply_to": "CHANNEL"}  {"recv": "CHANNEL", "n": 1}  {"reply": true}
//	{"yield": true}  {"mark": "LABEL"}  {"set_nice": 5}  {"set_slice": "3ms"}  {"exit": true}
//	{"loop": 10, "body": [PHASE, ...]}  {"forever": [PHASE, ...]}  {"loop_for": "5s", "body": [PHASE, ...]}
//
// Keys are matched exactly, case included; an unknown key, a key given
// twice, a value of the wrong type or outside its type's range, an
// explicit "cpus" or "hz" of 0 (leave the key out for the default), a
// missing or non-positive duration and a configuration without workloads
// are errors. testdata/config.json is a complete example.
//
// Every error is a *ConfigError named "config", with the line and column
// of the offending key or value when there is one:
// "config:3:14: unknown field "Seed" (keys are case-sensitive: did you
// mean "seed"?)".
func ParseConfig(data []byte, dir string) (Config, error) {
	return parseConfig(data, "config", dir)
}

// parseConfig is ParseConfig with the name its errors carry.
func parseConfig(data []byte, name, dir string) (Config, error) {
	cfg, err := decodeConfig(data, dir)
	if err != nil {
		return Config{}, newConfigError(name, data, err)
	}
	return cfg, nil
}

// decodeConfig reads a configuration; its errors carry the byte offset
// of what they concern (posError) when there is one.
func decodeConfig(data []byte, dir string) (Config, error) {
	var jc struct {
		Seed          uint64            `json:"seed"`
		CPUs          *int              `json:"cpus"`
		Machine       *jsonMachine      `json:"machine"`
		Nohz          string            `json:"nohz"`
		Preset        string            `json:"preset"`
		Duration      JSONDuration      `json:"duration"`
		Kernel        string            `json:"kernel"`
		Features      string            `json:"features"`
		BaseSlice     JSONDuration      `json:"base_slice"`
		HZ            *int              `json:"hz"`
		Timeline      string            `json:"timeline"`
		Preempt       string            `json:"preempt"`
		TimerSlack    JSONDuration      `json:"timer_slack"`
		CondResched   JSONDuration      `json:"cond_resched_every"`
		MightResched  JSONDuration      `json:"might_resched_every"`
		WakeupCost    JSONDuration      `json:"wakeup_cost"`
		SwitchCost    JSONDuration      `json:"switch_cost"`
		StartJitter   JSONDuration      `json:"start_jitter"`
		RemovedPairs  json.RawMessage   `json:"core_pairs"` // removed: refused
		RemovedRule   json.RawMessage   `json:"core_rule"`  // removed: refused
		ShareInterval JSONDuration      `json:"share_interval"`
		Trace         bool              `json:"trace"`
		Debug         bool              `json:"debug"`
		Groups        []jsonGroup       `json:"groups"`
		CgroupMode    string            `json:"cgroup_mode"`
		Workloads     []json.RawMessage `json:"workloads"`
		EnergyModel   json.RawMessage   `json:"energy_model"`
	}
	offs, err := strictDecode(data, &jc)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{
		Seed:          jc.Seed,
		Duration:      time.Duration(jc.Duration),
		BaseSlice:     time.Duration(jc.BaseSlice),
		WakeupCost:    time.Duration(jc.WakeupCost),
		SwitchCost:    time.Duration(jc.SwitchCost),
		StartJitter:   time.Duration(jc.StartJitter),
		ShareInterval: time.Duration(jc.ShareInterval),
		Trace:         jc.Trace,
		Debug:         jc.Debug,
	}
	if err := parsePreemptKeys(&cfg, offs, jc.Preempt, jc.TimerSlack, jc.CondResched, jc.MightResched); err != nil {
		return Config{}, err
	}
	if jc.CPUs != nil {
		// Config.CPUs reads 0 as one CPU; written out, 0 is a mistake.
		if n := *jc.CPUs; n < 1 || n > topology.MaxCPUs {
			return Config{}, errAt(offs["cpus"], "cpus %d outside 1..%d (leave it out for one CPU)", n, topology.MaxCPUs)
		}
		cfg.CPUs = *jc.CPUs
	}
	if jc.HZ != nil {
		if n := *jc.HZ; n < 1 || n > 100000 {
			return Config{}, errAt(offs["hz"], "hz %d outside 1..100000 (leave it out for 1000)", n)
		}
		cfg.HZ = *jc.HZ
	}
	if jc.Machine != nil {
		if err := jc.Machine.apply(&cfg); err != nil {
			return Config{}, offs.place("machine", err)
		}
	}
	switch jc.Nohz {
	case "", "off":
		cfg.Nohz = smp.NohzOff
	case "idle":
		cfg.Nohz = smp.NohzIdle
	default:
		return Config{}, errAt(offs["nohz"], "nohz %q: want off or idle", jc.Nohz)
	}
	if jc.Preset != "" {
		p, err := topology.ParsePreset(jc.Preset)
		if err != nil {
			return Config{}, offs.place("preset", err)
		}
		cfg.Preset = &p
	}
	if jc.Kernel != "" {
		k, err := eevdf.ParseKernel(jc.Kernel)
		if err != nil {
			return Config{}, errAt(offs["kernel"], "kernel: %v", err)
		}
		cfg.Kernel = k
	}
	if jc.Features != "" {
		// The tokens apply to the kernel's own defaults, as a features
		// line does under fairclass replay --kernel.
		base, err := features.Preset(cfg.Kernel.String())
		if err != nil {
			return Config{}, errAt(offs["kernel"], "kernel: %v", err)
		}
		fs, err := base.Apply(jc.Features)
		if err != nil {
			return Config{}, offs.place("features", err) // it names itself: "features: …"
		}
		cfg.Features = &fs
	}
	if err := removedCoreKeys(offs, jc.RemovedPairs, jc.RemovedRule); err != nil {
		return Config{}, err
	}
	switch strings.ToLower(jc.Timeline) {
	case "", "btree":
		cfg.Timeline = eevdf.BTree
	case "rbtree":
		cfg.Timeline = eevdf.RBTree
	default:
		return Config{}, errAt(offs["timeline"], "timeline %q: want btree or rbtree", jc.Timeline)
	}
	for i, g := range jc.Groups {
		var w uint64
		if g.Weight != nil {
			w = *g.Weight
			if w < eevdf.CPUWeightMin || w > eevdf.CPUWeightMax {
				return Config{}, errAt(offs[fmt.Sprintf("groups[%d].weight", i)], "group %q: weight %d outside %d..%d (leave it out for the default %d)",
					g.Name, w, eevdf.CPUWeightMin, eevdf.CPUWeightMax, eevdf.CPUWeightDefault)
			}
		}
		cfg.Groups = append(cfg.Groups, Group{Name: g.Name, Parent: g.Parent, Weight: w, Nice: g.Nice, Idle: g.Idle})
	}
	if jc.CgroupMode != "" {
		m, err := eevdf.ParseCgroupMode(jc.CgroupMode)
		if err != nil {
			return Config{}, offs.place("cgroup_mode", err)
		}
		cfg.CgroupMode = m
	} else {
		cfg.CgroupMode = eevdf.ModeConcur
	}
	if len(jc.EnergyModel) > 0 && string(jc.EnergyModel) != "null" {
		m, err := parseEnergyModel(jc.EnergyModel, dir)
		if err != nil {
			return Config{}, offs.place("energy_model", err)
		}
		cfg.EnergyModel = m
	}
	if len(jc.Workloads) == 0 {
		err := errors.New("no workloads: a configuration needs at least one")
		return Config{}, offs.place("workloads", err)
	}
	for i, raw := range jc.Workloads {
		at := offs[fmt.Sprintf("workloads[%d]", i)]
		w, dur, err := parseWorkload(raw, dir)
		if err != nil {
			return Config{}, shift(at, fmt.Errorf("workload %d: %w", i, err))
		}
		// Its own checks (counts, durations) now rather than when a
		// simulation starts, so that the error has a position; the specs
		// are built again, and new channels made, for each simulation.
		if _, err := w.Tasks(); err != nil {
			return Config{}, shift(at, fmt.Errorf("workload %d: %w", i, err))
		}
		if cfg.Duration == 0 && dur > 0 {
			cfg.Duration = dur // an rt-app file's global duration
		}
		cfg.Workloads = append(cfg.Workloads, w)
	}
	if cfg.Duration <= 0 {
		if !offs.has("duration") {
			return Config{}, errors.New(`no "duration": the stop time must be given`)
		}
		return Config{}, errAt(offs["duration"], "duration %v: the stop time must be positive", cfg.Duration)
	}
	return cfg, nil
}

// JSONDuration is a time.Duration that reads from JSON as a Go duration
// string ("2.8ms") or an integer of nanoseconds.
type JSONDuration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *JSONDuration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "0" || s == "" {
			*d = 0
			return nil
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = JSONDuration(v)
		return nil
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("duration %s: want a string like \"2ms\" or integer nanoseconds", b)
	}
	*d = JSONDuration(v)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (d JSONDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// jsonMachine is "machine": a topology.Machine whose missing counts are 1.
type jsonMachine struct {
	Packages       *int   `json:"packages"`
	LLCsPerPackage *int   `json:"llcs_per_package"`
	CoresPerLLC    *int   `json:"cores_per_llc"`
	ThreadsPerCore *int   `json:"threads_per_core"`
	Numbering      string `json:"numbering"`
	jsonAsym              // "preset", "capacities" and biglittle's keys (asym.go)
}

func (j *jsonMachine) machine() (topology.Machine, error) {
	one := func(p *int) int {
		if p == nil {
			return 1
		}
		return *p
	}
	m := topology.Machine{Packages: one(j.Packages), LLCsPerPackage: one(j.LLCsPerPackage),
		CoresPerLLC: one(j.CoresPerLLC), ThreadsPerCore: one(j.ThreadsPerCore)}
	if j.Numbering != "" {
		n, err := topology.ParseNumbering(j.Numbering)
		if err != nil {
			return m, err
		}
		m.Numbering = n
	}
	return m, m.Validate()
}

// jsonGroup is one entry of "groups".
type jsonGroup struct {
	Name   string  `json:"name"`
	Parent string  `json:"parent"`
	Weight *uint64 `json:"weight"` // nil: absent, the default
	Nice   *int    `json:"nice"`
	Idle   bool    `json:"idle"`
}

// jsonTaskOpts are the task attributes every workload object may carry.
type jsonTaskOpts struct {
	Group  string       `json:"group"`
	Nice   int          `json:"nice"`
	Policy string       `json:"policy"`
	Slice  JSONDuration `json:"slice"`
	CPUs   []int        `json:"cpus"`
	Cookie uint64       `json:"cookie"`
	Start  JSONDuration `json:"start"`
	Slack  JSONDuration `json:"timer_slack"`
}

func (o *jsonTaskOpts) options() (TaskOptions, error) {
	p, err := parsePolicy(o.Policy)
	if err != nil {
		return TaskOptions{}, err
	}
	return TaskOptions{Nice: o.Nice, Policy: p, Slice: time.Duration(o.Slice), CPUs: o.CPUs, Cookie: o.Cookie,
		Start: time.Duration(o.Start), Group: o.Group, TimerSlack: time.Duration(o.Slack)}, nil
}

// parsePolicy reads a fair-class policy name.
func parsePolicy(s string) (eevdf.Policy, error) {
	switch strings.ToLower(s) {
	case "", "normal", "other", "sched_other", "sched_normal":
		return eevdf.PolicyNormal, nil
	case "batch", "sched_batch":
		return eevdf.PolicyBatch, nil
	case "idle", "sched_idle":
		return eevdf.PolicyIdle, nil
	}
	return 0, fmt.Errorf("policy %q: want normal, batch or idle (only the fair class is modelled)", s)
}

// parseWorkload decodes one workload object; an rt-app workload may carry
// a global duration.
func parseWorkload(raw json.RawMessage, dir string) (Workload, time.Duration, error) {
	// The kind selects the schema; the exact key only ("Kind" is refused
	// by the strict decoding that follows).
	var head struct {
		Kind string `json:"kind"`
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, 0, errors.New("want an object")
	}
	if k, ok := members["kind"]; ok {
		if err := json.Unmarshal(k, &head.Kind); err != nil {
			return nil, 0, fmt.Errorf("kind: want a string, got %s", k)
		}
	}
	type common struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
		jsonTaskOpts
	}
	switch head.Kind {
	case "cyclictest":
		var j struct {
			common
			Threads  int          `json:"threads"`
			Interval JSONDuration `json:"interval"`
			Distance JSONDuration `json:"distance"`
			Duration JSONDuration `json:"duration"`
			Loops    int          `json:"loops"`
			Work     JSONDuration `json:"work"`
			SysWork  JSONDuration `json:"sys_work"`
		}
		offs, err := strictDecode(raw, &j)
		if err != nil {
			return nil, 0, err
		}
		opt, err := j.options()
		if err != nil {
			return nil, 0, offs.place("policy", err)
		}
		if err := noZeroDefaults(offs, []keyValue{{"threads", int64(j.Threads)}, {"interval", int64(j.Interval)}, {"work", int64(j.Work)}}); err != nil {
			return nil, 0, err
		}
		return &CyclictestWorkload{Label: j.Name, Threads: j.Threads, Interval: time.Duration(j.Interval),
			Distance: time.Duration(j.Distance), Duration: time.Duration(j.Duration), Loops: j.Loops,
			Work: time.Duration(j.Work), SysWork: time.Duration(j.SysWork), Options: opt}, 0, nil
	case "hackbench":
		var j struct {
			common
			Groups    int          `json:"groups"`
			Fds       int          `json:"fds"`
			Loops     int          `json:"loops"`
			Pipe      bool         `json:"pipe"`
			Threads   bool         `json:"threads"`
			DataSize  int          `json:"datasize"`
			WriteCost JSONDuration `json:"write_cost"`
			ReadCost  JSONDuration `json:"read_cost"`
			UserCost  JSONDuration `json:"user_cost"`
			Capacity  int          `json:"capacity"`
		}
		offs, err := strictDecode(raw, &j)
		if err != nil {
			return nil, 0, err
		}
		opt, err := j.options()
		if err != nil {
			return nil, 0, offs.place("policy", err)
		}
		if err := noZeroDefaults(offs, []keyValue{{"groups", int64(j.Groups)}, {"fds", int64(j.Fds)}, {"loops", int64(j.Loops)}, {"datasize", int64(j.DataSize)},
			{"write_cost", int64(j.WriteCost)}, {"read_cost", int64(j.ReadCost)}, {"capacity", int64(j.Capacity)}}); err != nil {
			return nil, 0, err
		}
		return &HackbenchWorkload{Label: j.Name, Groups: j.Groups, Fds: j.Fds, Loops: j.Loops, Pipe: j.Pipe,
			Threads: j.Threads, DataSize: j.DataSize, WriteCost: time.Duration(j.WriteCost),
			ReadCost: time.Duration(j.ReadCost), UserCost: time.Duration(j.UserCost), Capacity: j.Capacity, Options: opt}, 0, nil
	case "stress":
		var j struct {
			common
			N       int          `json:"n"`
			Timeout JSONDuration `json:"timeout"`
		}
		offs, err := strictDecode(raw, &j)
		if err != nil {
			return nil, 0, err
		}
		opt, err := j.options()
		if err != nil {
			return nil, 0, offs.place("policy", err)
		}
		if err := noZeroDefaults(offs, []keyValue{{"n", int64(j.N)}}); err != nil {
			return nil, 0, err
		}
		return &StressWorkload{Label: j.Name, N: j.N, Timeout: time.Duration(j.Timeout), Options: opt}, 0, nil
	case "yield_loop":
		var j struct {
			common
			YieldFor  JSONDuration `json:"yield_for"`
			YieldCost JSONDuration `json:"yield_cost"`
			SpinFor   JSONDuration `json:"spin_for"`
		}
		offs, err := strictDecode(raw, &j)
		if err != nil {
			return nil, 0, err
		}
		opt, err := j.options()
		if err != nil {
			return nil, 0, offs.place("policy", err)
		}
		if err := noZeroDefaults(offs, []keyValue{{"yield_for", int64(j.YieldFor)}, {"yield_cost", int64(j.YieldCost)}}); err != nil {
			return nil, 0, err
		}
		return &YieldLoopWorkload{Label: j.Name, YieldFor: time.Duration(j.YieldFor), YieldCost: time.Duration(j.YieldCost),
			SpinFor: time.Duration(j.SpinFor), Options: opt}, 0, nil
	case "massive_intr":
		var j struct {
			common
			N         int          `json:"n"`
			Runtime   JSONDuration `json:"runtime"`
			Sleeptime JSONDuration `json:"sleeptime"`
			Duration  JSONDuration `json:"duration"`
		}
		offs, err := strictDecode(raw, &j)
		if err != nil {
			return nil, 0, err
		}
		opt, err := j.options()
		if err != nil {
			return nil, 0, offs.place("policy", err)
		}
		if err := noZeroDefaults(offs, []keyValue{{"n", int64(j.N)}, {"runtime", int64(j.Runtime)}, {"sleeptime", int64(j.Sleeptime)}}); err != nil {
			return nil, 0, err
		}
		return &MassiveIntrWorkload{Label: j.Name, N: j.N, Runtime: time.Duration(j.Runtime),
			Sleeptime: time.Duration(j.Sleeptime), Duration: time.Duration(j.Duration), Options: opt}, 0, nil
	case "schbench":
		var j struct {
			common
			MessageThreads int          `json:"message_threads"`
			Workers        int          `json:"workers"`
			CPUTime        JSONDuration `json:"cputime"`
			Sleeptime      JSONDuration `json:"sleeptime"`
			MessageCost    JSONDuration `json:"message_cost"`
		}
		offs, err := strictDecode(raw, &j)
		if err != nil {
			return nil, 0, err
		}
		opt, err := j.options()
		if err != nil {
			return nil, 0, offs.place("policy", err)
		}
		if err := noZeroDefaults(offs, []keyValue{{"message_threads", int64(j.MessageThreads)}, {"workers", int64(j.Workers)},
			{"cputime", int64(j.CPUTime)}, {"sleeptime", int64(j.Sleeptime)}, {"message_cost", int64(j.MessageCost)}}); err != nil {
			return nil, 0, err
		}
		return &SchbenchWorkload{Label: j.Name, MessageThreads: j.MessageThreads, Workers: j.Workers,
			CPUTime: time.Duration(j.CPUTime), Sleeptime: time.Duration(j.Sleeptime),
			MessageCost: time.Duration(j.MessageCost), Options: opt}, 0, nil
	case "rtapp":
		var j struct {
			Kind  string          `json:"kind"`
			Name  string          `json:"name"`
			File  string          `json:"file"`
			RTApp json.RawMessage `json:"rtapp"`
		}
		offs, err := strictDecode(raw, &j)
		if err != nil {
			return nil, 0, err
		}
		data, at := []byte(j.RTApp), "rtapp"
		switch {
		case j.File != "" && len(j.RTApp) > 0:
			return nil, 0, errors.New("rtapp: give file or rtapp, not both")
		case j.File != "":
			p := j.File
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			var err error
			if data, err = os.ReadFile(p); err != nil {
				return nil, 0, offs.place("file", err)
			}
			at = "file"
		case len(j.RTApp) == 0:
			return nil, 0, errors.New("rtapp: give file or rtapp")
		}
		w, err := ParseRTApp(data)
		if err != nil {
			return nil, 0, offs.place(at, err)
		}
		if j.Name != "" {
			w.Label = j.Name
		}
		return w, w.Duration, nil
	case "tasks":
		w, err := parseTasksWorkload(raw)
		return w, 0, err
	case "":
		return nil, 0, errors.New(`missing "kind"`)
	}
	return nil, 0, fmt.Errorf("unknown kind %q (cyclictest, hackbench, stress, yield_loop, massive_intr, schbench, rtapp, tasks)", head.Kind)
}

// keyValue is a key of a workload object and the value read for it.
type keyValue struct {
	key string
	v   int64
}

// noZeroDefaults refuses an explicit 0 for keys that the Go types read as
// "the default" when 0: written out, a 0 asks for zero (no cost, no
// tasks), which the workload would not honour.
func noZeroDefaults(offs offsets, kvs []keyValue) error {
	for _, kv := range kvs {
		if kv.v == 0 && offs.has(kv.key) {
			return errAt(offs[kv.key], "%s 0 would be read as the default: leave it out for the default, or give a positive value", kv.key)
		}
	}
	return nil
}

// parseTasksWorkload decodes a "tasks" workload: channels and tasks with
// explicit programs.
func parseTasksWorkload(raw json.RawMessage) (Workload, error) {
	var j struct {
		Kind     string `json:"kind"`
		Name     string `json:"name"`
		Channels []struct {
			Name     string `json:"name"`
			Capacity int    `json:"capacity"`
			Sync     bool   `json:"sync"`
		} `json:"channels"`
		Tasks []struct {
			Name      string `json:"name"`
			Instances *int   `json:"instances"` // nil: one
			jsonTaskOpts
			Program []json.RawMessage `json:"program"`
		} `json:"tasks"`
	}
	offs, err := strictDecode(raw, &j)
	if err != nil {
		return nil, err
	}
	chans := map[string]*Channel{}
	for i, c := range j.Channels {
		at := fmt.Sprintf("channels[%d]", i)
		if _, dup := chans[c.Name]; dup {
			return nil, errAt(offs[at], "channel %q declared twice", c.Name)
		}
		ch := NewChannel(c.Name, c.Capacity, c.Sync)
		if err := ch.validate(); err != nil {
			return nil, offs.place(at, err)
		}
		chans[c.Name] = ch
	}
	var specs []TaskSpec
	for i, t := range j.Tasks {
		at := fmt.Sprintf("tasks[%d]", i)
		opt, err := t.options()
		if err != nil {
			return nil, offs.place(at+".policy", fmt.Errorf("task %q: %w", t.Name, err))
		}
		prog, err := parsePhases(t.Program, chans, offs, at+".program")
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", t.Name, err)
		}
		if t.Instances != nil && *t.Instances == 0 {
			return nil, errAt(offs[at+".instances"], "task %q: instances 0 (leave it out for one)", t.Name)
		}
		n := 1
		if t.Instances != nil {
			n = *t.Instances
		}
		if err := checkCount("instances", n, maxTasks); err != nil {
			return nil, offs.place(at+".instances", fmt.Errorf("task %q: %w", t.Name, err))
		}
		for i := range n {
			name := t.Name
			if n > 1 {
				name = fmt.Sprintf("%s-%d", t.Name, i)
			}
			specs = append(specs, TaskSpec{Name: name, TaskOptions: opt, Program: prog})
		}
	}
	return Custom(orDefault(j.Name, "tasks"), specs...), nil
}

// parsePhases decodes a program, the array at path ("tasks[0].program",
// "body", "forever") of a text whose offsets are offs.
func parsePhases(raws []json.RawMessage, chans map[string]*Channel, offs offsets, path string) ([]Phase, error) {
	var out []Phase
	what := "phase"
	if !strings.Contains(path, ".") {
		what = path + " phase" // in a loop's body or forever
	}
	for i, raw := range raws {
		p, err := parsePhase(raw, chans)
		if err != nil {
			return nil, shift(offs[fmt.Sprintf("%s[%d]", path, i)], fmt.Errorf("%s %d: %w", what, i, err))
		}
		out = append(out, p)
	}
	return out, nil
}

func parsePhase(raw json.RawMessage, chans map[string]*Channel) (Phase, error) {
	var j struct {
		Run        *JSONDuration     `json:"run"`
		Sys        *JSONDuration     `json:"sys"`
		Jitter     JSONDuration      `json:"jitter"`
		Spin       json.RawMessage   `json:"spin"`
		SpinUntil  *JSONDuration     `json:"spin_until"`
		Sleep      *JSONDuration     `json:"sleep"`
		SleepUntil *JSONDuration     `json:"sleep_until"`
		Timer      *JSONDuration     `json:"timer"`
		Until      JSONDuration      `json:"until"`
		Latency    bool              `json:"latency"`
		Send       *string           `json:"send"`
		ReplyTo    string            `json:"reply_to"`
		N          *int              `json:"n"`
		Recv       *string           `json:"recv"`
		Reply      bool              `json:"reply"`
		Yield      bool              `json:"yield"`
		Mark       *string           `json:"mark"`
		SetNice    *int              `json:"set_nice"`
		SetSlice   *JSONDuration     `json:"set_slice"`
		Exit       bool              `json:"exit"`
		Loop       *int              `json:"loop"`
		LoopFor    *JSONDuration     `json:"loop_for"`
		Body       []json.RawMessage `json:"body"`
		Forever    []json.RawMessage `json:"forever"`
	}
	offs, err := strictDecode(raw, &j)
	if err != nil {
		return Phase{}, err
	}
	var out []Phase
	add := func(p Phase) { out = append(out, p) }
	ch := func(name string) (*Channel, error) {
		c, ok := chans[name]
		if !ok {
			return nil, fmt.Errorf("unknown channel %q", name)
		}
		return c, nil
	}
	n := 1
	if j.N != nil {
		n = *j.N
	}
	if j.Run != nil {
		add(RunJitter(time.Duration(*j.Run), time.Duration(j.Jitter)))
	}
	if j.Sys != nil {
		add(SysJitter(time.Duration(*j.Sys), time.Duration(j.Jitter)))
	}
	if len(j.Spin) > 0 {
		switch s := strings.TrimSpace(string(j.Spin)); s {
		case "true":
			add(Spin())
		default:
			var d JSONDuration
			if err := d.UnmarshalJSON(j.Spin); err != nil {
				return Phase{}, errAt(offs["spin"], "spin: %w", err)
			}
			add(SpinFor(time.Duration(d)))
		}
	}
	if j.SpinUntil != nil {
		add(SpinUntil(time.Duration(*j.SpinUntil)))
	}
	if j.Sleep != nil {
		add(SleepJitter(time.Duration(*j.Sleep), time.Duration(j.Jitter)))
	}
	if j.SleepUntil != nil {
		add(SleepUntil(time.Duration(*j.SleepUntil)))
	}
	if j.Timer != nil {
		if j.Until > 0 {
			add(TimerUntil(time.Duration(*j.Timer), time.Duration(j.Until)))
		} else {
			add(Timer(time.Duration(*j.Timer)))
		}
	}
	if j.Latency {
		add(Latency())
	}
	if j.Send != nil {
		c, err := ch(*j.Send)
		if err != nil {
			return Phase{}, offs.place("send", err)
		}
		if j.ReplyTo != "" {
			r, err := ch(j.ReplyTo)
			if err != nil {
				return Phase{}, offs.place("reply_to", err)
			}
			if n != 1 {
				return Phase{}, offs.place("n", errors.New("send with reply_to sends one message"))
			}
			add(SendRequest(c, r))
		} else {
			add(Send(c, n))
		}
	}
	if j.Recv != nil {
		c, err := ch(*j.Recv)
		if err != nil {
			return Phase{}, offs.place("recv", err)
		}
		add(Recv(c, n))
	}
	if j.Reply {
		add(Reply())
	}
	if j.Yield {
		add(Yield())
	}
	if j.Mark != nil {
		add(Mark(*j.Mark))
	}
	if j.SetNice != nil {
		add(SetNice(*j.SetNice))
	}
	if j.SetSlice != nil {
		add(SetSlice(time.Duration(*j.SetSlice)))
	}
	if j.Exit {
		add(Exit())
	}
	if j.Loop != nil || j.LoopFor != nil {
		body, err := parsePhases(j.Body, chans, offs, "body")
		if err != nil {
			return Phase{}, err
		}
		if j.Loop != nil && j.LoopFor != nil {
			return Phase{}, errors.New("both loop and loop_for")
		}
		if j.Loop != nil {
			add(Loop(*j.Loop, body...))
		} else {
			add(LoopFor(time.Duration(*j.LoopFor), body...))
		}
	} else if len(j.Body) > 0 {
		return Phase{}, errors.New("body without loop or loop_for")
	}
	if j.Forever != nil {
		body, err := parsePhases(j.Forever, chans, offs, "forever")
		if err != nil {
			return Phase{}, err
		}
		add(Forever(body...))
	}
	if len(out) != 1 {
		return Phase{}, fmt.Errorf("a phase needs exactly one action key, found %d in %s", len(out), raw)
	}
	return out[0], nil
}

// SetKernel makes cfg run under kernel k, keeping what its Features change:
// the differences of cfg.Features from the old kernel's defaults are
// applied to k's (nil Features stay nil, k's defaults). It fails if a
// changed feature does not exist under k.
func SetKernel(cfg *Config, k eevdf.Kernel) error {
	if cfg == nil {
		return errors.New("sim: SetKernel of a nil Config")
	}
	newBase, err := features.Preset(k.String())
	if err != nil {
		return err
	}
	if cfg.Features != nil {
		oldBase, err := features.Preset(cfg.Kernel.String())
		if err != nil {
			return err
		}
		fs, err := newBase.Apply(cfg.Features.Diff(oldBase))
		if err != nil {
			return err
		}
		cfg.Features = &fs
	}
	cfg.Kernel = k
	return nil
}
