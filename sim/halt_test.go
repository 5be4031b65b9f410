package sim

import (
	"testing"
	"time"
)

// A run ends in one of three ways — the stop time, the last task's exit,
// an error — and step tests them as one flag (halt). Each way ends the run
// at the same step as before the flag, and a Step after the end still
// reports the end without processing anything.
func TestRunEndsAtItsStopAndAtItsLastExit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		program []Phase
		end     time.Duration // Now() once done
	}{
		// Two tasks of 3 ms each on one CPU exit at 6 ms, before the
		// stop time of 20 ms.
		{name: "every task exits", program: []Phase{Run(3 * ms), Exit()}, end: 6 * ms},
		// Tasks that never exit run to the stop time.
		{name: "stop time", program: []Phase{Forever(Run(ms), Sleep(ms))}, end: 20 * ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Config{Seed: 1, Duration: 20 * ms, Workloads: []Workload{Custom("w",
				TaskSpec{Name: "a", Program: tc.program},
				TaskSpec{Name: "b", Program: tc.program},
			)}})
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			for {
				ok, err := s.Step()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				if steps++; steps > 1_000_000 {
					t.Fatal("the run does not end")
				}
			}
			if !s.Done() || !s.halt {
				t.Fatalf("after the last step: Done() = %v, halt = %v, want both true", s.Done(), s.halt)
			}
			if s.Now() != tc.end {
				t.Errorf("ended at %v, want %v", s.Now(), tc.end)
			}
			events := s.events
			for range 3 {
				if ok, err := s.Step(); ok || err != nil {
					t.Fatalf("Step after the end = %v, %v; want false, nil", ok, err)
				}
			}
			if s.events != events || s.Now() != tc.end {
				t.Errorf("Steps after the end moved the run: events %d -> %d, time %v", events, s.events, s.Now())
			}
		})
	}
}

// An internal error ends the run at the next step, as the stop time does.
func TestRunEndsAtAnError(t *testing.T) {
	s, err := New(Config{Seed: 1, Duration: 20 * ms, Workloads: []Workload{Custom("w",
		TaskSpec{Name: "a", Program: []Phase{Forever(Run(ms), Sleep(ms))}},
	)}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Step(); !ok || err != nil {
		t.Fatalf("first Step = %v, %v", ok, err)
	}
	s.fail(errTestHalt)
	at := s.Now()
	if ok, err := s.Step(); ok || err == nil {
		t.Fatalf("Step after an error = %v, %v; want false and the error", ok, err)
	}
	if !s.Done() || s.Now() != at || s.done {
		t.Errorf("after an error: Done() = %v, time %v (want %v), done = %v (want false: the error ended it)", s.Done(), s.Now(), at, s.done)
	}
}

var errTestHalt = errorString("an error of the test")

type errorString string

func (e errorString) Error() string { return string(e) }
