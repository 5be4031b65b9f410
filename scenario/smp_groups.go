package scenario

import (
	"fmt"
	"strconv"

	"github.com/schedmodel/fairclass/eevdf"
)

// Task groups in multi-CPU scenarios (SMP-SCENARIOS §10): the group and
// cgroup_mode header lines, group= on tasks, the group operations, and
// their replay on an smp.System whose runqueues share one eevdf.Hierarchy
// (runqueue i is CPU i of it).

// SMPGroup is a group declaration of a multi-CPU scenario: `group NAME
// [parent=P] [weight=W | nice=N] [idle] [mkdir]`.
type SMPGroup struct {
	Group
	// Mkdir: the group is brought online by a later mkdir operation, not
	// before the first operation.
	Mkdir bool
}

// parseSMPGroup parses a group line.
func (p *smpParser) parseSMPGroup(ws []word) error {
	g, mkdir, err := parseGroupLine(ws, p.groups, len(p.sc.Groups), true, p.errAt)
	if err != nil {
		return err
	}
	g.Pos = Pos{p.line, ws[0].col}
	p.groups[g.Name] = len(p.sc.Groups)
	p.sc.Groups = append(p.sc.Groups, SMPGroup{Group: g, Mkdir: mkdir})
	p.online = append(p.online, !mkdir)
	p.sc.HasGroups = true
	return nil
}

// groupRef resolves a group name to its reference: 0 for the root (only
// where root is allowed), else 1 + its index.
func (p *smpParser) groupRef(w word, root bool) (int, error) {
	if w.s == RootGroup {
		if !root {
			return 0, p.errAt(w.col, "the root group / has fixed shares and no entity")
		}
		return 0, nil
	}
	i, ok := p.groups[w.s]
	if !ok {
		return 0, p.errAt(w.col, "undeclared group %q", w.s)
	}
	return i + 1, nil
}

// parseGroupOp parses the arguments of mkdir, cgroup, cpu.weight,
// cpu.weight.nice, cpu.idle and cgroup_mode.
func (p *smpParser) parseGroupOp(op *SMPOp, args []word, end int) error {
	want := map[SMPOpKind]int{SMPMkdir: 1, SMPCgroup: 2, SMPCPUWeight: 2, SMPCPUWeightNice: 2, SMPCPUIdle: 2, SMPCgroupMode: 1}[op.Kind]
	if len(args) != want {
		col := end
		if len(args) > want {
			col = args[want].col
		}
		usage := map[SMPOpKind]string{
			SMPMkdir:         "mkdir takes a group declared with mkdir",
			SMPCgroup:        "cgroup takes a task and a group (or /)",
			SMPCPUWeight:     fmt.Sprintf("cpu.weight takes a group and a weight in %d..%d", eevdf.CPUWeightMin, eevdf.CPUWeightMax),
			SMPCPUWeightNice: "cpu.weight.nice takes a group and a nice value",
			SMPCPUIdle:       "cpu.idle takes a group and 0 or 1",
			SMPCgroupMode:    "cgroup_mode takes one of up, smp, concur, max, tasks",
		}[op.Kind]
		return p.errAt(col, "%s", usage)
	}
	switch op.Kind {
	case SMPCgroupMode:
		m, err := eevdf.ParseCgroupMode(args[0].s)
		if err != nil {
			return p.errAt(args[0].col, "%v", err)
		}
		op.Arg = int64(m)
		return nil
	case SMPCgroup:
		i, ok := p.index[args[0].s]
		if !ok {
			return p.errAt(args[0].col, "undeclared task %q", args[0].s)
		}
		op.Task = i
		g, err := p.groupRef(args[1], true)
		if err != nil {
			return err
		}
		if g > 0 && !p.online[g-1] {
			return p.errAt(args[1].col, "group %s is not online yet (mkdir comes first)", args[1].s)
		}
		op.Group = g
		return nil
	}
	g, err := p.groupRef(args[0], false)
	if err != nil {
		return err
	}
	op.Group = g
	if op.Kind == SMPMkdir {
		if !p.sc.Groups[g-1].Mkdir || p.online[g-1] {
			return p.errAt(args[0].col, "mkdir %s: only a group declared with mkdir, once", args[0].s)
		}
		if par := p.sc.Groups[g-1].Parent; par > 0 && !p.online[par-1] {
			return p.errAt(args[0].col, "mkdir %s: its parent is not online yet", args[0].s)
		}
		p.online[g-1] = true
		return nil
	}
	if !p.online[g-1] {
		return p.errAt(args[0].col, "group %s is not online yet (mkdir comes first)", args[0].s)
	}
	v, err := strconv.ParseInt(args[1].s, 10, 64)
	switch op.Kind {
	case SMPCPUWeight:
		if err != nil || v < eevdf.CPUWeightMin || v > eevdf.CPUWeightMax {
			return p.errAt(args[1].col, "cpu.weight %q outside %d..%d", args[1].s, eevdf.CPUWeightMin, eevdf.CPUWeightMax)
		}
	case SMPCPUWeightNice:
		if err != nil || v < eevdf.MinNice || v > eevdf.MaxNice {
			return p.errAt(args[1].col, "cpu.weight.nice %q outside %d..%d", args[1].s, eevdf.MinNice, eevdf.MaxNice)
		}
	case SMPCPUIdle:
		if err != nil || (v != 0 && v != 1) {
			return p.errAt(args[1].col, "cpu.idle %q: want 0 or 1", args[1].s)
		}
	}
	op.Arg = v
	return nil
}

