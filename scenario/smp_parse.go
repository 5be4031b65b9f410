package scenario

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/smp"
	"github.com/schedmodel/fairclass/topology"
)

// SMPScenario is a parsed multi-CPU scenario (SMP-SCENARIOS): a file
// whose header has a `machine` line, replayed on package smp.
//
//	machine 1 1 2 2        # packages, LLCs per package, cores per LLC, threads per core
//	hz 250
//	seed 7
//	task A
//	task B nice=5 cpus=0-1
//	1000000 new A on 2
//	1000000 schedule 2
//	2000000 wakeup B from 2 sync
//	4000000 tick
//	4000000 balance 1
type SMPScenario struct {
	Name        string
	Machine     topology.Machine
	Features    features.Set    // the defaults with the features statements applied
	HZ          uint64          // 100, 250 or 1000 (default 1000)
	BaseSlice   uint64          // the normalized base slice, ns (default topology.NormalizedBaseSlice)
	Seed        uint64          // the sched_rng seed (default 0)
	NewidleCost smp.NewidleCost // default smp.DefaultNewidleCost
	Jiffies0    uint64          // jiffies at time 0 (default 0)
	Tasks       []SMPTask       // in declaration order
	Ops         []SMPOp

	// Task groups (SMP-SCENARIOS §10): set by group and cgroup_mode lines.
	HasGroups  bool
	Groups     []SMPGroup       // in declaration order
	CgroupMode eevdf.CgroupMode // default concur
}

// MaxSMPTasks bounds the tasks a multi-CPU scenario declares.
const MaxSMPTasks = 128

// MaxSMPCPUs bounds the CPUs of a multi-CPU scenario's machine.
const MaxSMPCPUs = 64

// SMPTask is a task declaration of a multi-CPU scenario: `task NAME
// [nice=N] [weight=W] [slice=NS] [policy=normal|batch|idle] [cpus=LIST]`.
type SMPTask struct {
	Name   string
	Nice   int
	Weight uint64 // scaled down (1024 = nice 0); 0: from Nice or the policy
	Slice  uint64 // custom slice, ns; 0: the base slice
	Policy eevdf.Policy
	CPUs   []int // the affinity mask, ascending; nil: every CPU
	Group  int   // group=: 0 the root, otherwise 1 + an index into SMPScenario.Groups
	Pos    Pos
}

// SMPOpKind is an operation word of a multi-CPU scenario.
type SMPOpKind uint8

// The multi-CPU operations.
const (
	SMPNew      SMPOpKind = iota // new NAME [on CPU]
	SMPWakeup                    // wakeup NAME [from CPU] [sync]
	SMPSleep                     // sleep CPU
	SMPSchedule                  // schedule CPU
	SMPTick                      // tick [CPU]
	SMPBalance                   // balance CPU
	SMPYield                     // yield CPU
	// The group operations (SMP-SCENARIOS §10).
	SMPMkdir         // mkdir GROUP
	SMPCgroup        // cgroup TASK GROUP
	SMPCPUWeight     // cpu.weight GROUP W
	SMPCPUWeightNice // cpu.weight.nice GROUP N
	SMPCPUIdle       // cpu.idle GROUP 0|1
	SMPCgroupMode    // cgroup_mode MODE
	SMPHLoad         // h_load CPU
	numSMPOps
)

var smpOpNames = [numSMPOps]string{"new", "wakeup", "sleep", "schedule", "tick", "balance", "yield",
	"mkdir", "cgroup", "cpu.weight", "cpu.weight.nice", "cpu.idle", "cgroup_mode", "h_load"}

func (k SMPOpKind) String() string {
	if k < numSMPOps {
		return smpOpNames[k]
	}
	return "?"
}

