package eevdf_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/scenario"
)

// applyCore drives one scenario operation through the one-call core
// sequences (WakeUpNew, Wakeup, Sleep) and the plain operations for the
// rest, on a runqueue and entities that a Replayer made but never stepped.
func applyCore(r *scenario.Replayer, op scenario.Op) error {
	rq := r.RunQueue()
	if err := rq.SetClock(op.At); err != nil {
		return err
	}
	var se *eevdf.SchedEntity
	if op.Task >= 0 {
		se = r.Entity(op.Task)
	}
	h := rq.Hierarchy()
	group := func() *eevdf.TaskGroup {
		if op.Group == 0 {
			return h.Root()
		}
		return h.Groups()[op.Group-1] // creation order is declaration order
	}
	switch op.Kind {
	case scenario.OpNew:
		return rq.WakeUpNew(se)
	case scenario.OpWakeup:
		return rq.Wakeup(se, 0)
	case scenario.OpSleep:
		picked, err := rq.Sleep()
		if err == nil && picked != rq.Curr() {
			return fmt.Errorf("Sleep returned %v, curr is %v", picked, rq.Curr())
		}
		return err
	case scenario.OpSchedule:
		rq.PickNext()
	case scenario.OpTick:
		rq.Tick()
	case scenario.OpYield:
		rq.Yield()
		rq.PickNext()
	case scenario.OpRenice:
		return rq.SetNice(se, int(op.Arg))
	case scenario.OpSlice:
		return rq.SetSlice(se, uint64(op.Arg))
	case scenario.OpForcePick:
		return rq.SetNext(se)
	case scenario.OpCgroup:
		return rq.MoveToGroup(se, group())
	case scenario.OpCPUWeight:
		return group().SetCPUWeight(uint64(op.Arg))
	case scenario.OpCPUWeightNice:
		return group().SetCPUWeightNice(int(op.Arg))
	case scenario.OpCPUIdle:
		return group().SetIdle(op.Arg == 1)
	case scenario.OpCgroupMode:
		h.SetMode(eevdf.CgroupMode(op.Arg))
	default:
		return fmt.Errorf("unknown op %v", op.Kind)
	}
	return nil
}

// WakeUpNew, Wakeup and Sleep are the scenario language's new, wakeup and
// sleep: every kernel scenario (those the kernel's own fair.c replayed,
// under scenario/testdata/kernel) driven through them leaves the runqueue
// exactly as the replay's low-level calls leave it, snapshot for snapshot
// after every operation, on both timelines, and with PELT signals kept.
func TestCoreSequencesMatchReplay(t *testing.T) {
	files, err := filepath.Glob("../scenario/testdata/kernel/*.txt")
	if err != nil || len(files) < 10 {
		t.Fatalf("kernel scenarios: %v (%d files)", err, len(files))
	}
	ops := map[scenario.OpKind]int{}
	delayedWakeups, delayedSleeps := 0, 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, bk := range backends {
			for _, pelt := range []bool{false, true} {
				// PELT signals change no EEVDF number: one timeline
				// suffices to compare them.
				if pelt && bk != eevdf.BTree || testing.Short() && (bk != eevdf.BTree || pelt) {
					continue
				}
				sc, err := scenario.Parse(bytes.NewReader(src), filepath.Base(path))
				if err != nil {
					t.Fatal(err)
				}
				opt := scenario.Options{Backend: bk, PELT: pelt}
				ref, err := scenario.NewReplayer(sc, opt)
				if err != nil {
					t.Fatal(err)
				}
				core, err := scenario.NewReplayer(sc, opt)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s/%v/pelt=%v", filepath.Base(path), bk, pelt)
				for i, op := range sc.Ops {
					if err := ref.Advance(); err != nil {
						t.Fatalf("%s: op %d: replay: %v", name, i, err)
					}
					if op.Kind == scenario.OpWakeup && core.Entity(op.Task).Delayed() {
						delayedWakeups++
					}
					prev := core.RunQueue().Curr()
					if err := applyCore(core, op); err != nil {
						t.Fatalf("%s: op %d (%v): %v", name, i, op.Kind, err)
					}
					if diff := cmp.Diff(ref.RunQueue().Snapshot(), core.RunQueue().Snapshot()); diff != "" {
						t.Fatalf("%s: op %d (%v at %d): the core sequences differ from the replay (-replay +core):\n%s", name, i, op.Kind, op.At, diff)
					}
					if err := core.RunQueue().Check(); err != nil {
						t.Fatalf("%s: op %d: %v", name, i, err)
					}
					ops[op.Kind]++
					if op.Kind == scenario.OpSleep && prev.Delayed() {
						delayedSleeps++
					}
				}
			}
		}
	}
	// The comparison means something only if the scenarios exercise the
	// three sequences, delayed wakeups included.
	for _, k := range []scenario.OpKind{scenario.OpNew, scenario.OpWakeup, scenario.OpSleep} {
		if ops[k] < 20 && !testing.Short() {
			t.Errorf("only %d %v operations compared", ops[k], k)
		}
	}
	t.Logf("compared %v; %d delayed wakeups, %d delayed sleeps", ops, delayedWakeups, delayedSleeps)
	if (delayedWakeups < 10 || delayedSleeps < 10) && !testing.Short() {
		t.Errorf("only %d wakeups of delayed tasks and %d delayed sleeps compared", delayedWakeups, delayedSleeps)
	}
}
