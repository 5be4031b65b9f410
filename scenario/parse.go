package scenario

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// maxLine bounds one line of input.
const maxLine = 1 << 16

// Parse reads a scenario. name is used in error messages. Every error is
// an *Error with the line and column of the offending word.
func Parse(r io.Reader, name string) (*Scenario, error) {
	p := &parser{sc: &Scenario{
		Name:       name,
		Features:   features.Default(),
		BaseSlice:  eevdf.DefaultBaseSlice,
		HZ:         1000,
		CgroupMode: eevdf.ModeConcur,
	}, index: map[string]int{}, groups: map[string]int{}}
	rec := &headerRecorder{r: r, on: true}
	sc := bufio.NewScanner(rec)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			if err == errMachine {
				return parseSMPScenario(io.MultiReader(bytes.NewReader(rec.buf), r), name)
			}
			return nil, err
		}
		rec.on = !p.ops
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, p.errAt(1, "line longer than %d bytes", maxLine)
		}
		return nil, &Error{File: name, Pos: Pos{p.line + 1, 1}, Msg: err.Error()}
	}
	if err := p.closeHeader(); err != nil {
		return nil, err
	}
	return p.sc, nil
}

type parser struct {
	sc     *Scenario
	index  map[string]int
	groups map[string]int
	line   int
	ops    bool   // an operation has been seen: the header is closed
	last   uint64 // time of the last operation
}

type word struct {
	s   string
	col int
}

func fields(line string) []word {
	var ws []word
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
			j++
		}
		ws = append(ws, word{line[i:j], i + 1})
		i = j
	}
	return ws
}

