package replay

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/schedmodel/fairclass/trace"
)

const capturesDir = "../../shared/traces"

// Mode A runs on the public captures (beside the repository; skipped
// without them) and accounts for every switch and event. The counts are
// the trace's own: switches from the parser, and the split of the
// switches the replay left out (each CPU's first, the repaired ones and
// those of other classes) — numbers the model does not decide. The
// agreement itself is printed (go test ./replay -run TestPinnedCaptures
// -v) and documented in docs/trace.md.
func TestPinnedCaptures(t *testing.T) {
	tests := []struct {
		file                  string
		events, picks, cpus   int
		otherClass, fairTasks int
		tickSource            string
	}{
		{"kunalb_panopticon_ftrace.txt.gz", 317, 106, 4, 10, 19, "made"},
		{"microsoft_Microsoft-Performance-Tools-Linux-Android_perfetto_trace_cpu_sampling_not_scoped.pftrace", 55795, 24698, 4, 2925, 348, "made"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(capturesDir, tc.file)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("capture not found at %s (the captures live beside the repository): %v", path, err)
			}
			r, err := trace.Open(path, trace.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var evs []trace.Event
			for ev, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				evs = append(evs, ev)
			}
			rep, err := Pinned(evs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Coverage
			if c.Events != tc.events || c.Picks != tc.picks || rep.CPUs != tc.cpus || c.OtherClass != tc.otherClass ||
				c.FairTasks != tc.fairTasks || c.TickSource != tc.tickSource {
				t.Errorf("coverage %+v on %d CPUs", c, rep.CPUs)
			}
			if c.Used+c.NotUsed+c.Dropped != c.Events || c.Scored+c.Inconsistent+c.OtherClass+c.BurnedIn != c.Picks {
				t.Errorf("coverage does not add up: %+v", c)
			}
			if c.Scored < c.Picks/2 || rep.Overall.Scored != c.Scored {
				t.Errorf("%d of %d switches scored", c.Scored, c.Picks)
			}
			t.Logf("%s: %d of %d picks agree (%.2f%%); %d inconsistent, %d repairs",
				tc.file, rep.Overall.Agreed, rep.Overall.Scored, rep.Overall.Percent(), c.Inconsistent, c.Repairs)
		})
	}
}
