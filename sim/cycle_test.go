package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestDecodeCycleFindsTheRunSleepLoop checks which programs get a
// decoded loop: a Run then a Sleep in a Forever, both with a positive
// minimum, wherever the loop starts; not a Sys phase, a zero minimum,
// another order or a loop with more in its body.
func TestDecodeCycleFindsTheRunSleepLoop(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name            string
		prog            []Phase
		sleepPC, jumpPC int32
	}{
		{"run and sleep with jitter", []Phase{Forever(RunJitter(ms, ms), SleepJitter(ms, ms))}, 1, 2},
		{"run and sleep without jitter", []Phase{Forever(Run(ms), Sleep(2*ms))}, 1, 2},
		{"after a preamble", []Phase{Sleep(ms), Mark("m"), Forever(Run(ms), Sleep(ms))}, 3, 4},
		{"a zero minimum burst", []Phase{Forever(RunJitter(0, ms), Sleep(ms))}, -1, -1},
		{"a zero minimum sleep", []Phase{Forever(Run(ms), SleepJitter(0, ms))}, -1, -1},
		{"a sys phase", []Phase{Forever(SysJitter(ms, 0), Sleep(ms))}, -1, -1},
		{"sleep first", []Phase{Forever(Sleep(ms), Run(ms))}, -1, -1},
		{"more in the body", []Phase{Forever(Run(ms), Sleep(ms), Mark("m"))}, -1, -1},
		{"a counted loop", []Phase{Loop(3, Run(ms), Sleep(ms))}, -1, -1},
		{"a hog", []Phase{Spin()}, -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := newCompiler().compile(tc.prog)
			if err != nil {
				t.Fatal(err)
			}
			tk := task{code: prog.code}
			tk.decodeCycle()
			if tk.cycSleep != tc.sleepPC || tk.cycJump != tc.jumpPC {
				t.Fatalf("decoded Sleep at %d, Jump at %d; want %d, %d", tk.cycSleep, tk.cycJump, tc.sleepPC, tc.jumpPC)
			}
			if tk.cycSleep >= 0 {
				run, sleep := prog.code[tk.cycSleep-1], prog.code[tk.cycSleep]
				if tk.cycRunA != run.a || tk.cycRunB != run.b || tk.cycSleepA != sleep.a || tk.cycSleepB != sleep.b {
					t.Fatalf("decoded operands %d %d %d %d, program's %d %d %d %d",
						tk.cycRunA, tk.cycRunB, tk.cycSleepA, tk.cycSleepB, run.a, run.b, sleep.a, sleep.b)
				}
			}
		})
	}
}

// TestDecodedCyclesGiveIdenticalRuns runs each configuration twice, with
// the decoded run/sleep loops and with every task left to the
// interpreter, and checks that both write byte-identical reports and
// ftrace logs, and on one CPU byte-identical scenario logs. The
// configurations are those of TestQueueFormsGiveIdenticalRuns: the
// benchmark's, several CPUs with wakeup and switch costs and timer slack,
// and every configuration file of this package's testdata and of
// examples/configs.
func TestDecodedCyclesGiveIdenticalRuns(t *testing.T) {
	runs := identityRuns(t)
	decodedSomewhere := false
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			dec, n, err := cycleFormRun(r.cfg(t), r.log, false)
			if err != nil {
				t.Fatalf("decoded: %v", err)
			}
			decodedSomewhere = decodedSomewhere || n > 0
			plain, _, err := cycleFormRun(r.cfg(t), r.log, true)
			if err != nil {
				t.Fatalf("interpreted: %v", err)
			}
			if dec != plain {
				t.Errorf("%d decoded loops: the run differs from the interpreter's (%d bytes against %d)", n, len(dec), len(plain))
			}
		})
	}
	if !decodedSomewhere {
		t.Error("no configuration has a decoded loop: the comparison tests nothing")
	}
}

// cycleFormRun runs cfg, with every task's decoded loop dropped if plain,
// and returns its report (JSON and text), its ftrace log and, with log,
// its scenario log, and how many tasks had a decoded loop.
func cycleFormRun(cfg Config, log, plain bool) (string, int, error) {
	var scen, ft, rep bytes.Buffer
	if log {
		cfg.ScenarioLog = &scen
	}
	s, err := New(cfg)
	if err != nil {
		return "", 0, err
	}
	n := 0
	for i := range s.tasks {
		if s.tasks[i].cycSleep >= 0 {
			n++
		}
		if plain {
			s.tasks[i].cycSleep, s.tasks[i].cycJump = -1, -1
		}
	}
	if err := s.WriteFtrace(&ft); err != nil {
		return "", n, err
	}
	r, err := s.Run()
	if err != nil {
		return "", n, err
	}
	if err := r.WriteJSON(&rep); err != nil {
		return "", n, err
	}
	if err := r.WriteText(&rep); err != nil {
		return "", n, err
	}
	return fmt.Sprintf("%s\n--- ftrace\n%s\n--- scenario\n%s", rep.String(), ft.String(), scen.String()), n, nil
}

