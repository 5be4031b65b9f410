package configs_test

import (
	"testing"
	"time"

	"github.com/schedmodel/fairclass/sim"
)

// rb5-eas.json: the RB5 preset with its energy model ("energy_model":
// "rb5"), so EAS is on, for 10 s. A light periodic task (1 ms of work
// every 16 ms) runs alone for 200 ms; a CPU hog starts at 200 ms, three
// more at 500 ms.
// Stepping the simulation and reading its report at every instant gives
// the times (HZ 250: ticks every 4 ms):
//
//   - alone, the light task's wakeups are placed by energy
//     (find_energy_efficient_cpu) on little CPU 0 — 12 placements in
//     200 ms — and the root domain is never overutilized;
//   - the hog forks on CPU 0 at 200 ms; its utilization on the little
//     CPU passes 80 % of 284 and a tick sets the root overutilized at
//     228 ms; the hog is misfit and runs on gold CPU 4 at 232 ms and on
//     the prime CPU 7 at 288 ms;
//   - the flag clears while the hog's utilization on its new CPU is still
//     below 80 % of that CPU's capacity and is set for good at 328 ms,
//     when the hog's utilization on the prime reaches 820;
//   - the three hogs of 500 ms end on CPUs 4, 5 and 6 by 536 ms: every
//     big CPU is busy, the root stays overutilized to the end (10 s),
//     and every wakeup from 328 ms on skips EAS (the placements stay at
//     19).
//
// The light task leaves the little CPUs twice: at 224 ms energy places
// it on idle gold CPU 4 (the hog on CPU 0 was raising the little
// domain's state, spec §8), and at 512 ms, with the root overutilized,
// the idle-capacity search does; it is back on CPU 0 at 240 ms and at
// 544 ms, and stays there.
func TestRB5EASLightStaysLittleHogMovesBigOverutilized(t *testing.T) {
	cfg, err := sim.LoadConfig("rb5-eas.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.EnergyModel == nil {
		t.Fatal("rb5-eas.json gave no energy model")
	}
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	var (
		firstSet, onGold, onPrime, allBig time.Duration = -1, -1, -1, -1
		lastSet                           time.Duration = -1
		lightOffLittle                    []time.Duration
		prevLight                         = -1
		placementsAt200, setAt200         uint64
		prevSet                           uint64
	)
	for {
		ok, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		now := s.Now()
		r := s.Report()
		e := r.Energy
		if !e.Enabled {
			t.Fatal("EAS is off on the RB5 with its energy model")
		}
		if now < 200*ms {
			placementsAt200, setAt200 = e.Placements, e.OverutilizedSet
		}
		if e.OverutilizedSet > prevSet {
			if firstSet < 0 {
				firstSet = now
			}
			lastSet, prevSet = now, e.OverutilizedSet
		}
		light, hog0 := r.Tasks[0], r.Tasks[1]
		if light.CPU >= 4 && prevLight < 4 {
			lightOffLittle = append(lightOffLittle, now)
		}
		prevLight = light.CPU
		if hog0.CPU >= 4 && hog0.CPU < 7 && onGold < 0 {
			onGold = now
		}
		if hog0.CPU == 7 && onPrime < 0 {
			onPrime = now
		}
		big := map[int]bool{}
		for _, tk := range r.Tasks[1:] {
			if tk.CPU >= 4 {
				big[tk.CPU] = true
			}
		}
		if len(big) == 4 && allBig < 0 {
			allBig = now
		}
	}
	r := s.Report()
	e := r.Energy
	if placementsAt200 != 12 || setAt200 != 0 {
		t.Errorf("before the hog: %d EAS placements, overutilized set %d times; want 12 and 0", placementsAt200, setAt200)
	}
	for _, c := range []struct {
		what      string
		got, want time.Duration
	}{
		{"root overutilized first", firstSet, 228 * ms},
		{"hog on a gold CPU", onGold, 232 * ms},
		{"hog on the prime CPU", onPrime, 288 * ms},
		{"root overutilized for good", lastSet, 328 * ms},
		{"every big CPU busy", allBig, 536 * ms},
	} {
		if c.got != c.want {
			t.Errorf("%s at %v, want %v", c.what, c.got, c.want)
		}
	}
	if want := []time.Duration{224 * ms, 512 * ms}; len(lightOffLittle) != 2 || lightOffLittle[0] != want[0] || lightOffLittle[1] != want[1] {
		t.Errorf("the light task went to a big CPU at %v, want %v", lightOffLittle, want)
	}
	if r.Tasks[0].CPU >= 4 {
		t.Errorf("the light task ends on big CPU %d", r.Tasks[0].CPU)
	}
	if e.Placements != 19 || e.OverutilizedSet != 3 || e.OverutilizedCleared != 2 {
		t.Errorf("EAS placements %d, overutilized set %d cleared %d; want 19, 3, 2", e.Placements, e.OverutilizedSet, e.OverutilizedCleared)
	}
	// The flag is read at each tick, each 4 ms charged to the state at
	// its end: set from 328 ms to the end of the run at 10 s (9672 ms)
	// and 20 ms in the stretches before.
	if e.OverutilizedNs != uint64(9692*ms) {
		t.Errorf("overutilized %v, want 9.692s", time.Duration(e.OverutilizedNs))
	}
}