// SMPOp is one operation of a multi-CPU scenario.
type SMPOp struct {
	At   uint64 // ns, > 0
	Kind SMPOpKind
	Task int // index into SMPScenario.Tasks; -1 for the ops without a task
	// CPU is the op's CPU: the forking CPU of new (0 by default), the
	// waking CPU of wakeup (-1 without from: the sleeper's last CPU), the
	// CPU of sleep, schedule, balance, yield and tick CPU (-1 for a tick
	// of every CPU).
	CPU  int
	Sync bool // wakeup … sync
	// Group is the group of mkdir, cgroup, cpu.weight, cpu.weight.nice and
	// cpu.idle: 0 the root (cgroup only), otherwise 1 + an index into
	// SMPScenario.Groups.
	Group int
	// Arg is the value of cpu.weight, cpu.weight.nice, cpu.idle (0 or 1)
	// and cgroup_mode (an eevdf.CgroupMode).
	Arg int64
	Pos Pos
}

// ParseSMP reads a multi-CPU scenario. name is used in error messages;
// every error is an *Error with the line and column of the offending word.
func ParseSMP(r io.Reader, name string) (*SMPScenario, error) {
	p := &smpParser{sc: &SMPScenario{
		Name:        name,
		Machine:     topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 1},
		Features:    features.Default(),
		HZ:          1000,
		BaseSlice:   topology.NormalizedBaseSlice,
		NewidleCost: smp.DefaultNewidleCost,
		CgroupMode:  eevdf.ModeConcur,
	}, index: map[string]int{}, seen: map[string]bool{}, groups: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, p.errAt(1, "line longer than %d bytes", maxLine)
		}
		return nil, &Error{File: name, Pos: Pos{p.line + 1, 1}, Msg: err.Error()}
	}
	if !p.ops {
		if err := p.closeHeader(0); err != nil {
			return nil, err
		}
	}
	return p.sc, nil
}

type smpParser struct {
	sc      *SMPScenario
	index   map[string]int
	seen    map[string]bool // header statements given (each at most once, features aside)
	line    int
	ops     bool
	last    uint64
	ncpus   int
	forked  []bool
	taskPos []Pos // the cpus= attribute of each task, checked against the machine
	groups  map[string]int
	online  []bool // each group is online (not mkdir, or its mkdir parsed)
}

func (p *smpParser) errAt(col int, format string, args ...any) error {
	return &Error{File: p.sc.Name, Pos: Pos{p.line, col}, Msg: fmt.Sprintf(format, args...)}
}