// TestDecodedCycleKeepsTheLivelockBound checks that a decoded loop
// counts its program steps as the interpreter does, at the livelock
// guard's bound. On one CPU a task h runs a Hook that puts the count of
// steps at this instant k below the bound, then sleeps; the CPU then
// often goes at the same instant to d, a decoded loop resuming after its
// sleep (two steps: its Jump and its Run), or d's burst ends at the same
// instant as h's (one step: its Sleep). For each k the run is stepped to
// its end with the decoded loop and with the interpreter, and every Step
// must return the same result at the same time: the same error at the
// same step where the bound is passed.
func TestDecodedCycleKeepsTheLivelockBound(t *testing.T) {
	failed := 0
	for k := 0; k <= 4; k++ {
		stepsOf := func(plain bool) []string {
			var s *Sim
			cfg := Config{Seed: 1, Duration: 40 * time.Millisecond, Workloads: []Workload{Custom("livelock",
				TaskSpec{Name: "h", Program: []Phase{Forever(
					Run(300*time.Microsecond),
					Hook(func(HookEvent) { s.steps = maxStepsAtOneTime - k }),
					Sleep(700*time.Microsecond))}},
				TaskSpec{Name: "d", Program: []Phase{Forever(Run(200*time.Microsecond), Sleep(300*time.Microsecond))}},
				TaskSpec{Name: "e", Program: []Phase{Forever(Run(100*time.Microsecond), Sleep(200*time.Microsecond))}},
			)}}
			var err error
			if s, err = New(cfg); err != nil {
				t.Fatal(err)
			}
			if s.tasks[1].cycJump < 0 || s.tasks[2].cycJump < 0 {
				t.Fatal("d and e have no decoded loop")
			}
			if plain {
				for i := range s.tasks {
					s.tasks[i].cycSleep, s.tasks[i].cycJump = -1, -1
				}
			}
			var out []string
			for {
				ok, err := s.Step()
				out = append(out, fmt.Sprintf("%v %v %v", ok, err, s.Now()))
				if !ok {
					return out
				}
			}
		}
		dec, plain := stepsOf(false), stepsOf(true)
		if len(dec) != len(plain) {
			t.Fatalf("k=%d: %d steps decoded, %d interpreted; last %q against %q", k, len(dec), len(plain), dec[len(dec)-1], plain[len(plain)-1])
		}
		for i := range dec {
			if dec[i] != plain[i] {
				t.Fatalf("k=%d: step %d: %q decoded, %q interpreted", k, i, dec[i], plain[i])
			}
		}
		if dec[len(dec)-1] != "false <nil> 40ms" {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no run reached the livelock bound: the comparison tests nothing")
	}
}

// TestDecodedCyclesGiveIdenticalRunsOnRandomPrograms compares the two
// forms, as TestDecodedCyclesGiveIdenticalRuns does, on random machines
// of one or two CPUs with the debug check on, whose tasks run random
// programs: a short preamble, then a Forever loop of a Run (sometimes a
// Sys phase) and a Sleep whose minimums are often zero, sometimes with a
// third phase in the body; half of them decode, half do not, and both
// kinds share the CPUs.
func TestDecodedCyclesGiveIdenticalRunsOnRandomPrograms(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	us := time.Microsecond
	dur := func() time.Duration {
		if r.IntN(3) == 0 {
			return 0
		}
		return time.Duration(1+r.IntN(300)) * us
	}
	decoded := 0
	for round := range 40 {
		var specs []TaskSpec
		for i := range 2 + r.IntN(6) {
			var prog []Phase
			for range r.IntN(3) {
				switch r.IntN(4) {
				case 0:
					prog = append(prog, Run(dur()))
				case 1:
					prog = append(prog, Sleep(dur()))
				case 2:
					prog = append(prog, Mark("m"))
				default:
					prog = append(prog, Yield())
				}
			}
			burst := RunJitter(dur(), dur()+us)
			if r.IntN(6) == 0 {
				burst = SysJitter(dur()+us, dur())
			}
			body := []Phase{burst, SleepJitter(dur(), dur()+us)}
			if r.IntN(6) == 0 {
				body = append(body, Mark("loop"))
			}
			prog = append(prog, Forever(body...))
			specs = append(specs, TaskSpec{Name: fmt.Sprintf("t%d", i), TaskOptions: TaskOptions{Nice: r.IntN(11) - 5}, Program: prog})
		}
		cfg := Config{Seed: uint64(round), CPUs: 1 + r.IntN(2), Duration: 20 * time.Millisecond, Debug: true,
			Workloads: []Workload{Custom("random", specs...)}}
		if r.IntN(3) == 0 {
			cfg.TimerSlack = 20 * us
		}
		dec, n, errDec := cycleFormRun(cfg, cfg.CPUs == 1, false)
		plain, _, errPlain := cycleFormRun(cfg, cfg.CPUs == 1, true)
		if fmt.Sprint(errDec) != fmt.Sprint(errPlain) {
			t.Fatalf("round %d: error %v decoded, %v interpreted", round, errDec, errPlain)
		}
		if dec != plain {
			t.Fatalf("round %d: %d decoded loops: the run differs from the interpreter's (%d bytes against %d)", round, n, len(dec), len(plain))
		}
		decoded += n
	}
	if decoded == 0 {
		t.Error("no program had a decoded loop: the comparison tests nothing")
	}
}