// smpGroups is the replay's side of the groups: the eevdf groups by
// declaration index (nil until online) and each task's current group.
type smpGroups struct {
	h      *eevdf.Hierarchy
	tgs    []*eevdf.TaskGroup
	taskOf []int // per task: 0 root, else 1 + group index
}

// groupOptions are the writes that follow a group's creation.
func groupOptions(g *SMPGroup) []eevdf.GroupOption {
	var opts []eevdf.GroupOption
	switch {
	case g.HasNice:
		opts = append(opts, eevdf.WithCPUWeightNice(g.Nice))
	case g.Weight != 0:
		opts = append(opts, eevdf.WithCPUWeight(g.Weight))
	}
	if g.Idle {
		opts = append(opts, eevdf.WithIdleGroup())
	}
	return opts
}

// online brings declared group i online on every CPU.
func (r *SMPReplayer) onlineGroup(i int) error {
	g := &r.sc.Groups[i]
	var parent *eevdf.TaskGroup
	if g.Parent > 0 {
		parent = r.grp.tgs[g.Parent-1]
		if parent == nil {
			return fmt.Errorf("group %s: parent not online", g.Name)
		}
	}
	tg, err := r.sys.NewGroup(g.Name, parent, groupOptions(g)...)
	if err != nil {
		return err
	}
	r.grp.tgs[i] = tg
	// Tasks not forked yet record their group now.
	for k, ref := range r.grp.taskOf {
		if ref == i+1 && r.tasks[k] == nil && r.ses[k] != nil {
			if err := r.sys.RQ(0).MoveToGroup(r.ses[k], tg); err != nil {
				return err
			}
		}
	}
	return nil
}

// tg returns the eevdf group of a reference (nil: the root).
func (r *SMPReplayer) tg(ref int) *eevdf.TaskGroup {
	if ref == 0 {
		return r.grp.h.Root()
	}
	return r.grp.tgs[ref-1]
}

