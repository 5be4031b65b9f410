package sim_test

import (
	"slices"
	"testing"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/sim"
	"github.com/schedmodel/fairclass/smp"
)

// The tests of KERNEL-SPEC-PREEMPT §10.3 (P2–P6; P1 is in eevdf). The
// waker is a cyclictest thread (interval 2777 µs, Work 2 µs, slice 0.7 ms)
// against a hog with a 2.8 ms slice, so that PREEMPT_SHORT makes the
// eligible waker preempt; no wakeup or switch cost, no slack unless
// stated. The waker is created first and sleeps at once, so its expiries
// are k·2777 µs, k = 1, 2, ...

const wakerInterval = 2777 * time.Microsecond

var allModels = []eevdf.PreemptModel{eevdf.PreemptFull, eevdf.PreemptLazy, eevdf.PreemptVoluntary, eevdf.PreemptNone}

// wakerRun runs the waker against hog on one CPU for n expiries and
// returns the waker's samples.
func wakerRun(t *testing.T, m eevdf.PreemptModel, hz, n int, hog []sim.Phase, tweak func(*sim.Config)) []uint64 {
	t.Helper()
	cfg := sim.Config{
		CPUs:      1,
		HZ:        hz,
		Preempt:   m,
		BaseSlice: 2800 * time.Microsecond,
		Duration:  time.Duration(n)*wakerInterval + time.Millisecond,
		Workloads: []sim.Workload{
			sim.Cyclictest(1, wakerInterval, sim.TaskOptions{Slice: 700 * time.Microsecond}),
		},
		Debug: testing.Short(),
	}
	if hog != nil {
		cfg.Workloads = append(cfg.Workloads, sim.Custom("hog", sim.TaskSpec{Name: "hog", Program: hog}))
	}
	if tweak != nil {
		tweak(&cfg)
	}
	r, err := sim.Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r.Workloads[0].Samples
}

// uniformOver reports whether samples are exactly 0, step, 2·step, ...,
// (len−1)·step in some order.
func uniformOver(samples []uint64, step uint64) bool {
	s := slices.Clone(samples)
	slices.Sort(s)
	for i, v := range s {
		if v != uint64(i)*step {
			return false
		}
	}
	return true
}

// P2: a hog in user mode is preempted at the timer interrupt's return to
// user mode under every model: every latency is 0.
func TestPreemptUserModeHog(t *testing.T) {
	for _, m := range allModels {
		t.Run(m.String(), func(t *testing.T) {
			lat := wakerRun(t, m, 1000, 1000, []sim.Phase{sim.Forever(sim.Run(time.Millisecond))}, nil)
			if len(lat) != 1000 {
				t.Fatalf("%d samples, want 1000", len(lat))
			}
			if s := sim.Summarize(lat); s.Max != 0 {
				t.Errorf("max latency %d ns, want 0", s.Max)
			}
		})
	}
}

// P3: a hog in one endless kernel section. Full preempts at the
// interrupt's exit: 0. Lazy waits for the next tick, which upgrades the
// request: the latency is the time from the expiry to the next multiple
// of 1 ms; 2777 and 1000 are coprime, so 1000 consecutive expiries give
// each of 0, 1, …, 999 µs once (mean 499.5 µs, max 999 µs; a tick at the
// expiry instant upgrades at once). None and voluntary, without
// cond_resched points, never preempt it: no sample at all.
func TestPreemptEndlessKernelSection(t *testing.T) {
	hog := []sim.Phase{sim.Forever(sim.Sys(time.Hour))}
	for _, m := range allModels {
		t.Run(m.String(), func(t *testing.T) {
			lat := wakerRun(t, m, 1000, 1000, hog, nil)
			switch m {
			case eevdf.PreemptFull:
				if s := sim.Summarize(lat); len(lat) != 1000 || s.Max != 0 {
					t.Errorf("%d samples, max %d ns; want 1000 of 0", len(lat), s.Max)
				}
			case eevdf.PreemptLazy:
				if len(lat) != 1000 || !uniformOver(lat, 1000) {
					t.Errorf("%d samples %v…; want 0, 1, …, 999 µs once each", len(lat), lat[:min(len(lat), 8)])
				}
				if s := sim.Summarize(lat); s.Avg != 499_500 || s.Max != 999_000 {
					t.Errorf("mean %v max %d, want 499500 and 999000 ns", s.Avg, s.Max)
				}
			default:
				if len(lat) != 0 {
					t.Errorf("%d samples, want none", len(lat))
				}
			}
		})
	}
}

