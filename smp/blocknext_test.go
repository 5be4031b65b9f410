package smp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/topology"
)

// BlockNext returns what Curr returns after the sleep's __schedule: the
// next queued task while there is one, then nil (idle) once the last one
// sleeps; on an idle CPU or a CPU that does not exist it fails as Block
// does, with a nil task.
func TestBlockNextReturnsWhatRunsAfterTheSleep(t *testing.T) {
	for _, cpus := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d CPUs", cpus), func(t *testing.T) {
			top, err := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: cpus, ThreadsPerCore: 1})
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(top)
			if err != nil {
				t.Fatal(err)
			}
			now := s.Clock()
			for i := range 3 {
				se, err := eevdf.NewEntity(fmt.Sprintf("t%d", i))
				if err != nil {
					t.Fatal(err)
				}
				tk, err := s.NewTask(se, WithCPU(0), WithAllowed(0))
				if err != nil {
					t.Fatal(err)
				}
				if s.WakeUpNew(tk) < 0 {
					t.Fatalf("t%d not started", i)
				}
			}
			if s.Schedule(0) == nil {
				t.Fatal("nothing picked on CPU 0")
			}
			for i := range 3 {
				now += 1_000_000
				if err := s.SetClock(now); err != nil {
					t.Fatal(err)
				}
				next, err := s.BlockNext(0)
				if err != nil {
					t.Fatalf("sleep %d: %v", i, err)
				}
				if want := s.Curr(0); next != want {
					t.Fatalf("sleep %d: BlockNext = %v, Curr = %v", i, next, want)
				}
				if (next == nil) != (i == 2) {
					t.Fatalf("sleep %d: BlockNext = %v, want idle only after the last", i, next)
				}
			}
			if next, err := s.BlockNext(0); !errors.Is(err, ErrIdle) || next != nil {
				t.Errorf("idle CPU: BlockNext = %v, %v; want nil, ErrIdle", next, err)
			}
			if next, err := s.BlockNext(cpus); err == nil || next != nil {
				t.Errorf("CPU %d of %d: BlockNext = %v, %v; want nil and an error", cpus, cpus, next, err)
			}
		})
	}
}