// applyGroupOp runs one group operation.
func (r *SMPReplayer) applyGroupOp(op SMPOp) error {
	sys := r.sys
	if r.grp.h == nil {
		return fmt.Errorf("%s: the scenario has no groups", op.Kind)
	}
	switch op.Kind {
	case SMPMkdir:
		if r.grp.tgs[op.Group-1] != nil {
			return fmt.Errorf("mkdir %s: online already", r.sc.Groups[op.Group-1].Name)
		}
		return r.onlineGroup(op.Group - 1)
	case SMPCgroupMode:
		r.grp.h.SetMode(eevdf.CgroupMode(op.Arg))
		return nil
	case SMPCgroup:
		g := r.tg(op.Group)
		if g == nil {
			return fmt.Errorf("cgroup: group not online")
		}
		t := r.tasks[op.Task]
		if t == nil {
			// Before new only the group is recorded.
			if err := sys.RQ(0).MoveToGroup(r.ses[op.Task], g); err != nil {
				return err
			}
		} else if err := sys.MoveToGroup(t, g); err != nil {
			return err
		}
		r.grp.taskOf[op.Task] = op.Group
		return nil
	}
	g := r.tg(op.Group)
	if g == nil {
		return fmt.Errorf("%s: group not online", op.Kind)
	}
	switch op.Kind {
	case SMPCPUWeight:
		return sys.SetCPUWeight(g, uint64(op.Arg))
	case SMPCPUWeightNice:
		return sys.SetCPUWeightNice(g, int(op.Arg))
	case SMPCPUIdle:
		return sys.SetGroupIdle(g, op.Arg != 0)
	}
	return fmt.Errorf("unknown operation %d", op.Kind)
}

// SMPTaskHLoad is a task_h_load event of an h_load operation.
type SMPTaskHLoad struct {
	CPU   int    // the h_load operation's CPU
	Task  string // the task's name
	Value uint64 // task_h_load
}

// hLoad is the h_load operation: task_h_load of every forked task on cpu,
// in declaration order.
func (r *SMPReplayer) hLoad(cpu int) {
	r.res.HLoads = r.res.HLoads[:0]
	for k, t := range r.tasks {
		if t == nil || t.CPU() != cpu || t.Dead() {
			continue
		}
		r.res.HLoads = append(r.res.HLoads, SMPTaskHLoad{CPU: cpu, Task: r.ses[k].Name(), Value: r.sys.TaskHLoad(t)})
	}
}

// SMPGroupState is one group in an SMPResult.
type SMPGroupState struct {
	Name, Parent string        // the group's and its parent's names ("/" the root)
	Online       bool          // brought online (not a mkdir group before its mkdir)
	Shares       uint64        // tg->shares, unscaled (1024 for cpu.weight 100)
	Idle         bool          // cpu.idle
	TgLoadAvg    int64         // tg->load_avg: the CPUs' published loads
	TgRunnable   int64         // tg->runnable_avg
	CPUs         []SMPGroupCPU // the group on each CPU
}

// SMPGroupCPU is one group on one CPU in an SMPResult.
type SMPGroupCPU struct {
	eevdf.GroupState
	TgLoadContrib     uint64 // tg_load_avg_contrib: the load this CPU last published
	TgRunnableContrib uint64 // tg_runnable_avg_contrib
	LastUpdateTg      uint64 // last_update_tg_load_avg: when, in rq_clock ns
	HLoad             uint64 // the queue's cached h_load
	OnList            bool   // the queue is on the CPU's leaf list
}

// fillGroups records the groups' state and each CPU's leaf list.
func (r *SMPReplayer) fillGroups() {
	res := &r.res
	sys := r.sys
	for c := range res.CPUs {
		cs := &res.CPUs[c]
		cs.Leaf = cs.Leaf[:0]
		for _, g := range sys.RQ(c).LeafList() {
			cs.Leaf = append(cs.Leaf, g.Name())
		}
	}
	if len(res.Groups) != len(r.sc.Groups) {
		res.Groups = make([]SMPGroupState, len(r.sc.Groups))
		for i := range res.Groups {
			res.Groups[i].CPUs = make([]SMPGroupCPU, len(res.CPUs))
		}
	}
	for i := range r.sc.Groups {
		d := &r.sc.Groups[i]
		gs := &res.Groups[i]
		gs.Name = d.Name
		gs.Parent = RootGroup
		if d.Parent > 0 {
			gs.Parent = r.sc.Groups[d.Parent-1].Name
		}
		tg := r.grp.tgs[i]
		gs.Online = tg != nil
		if tg == nil {
			gs.Shares, gs.Idle, gs.TgLoadAvg, gs.TgRunnable = 1024, false, 0, 0
			for c := range gs.CPUs {
				gs.CPUs[c] = SMPGroupCPU{GroupState: eevdf.GroupState{Weight: eevdf.Nice0Load}}
			}
			continue
		}
		gs.Shares, gs.Idle = tg.Shares()>>10, tg.Idle()
		gs.TgLoadAvg, gs.TgRunnable = tg.LoadAvg(), tg.RunnableAvg()
		for c := range gs.CPUs {
			rq := sys.RQ(c)
			st, _ := rq.Group(tg)
			pub, _ := rq.Published(tg)
			hl, _, _, _ := rq.HLoad(tg)
			gs.CPUs[c] = SMPGroupCPU{GroupState: st, TgLoadContrib: pub.LoadAvg, TgRunnableContrib: pub.RunnableAvg,
				LastUpdateTg: pub.LastUpdate, HLoad: hl, OnList: rq.OnList(tg)}
		}
	}
}