// P4: a hog alternating Sys(100 µs) and Run(1 µs). Full: 0. Lazy, none
// and voluntary: the rest of the current section (0 in the user gaps),
// about uniform on [0, 100) µs; lazy's tick may cut it short. With
// cond_resched (none, voluntary) or might_resched (voluntary) points
// every 10 µs of kernel time: the rest up to the next point, under 10 µs.
func TestPreemptShortKernelSections(t *testing.T) {
	hog := []sim.Phase{sim.Forever(sim.Sys(100*time.Microsecond), sim.Run(time.Microsecond))}
	every := func(cond, might time.Duration) func(*sim.Config) {
		return func(c *sim.Config) { c.CondReschEvery, c.MightReschEvery = cond, might }
	}
	for _, tc := range []struct {
		name     string
		model    eevdf.PreemptModel
		tweak    func(*sim.Config)
		lo, hi   float64 // bounds of the mean, µs
		maxBelow uint64  // µs
	}{
		{"full", eevdf.PreemptFull, nil, 0, 0, 1},
		{"lazy", eevdf.PreemptLazy, nil, 45, 50, 100},
		{"none", eevdf.PreemptNone, nil, 47, 51, 100},
		{"voluntary", eevdf.PreemptVoluntary, nil, 47, 51, 100},
		{"voluntary with might_resched every 10us", eevdf.PreemptVoluntary, every(0, 10*time.Microsecond), 4, 5.5, 10},
		{"voluntary with cond_resched every 10us", eevdf.PreemptVoluntary, every(10*time.Microsecond, 0), 4, 5.5, 10},
		{"none with cond_resched every 10us", eevdf.PreemptNone, every(10*time.Microsecond, 0), 4, 5.5, 10},
		{"none ignores might_resched points", eevdf.PreemptNone, every(0, 10*time.Microsecond), 47, 51, 100},
		{"full ignores cond_resched points", eevdf.PreemptFull, every(10*time.Microsecond, 0), 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lat := wakerRun(t, tc.model, 1000, 1000, hog, tc.tweak)
			s := sim.Summarize(lat)
			mean := s.Avg / 1000
			t.Logf("%d samples: mean %.3f µs, p50 %d, max %d ns", s.Count, mean, s.P50, s.Max)
			if s.Count != 1000 {
				t.Errorf("%d samples, want 1000", s.Count)
			}
			if mean < tc.lo || mean > tc.hi || s.Max >= tc.maxBelow*1000 {
				t.Errorf("mean %.3f µs, max %d ns; want a mean in [%v, %v] µs and a max below %d µs", mean, s.Max, tc.lo, tc.hi, tc.maxBelow)
			}
		})
	}
}