func (p *parser) errAt(col int, format string, args ...any) error {
	return &Error{File: p.sc.Name, Pos: Pos{p.line, col}, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parseLine(line string) error {
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
	switch ws[0].s {
	case "features":
		toks := make([]string, 0, len(ws)-1)
		for _, w := range ws[1:] {
			s, err := p.sc.Features.Apply(w.s)
			if err != nil {
				var ue *features.UnknownError
				if asUnknown(err, &ue) {
					return p.errAt(w.col, "unknown feature %q (see `fairclass help features`)", w.s)
				}
				return p.errAt(w.col, "%v", err)
			}
			p.sc.Features = s
			p.sc.FeatureTokens = append(p.sc.FeatureTokens, w.s)
			toks = append(toks, w.s)
		}
		if len(toks) == 0 {
			return p.errAt(ws[0].col+len(ws[0].s), "features needs at least one token")
		}
		return nil
	case "base_slice":
		n, err := p.oneNumber(ws, 1, 1_000_000_000)
		if err != nil {
			return err
		}
		p.sc.BaseSlice = n
		p.sc.baseSliceGiven = true
		return nil
	case "hz":
		n, err := p.oneNumber(ws, 1, 100000)
		if err != nil {
			return err
		}
		p.sc.HZ = n
		return nil
	case "task":
		return p.parseTask(ws)
	case "group":
		return p.parseGroup(ws)
	case "cgroup_mode":
		if len(ws) != 2 {
			return p.errAt(ws[0].col, "cgroup_mode takes one of up, smp, concur, max, tasks")
		}
		m, err := eevdf.ParseCgroupMode(ws[1].s)
		if err != nil {
			return p.errAt(ws[1].col, "cgroup_mode %q: want up, smp, concur, max or tasks", ws[1].s)
		}
		p.sc.CgroupMode, p.sc.HasGroups = m, true
		return nil
	case "machine":
		return errMachine // a multi-CPU scenario: Parse hands it to ParseSMP
	case "online_cpus":
		n, err := p.oneNumber(ws, 1, 1<<16)
		if err != nil {
			return err
		}
		p.sc.OnlineCPUs = int(n)
		return nil
	}
	return p.errAt(ws[0].col, "unknown statement %q (want features, base_slice, hz, task, group, cgroup_mode, online_cpus, or a time and an operation)", ws[0].s)
}

func asUnknown(err error, target **features.UnknownError) bool {
	ue, ok := err.(*features.UnknownError)
	if ok {
		*target = ue
	}
	return ok
}

func (p *parser) oneNumber(ws []word, lo, hi uint64) (uint64, error) {
	if len(ws) != 2 {
		return 0, p.errAt(ws[0].col, "%s takes one number", ws[0].s)
	}
	n, err := strconv.ParseUint(ws[1].s, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, p.errAt(ws[1].col, "%s: %q is not a number in %d..%d", ws[0].s, ws[1].s, lo, hi)
	}
	return n, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (p *parser) parseTask(ws []word) error {
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
	if len(p.sc.Tasks) >= MaxTasks {
		return p.errAt(ws[0].col, "more than %d tasks", MaxTasks)
	}
	t := Task{Name: name, Pos: Pos{p.line, ws[0].col}}
	seen := map[string]bool{}
	for _, w := range ws[2:] {
		key, val, ok := strings.Cut(w.s, "=")
		if !ok {
			return p.errAt(w.col, "task attribute %q: want nice=N, weight=W, slice=NS, policy=P or group=G", w.s)
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
			t.Weight, t.hasWeight = uint64(n), true
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
		case "group":
			if val == "" {
				return p.errAt(vcol, "group= needs a group name (or / for the root)")
			}
			t.groupName, t.groupPos = val, Pos{p.line, vcol}
		default:
			return p.errAt(w.col, "unknown task attribute %q: want nice, weight, slice, policy or group", key)
		}
	}
	if seen["nice"] && seen["weight"] {
		return p.errAt(ws[1].col, "task %s: nice= and weight= exclude each other", name)
	}
	if t.hasWeight && t.Policy == eevdf.PolicyIdle {
		return p.errAt(ws[1].col, "task %s: weight= with policy=idle (SCHED_IDLE has its own weight)", name)
	}
	p.index[name] = len(p.sc.Tasks)
	p.sc.Tasks = append(p.sc.Tasks, t)
	return nil
}

func (p *parser) parseOp(ws []word) error {
	at, err := strconv.ParseUint(ws[0].s, 10, 64)
	if err != nil {
		return p.errAt(ws[0].col, "time %q is not a number of nanoseconds", ws[0].s)
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
	kind := numOps
	for k, n := range opNames {
		if n == ws[1].s {
			kind = OpKind(k)
		}
	}
	if kind == numOps {
		return p.errAt(ws[1].col, "unknown operation %q (want %s)", ws[1].s, strings.Join(opNames[:], ", "))
	}
	if !p.ops {
		if err := p.closeHeader(); err != nil {
			return err
		}
	}
	op := Op{At: at, Kind: kind, Task: -1, Pos: Pos{p.line, ws[0].col}}
	args := ws[2:]
	want := 0
	switch kind {
	case OpNew, OpWakeup, OpForcePick, OpCgroupMode, OpMigrateOut, OpMigrateIn:
		want = 1
	case OpRenice, OpSlice, OpCgroup, OpCPUWeight, OpCPUWeightNice, OpCPUIdle:
		want = 2
	}
	if len(args) != want {
		col := ws[1].col + len(ws[1].s)
		if len(args) > want {
			col = args[want].col
		}
		switch kind {
		case OpRenice:
			return p.errAt(col, "renice takes a task and a nice value")
		case OpSlice:
			return p.errAt(col, "slice takes a task and a slice in ns")
		case OpNew, OpWakeup, OpForcePick, OpMigrateOut, OpMigrateIn:
			return p.errAt(col, "%s takes one task", kind)
		case OpCgroup:
			return p.errAt(col, "cgroup takes a task and a group (or /)")
		case OpCPUWeight:
			return p.errAt(col, "cpu.weight takes a group and a weight in %d..%d", eevdf.CPUWeightMin, eevdf.CPUWeightMax)
		case OpCPUWeightNice:
			return p.errAt(col, "cpu.weight.nice takes a group and a nice value")
		case OpCPUIdle:
			return p.errAt(col, "cpu.idle takes a group and 0 or 1")
		case OpCgroupMode:
			return p.errAt(col, "cgroup_mode takes one of up, smp, concur, max, tasks")
		default:
			return p.errAt(col, "%s takes no argument (it acts on the running task)", kind)
		}
	}
	if kind.takesTask() {
		i, ok := p.index[args[0].s]
		if !ok {
			return p.errAt(args[0].col, "undeclared task %q", args[0].s)
		}
		op.Task = i
	}
	switch kind {
	case OpCgroup:
		g, err := p.groupRef(kind, args[1])
		if err != nil {
			return err
		}
		op.Group = g
	case OpCPUWeight, OpCPUWeightNice, OpCPUIdle:
		g, err := p.groupRef(kind, args[0])
		if err != nil {
			return err
		}
		op.Group = g
		v, err := p.groupValue(kind, args[1])
		if err != nil {
			return err
		}
		op.Arg = v
	case OpCgroupMode:
		m, err := eevdf.ParseCgroupMode(args[0].s)
		if err != nil {
			return p.errAt(args[0].col, "cgroup_mode %q: want up, smp, concur, max or tasks", args[0].s)
		}
		op.Arg = int64(m)
	}
	switch kind {
	case OpRenice:
		n, msg := rangedInt("nice", args[1].s, eevdf.MinNice, eevdf.MaxNice)
		if msg != "" {
			return p.errAt(args[1].col, "%s", msg)
		}
		op.Arg = n
	case OpSlice:
		n, err := strconv.ParseUint(args[1].s, 10, 63)
		if err != nil {
			return p.errAt(args[1].col, "slice %q is not a number of nanoseconds", args[1].s)
		}
		op.Arg = int64(n)
	}
	p.ops = true
	p.last = at
	p.sc.Ops = append(p.sc.Ops, op)
	return nil
}

// parseGroup parses `group NAME [parent=P] [weight=W | nice=N] [idle]`.
func (p *parser) parseGroup(ws []word) error {
	g, _, err := parseGroupLine(ws, p.groups, len(p.sc.Groups), false, p.errAt)
	if err != nil {
		return err
	}
	g.Pos = Pos{p.line, ws[0].col}
	p.groups[g.Name] = len(p.sc.Groups)
	p.sc.Groups = append(p.sc.Groups, g)
	p.sc.HasGroups = true
	return nil
}

// parseGroupLine parses a group declaration of either language: its name,
// checked against the n groups declared so far (groups maps their names
// to indexes), and its attributes — parent=, weight=, nice=, idle, and
// mkdir where mkdirOK (the multi-CPU language). errAt places an error at a
// column of the line.
func parseGroupLine(ws []word, groups map[string]int, n int, mkdirOK bool, errAt func(int, string, ...any) error) (g Group, mkdir bool, err error) {
	if len(ws) < 2 {
		return g, false, errAt(ws[0].col+len(ws[0].s), "group needs a name")
	}
	name := ws[1].s
	switch {
	case name == RootGroup:
		return g, false, errAt(ws[1].col, "group %q: / is the root group, which exists already", name)
	case !validName(name) || strings.Contains(name, "="):
		return g, false, errAt(ws[1].col, "bad group name %q (letters, digits, _ - . ; at most 64)", name)
	}
	if _, dup := groups[name]; dup {
		return g, false, errAt(ws[1].col, "group %s declared twice", name)
	}
	if n >= MaxGroups {
		return g, false, errAt(ws[0].col, "more than %d groups", MaxGroups)
	}
	flags, names := " or idle", "parent, weight, nice or idle"
	if mkdirOK {
		flags, names = ", idle or mkdir", "parent, weight, nice, idle or mkdir"
	}
	g = Group{Name: name} // the caller, which knows the line, sets Pos
	seen := map[string]bool{}
	for _, w := range ws[2:] {
		key, val, ok := strings.Cut(w.s, "=")
		if !ok && (w.s == "idle" || mkdirOK && w.s == "mkdir") {
			key = w.s
		} else if !ok {
			return g, false, errAt(w.col, "group attribute %q: want parent=P, weight=W, nice=N%s", w.s, flags)
		}
		if seen[key] {
			return g, false, errAt(w.col, "group attribute %s given twice", key)
		}
		seen[key] = true
		vcol := w.col + len(key) + 1
		switch key {
		case "parent":
			if val == name {
				return g, false, errAt(vcol, "group %s: a group cannot be its own parent (a cycle of parents)", name)
			}
			if val == RootGroup {
				continue
			}
			i, ok := groups[val]
			if !ok {
				return g, false, errAt(vcol, "group %s: parent %q is not declared before it (parents come first, so no cycle of parents is possible)", name, val)
			}
			g.Parent = i + 1
		case "weight":
			n, err := strconv.ParseUint(val, 10, 64)
			if err != nil || n < eevdf.CPUWeightMin || n > eevdf.CPUWeightMax {
				return g, false, errAt(vcol, "cpu.weight %q outside %d..%d", val, eevdf.CPUWeightMin, eevdf.CPUWeightMax)
			}
			g.Weight = n
		case "nice":
			n, err := strconv.Atoi(val)
			if err != nil || n < eevdf.MinNice || n > eevdf.MaxNice {
				return g, false, errAt(vcol, "cpu.weight.nice %q outside %d..%d", val, eevdf.MinNice, eevdf.MaxNice)
			}
			g.Nice, g.HasNice = n, true
		case "idle", "mkdir":
			if ok {
				return g, false, errAt(w.col, "%s takes no value", key)
			}
			g.Idle = g.Idle || key == "idle"
			mkdir = mkdir || key == "mkdir"
		default:
			return g, false, errAt(w.col, "unknown group attribute %q: want %s", key, names)
		}
	}
	switch {
	case seen["weight"] && seen["nice"]:
		return g, false, errAt(ws[1].col, "group %s: weight= and nice= exclude each other", name)
	case g.Idle && (seen["weight"] || seen["nice"]):
		return g, false, errAt(ws[1].col, "group %s: idle with weight= or nice= (an idle group has the idle weight)", name)
	}
	return g, mkdir, nil
}

// groupRef resolves the group name of an operation to its reference (0
// for the root, else 1 + its index); "/" only as the target of cgroup.
func (p *parser) groupRef(kind OpKind, w word) (int, error) {
	if w.s == RootGroup {
		if kind != OpCgroup {
			return 0, p.errAt(w.col, "%s", rootGroupWrite(kind))
		}
		return 0, nil
	}
	i, ok := p.groups[w.s]
	if !ok {
		return 0, p.errAt(w.col, "undeclared group %q", w.s)
	}
	return i + 1, nil
}

// rootGroupWrite is why a group write on the root group is invalid.
func rootGroupWrite(kind OpKind) string {
	if kind == OpCPUIdle {
		return "the root group / cannot be made idle (the kernel returns EINVAL)"
	}
	return "the root group / has fixed shares (the kernel returns EINVAL)"
}

// groupValue parses the value of cpu.weight, cpu.weight.nice or cpu.idle.
func (p *parser) groupValue(kind OpKind, w word) (int64, error) {
	switch kind {
	case OpCPUWeight:
		n, err := strconv.ParseUint(w.s, 10, 64)
		if err != nil || n < eevdf.CPUWeightMin || n > eevdf.CPUWeightMax {
			return 0, p.errAt(w.col, "cpu.weight %q outside %d..%d", w.s, eevdf.CPUWeightMin, eevdf.CPUWeightMax)
		}
		return int64(n), nil
	case OpCPUWeightNice:
		n, err := strconv.Atoi(w.s)
		if err != nil || n < eevdf.MinNice || n > eevdf.MaxNice {
			return 0, p.errAt(w.col, "cpu.weight.nice %q outside %d..%d", w.s, eevdf.MinNice, eevdf.MaxNice)
		}
		return int64(n), nil
	}
	switch w.s {
	case "0":
		return 0, nil
	case "1":
		return 1, nil
	}
	return 0, p.errAt(w.col, "cpu.idle %q: want 0 or 1", w.s)
}

// closeHeader resolves the tasks' group= attributes once every group is
// declared (at the first operation, or at the end of a file without any).
func (p *parser) closeHeader() error {
	for i := range p.sc.Tasks {
		t := &p.sc.Tasks[i]
		if t.groupName == "" || t.Group > 0 {
			continue
		}
		if t.groupName == RootGroup {
			t.groupName = ""
			continue
		}
		g, ok := p.groups[t.groupName]
		if !ok {
			return &Error{File: p.sc.Name, Pos: t.groupPos, Msg: fmt.Sprintf("task %s: undeclared group %q", t.Name, t.groupName)}
		}
		t.Group = g + 1
		p.sc.HasGroups = true
	}
	return nil
}

// rangedInt parses val, the value of the attribute what, as a decimal
// integer in lo..hi. The message is empty on success; otherwise it says
// that val is not a number or is out of range, the two mistakes a reader
// fixes differently. Both scenario languages use it, so their errors agree.
func rangedInt(what, val string, lo, hi int64) (int64, string) {
	n, err := strconv.ParseInt(val, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrSyntax):
		return 0, fmt.Sprintf("%s %q is not a number", what, val)
	case err != nil || n < lo || n > hi:
		return 0, fmt.Sprintf("%s %q outside %d..%d", what, val, lo, hi)
	}
	return n, ""
}
