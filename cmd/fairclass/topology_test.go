package main

import (
	"strings"
	"testing"
)

func TestTopologyCommandPrintsOneCPU(t *testing.T) {
	code, out, errs := runCmd(t, "", "topology", "--packages", "2", "--cores", "2", "--numbering", "x86", "--cpu", "5", "--format", "dmesg")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `CPU5 attaching sched-domain(s):
 domain-0: span=1,5 level=SMT
  groups: 5:{ span=5 }, 1:{ span=1 }
  domain-1: span=0-1,4-5 level=MC
   groups: 1:{ span=1,5 cap=2048 }, 0:{ span=0,4 cap=2048 }
   domain-2: span=0-7 level=PKG
    groups: 0:{ span=0-1,4-5 cap=4096 }, 2:{ span=2-3,6-7 cap=4096 }
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestTopologyCommandFormats(t *testing.T) {
	// The default machine, 1x1x4x2: 8 CPUs with SMT and MC.
	code, out, _ := runCmd(t, "", "topology")
	if code != 0 || strings.Count(out, "attaching sched-domain(s)") != 8 ||
		!strings.Contains(out, "cpu7/domain1/groups_flags:SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_CPUCAPACITY SD_SHARE_LLC SD_PREFER_SIBLING \n") {
		t.Errorf("debugfs: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "", "topology", "--format=proc", "--threads=1", "--cpu=0")
	if code != 0 || strings.Contains(out, "level:") || !strings.Contains(out, "cpu0/domain0/name:MC\n") {
		t.Errorf("proc: exit %d\n%s", code, out)
	}
}

func TestTopologyCommandErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"topology", "--cores", "0"}, "bad machine"},
		{[]string{"topology", "--packages", "100000"}, "too large"},
		{[]string{"topology", "--numbering", "arm"}, "unknown numbering"},
		{[]string{"topology", "--format", "json"}, "unknown format"},
		{[]string{"topology", "--cpu", "8"}, "CPUs 0-7"},
		{[]string{"topology", "extra"}, "unexpected argument"},
	}
	for _, tc := range tests {
		code, _, errs := runCmd(t, "", tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := runCmd(t, "", "help", "topology"); code != 0 || !strings.Contains(out, "--numbering") {
		t.Errorf("help topology: exit %d", code)
	}
}

func TestTopologyCommandPrintsCapacities(t *testing.T) {
	code, out, errs := runCmd(t, "", "topology", "--machine", "rb5", "--cpu", "0", "--format", "dmesg")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(out, "cpu0/cpu_capacity:284\n") || !strings.Contains(out, "cpu4/cpu_capacity:871\ncpu5") ||
		!strings.Contains(out, "4:{ span=4 cap=871 }") || !strings.Contains(out, " 7:{ span=7 }\n") {
		t.Errorf("rb5:\n%s", out)
	}
	code, out, _ = runCmd(t, "", "topology", "--cores", "2", "--threads", "1", "--capacities", "512,1024", "--format", "proc", "--cpu", "1")
	if code != 0 || !strings.Contains(out, "cpu1/domain0/flags:SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_ASYM_CPUCAPACITY SD_ASYM_CPUCAPACITY_FULL SD_SHARE_LLC SD_PREFER_SIBLING \n") {
		t.Errorf("--capacities: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"--machine", "rb5", "--cores", "4"},
		{"--machine", "nope"},
		{"--capacities", "284,1024"},
		{"--threads", "1", "--cores", "2", "--capacities", "5*x"},
	} {
		if code, _, _ := runCmd(t, "", append([]string{"topology"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