// P5: two CPUs at HZ 250. CPU 0 runs a user-mode hog; a task on CPU 1
// sends a message every 2777 µs to a receiver pinned to CPU 0 with a
// shorter slice (and no work of its own: when two sends fall between
// two ticks it reads both at the tick). Full, voluntary and none: the
// request comes with an IPI and the receiver runs at once. Lazy: no IPI;
// the receiver waits for CPU 0's next tick, on multiples of 4 ms: the
// k-th send, at k·2777 µs, waits (−k·2777) mod 4000 µs, or a whole 4000
// µs when it falls on a tick instant (the sender, woken by its timer
// there, sends after that instant's tick). Over 4000 sends (2777 and 4000
// are coprime) that is each of 1, 2, …, 4000 µs once: mean 2000.5 µs, the
// TICK/2 of the lazy model.
func TestPreemptRemoteLazyWaitsForTick(t *testing.T) {
	const n = 4000
	for _, m := range allModels {
		t.Run(m.String(), func(t *testing.T) {
			ch := sim.NewChannel("msg", 1, false)
			cfg := sim.Config{
				CPUs:      2,
				HZ:        250,
				Preempt:   m,
				BaseSlice: 2800 * time.Microsecond,
				Duration:  n*wakerInterval + 5*time.Millisecond,
				Workloads: []sim.Workload{
					sim.Custom("recv", sim.TaskSpec{Name: "recv", TaskOptions: sim.TaskOptions{CPUs: []int{0}, Slice: 700 * time.Microsecond},
						Program: []sim.Phase{sim.Forever(sim.Recv(ch, 1), sim.Latency())}}),
					sim.Custom("send", sim.TaskSpec{Name: "send", TaskOptions: sim.TaskOptions{CPUs: []int{1}},
						Program: []sim.Phase{sim.Forever(sim.Timer(wakerInterval), sim.Send(ch, 1))}}),
					sim.Custom("hog", sim.TaskSpec{Name: "hog", TaskOptions: sim.TaskOptions{CPUs: []int{0}},
						Program: []sim.Phase{sim.Forever(sim.Run(time.Millisecond))}}),
				},
			}
			r, err := sim.Simulate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			lat := r.Workloads[0].Samples
			if len(lat) < n {
				t.Fatalf("%d samples, want %d", len(lat), n)
			}
			lat = lat[:n] // the sends at k·2777 µs, k = 1..4000
			s := sim.Summarize(lat)
			if m != eevdf.PreemptLazy {
				if s.Max != 0 {
					t.Errorf("max %d ns, want 0", s.Max)
				}
				return
			}
			for i, v := range lat {
				k := uint64(i + 1)
				want := 4000 - k*2777%4000 // µs to the next tick; 4000 on a tick
				if v != want*1000 {
					t.Fatalf("send %d at %d µs: latency %d ns, want %d µs", k, k*2777, v, want)
				}
			}
			if s.Avg != 2_000_500 {
				t.Errorf("mean %v ns, want 2000500", s.Avg)
			}
		})
	}
}

// P6: timer slack 50 µs, cyclictest alone at HZ 250. A sample is 50 µs
// unless a tick comes at or after the expiry and less than 50 µs after
// it, which fires the timer early: 2777 and 4000 are coprime, so of 4000
// consecutive expiries exactly 50 (1.25 %) fire early, with latencies 0,
// 1, …, 49 µs once each. With nohz idle the idle CPU does not tick: all
// 50 µs. With no slack: all 0. A task's own slack replaces the
// configuration's.
func TestTimerSlack(t *testing.T) {
	const n = 4000
	for _, tc := range []struct {
		name      string
		slack     time.Duration // Config.TimerSlack
		own       time.Duration // TaskOptions.TimerSlack
		nohz      smp.NohzMode
		early     int    // samples below the slack
		lateValue uint64 // the others' latency, ns
	}{
		{"50us, every CPU ticks", 50 * time.Microsecond, 0, smp.NohzOff, 50, 50_000},
		{"50us, nohz idle", 50 * time.Microsecond, 0, smp.NohzIdle, 0, 50_000},
		{"no slack", 0, 0, smp.NohzOff, n, 0},
		// 1 ns: only the expiry that falls on a tick fires early (0 ns).
		{"the task's own 1ns replaces the configuration's", 50 * time.Microsecond, 1, smp.NohzOff, 1, 1},
		{"the task's own 50us", 0, 50 * time.Microsecond, smp.NohzOff, 50, 50_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.Config{
				CPUs: 1, HZ: 250, Nohz: tc.nohz, TimerSlack: tc.slack,
				Duration:  n*wakerInterval + time.Millisecond,
				Workloads: []sim.Workload{sim.Cyclictest(1, wakerInterval, sim.TaskOptions{TimerSlack: tc.own})},
			}
			r, err := sim.Simulate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			lat := r.Workloads[0].Samples
			if len(lat) != n {
				t.Fatalf("%d samples, want %d", len(lat), n)
			}
			var early []uint64
			for _, v := range lat {
				if v != tc.lateValue {
					early = append(early, v)
				}
			}
			if tc.early == n {
				early = early[:0]
				for _, v := range lat {
					if v != 0 {
						early = append(early, v)
					}
				}
				if len(early) != 0 {
					t.Errorf("%d samples not 0", len(early))
				}
				return
			}
			if len(early) != tc.early || !uniformOver(early, 1000) {
				t.Errorf("%d early samples %v, want %d: 0, 1, …, %d µs once each", len(early), early[:min(len(early), 8)], tc.early, tc.early-1)
			}
			if s := sim.Summarize(lat); tc.early > 0 && (s.P50 != tc.lateValue || s.P90 != tc.lateValue) {
				t.Errorf("p50 %d p90 %d, want %d", s.P50, s.P90, tc.lateValue)
			}
		})
	}
}