func (p *smpParser) parseLine(line string) error {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	ws := fields(line)
	if len(ws) == 0 {
		return nil
	}
	if c := ws[0].s[0]; c >= '0' && c <= '9' {
		return p.parseOp(ws)
	}
	if p.ops {
		return p.errAt(ws[0].col, "%q after the first operation: header statements come first", ws[0].s)
	}
	key := ws[0].s
	if key != "features" && key != "task" && key != "group" {
		if p.seen[key] {
			return p.errAt(ws[0].col, "%s given twice", key)
		}
		p.seen[key] = true
	}
	switch key {
	case "machine":
		if len(ws) != 5 {
			return p.errAt(ws[0].col, "machine takes four numbers: packages, LLCs per package, cores per LLC, threads per core")
		}
		var n [4]int
		for i := range n {
			v, err := strconv.Atoi(ws[i+1].s)
			if err != nil || v < 1 || v > MaxSMPCPUs {
				return p.errAt(ws[i+1].col, "machine: %q is not a count in 1..%d", ws[i+1].s, MaxSMPCPUs)
			}
			n[i] = v
		}
		m := topology.Machine{Packages: n[0], LLCsPerPackage: n[1], CoresPerLLC: n[2], ThreadsPerCore: n[3]}
		if c := m.NumCPUs(); c > MaxSMPCPUs {
			return p.errAt(ws[1].col, "machine of %d CPUs: at most %d", c, MaxSMPCPUs)
		}
		p.sc.Machine = m
	case "features":
		if len(ws) < 2 {
			return p.errAt(ws[0].col+len(ws[0].s), "features needs at least one token")
		}
		for _, w := range ws[1:] {
			s, err := p.sc.Features.Apply(w.s)
			if err != nil {
				return p.errAt(w.col, "feature %q: %v", w.s, err)
			}
			p.sc.Features = s
		}
	case "hz":
		n, err := p.number(ws, 1, 1, 1000)
		if err != nil {
			return err
		}
		if n[0] != 100 && n[0] != 250 && n[0] != 1000 {
			return p.errAt(ws[1].col, "hz %d: want 100, 250 or 1000", n[0])
		}
		p.sc.HZ = n[0]
	case "base_slice":
		n, err := p.number(ws, 1, 1, 1_000_000_000)
		if err != nil {
			return err
		}
		p.sc.BaseSlice = n[0]
	case "seed":
		n, err := p.number(ws, 1, 0, ^uint64(0))
		if err != nil {
			return err
		}
		p.sc.Seed = n[0]
	case "jiffies0":
		n, err := p.number(ws, 1, 0, ^uint64(0))
		if err != nil {
			return err
		}
		p.sc.Jiffies0 = n[0]
	case "newidle_cost":
		n, err := p.number(ws, 3, 0, 1_000_000_000)
		if err != nil {
			return err
		}
		if n[0] == 0 && n[1] == 0 {
			return p.errAt(ws[1].col, "newidle_cost: BASE and PERCPU both 0 would freeze the newly idle statistics")
		}
		p.sc.NewidleCost = smp.NewidleCost{Base: n[0], PerCPU: n[1], Blocked: n[2]}
	case "nohz":
		if len(ws) != 2 || ws[1].s != "off" {
			return p.errAt(ws[0].col, "nohz: only `nohz off` (every CPU ticks) is modelled")
		}
	case "task":
		return p.parseTask(ws)
	case "group":
		return p.parseSMPGroup(ws)
	case "cgroup_mode":
		if len(ws) != 2 {
			return p.errAt(ws[0].col, "cgroup_mode takes one of up, smp, concur, max, tasks")
		}
		m, err := eevdf.ParseCgroupMode(ws[1].s)
		if err != nil {
			return p.errAt(ws[1].col, "%v", err)
		}
		p.sc.CgroupMode = m
		p.sc.HasGroups = true
	case "online_cpus":
		return p.errAt(ws[0].col, "online_cpus: a multi-CPU scenario's online CPUs are its machine's")
	default:
		return p.errAt(ws[0].col, "unknown statement %q (want machine, features, hz, base_slice, seed, newidle_cost, jiffies0, nohz, task, or a time and an operation)", key)
	}
	return nil
}

// number parses the n numbers after ws[0], each in lo..hi.
func (p *smpParser) number(ws []word, n int, lo, hi uint64) ([]uint64, error) {
	if len(ws) != n+1 {
		if n == 1 {
			return nil, p.errAt(ws[0].col, "%s takes one number", ws[0].s)
		}
		return nil, p.errAt(ws[0].col, "%s takes %d numbers", ws[0].s, n)
	}
	out := make([]uint64, n)
	for i := range out {
		v, err := strconv.ParseUint(ws[i+1].s, 10, 64)
		if err != nil || v < lo || v > hi {
			return nil, p.errAt(ws[i+1].col, "%s: %q is not a number in %d..%d", ws[0].s, ws[i+1].s, lo, hi)
		}
		out[i] = v
	}
	return out, nil
}