// appendGroupsJSON appends the "groups" key of a result with groups.
func appendGroupsJSON(b []byte, gs []SMPGroupState) []byte {
	b = append(b, `,"groups":[`...)
	for i := range gs {
		g := &gs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = strconv.AppendQuote(b, g.Name)
		b = append(b, `,"parent":`...)
		b = strconv.AppendQuote(b, g.Parent)
		b = append(b, `,"online":`...)
		b = strconv.AppendBool(b, g.Online)
		b = appendKV(b, "shares", g.Shares)
		b = append(b, `,"idle":`...)
		b = strconv.AppendBool(b, g.Idle)
		b = append(b, `,"tg_load_avg":`...)
		b = strconv.AppendInt(b, g.TgLoadAvg, 10)
		b = append(b, `,"tg_runnable_avg":`...)
		b = strconv.AppendInt(b, g.TgRunnable, 10)
		b = append(b, `,"cpus":[`...)
		for k := range g.CPUs {
			c := &g.CPUs[k]
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"se_weight":`...)
			b = strconv.AppendUint(b, c.Weight>>10, 10)
			b = append(b, `,"on_rq":`...)
			b = strconv.AppendBool(b, c.OnRq)
			b = appendKV(b, "load", c.Load>>10)
			b = appendKV(b, "nr_queued", uint64(c.NrQueued))
			b = appendKV(b, "h_nr_queued", uint64(c.HNrQueued))
			b = appendKV(b, "h_nr_runnable", uint64(c.HNrRunnable))
			b = appendKV(b, "h_nr_idle", uint64(c.HNrIdle))
			b = appendKV(b, "load_avg", c.Avg.LoadAvg)
			b = appendKV(b, "runnable_avg", c.Avg.RunnableAvg)
			b = appendKV(b, "util_avg", c.Avg.UtilAvg)
			b = appendKV(b, "se_load_avg", c.EntityAvg.LoadAvg)
			b = appendKV(b, "se_runnable_avg", c.EntityAvg.RunnableAvg)
			b = appendKV(b, "se_util_avg", c.EntityAvg.UtilAvg)
			b = appendKV(b, "tg_load_avg_contrib", c.TgLoadContrib)
			b = appendKV(b, "tg_runnable_avg_contrib", c.TgRunnableContrib)
			b = appendKV(b, "last_update_tg_load_avg", c.LastUpdateTg)
			b = appendKV(b, "h_load", c.HLoad)
			b = append(b, `,"on_list":`...)
			b = strconv.AppendBool(b, c.OnList)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, ']')
}

// appendHLoadEvents appends the task_h_load events (after a comma when
// more come before them).
func appendHLoadEvents(b []byte, hs []SMPTaskHLoad, comma bool) []byte {
	for _, h := range hs {
		if comma {
			b = append(b, ',')
		}
		comma = true
		b = append(b, `{"ev":"task_h_load","task":`...)
		b = strconv.AppendQuote(b, h.Task)
		b = appendKV(b, "value", h.Value)
		b = append(b, '}')
	}
	return b
}
