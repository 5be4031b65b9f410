package smp

import (
	"errors"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// On one CPU without PELT, SetClock sets the runqueue's clock itself (the
// first use of an instant then has nothing left to do); on several CPUs,
// or with PELT, a runqueue's clock still waits for its first use. Either
// way, a runqueue reached through RQ reads the System's time.
func TestSetClockSetsALoneRunqueueAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cpus  int
		opts  []Option
		eager bool
	}{
		{name: "one CPU", cpus: 1, eager: true},
		{name: "one CPU with PELT", cpus: 1, opts: []Option{WithRunqueueOptions(eevdf.WithPELT(true))}},
		{name: "two CPUs", cpus: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top, err := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: tc.cpus, ThreadsPerCore: 1})
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(top, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			start := s.Clock()
			prev := start
			for _, now := range []uint64{start + 1000, start + 1000, start + 4_000_000} {
				if err := s.SetClock(now); err != nil {
					t.Fatal(err)
				}
				// The runqueue's own clock, read without RQ's update.
				got, synced := s.cpus[0].rq.Clock(), s.cpus[0].clockEpoch == s.epoch
				if tc.eager && (got != now || !synced) {
					t.Errorf("SetClock(%d): runqueue clock %d (in this instant: %v), want %d, set at once", now, got, synced, now)
				}
				if !tc.eager && now != prev && got == now {
					t.Errorf("SetClock(%d): runqueue clock already %d, want it left to the first use", now, got)
				}
				if c := s.RQ(0).Clock(); c != now {
					t.Errorf("SetClock(%d): RQ(0).Clock() = %d", now, c)
				}
				prev = now
			}
		})
	}
}

// SetClock's one-CPU path keeps the jiffies, the clock and the
// runqueue's clock as the general path does: the same calls on one CPU
// and on two (where only the general path runs) read the same jiffies
// and time after each, across jiffy boundaries and repeated instants,
// and a time before the current one still fails.
func TestSetClockOnOneCPUKeepsTheJiffiesOfTheGeneralPath(t *testing.T) {
	var systems [2]*System
	for i := range systems {
		top, err := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: i + 1, ThreadsPerCore: 1})
		if err != nil {
			t.Fatal(err)
		}
		if systems[i], err = New(top); err != nil {
			t.Fatal(err)
		}
	}
	one, two := systems[0], systems[1]
	start := one.Clock()
	if two.Clock() != start {
		t.Fatalf("start: %d on one CPU, %d on two", start, two.Clock())
	}
	for _, d := range []uint64{1, 1000, 1000, 3_999_999, 4_000_000, 4_000_001, 11_999_999, 12_000_000, 40_000_123} {
		now := start + d
		for _, s := range systems {
			if err := s.SetClock(now); err != nil {
				t.Fatalf("SetClock(start+%d): %v", d, err)
			}
		}
		if one.Jiffies() != two.Jiffies() || one.Clock() != now || two.Clock() != now {
			t.Errorf("start+%d: jiffies %d on one CPU, %d on two; clocks %d, %d", d, one.Jiffies(), two.Jiffies(), one.Clock(), two.Clock())
		}
		if c := one.RQ(0).Clock(); c != now {
			t.Errorf("start+%d: runqueue clock %d on one CPU", d, c)
		}
	}
	if err := one.SetClock(start); !errors.Is(err, eevdf.ErrClockBackwards) {
		t.Errorf("SetClock(start) after start+40000123 on one CPU: %v, want ErrClockBackwards", err)
	}
}

// SetClock's one-CPU path is taken only while no work is deferred: work
// queued for the end of an instant (an ILB kick, a stopper work) clears
// its pointer, and the next change of the time goes through the general
// path, which runs that work first, sets the runqueue's clock and takes
// the one-CPU path up again.
func TestSetClockOnOneCPURunsDeferredWorkFirst(t *testing.T) {
	top, err := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(top)
	if err != nil {
		t.Fatal(err)
	}
	now := s.Clock() + 1000
	if err := s.SetClock(now); err != nil {
		t.Fatal(err)
	}
	if s.clock1 == nil {
		t.Fatal("one CPU, started: SetClock's one-CPU path is not set up")
	}
	for _, tc := range []struct {
		name  string
		queue func()
	}{
		{"stopper work", func() { s.deferStopper(0) }},
		{"ILB kick", func() { s.deferKick(0) }},
	} {
		tc.queue()
		if s.clock1 != nil || !s.deferred.pending() {
			t.Fatalf("%s queued: one-CPU path set %v, work pending %v; want unset and pending", tc.name, s.clock1 != nil, s.deferred.pending())
		}
		now += 1000
		if err := s.SetClock(now); err != nil {
			t.Fatal(err)
		}
		if s.deferred.pending() {
			t.Errorf("%s: still queued after the time moved on", tc.name)
		}
		if s.clock1 == nil {
			t.Errorf("%s: the one-CPU path is not set up again once the work ran", tc.name)
		}
		if c := s.cpus[0].rq.Clock(); c != now || s.Clock() != now {
			t.Errorf("%s: runqueue clock %d, System clock %d, want %d", tc.name, c, s.Clock(), now)
		}
	}
}