// A wakeup made inside a system call: under full the woken task (shorter
// slice, eligible) preempts at once, in the middle of a Send of two
// messages, and is woken again for the second; under lazy, voluntary and
// none it runs when the call returns to user space, and finds both
// messages. One CPU, a sender sending two messages every millisecond of
// its CPU time to a receiver that reads one at a time.
func TestPreemptWakeupInsideSystemCall(t *testing.T) {
	for _, m := range allModels {
		t.Run(m.String(), func(t *testing.T) {
			ch := sim.NewChannel("pipe", 4, false)
			r, err := sim.Simulate(sim.Config{
				CPUs: 1, Preempt: m, BaseSlice: 2800 * time.Microsecond, Duration: 100*time.Millisecond + 500*time.Microsecond,
				Workloads: []sim.Workload{sim.Custom("pair",
					sim.TaskSpec{Name: "recv", TaskOptions: sim.TaskOptions{Slice: 300 * time.Microsecond},
						Program: []sim.Phase{sim.Forever(sim.Recv(ch, 1), sim.Run(time.Microsecond))}},
					sim.TaskSpec{Name: "send", Program: []sim.Phase{sim.Forever(sim.Run(time.Millisecond), sim.Send(ch, 2))}})},
			})
			if err != nil {
				t.Fatal(err)
			}
			want := uint64(100) // one wakeup per Send
			if m == eevdf.PreemptFull {
				want = 200 // one per message: preempted after the first
			}
			if got := r.Tasks[0].Wakeups; got != want {
				t.Errorf("receiver woken %d times, want %d", got, want)
			}
		})
	}
}

