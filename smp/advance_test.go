package smp

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// refDriver drives a System by hand in the serial order of KERNEL-SPEC-SMP
// §7.3, as the package's harness and fuzz target do: after each operation
// the pending work and reschedules; at each tick instant every CPU ticks,
// in ascending order, rescheduling at once when asked.
type refDriver struct {
	s        *System
	nextTick uint64
}

func (r *refDriver) settle() {
	r.s.RunPending()
	for {
		cpus := r.s.Resched()
		if len(cpus) == 0 {
			return
		}
		for _, c := range append([]int(nil), cpus...) {
			r.s.Schedule(c)
		}
	}
}

func (r *refDriver) advance(now uint64) error {
	tick := r.s.tickNsec
	for ; r.nextTick <= now; r.nextTick += tick {
		if err := r.s.SetClock(r.nextTick); err != nil {
			return err
		}
		for c := range r.s.NumCPUs() {
			r.s.Tick(c)
			if r.s.RQ(c).NeedResched() {
				r.s.Schedule(c)
			}
		}
		r.settle()
	}
	if err := r.s.SetClock(now); err != nil {
		return err
	}
	r.settle()
	return nil
}

// Advance decides exactly what a caller driving the System by hand in the
// documented order decides: two Systems, one advanced with Advance, the
// other by the reference driver, receive the same random forks, wakeups,
// blocks, exits and execs at random times and agree after every step, on
// several machines and in both tick modes.
func TestAdvanceMatchesTheSerialOrderByHand(t *testing.T) {
	machines := []topology.Machine{oneLLC4x1, oneLLC2x2, twoLLC4x1}
	for mi, m := range machines {
		for _, mode := range []NohzMode{NohzOff, NohzIdle} {
			for seed := range uint64(3) {
				name := fmt.Sprintf("machine%d/nohz=%v/seed%d", mi, mode, seed)
				t.Run(name, func(t *testing.T) {
					top, err := topology.Build(m)
					if err != nil {
						t.Fatal(err)
					}
					mk := func() *System {
						s, err := New(top, WithNohz(mode), WithSeed(seed), WithPreset(topology.Warm, 1_000_000_000))
						if err != nil {
							t.Fatal(err)
						}
						return s
					}
					a, b := mk(), mk()
					ref := &refDriver{s: b, nextTick: b.Clock() + b.tickNsec}
					rng := rand.New(rand.NewPCG(seed, uint64(mi)))
					now := a.Clock()
					n := top.NumCPUs()
					for step := range 400 {
						now += rng.Uint64N(3_000_000)
						if err := a.Advance(now); err != nil {
							t.Fatal(err)
						}
						if err := ref.advance(now); err != nil {
							t.Fatal(err)
						}
						op, cpu := rng.IntN(6), rng.IntN(n)
						for _, s := range []*System{a, b} {
							switch op {
							case 0:
								if len(s.Tasks()) < 3*n {
									se, _ := eevdf.NewEntity(fmt.Sprintf("t%d", len(s.Tasks())))
									tk, err := s.NewTask(se, WithCPU(cpu))
									if err != nil {
										t.Fatal(err)
									}
									s.WakeUpNew(tk)
								}
							case 1, 2:
								if ts := s.Tasks(); len(ts) > 0 {
									s.TryToWakeUp(ts[(step*7+cpu)%len(ts)], s.Curr(cpu), 0)
								}
							case 3:
								_ = s.Block(cpu)
							case 4:
								if step%5 == 0 {
									_ = s.Exit(cpu)
								}
							case 5:
								s.Exec(cpu)
							}
						}
						if err := a.Advance(now); err != nil { // the reschedules the operation asked for
							t.Fatal(err)
						}
						ref.settle()
						if fa, fb := fingerprint(a), fingerprint(b); fa != fb {
							t.Fatalf("step %d (op %d on CPU %d):\nAdvance: %s\nby hand: %s", step, op, cpu, fa, fb)
						}
						if err := a.Check(); err != nil {
							t.Fatalf("step %d: %v", step, err)
						}
					}
				})
			}
		}
	}
}

// Advance runs a tick instant once, after the operations the caller made at
// that instant (timer wakeups come before the ticks, §7.3), and fails,
// changing nothing, for an instant before the clock.
func TestAdvanceTicksEachInstantOnce(t *testing.T) {
	h := newHarness(t, oneLLC4x1)
	s := h.s
	p := h.pinnedStart(0)
	tick := s.tickNsec
	at := (s.Clock()/tick + 3) * tick
	if err := s.Advance(at); err != nil {
		t.Fatal(err)
	}
	ran := p.se.SumExecRuntime()
	if s.Clock() != at || ran == 0 {
		t.Fatalf("clock %d, ran %d ns; want %d and some", s.Clock(), ran, at)
	}
	calls := s.Stats().BalanceCalls
	if err := s.Advance(at); err != nil { // the same instant: no second tick
		t.Fatal(err)
	}
	if got := s.Stats().BalanceCalls; got != calls {
		t.Errorf("a second Advance to the same tick instant balanced again: %v, then %v", calls, got)
	}
	before := fingerprint(s)
	err := s.Advance(at - 1)
	if !errors.Is(err, eevdf.ErrClockBackwards) || !strings.Contains(err.Error(), fmt.Sprint(at-1)) {
		t.Errorf("Advance(%d) at %d: %v, want ErrClockBackwards naming the instant", at-1, at, err)
	}
	if after := fingerprint(s); after != before {
		t.Errorf("a failed Advance changed the System:\n%s\n%s", before, after)
	}

	// An instant made current by SetClock ticks at the next Advance.
	next := at + tick
	if err := s.SetClock(next); err != nil {
		t.Fatal(err)
	}
	ran = p.se.SumExecRuntime()
	if err := s.Advance(next); err != nil {
		t.Fatal(err)
	}
	if p.se.SumExecRuntime() == ran {
		t.Errorf("the tick at %d, the clock set by SetClock, did not run", next)
	}
}