func (p *smpParser) parseTask(ws []word) error {
	if len(ws) < 2 {
		return p.errAt(ws[0].col+len(ws[0].s), "task needs a name")
	}
	name := ws[1].s
	if !validName(name) || strings.Contains(name, "=") {
		return p.errAt(ws[1].col, "bad task name %q (letters, digits, _ - . ; at most 64)", name)
	}
	if _, dup := p.index[name]; dup {
		return p.errAt(ws[1].col, "task %s declared twice", name)
	}
	if len(p.sc.Tasks) >= MaxSMPTasks {
		return p.errAt(ws[0].col, "more than %d tasks", MaxSMPTasks)
	}
	t := SMPTask{Name: name, Pos: Pos{p.line, ws[0].col}}
	cpusPos := Pos{}
	seen := map[string]bool{}
	for _, w := range ws[2:] {
		key, val, ok := strings.Cut(w.s, "=")
		if !ok {
			return p.errAt(w.col, "task attribute %q: want nice=N, weight=W, slice=NS, policy=P, cpus=LIST or group=G", w.s)
		}
		if seen[key] {
			return p.errAt(w.col, "task attribute %s given twice", key)
		}
		seen[key] = true
		vcol := w.col + len(key) + 1
		switch key {
		case "nice":
			n, msg := rangedInt("nice", val, eevdf.MinNice, eevdf.MaxNice)
			if msg != "" {
				return p.errAt(vcol, "%s", msg)
			}
			t.Nice = int(n)
		case "weight":
			n, msg := rangedInt("weight", val, 1, eevdf.MaxWeight)
			if msg != "" {
				return p.errAt(vcol, "%s", msg)
			}
			t.Weight = uint64(n)
		case "slice":
			n, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				return p.errAt(vcol, "slice %q is not a number of nanoseconds", val)
			}
			t.Slice = n
		case "policy":
			switch val {
			case "normal":
				t.Policy = eevdf.PolicyNormal
			case "batch":
				t.Policy = eevdf.PolicyBatch
			case "idle":
				t.Policy = eevdf.PolicyIdle
			default:
				return p.errAt(vcol, "policy %q: want normal, batch or idle", val)
			}
		case "cpus":
			cpus, err := parseCPUList(val)
			if err != nil {
				return p.errAt(vcol, "cpus=%s: %v", val, err)
			}
			t.CPUs, cpusPos = cpus, Pos{p.line, vcol}
		case "group":
			g, err := p.groupRef(word{val, vcol}, true)
			if err != nil {
				return err
			}
			t.Group = g
			p.sc.HasGroups = true
		default:
			return p.errAt(w.col, "unknown task attribute %q: want nice, weight, slice, policy, cpus or group", key)
		}
	}
	p.index[name] = len(p.sc.Tasks)
	p.sc.Tasks = append(p.sc.Tasks, t)
	p.taskPos = append(p.taskPos, cpusPos)
	return nil
}

