package smp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/energy"
	"github.com/schedmodel/fairclass/features"
	"github.com/schedmodel/fairclass/topology"
)

// FuzzSystem drives a System on a machine chosen by the input with random
// forks, wakeups (by a task or a timer, sync or not), blocks, exits, execs,
// ticks and time steps, core-scheduling cookies (made, shared, dropped,
// inherited by children), under random feature sets and both tick modes,
// in the serial order a simulator uses, and checks every invariant (each
// runqueue's, every task's place, the core-scheduling ones) after every
// step. With bit 2 of the third byte set the machine has task groups (a
// nested pair and a sibling, in a share mode the input picks): forks land
// in them, and some execs become cpu.weight writes, cpu.idle toggles,
// moves between groups and directories made at run time under any group
// (so the hierarchy the input ends with is its own); Check then also
// verifies tg->load_avg and the leaf lists. A first byte with bits 7 and 6
// set draws an asymmetric machine with an energy model (one perf domain
// per capacity): EAS places wakeups while the root is not overutilized.
func FuzzSystem(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 2, 3, 0, 0, 0, 1, 1, 1, 5, 5, 5, 6, 6, 6, 9, 9, 9, 9, 9})
	f.Add([]byte{2, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 3, 3, 3, 3, 9, 9, 9})
	f.Add([]byte{3, 255, 7, 0, 4, 0, 4, 1, 2, 1, 2, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{1, 0, 4, 0, 1, 0, 2, 0, 3, 0, 0x85, 9, 9, 5, 0x80, 9, 0, 5, 0x83, 5, 0x8b, 9, 9, 3, 1, 2, 1, 5, 0x86, 9, 9, 9, 9})
	f.Add([]byte{3, 0, 0x1c, 0, 2, 0, 3, 0, 5, 0, 6, 9, 9, 9, 9, 5, 0x92, 5, 0x95, 9, 1, 9, 3, 0, 3, 1, 9, 9, 5, 0x81, 9, 9})
	// Core scheduling: cookies on SMT machines.
	f.Add([]byte{2, 0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 4, 1, 4, 5, 9, 0, 9, 1, 4, 3, 9, 0, 9, 1, 9, 0, 4, 6, 9, 0, 3, 1, 9, 0, 4, 9, 9, 1})
	f.Add([]byte{3, 4, 1, 0, 0, 0, 0, 0, 1, 0, 2, 0, 5, 4, 1, 4, 1, 4, 5, 9, 0, 9, 0, 4, 3, 4, 7, 9, 1, 9, 0, 1, 2, 9, 0, 4, 2, 9, 0, 9, 1})
	f.Add([]byte{0x80, 0, 0, 1, 1, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 2, 2, 9, 9, 9, 9})
	f.Add([]byte{0x81, 2, 1, 0, 1, 0, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 4, 4, 9, 9, 9})
	f.Add([]byte{0x82, 0, 3, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{0x83, 5, 2, 1, 0, 1, 0, 1, 2, 3, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	for _, seed := range fuzzSystemGroupSeeds {
		f.Add(seed)
	}
	// Energy-aware scheduling: the RB5 and the 2+2 machine with a model.
	f.Add([]byte{0xc0, 0, 1, 0, 0, 0, 1, 0, 2, 9, 9, 9, 9, 3, 1, 9, 9, 9, 9, 2, 0, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 9, 9, 9, 9})
	f.Add([]byte{0xc1, 2, 0, 1, 1, 1, 1, 9, 9, 3, 0, 3, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 2, 1, 9, 9, 9})
	f.Add([]byte{0xc2, 0, 1, 0, 1, 0, 1, 9, 9, 9, 9, 9, 9, 3, 0, 9, 9, 9, 9, 9, 9, 9, 2, 1, 9, 9, 9, 9, 9})
	f.Add([]byte{0xc3, 1, 2, 0, 0, 0, 1, 0, 2, 0, 3, 9, 9, 9, 9, 9, 9, 9, 3, 2, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Fuzz(runFuzzSystem)
}

// fuzzSystemGroupSeeds are FuzzSystem inputs with task groups on several
// CPUs (TestFuzzSystemGroupSeeds checks what each exercises): forks into
// every group on every CPU, directories made at run time (one nested three
// deep), cpu.weight writes, cpu.idle toggles and moves between groups,
// with enough ticks between them for the balancer to move tasks.
var fuzzSystemGroupSeeds = [][]byte{
	// 4 CPUs of one LLC, concur: two tasks per CPU in g0, g1, g2; mkdir
	// d4 under g1 and d5 under d4, forks into them, weight writes on g0
	// and g2, a move into d5, then time for balancing.
	{1, 0, 0x14,
		0, 0x01, 0, 0x02, 0, 0x03, 0, 0x05, 0, 0x06, 0, 0x07, 0, 0x08, 0, 0x0b,
		9, 0, 9, 1, 9, 0,
		5, 0xc2, 5, 0xc4, 0, 0x04, 0, 0x05, 0, 0x0a,
		9, 1, 9, 0, 9, 1,
		5, 0x81, 5, 0x80, 5, 0xbc,
		9, 1, 9, 1, 9, 1, 9, 1, 3, 0, 9, 1, 3, 2, 9, 1, 9, 1,
		5, 0x86, 5, 0x98, 9, 1, 9, 1, 1, 0, 2, 3, 9, 1, 9, 1, 9, 1, 9, 1, 9, 1, 9, 1},
	// 8 CPUs in two packages (SMT), tasks: a weight write and an idle
	// toggle with the groups queued on many CPUs, moves of running and
	// sleeping tasks, wakeups that may migrate them.
	{3, 0, 0x24,
		0, 0x01, 0, 0x02, 0, 0x03, 0, 0x04, 0, 0x05, 0, 0x06, 0, 0x07, 0, 0x09, 0, 0x0e, 0, 0x11,
		9, 0, 9, 1, 9, 1,
		5, 0x83, 5, 0xc1, 0, 0x0c, 9, 1,
		5, 0x90, 5, 0xa1, 5, 0xb3, 9, 1, 3, 1, 3, 2, 9, 1,
		5, 0x86, 1, 1, 2, 2, 9, 1, 9, 1, 9, 1, 5, 0x83, 9, 1, 9, 1, 9, 1},
}

// fuzzStats counts what one FuzzSystem input did.
type fuzzStats struct {
	cpus                                      int
	grouped                                   bool
	groupForks, mkdirs, weights, idles, moves int
	groupTasksOnCPU                           map[int]bool // CPUs that ran or queued a group task at a tick
	balanceMoves                              uint64
}

func runFuzzSystem(t *testing.T, data []byte) { fuzzSystem(t, data, nil) }

// fuzzSystem is FuzzSystem's body; st, if not nil, records what it did.
func fuzzSystem(t *testing.T, data []byte, st *fuzzStats) {
	if st == nil {
		st = &fuzzStats{}
	}
	st.groupTasksOnCPU = map[int]bool{}
	{
		if len(data) < 3 || len(data) > 400 {
			return
		}
		machines := []topology.Machine{
			{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 1},
			{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 1},
			{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 2},
			{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 2, ThreadsPerCore: 2},
			{Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 1, ThreadsPerCore: 2},
			{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 3, ThreadsPerCore: 1, Numbering: topology.X86},
		}
		m := machines[int(data[0])%len(machines)]
		// A first byte with its top bit set draws an asymmetric machine
		// (KERNEL-SPEC-ASYM): one LLC over several capacities (the RB5, a
		// 2+2), capacity classes in separate LLCs, or x86-numbered
		// packages of mixed capacities.
		var caps []uint64
		if data[0]&0x80 != 0 {
			asym := []struct {
				m    topology.Machine
				caps []uint64
			}{
				{topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 8, ThreadsPerCore: 1}, []uint64{284, 284, 284, 284, 871, 871, 871, 1024}},
				{topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 1}, []uint64{512, 512, 1024, 1024}},
				{topology.Machine{Packages: 1, LLCsPerPackage: 2, CoresPerLLC: 2, ThreadsPerCore: 1}, []uint64{446, 446, 1024, 1024}},
				{topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 3, ThreadsPerCore: 1, Numbering: topology.X86}, []uint64{1024, 160, 600, 1024, 160, 600}},
			}
			a := asym[int(data[0]&0x7f)%len(asym)]
			m, caps = a.m, a.caps
		}
		feat := features.Default()
		toggles := []features.Feature{features.NIRandom, features.NIRate, features.WAIdle, features.WAWeight,
			features.WABias, features.SISUtil, features.DelayDequeue, features.PlaceLag, features.CacheHotBuddy}
		for i, tg := range toggles {
			if data[1]>>(i%8)&1 == 1 && i < 8 {
				feat = feat.Toggle(tg, !feat.Has(tg))
			}
		}
		mode := NohzMode(data[2] & 1)
		preset := []Option{WithPreset(topology.Boot, 0), WithPreset(topology.Warm, 5_000_000)}[data[2]>>1&1]
		top, err := topology.BuildCapacities(m, caps)
		if err != nil {
			t.Fatal(err)
		}
		opts := []Option{WithFeatures(feat), WithNohz(mode), preset, WithSeed(uint64(data[2]))}
		if caps != nil && data[0]&0x40 != 0 {
			opts = append(opts, WithEnergyModel(fuzzEnergyModel(t, caps)))
		}
		grouped := data[2]&4 != 0
		if grouped {
			h := eevdf.NewHierarchy(eevdf.WithCgroupMode(eevdf.CgroupMode(data[2]>>3%5)), eevdf.WithOnlineCPUs(top.NumCPUs()))
			opts = append(opts, WithRunqueueOptions(eevdf.WithHierarchy(h)))
		}
		s, err := New(top, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var groups []*eevdf.TaskGroup // nil first: the root group
		now := s.Clock() + 1_000_000
		n := top.NumCPUs()
		st.cpus, st.grouped = n, grouped
		defer func() { st.balanceMoves = s.Stats().BalanceMoves }()
		var tasks []*Task
		step := func(what string) {
			s.RunPending()
			for {
				pending := s.ReschedPending()
				cpus := s.Resched()
				if !pending && cpus != nil {
					t.Fatalf("after %s: ReschedPending false, yet Resched returned %v", what, cpus)
				}
				if len(cpus) == 0 {
					break
				}
				for _, c := range append([]int(nil), cpus...) {
					s.Schedule(c)
				}
			}
			if err := s.Check(); err != nil {
				t.Fatalf("after %s: %v", what, err)
			}
		}
		if err := s.SetClock(now); err != nil {
			t.Fatal(err)
		}
		if grouped {
			g0, err := s.NewGroup("g0", nil)
			if err != nil {
				t.Fatal(err)
			}
			g1, err := s.NewGroup("g1", g0)
			if err != nil {
				t.Fatal(err)
			}
			g2, err := s.NewGroup("g2", nil, eevdf.WithCPUWeight(300))
			if err != nil {
				t.Fatal(err)
			}
			groups = []*eevdf.TaskGroup{nil, g0, g1, g2}
			step("mkdir")
		}
		for i := 3; i+1 < len(data); i += 2 {
			op, arg := data[i]%10, int(data[i+1])
			switch op {
			case 0: // fork, on arg's CPU, maybe pinned to a few CPUs
				if len(tasks) >= 24 {
					continue
				}
				eopts := []eevdf.EntityOption{eevdf.WithNice(arg%7 - 3)}
				if grouped {
					if g := groups[arg%len(groups)]; g != nil {
						eopts = append(eopts, eevdf.WithGroup(g))
						st.groupForks++
					}
				}
				se, _ := eevdf.NewEntity(fmt.Sprintf("t%d", len(tasks)), eopts...)
				opts := []TaskOption{WithCPU(arg % n)}
				if arg&0x80 != 0 {
					opts = append(opts, WithAllowed(arg%n, (arg/3)%n))
				}
				tk, err := s.NewTask(se, opts...)
				if err != nil {
					t.Fatal(err)
				}
				tasks = append(tasks, tk)
				s.WakeUpNew(tk)
				step("fork")
			case 1, 2: // wakeup by a running task or a timer
				if len(tasks) == 0 {
					continue
				}
				tk := tasks[arg%len(tasks)]
				var waker *Task
				if op == 1 {
					waker = s.Curr(arg % n)
				}
				wf := eevdf.WakeFlags(0)
				if arg&0x40 != 0 {
					wf = eevdf.WFSync
				}
				s.TryToWakeUp(tk, waker, wf)
				step("wakeup")
			case 3: // a running task sleeps
				if s.Curr(arg%n) != nil {
					if err := s.Block(arg % n); err != nil {
						t.Fatal(err)
					}
					step("block")
				}
			case 4: // a running task exits (rarely), or a cookie operation
				switch arg % 4 {
				case 0:
					if s.Curr(arg%n) != nil {
						if err := s.Exit(arg % n); err != nil {
							t.Fatal(err)
						}
						step("exit")
					}
				case 1, 2, 3:
					if len(tasks) > 0 && len(tasks) < 24 {
						tasks = fuzzCookieOp(t, s, tasks, arg)
						step("cookie")
					}
				}
			case 5: // exec, or with groups sometimes a group write or move
				if grouped && arg&0xc0 == 0xc0 && len(groups) < 10 {
					// mkdir under any group (nil: the root), on every CPU.
					g, err := s.NewGroup(fmt.Sprintf("d%d", len(groups)), groups[arg%len(groups)])
					if err != nil {
						t.Fatal(err)
					}
					groups = append(groups, g)
					st.mkdirs++
					step("mkdir")
					continue
				}
				if grouped && arg&0x80 != 0 {
					g := groups[1+arg%3]
					switch arg / 3 % 3 {
					case 0:
						if !g.Idle() {
							if err := s.SetCPUWeight(g, uint64(arg*37%10000+1)); err != nil {
								t.Fatal(err)
							}
							st.weights++
						}
					case 1:
						if err := s.SetGroupIdle(g, !g.Idle()); err != nil {
							t.Fatal(err)
						}
						st.idles++
					case 2:
						if len(tasks) > 0 {
							tk := tasks[arg%len(tasks)]
							if !tk.Dead() {
								if err := s.MoveToGroup(tk, groups[arg/9%len(groups)]); err != nil {
									t.Fatal(err)
								}
								st.moves++
							}
						}
					}
					step("group write")
					continue
				}
				s.Exec(arg % n)
				step("exec")
			case 6, 7, 8: // a preemption point
				s.Schedule(arg % n)
				step("schedule")
			case 9: // time passes to the next tick or two; every CPU ticks
				now = (now/eevdf.DefaultTickNsec + 1 + uint64(arg%2)) * eevdf.DefaultTickNsec
				if err := s.SetClock(now); err != nil {
					t.Fatal(err)
				}
				for c := range n {
					s.Tick(c)
					if s.RQ(c).NeedResched() {
						s.Schedule(c)
					}
					if cur := s.Curr(c); cur != nil && cur.se.Group() != nil && cur.se.Group().Parent() != nil {
						st.groupTasksOnCPU[c] = true
					}
				}
				step("tick")
			}
		}
	}
}

// fuzzCookieOp is one core-scheduling operation of FuzzSystem, chosen by
// arg: a new cookie for one or two tasks, a task given another's cookie (or
// 0), or a child forked from a task (inheriting its cookie). On a machine
// without SMT the prctls fail with ErrNoSMT and change nothing.
func fuzzCookieOp(t *testing.T, s *System, tasks []*Task, arg int) []*Task {
	a, b := tasks[(arg/4)%len(tasks)], tasks[(arg/16)%len(tasks)]
	var err error
	switch arg % 4 {
	case 1:
		if !a.Dead() && !b.Dead() {
			_, err = s.CoreCreate(a, b)
		}
	case 2:
		if !b.Dead() {
			c := a.Cookie()
			if arg&0x80 != 0 {
				c = 0
			}
			err = s.CoreShare(c, b)
		}
	case 3:
		if a.Dead() {
			return tasks
		}
		se, _ := eevdf.NewEntity(fmt.Sprintf("t%d", len(tasks)))
		child, err := s.NewTask(se, WithParent(a))
		if err != nil {
			t.Fatal(err)
		}
		if child.Cookie() != a.Cookie() {
			t.Fatalf("child of %s has cookie %d, want %d", a, child.Cookie(), a.Cookie())
		}
		s.WakeUpNew(child)
		return append(tasks, child)
	}
	if err != nil && !(errors.Is(err, ErrNoSMT) && !s.Topology().SMTActive()) {
		t.Fatal(err)
	}
	return tasks
}

// The group seeds of FuzzSystem do what they are there for: on several
// CPUs, forks into groups, directories made at run time, cpu.weight
// writes, cpu.idle toggles and moves between groups, group tasks running
// on more than one CPU, and the balancer moving tasks (Check after every
// step, as in the fuzzing).
func TestFuzzSystemGroupSeeds(t *testing.T) {
	for i, seed := range fuzzSystemGroupSeeds {
		var st fuzzStats
		fuzzSystem(t, seed, &st)
		switch {
		case !st.grouped || st.cpus < 4:
			t.Errorf("seed %d: grouped %v on %d CPUs", i, st.grouped, st.cpus)
		case st.groupForks == 0 || st.mkdirs == 0 || st.weights == 0 || st.idles == 0 || st.moves == 0:
			t.Errorf("seed %d: %d group forks, %d mkdirs, %d weight writes, %d idle toggles, %d moves; want each",
				i, st.groupForks, st.mkdirs, st.weights, st.idles, st.moves)
		case len(st.groupTasksOnCPU) < 2:
			t.Errorf("seed %d: group tasks ran on %d CPUs", i, len(st.groupTasksOnCPU))
		case st.balanceMoves == 0:
			t.Errorf("seed %d: the balancer moved nothing", i)
		}
	}
}

// fuzzEnergyModel is an energy model for a machine of capacities caps: one
// perf domain per capacity, two states whose cost per unit of performance
// grows with the capacity (bigger CPUs cost more for the same work).
func fuzzEnergyModel(t *testing.T, caps []uint64) *energy.Model {
	byCap := map[uint64][]int{}
	var order []uint64
	for c, v := range caps {
		if byCap[v] == nil {
			order = append(order, v)
		}
		byCap[v] = append(byCap[v], c)
	}
	var spec energy.Spec
	for _, v := range order {
		spec.Domains = append(spec.Domains, energy.DomainSpec{CPUs: byCap[v], Capacity: v, States: []energy.StateSpec{
			{FrequencyKHz: 1000000, PowerUW: 100 * v * (v + 1024) / 1024},
			{FrequencyKHz: 2000000, PowerUW: 400 * v * (v + 1024) / 1024},
		}})
	}
	m, err := energy.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
