package smp

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// exportedAPI lists the package's exported functions and methods of
// exported types, as "Name" and "Type.Name", from its source.
func exportedAPI(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name != "smp" {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				names = append(names, fd.Name.Name)
				continue
			}
			rt := fd.Recv.List[0].Type
			if st, ok := rt.(*ast.StarExpr); ok {
				rt = st.X
			}
			if id := rt.(*ast.Ident); id.IsExported() {
				names = append(names, id.Name+"."+fd.Name.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// Every exported function and method of the package, given a CPU id that
// is none (−1, NumCPUs(), a huge one), a nil task or topology, a task of
// another System, a nil option, or a value out of its range, does not
// panic, changes nothing, and either returns an error that wraps the
// sentinel of the case and names the bad value, or (the queries and the
// kernel-shaped entry points without an error result) its documented
// neutral value. A nil *Task is the idle task. The walk fails if an
// exported function has no entry, so that a new one gets its edges tested.
func TestEveryExportedFunctionHandlesBadInput(t *testing.T) {
	h, running, sleeping, fresh, dead, foreign := checkedSetup(t)
	s := h.s
	n := s.NumCPUs()
	top := s.Topology()
	c := s.Checked()
	var nilTask *Task

	// wantErr checks err against the sentinel of the case and the words
	// it must contain.
	wantErr := func(t *testing.T, call string, err, sentinel error, says string) {
		t.Helper()
		if err == nil || !errors.Is(err, sentinel) || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v; want an error wrapping %q that says %q", call, err, sentinel, says)
		}
	}
	newWith := func(opts ...Option) error {
		_, err := New(top, opts...)
		return err
	}
	newTask := func(opts ...TaskOption) error {
		se, _ := eevdf.NewEntity("edge")
		_, err := s.NewTask(se, opts...)
		return err
	}
	yields := features.Default().Toggle(features.YieldBumpDeadline, true).Toggle(features.YieldClampDeadline, true)

	cases := map[string]func(t *testing.T){
		"New": func(t *testing.T) {
			_, err := New(nil)
			wantErr(t, "New(nil)", err, ErrBadOption, "nil topology")
			wantErr(t, "New(top, nil)", newWith(nil), ErrBadOption, "option 0 is nil")
		},
		"WithNewidleCost": func(t *testing.T) {
			wantErr(t, "WithNewidleCost(0)", newWith(WithNewidleCost(NewidleCost{})), ErrBadOption, "must cost")
		},
		"WithFeatures": func(t *testing.T) {
			wantErr(t, "WithFeatures(two yields)", newWith(WithFeatures(yields)), ErrBadOption, "yield variant")
		},
		"WithSeed": func(t *testing.T) {
			if err := newWith(WithSeed(^uint64(0))); err != nil {
				t.Errorf("WithSeed(max): %v", err)
			}
		},
		"WithNohz": func(t *testing.T) {
			wantErr(t, "WithNohz(7)", newWith(WithNohz(7)), ErrBadOption, "NohzMode(7)")
		},
		"WithPreset": func(t *testing.T) {
			wantErr(t, "WithPreset(Warm, 0)", newWith(WithPreset(topology.Warm, 0)), ErrBadOption, "warm needs t0 > 0")
			wantErr(t, "WithPreset(9, 1)", newWith(WithPreset(9, 1)), ErrBadOption, "preset")
		},
		"WithTickNsec": func(t *testing.T) {
			wantErr(t, "WithTickNsec(0)", newWith(WithTickNsec(0)), ErrBadOption, "tick of 0 ns")
		},
		"WithRunqueueOptions": func(t *testing.T) {
			wantErr(t, "WithRunqueueOptions(nil)", newWith(WithRunqueueOptions(nil)), ErrBadOption, "runqueue option 0 is nil")
		},
		"WithCPU": func(t *testing.T) {
			wantErr(t, "WithCPU(-1)", newTask(WithCPU(-1)), ErrBadCPU, "-1")
			wantErr(t, "WithCPU(N)", newTask(WithCPU(n)), ErrBadCPU, "4")
		},
		"WithParent": func(t *testing.T) {
			wantErr(t, "WithParent(nil)", newTask(WithParent(nil)), ErrNilTask, "WithParent(nil)")
			wantErr(t, "WithParent(foreign)", newTask(WithParent(foreign)), ErrForeignTask, "parent "+foreign.Name())
		},
		"WithAllowed": func(t *testing.T) {
			wantErr(t, "WithAllowed()", newTask(WithAllowed()), ErrNotAllowed, "WithAllowed()")
			wantErr(t, "WithAllowed(-1)", newTask(WithAllowed(0, -1)), ErrBadCPU, "-1 in WithAllowed")
			wantErr(t, "WithAllowed(N)", newTask(WithAllowed(n)), ErrBadCPU, "4 in WithAllowed")
		},
		"Rules": func(t *testing.T) {
			if len(Rules()) != NumRules {
				t.Errorf("Rules() has %d rules", len(Rules()))
			}
		},
		"Rule.String": func(t *testing.T) {
			if got := Rule(200).String(); got != "Rule(200)" {
				t.Errorf("Rule(200) prints %q", got)
			}
		},
		"NohzMode.String": func(t *testing.T) {
			if got := NohzMode(9).String(); got != "NohzMode(9)" {
				t.Errorf("NohzMode(9) prints %q", got)
			}
		},
		"RuleCounts.String": func(t *testing.T) {
			if got := (RuleCounts{}).String(); got != "[]" {
				t.Errorf("zero RuleCounts prints %q", got)
			}
		},
		"RuleCounts.Total": func(t *testing.T) {
			if got := (RuleCounts{}).Total(); got != 0 {
				t.Errorf("zero RuleCounts total %d", got)
			}
		},
		"Stats.String": func(t *testing.T) {
			if got := (Stats{}).String(); !strings.HasPrefix(got, "forks 0 ") {
				t.Errorf("zero Stats prints %q", got)
			}
		},
		"Conservation.IdleFraction": func(t *testing.T) {
			if f := (Conservation{}).IdleFraction(); f != 0 {
				t.Errorf("zero Conservation idle fraction %v", f)
			}
		},
		"Conservation.StrandedFraction": func(t *testing.T) {
			if f := (Conservation{}).StrandedFraction(); f != 0 {
				t.Errorf("zero Conservation stranded fraction %v", f)
			}
		},
		"System.Conservation": func(t *testing.T) {
			_, err := s.Conservation(s.Clock() - 1)
			wantErr(t, "Conservation(before the clock)", err, eevdf.ErrClockBackwards, "before the clock")
		},
		"System.NewTask": func(t *testing.T) {
			_, err := s.NewTask(nil)
			wantErr(t, "NewTask(nil)", err, eevdf.ErrNilEntity, "nil")
			_, err = s.NewTask(running.Entity())
			wantErr(t, "NewTask(a task's entity)", err, ErrTaskState, running.Name()+" is not a fresh entity")
			_, err = s.NewTask(foreign.Entity())
			wantErr(t, "NewTask(a foreign task's entity)", err, ErrTaskState, "not a fresh entity")
			wantErr(t, "NewTask(se, nil)", newTask(nil), ErrBadOption, "task option 0 is nil")
		},
		"System.SetClock": func(t *testing.T) {
			wantErr(t, "SetClock(before)", s.SetClock(s.Clock()-1), eevdf.ErrClockBackwards, "")
		},
		"System.Advance": func(t *testing.T) {
			wantErr(t, "Advance(before)", s.Advance(s.Clock()-1), eevdf.ErrClockBackwards, "")
		},
		"System.Block": func(t *testing.T) {
			wantErr(t, "Block(-1)", s.Block(-1), ErrBadCPU, "-1")
			wantErr(t, "Block(N)", s.Block(n), ErrBadCPU, "4 (the machine has CPUs 0-3)")
			wantErr(t, "Block(idle)", s.Block(3), ErrIdle, "CPU 3")
		},
		"System.BlockNext": func(t *testing.T) {
			for _, c := range []struct {
				cpu  int
				want error
				msg  string
			}{{-1, ErrBadCPU, "-1"}, {n, ErrBadCPU, "4 (the machine has CPUs 0-3)"}, {3, ErrIdle, "CPU 3"}} {
				next, err := s.BlockNext(c.cpu)
				wantErr(t, fmt.Sprintf("BlockNext(%d)", c.cpu), err, c.want, c.msg)
				if next != nil {
					t.Errorf("BlockNext(%d) = %v with its error, want nil", c.cpu, next)
				}
			}
		},
		"System.Exit": func(t *testing.T) {
			wantErr(t, "Exit(-1)", s.Exit(-1), ErrBadCPU, "-1")
			wantErr(t, "Exit(N)", s.Exit(n), ErrBadCPU, "4")
			wantErr(t, "Exit(idle)", s.Exit(3), ErrIdle, "CPU 3")
		},
		"System.Tick": func(t *testing.T) {
			s.Tick(-1)
			s.Tick(n)
		},
		"System.Schedule": func(t *testing.T) {
			if s.Schedule(-1) != nil || s.Schedule(n) != nil {
				t.Error("Schedule of no CPU returned a task")
			}
		},
		"System.Exec": func(t *testing.T) {
			if s.Exec(-1) != -1 || s.Exec(n) != -1 || s.Exec(3) != -1 {
				t.Error("Exec of no CPU or an idle one did not return -1")
			}
		},
		"System.WakeUpNew": func(t *testing.T) {
			for _, tk := range []*Task{nil, foreign, running, sleeping, dead} {
				if s.WakeUpNew(tk) != -1 {
					t.Errorf("WakeUpNew(%v) did not return -1", tk)
				}
			}
		},
		"System.TryToWakeUp": func(t *testing.T) {
			for _, tk := range []*Task{nil, foreign, fresh, dead} {
				if s.TryToWakeUp(tk, nil, 0) != -1 {
					t.Errorf("TryToWakeUp(%v) did not return -1", tk)
				}
			}
			if s.TryToWakeUp(sleeping, foreign, 0) != -1 {
				t.Error("a wakeup by a foreign waker did not return -1")
			}
		},
		"System.RQ": func(t *testing.T) {
			if s.RQ(-1) != nil || s.RQ(n) != nil {
				t.Error("RQ of no CPU is not nil")
			}
		},
		"System.Curr": func(t *testing.T) {
			if s.Curr(-1) != nil || s.Curr(n) != nil {
				t.Error("Curr of no CPU is not nil")
			}
		},
		"System.CPU": func(t *testing.T) {
			if s.CPU(-1) != (CPUInfo{}) || s.CPU(n) != (CPUInfo{}) {
				t.Error("CPU of no CPU is not the zero CPUInfo")
			}
		},
		"System.LLC": func(t *testing.T) {
			if s.LLC(-1) != (LLCInfo{}) || s.LLC(1<<30) != (LLCInfo{}) {
				t.Error("LLC of no LLC is not the zero LLCInfo")
			}
		},
		"System.TickStopped": func(t *testing.T) {
			if s.TickStopped(-1) || s.TickStopped(n) {
				t.Error("the tick of no CPU is stopped")
			}
		},
		"Checked.Tick": func(t *testing.T) {
			wantErr(t, "Checked().Tick(-1)", c.Tick(-1), ErrBadCPU, "-1")
			wantErr(t, "Checked().Tick(N)", c.Tick(n), ErrBadCPU, "4")
		},
		"Checked.Schedule": func(t *testing.T) {
			tk, err := c.Schedule(n)
			wantErr(t, "Checked().Schedule(N)", err, ErrBadCPU, "4")
			if tk != nil {
				t.Error("Checked().Schedule(N) returned a task")
			}
		},
		"Checked.Exec": func(t *testing.T) {
			cpu, err := c.Exec(-1)
			wantErr(t, "Checked().Exec(-1)", err, ErrBadCPU, "-1")
			if cpu != -1 {
				t.Errorf("Checked().Exec(-1) = %d", cpu)
			}
			_, err = c.Exec(3)
			wantErr(t, "Checked().Exec(idle)", err, ErrIdle, "CPU 3")
		},
		"Checked.WakeUpNew": func(t *testing.T) {
			_, err := c.WakeUpNew(nil)
			wantErr(t, "Checked().WakeUpNew(nil)", err, ErrNilTask, "nil task")
			_, err = c.WakeUpNew(foreign)
			wantErr(t, "Checked().WakeUpNew(foreign)", err, ErrForeignTask, foreign.Name())
			_, err = c.WakeUpNew(dead)
			wantErr(t, "Checked().WakeUpNew(dead)", err, ErrExited, dead.Name())
		},
		"Checked.TryToWakeUp": func(t *testing.T) {
			_, err := c.TryToWakeUp(nil, nil, 0)
			wantErr(t, "Checked().TryToWakeUp(nil)", err, ErrNilTask, "nil task")
			_, err = c.TryToWakeUp(foreign, nil, 0)
			wantErr(t, "Checked().TryToWakeUp(foreign)", err, ErrForeignTask, foreign.Name())
			_, err = c.TryToWakeUp(fresh, nil, 0)
			wantErr(t, "Checked().TryToWakeUp(new)", err, ErrNotStarted, fresh.Name())
			_, err = c.TryToWakeUp(dead, nil, 0)
			wantErr(t, "Checked().TryToWakeUp(dead)", err, ErrExited, dead.Name())
		},
		"WithJiffies0": func(t *testing.T) {
			if err := newWith(WithJiffies0(^uint64(0))); err != nil {
				t.Errorf("WithJiffies0(max): %v", err)
			}
		},
		"WithBaseSlice": func(t *testing.T) {
			wantErr(t, "WithBaseSlice(0)", newWith(WithBaseSlice(0)), ErrBadOption, "base slice of 0")
		},
		"WithEvents": func(t *testing.T) {
			if err := newWith(WithEvents(true)); err != nil {
				t.Errorf("WithEvents(true): %v", err)
			}
		},
		"EventKind.String": func(t *testing.T) {
			if EventKind(200).String() == "" {
				t.Error("an unknown EventKind prints as nothing")
			}
		},
		"System.Events": func(t *testing.T) {
			if len(s.Events()) != 0 {
				t.Error("a System without WithEvents recorded events")
			}
		},
		"System.ClearEvents": func(t *testing.T) { s.ClearEvents() },
		"System.Domain": func(t *testing.T) {
			if s.Domain(nil) != (DomainInfo{}) {
				t.Error("Domain(nil) is not the zero DomainInfo")
			}
		},
		"System.NextBalance": func(t *testing.T) {
			if s.NextBalance(-1) != 0 || s.NextBalance(n) != 0 {
				t.Error("NextBalance of no CPU is not 0")
			}
		},
		"System.Fork": func(t *testing.T) {
			se, _ := eevdf.NewEntity("fork")
			_, err := s.Fork(se, -1)
			wantErr(t, "Fork(se, -1)", err, ErrBadCPU, "-1")
			_, err = s.Fork(se, n)
			wantErr(t, "Fork(se, N)", err, ErrBadCPU, "4")
			_, err = s.Fork(nil, 0)
			wantErr(t, "Fork(nil, 0)", err, eevdf.ErrNilEntity, "")
		},
		"System.TryToWakeUpFrom": func(t *testing.T) {
			_, err := s.TryToWakeUpFrom(nil, 0, 0)
			wantErr(t, "TryToWakeUpFrom(nil)", err, ErrNilTask, "")
			_, err = s.TryToWakeUpFrom(foreign, 0, 0)
			wantErr(t, "TryToWakeUpFrom(foreign)", err, ErrForeignTask, foreign.Name())
			_, err = s.TryToWakeUpFrom(sleeping, -1, 0)
			wantErr(t, "TryToWakeUpFrom(sleeping, -1)", err, ErrBadCPU, "-1")
			_, err = s.TryToWakeUpFrom(sleeping, n, 0)
			wantErr(t, "TryToWakeUpFrom(sleeping, N)", err, ErrBadCPU, "4")
			for _, tk := range []*Task{fresh, running, dead} {
				_, err = s.TryToWakeUpFrom(tk, 0, 0)
				wantErr(t, "TryToWakeUpFrom("+tk.Name()+")", err, ErrTaskState, tk.Name())
			}
			_, err = s.TryToWakeUpFrom(sleeping, 3, eevdf.WFSync)
			wantErr(t, "TryToWakeUpFrom(sleeping, idle, sync)", err, ErrIdle, "CPU 3")
		},
		"System.Balance": func(t *testing.T) {
			wantErr(t, "Balance(-1)", s.Balance(-1), ErrBadCPU, "-1")
			wantErr(t, "Balance(N)", s.Balance(n), ErrBadCPU, "4")
		},
		"System.Yield": func(t *testing.T) {
			_, err := s.Yield(-1)
			wantErr(t, "Yield(-1)", err, ErrBadCPU, "-1")
			_, err = s.Yield(3)
			wantErr(t, "Yield(idle)", err, ErrIdle, "CPU 3")
		},
		"System.RunStoppers": func(t *testing.T) { s.RunStoppers() },
		"System.Hierarchy": func(t *testing.T) {
			if s.Hierarchy() != nil {
				t.Error("a System without groups has a hierarchy")
			}
		},
		"System.NewGroup": func(t *testing.T) {
			_, err := s.NewGroup("G", nil)
			wantErr(t, "NewGroup without groups", err, eevdf.ErrForeignGroup, "no task groups")
		},
		"System.SetCPUWeight": func(t *testing.T) {
			wantErr(t, "SetCPUWeight without groups", s.SetCPUWeight(nil, 100), eevdf.ErrForeignGroup, "no task groups")
		},
		"System.SetCPUWeightNice": func(t *testing.T) {
			wantErr(t, "SetCPUWeightNice without groups", s.SetCPUWeightNice(nil, 0), eevdf.ErrForeignGroup, "no task groups")
		},
		"System.SetGroupIdle": func(t *testing.T) {
			wantErr(t, "SetGroupIdle without groups", s.SetGroupIdle(nil, true), eevdf.ErrForeignGroup, "no task groups")
		},
		"System.MoveToGroup": func(t *testing.T) {
			wantErr(t, "MoveToGroup(nil)", s.MoveToGroup(nil, nil), ErrNilTask, "")
			wantErr(t, "MoveToGroup(foreign)", s.MoveToGroup(foreign, nil), ErrForeignTask, foreign.Name())
			wantErr(t, "MoveToGroup(dead)", s.MoveToGroup(dead, nil), ErrExited, dead.Name())
			wantErr(t, "MoveToGroup without groups", s.MoveToGroup(running, nil), eevdf.ErrForeignGroup, "no task groups")
		},
		"System.TaskHLoad": func(t *testing.T) {
			if s.TaskHLoad(nil) != 0 || s.TaskHLoad(foreign) != 0 {
				t.Error("TaskHLoad of nil or a foreign task is not 0")
			}
		},
		"System.CPUCapacity": func(t *testing.T) {
			if s.CPUCapacity(-1) != 0 || s.CPUCapacity(n) != 0 || s.CPUCapacity(0) != 1024 {
				t.Errorf("CPUCapacity(-1, N, 0) = %d, %d, %d", s.CPUCapacity(-1), s.CPUCapacity(n), s.CPUCapacity(0))
			}
		},
		"System.MisfitTaskLoad": func(t *testing.T) {
			if s.MisfitTaskLoad(-1) != 0 || s.MisfitTaskLoad(n) != 0 || s.MisfitTaskLoad(0) != 0 {
				t.Error("MisfitTaskLoad of a bad id or on a symmetric machine is not 0")
			}
		},
		"WithEnergyModel": func(t *testing.T) {
			wantErr(t, "WithEnergyModel(nil)", newWith(WithEnergyModel(nil)), ErrBadOption, "nil energy model")
			wantErr(t, "WithEnergyModel(rb5) on 4 CPUs", newWith(WithEnergyModel(energy.RB5())), ErrBadOption, "cpu7")
			mixed, _ := energy.New(energy.Spec{Domains: []energy.DomainSpec{{CPUs: []int{0, 1, 2, 3}, States: []energy.StateSpec{{FrequencyKHz: 1, PowerUW: 1}}}}})
			asym, _ := topology.BuildCapacities(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 1}, []uint64{512, 512, 1024, 1024})
			if _, err := New(asym, WithEnergyModel(mixed)); !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), "share one capacity") {
				t.Errorf("a domain over two capacities: %v", err)
			}
		},
		"System.EnergyModel": func(t *testing.T) {
			if s.EnergyModel() != nil || s.PerfDomains() != nil || s.EnergyEnabled() {
				t.Error("a System without an energy model has one")
			}
		},
		"System.EnergyEnabled": func(t *testing.T) {
			// A symmetric machine never enables EAS, even with a model.
			m, _ := energy.New(energy.Spec{Domains: []energy.DomainSpec{{CPUs: []int{0, 1, 2, 3}, States: []energy.StateSpec{{FrequencyKHz: 1, PowerUW: 1}}}}})
			sym, err := New(top, WithEnergyModel(m))
			if err != nil || sym.EnergyEnabled() || sym.EnergyModel() == nil || !sym.Overutilized() {
				t.Errorf("symmetric machine with a model: %v, enabled %v", err, sym.EnergyEnabled())
			}
		},
		"System.PerfDomains": func(t *testing.T) {
			if s.PerfDomains() != nil {
				t.Error("perf domains without EAS")
			}
		},
		"System.EnergyStats": func(t *testing.T) {
			if s.EnergyStats() != (EnergyStats{}) {
				t.Errorf("EAS counters without EAS: %+v", s.EnergyStats())
			}
		},
		"System.Overutilized": func(t *testing.T) {
			if !s.Overutilized() {
				t.Error("without EAS the root domain reads overutilized (is_rd_overutilized)")
			}
		},
		"System.CPUUtil": func(t *testing.T) {
			if s.CPUUtil(-1) != 0 || s.CPUUtil(n) != 0 || s.CPUUtil(0) == 0 {
				t.Errorf("CPUUtil(-1, N, 0) = %d, %d, %d (CPU 0 runs a task)", s.CPUUtil(-1), s.CPUUtil(n), s.CPUUtil(0))
			}
		},
		"System.CPUOverutilized": func(t *testing.T) {
			if s.CPUOverutilized(-1) || s.CPUOverutilized(n) || s.CPUOverutilized(0) {
				t.Error("CPUOverutilized of a bad id or without EAS is true")
			}
		},
		"Task.MaxAllowedCapacity": func(t *testing.T) {
			if nilTask.MaxAllowedCapacity() != 0 || running.MaxAllowedCapacity() != 1024 {
				t.Errorf("MaxAllowedCapacity: nil %d, running %d", nilTask.MaxAllowedCapacity(), running.MaxAllowedCapacity())
			}
		},
	}
	for name, tc := range coreBadInputCases(s, newTask, wantErr, running, dead, foreign) {
		cases[name] = tc
	}
	// Methods without input: called, they must not panic or fail.
	for _, name := range []string{"System.Topology", "System.NumCPUs", "System.Features", "System.Nohz",
		"System.Clock", "System.Jiffies", "System.Overloaded", "System.Tasks", "System.Stats",
		"System.Checked", "Checked.System"} {
		cases[name] = func(t *testing.T) {
			_, _, _, _ = s.Topology(), s.Features(), s.Nohz(), s.Tasks()
			_, _, _, _, _ = s.NumCPUs(), s.Clock(), s.Jiffies(), s.Overloaded(), s.Stats()
			if s.Checked().System() != s {
				t.Error("Checked().System() is not the System")
			}
		}
	}
	// The ones that act without input do their work; the System stays
	// consistent.
	for _, name := range []string{"System.RunPending", "System.Resched", "System.ReschedPending", "System.Check"} {
		cases[name] = func(t *testing.T) {
			s.RunPending()
			_ = s.ReschedPending()
			_ = s.Resched()
			if err := s.Check(); err != nil {
				t.Error(err)
			}
		}
	}
	// A nil *Task is the idle task (TestNilTaskAnswersLikeTheIdleTask
	// checks the values).
	for _, name := range []string{"Entity", "Name", "String", "ID", "CPU", "RecentUsedCPU", "Allowed",
		"Migrations", "Placement", "WakeeFlips", "Runnable", "Sleeping", "Dead", "SetData", "Data"} {
		cases["Task."+name] = func(t *testing.T) {
			_, _, _, _, _ = nilTask.Entity(), nilTask.Name(), nilTask.String(), nilTask.ID(), nilTask.CPU()
			_, _, _, _, _ = nilTask.RecentUsedCPU(), nilTask.Allowed(), nilTask.Migrations(), nilTask.Placement(), nilTask.WakeeFlips()
			_, _, _, _ = nilTask.Runnable(), nilTask.Sleeping(), nilTask.Dead(), nilTask.Data()
			nilTask.SetData(nil)
		}
	}

	for _, name := range exportedAPI(t) {
		tc, ok := cases[name]
		if !ok {
			t.Errorf("%s: no bad-input case; add one", name)
			continue
		}
		delete(cases, name)
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			before := fingerprint(s)
			tc(t)
			if after := fingerprint(s); after != before {
				t.Errorf("the System changed:\n%s\n%s", before, after)
			}
			h.check()
		})
	}
	for name := range cases {
		t.Errorf("case %s matches no exported function", name)
	}
}