// parseCPUList parses a CPU list: comma-separated CPUs and ranges a-b,
// returned ascending without repeats.
func parseCPUList(s string) ([]int, error) {
	var set [MaxSMPCPUs]bool
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.Atoi(a)
		if err != nil || lo < 0 || lo >= MaxSMPCPUs {
			return nil, fmt.Errorf("%q is not a CPU in 0..%d", a, MaxSMPCPUs-1)
		}
		hi := lo
		if isRange {
			hi, err = strconv.Atoi(b)
			if err != nil || hi < lo || hi >= MaxSMPCPUs {
				return nil, fmt.Errorf("range %q: want a-b with a ≤ b < %d", part, MaxSMPCPUs)
			}
		}
		for c := lo; c <= hi; c++ {
			set[c] = true
		}
	}
	var cpus []int
	for c, ok := range set {
		if ok {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// closeHeader checks what depends on the whole header: the machine and
// the tasks' affinity masks.
func (p *smpParser) closeHeader(col int) error {
	if err := p.sc.Machine.Validate(); err != nil {
		return p.errAt(max(col, 1), "machine: %v", err)
	}
	p.ncpus = p.sc.Machine.NumCPUs()
	for i, t := range p.sc.Tasks {
		for _, c := range t.CPUs {
			if c >= p.ncpus {
				return &Error{File: p.sc.Name, Pos: p.taskPos[i], Msg: fmt.Sprintf("task %s: CPU %d in cpus= is not one of the machine's %d CPUs", t.Name, c, p.ncpus)}
			}
		}
	}
	p.forked = make([]bool, len(p.sc.Tasks))
	return nil
}

func (p *smpParser) parseOp(ws []word) error {
	at, err := strconv.ParseUint(ws[0].s, 10, 64)
	if err != nil {
		return p.errAt(ws[0].col, "time %q is not a number of nanoseconds", ws[0].s)
	}
	if at == 0 {
		return p.errAt(ws[0].col, "time 0: operations start after 0 (a PELT stamp of 0 means never attached)")
	}
	if p.ops && at < p.last {
		return p.errAt(ws[0].col, "time going backwards: %d after %d", at, p.last)
	}
	if len(ws) < 2 {
		return p.errAt(ws[0].col+len(ws[0].s), "missing operation after the time")
	}
	if len(p.sc.Ops) >= MaxOps {
		return p.errAt(ws[0].col, "more than %d operations", MaxOps)
	}
	kind := numSMPOps
	for k, n := range smpOpNames {
		if n == ws[1].s {
			kind = SMPOpKind(k)
		}
	}
	if kind == numSMPOps {
		return p.errAt(ws[1].col, "unknown operation %q (want %s)", ws[1].s, strings.Join(smpOpNames[:], ", "))
	}
	if !p.ops {
		if err := p.closeHeader(ws[0].col); err != nil {
			return err
		}
	}
	op := SMPOp{At: at, Kind: kind, Task: -1, CPU: -1, Pos: Pos{p.line, ws[0].col}}
	args := ws[2:]
	end := ws[1].col + len(ws[1].s)
	switch kind {
	case SMPNew, SMPWakeup:
		if len(args) == 0 {
			return p.errAt(end, "%s takes a task", kind)
		}
		i, ok := p.index[args[0].s]
		if !ok {
			return p.errAt(args[0].col, "undeclared task %q", args[0].s)
		}
		op.Task = i
		rest := args[1:]
		word := "on"
		if kind == SMPWakeup {
			word = "from"
		}
		if len(rest) >= 2 && rest[0].s == word {
			c, err := p.cpu(rest[1])
			if err != nil {
				return err
			}
			op.CPU = c
			rest = rest[2:]
		}
		if kind == SMPWakeup && len(rest) > 0 && rest[0].s == "sync" {
			op.Sync = true
			rest = rest[1:]
		}
		if len(rest) > 0 {
			if kind == SMPNew {
				return p.errAt(rest[0].col, "new takes a task and optionally `on CPU`")
			}
			return p.errAt(rest[0].col, "wakeup takes a task, optionally `from CPU`, then optionally `sync`")
		}
		if kind == SMPNew {
			if p.forked[i] {
				return p.errAt(args[0].col, "new %s: each task is forked once", args[0].s)
			}
			p.forked[i] = true
			if op.CPU < 0 {
				op.CPU = 0
			}
		} else if !p.forked[i] {
			return p.errAt(args[0].col, "wakeup %s: the task was never forked (use new)", args[0].s)
		}
	case SMPMkdir, SMPCgroup, SMPCPUWeight, SMPCPUWeightNice, SMPCPUIdle, SMPCgroupMode:
		if err := p.parseGroupOp(&op, args, end); err != nil {
			return err
		}
	case SMPTick:
		switch len(args) {
		case 0:
		case 1:
			c, err := p.cpu(args[0])
			if err != nil {
				return err
			}
			op.CPU = c
		default:
			return p.errAt(args[1].col, "tick takes at most a CPU")
		}
	default:
		if len(args) != 1 {
			col := end
			if len(args) > 1 {
				col = args[1].col
			}
			return p.errAt(col, "%s takes one CPU", kind)
		}
		c, err := p.cpu(args[0])
		if err != nil {
			return err
		}
		op.CPU = c
	}
	p.ops = true
	p.last = at
	p.sc.Ops = append(p.sc.Ops, op)
	return nil
}

// cpu parses a CPU id of the machine.
func (p *smpParser) cpu(w word) (int, error) {
	c, err := strconv.Atoi(w.s)
	if err != nil || c < 0 || c >= p.ncpus {
		return 0, p.errAt(w.col, "%q is not a CPU of the machine (0..%d)", w.s, p.ncpus-1)
	}
	return c, nil
}