// Timer slack on a machine with nohz idle: CPU 1 runs a hog and ticks,
// CPU 0 only runs the cyclictest thread and stops its tick when idle; the
// ticks of CPU 1 do not run CPU 0's timers, so every sample carries the
// whole 50 µs.
func TestTimerSlackStoppedTick(t *testing.T) {
	r, err := sim.Simulate(sim.Config{
		CPUs: 2, HZ: 250, Nohz: smp.NohzIdle, TimerSlack: 50 * time.Microsecond,
		Duration: 1000*wakerInterval + time.Millisecond,
		Workloads: []sim.Workload{
			sim.Cyclictest(1, wakerInterval, sim.TaskOptions{CPUs: []int{0}}),
			sim.Stress(1, sim.TaskOptions{CPUs: []int{1}}),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	lat := r.Workloads[0].Samples
	if s := sim.Summarize(lat); len(lat) != 1000 || s.Min != 50_000 || s.Max != 50_000 {
		t.Errorf("%d samples, min %d max %d; want 1000 of 50000 ns", len(lat), s.Min, s.Max)
	}
}

// Another timer's expiry on the same CPU runs the timers whose slack
// window it falls in: one CPU with nohz idle (no tick while idle), a
// cyclictest thread with 50 µs of slack expiring at k ms, and a task
// with 1 ns of slack whose timer expires 20 µs later: the thread wakes
// with it, 20.001 µs late, every time. On two CPUs, with the other task
// on the other CPU, its timer interrupt does not run the thread's timer:
// 50 µs every time.
func TestTimerSlackOtherTimerFiresEarly(t *testing.T) {
	for _, tc := range []struct {
		cpus    int
		thread  []int // the CPUs of the cyclictest thread and of the other task
		other   []int
		latency uint64
	}{
		{1, nil, nil, 20_001},
		{2, []int{0}, []int{1}, 50_000},
	} {
		r, err := sim.Simulate(sim.Config{
			CPUs: tc.cpus, Nohz: smp.NohzIdle, TimerSlack: 50 * time.Microsecond,
			Duration: 100*time.Millisecond + 500*time.Microsecond,
			Workloads: []sim.Workload{
				sim.Cyclictest(1, time.Millisecond, sim.TaskOptions{CPUs: tc.thread}),
				sim.Custom("other", sim.TaskSpec{Name: "other", TaskOptions: sim.TaskOptions{Start: 20 * time.Microsecond, TimerSlack: 1, CPUs: tc.other},
					Program: []sim.Phase{sim.Forever(sim.Timer(time.Millisecond))}}),
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		lat := r.Workloads[0].Samples
		if s := sim.Summarize(lat); len(lat) != 100 || s.Min != tc.latency || s.Max != tc.latency {
			t.Errorf("%d CPUs: %d samples, min %d max %d; want 100 of %d ns", tc.cpus, len(lat), s.Min, s.Max, tc.latency)
		}
	}
}

// Every model on several CPUs, with balancing, nohz idle, kernel time,
// preemption points and slack: smp's and the simulator's invariants
// hold after every event (Config.Debug).
func TestPreemptModelsKeepInvariants(t *testing.T) {
	for _, m := range allModels {
		t.Run(m.String(), func(t *testing.T) {
			r, err := sim.Simulate(sim.Config{
				CPUs: 4, Seed: 2, Preempt: m, Nohz: smp.NohzIdle, HZ: 250, TimerSlack: 50 * time.Microsecond,
				CondReschEvery: 30 * time.Microsecond, MightReschEvery: 10 * time.Microsecond,
				WakeupCost: 2 * time.Microsecond, SwitchCost: time.Microsecond, StartJitter: time.Millisecond,
				Duration: 150 * time.Millisecond, Debug: true,
				Workloads: []sim.Workload{
					&sim.CyclictestWorkload{Threads: 2, Interval: 1777 * time.Microsecond, SysWork: time.Microsecond, Options: sim.TaskOptions{Slice: 300 * time.Microsecond}},
					&sim.HackbenchWorkload{Groups: 2, Fds: 4, Loops: 1 << 20, Pipe: true, WriteCost: 40 * time.Microsecond, UserCost: time.Microsecond},
					sim.Custom("khog", sim.TaskSpec{Name: "khog", Program: []sim.Phase{sim.Forever(sim.Sys(2*time.Millisecond), sim.Run(10*time.Microsecond))}}),
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Workloads[0].Latency == nil || r.Workloads[0].Latency.Count < 100 {
				t.Errorf("cyclictest recorded too few samples: %+v", r.Workloads[0].Latency)
			}
		})
	}
}

// A Sys phase followed by a Send is one system call (a pipe write's copy,
// then its wakeup): a request pending when the Sys phase ends is taken
// after the Send. Under none, a writer on CPU 0 in 100 µs kernel sections
// is asked by a cyclictest thread's timer to reschedule; at the end of
// the section it first wakes its reader on CPU 1, then returns to user
// space and lets the thread run: every late sample of the thread is
// taken at the very instant the reader was woken.
func TestPreemptSysThenSendIsOneCall(t *testing.T) {
	ch := sim.NewChannel("pipe", 1024, false)
	var readerAt, threadAt []time.Duration
	_, err := sim.Simulate(sim.Config{
		CPUs: 2, Preempt: eevdf.PreemptNone, BaseSlice: 2800 * time.Microsecond, Duration: 100 * time.Millisecond,
		Workloads: []sim.Workload{
			sim.Custom("thread", sim.TaskSpec{Name: "thread", TaskOptions: sim.TaskOptions{CPUs: []int{0}, Slice: 300 * time.Microsecond},
				Program: []sim.Phase{sim.Forever(sim.Timer(wakerInterval), sim.Hook(func(e sim.HookEvent) { threadAt = append(threadAt, e.Now) }),
					sim.Latency(), sim.Run(2*time.Microsecond))}}),
			sim.Custom("writer", sim.TaskSpec{Name: "writer", TaskOptions: sim.TaskOptions{CPUs: []int{0}},
				Program: []sim.Phase{sim.Forever(sim.Sys(100*time.Microsecond), sim.Send(ch, 1))}}),
			sim.Custom("reader", sim.TaskSpec{Name: "reader", TaskOptions: sim.TaskOptions{CPUs: []int{1}},
				Program: []sim.Phase{sim.Forever(sim.Recv(ch, 1), sim.Hook(func(e sim.HookEvent) { readerAt = append(readerAt, e.Now) }))}}),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	woken := map[time.Duration]bool{}
	for _, at := range readerAt {
		woken[at] = true
	}
	late := 0
	for k, at := range threadAt {
		if expiry := time.Duration(k+1) * wakerInterval; at > expiry {
			late++
			if !woken[at] {
				t.Errorf("the thread ran at %v (expiry %v) without the reader woken then", at, expiry)
			}
		}
	}
	if late < len(threadAt)/2 {
		t.Errorf("only %d of %d samples late: the kernel sections did not delay the thread", late, len(threadAt))
	}
}

// Config.WakeupCost delays a request under every model: a return to user
// space or a preemption point before it has elapsed does not take it
// (the tick does, as it always has). A hog in 10 µs kernel sections with
// 5 µs cond_resched points against the waker, with a 30 µs wakeup cost:
// a sample is the time to the next tick if that comes first and takes
// the request (under full and lazy always, under none and voluntary in
// the hog's user-mode gaps); otherwise it lies in [30, 41) µs — the cost,
// then the rest of the section or up to the next point —, exactly 30 µs
// under full. The waker's own first run waits for the cost, so its
// expiries are 30 + k·2777 µs.
func TestPreemptWakeupCostStillDelays(t *testing.T) {
	hog := []sim.Phase{sim.Forever(sim.Sys(10*time.Microsecond), sim.Run(time.Microsecond))}
	for _, m := range allModels {
		t.Run(m.String(), func(t *testing.T) {
			lat := wakerRun(t, m, 1000, 1000, hog, func(c *sim.Config) {
				c.WakeupCost, c.CondReschEvery = 30*time.Microsecond, 5*time.Microsecond
			})
			if len(lat) != 1000 {
				t.Fatalf("%d samples, want 1000", len(lat))
			}
			lo, hi := uint64(30_000), uint64(41_000)
			if m == eevdf.PreemptFull {
				hi = lo + 1
			}
			byTick := 0
			for i, v := range lat {
				k := uint64(i + 1)
				expiry := 30 + k*2777 // µs: the waker first ran after the cost
				toTick := (1000 - expiry%1000) % 1000 * 1000
				switch {
				case v < lo && v == toTick:
					byTick++
				case v < lo || v >= hi:
					t.Errorf("sample %d: %d ns, want %d (the tick) or a value in [%d, %d)", k, v, toTick, lo, hi)
				}
			}
			if m == eevdf.PreemptFull && byTick != 30 {
				t.Errorf("%d samples taken by the tick, want 30 (a tick within 30 µs of the expiry)", byTick)
			}
		})
	}
}
