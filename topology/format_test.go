package topology

import (
	"errors"
	"strings"
	"testing"
)

// The expected texts follow the kernel's printers: sched_domain_debug_one
// in kernel/sched/topology.c for the boot log ("%*s domain-%d: span=%*pbl
// level=%s", groups as " %d:{ span=%*pbl" plus " cap=%lu" when the
// capacity is not 1024), register_sd and sd_flags_show in
// kernel/sched/debug.c for the debugfs files (decimal values, flags as
// names each followed by a space).

func TestDebugfsFormatOfOneCPU(t *testing.T) {
	top := mustBuild(t, Machine{2, 1, 1, 2, X86})
	var b strings.Builder
	if err := top.WriteCPU(&b, Debugfs, 3); err != nil {
		t.Fatal(err)
	}
	want := `CPU3 attaching sched-domain(s):
 domain-0: span=1,3 level=SMT
  groups: 3:{ span=3 }, 1:{ span=1 }
  domain-1: span=0-3 level=PKG
   groups: 1:{ span=1,3 cap=2048 }, 0:{ span=0,2 cap=2048 }
cpu3/domain0/busy_factor:16
cpu3/domain0/cache_nice_tries:0
cpu3/domain0/flags:SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_CPUCAPACITY SD_SHARE_LLC SD_PREFER_SIBLING 
cpu3/domain0/groups_flags:
cpu3/domain0/imbalance_pct:110
cpu3/domain0/level:0
cpu3/domain0/max_interval:4
cpu3/domain0/max_newidle_lb_cost:0
cpu3/domain0/min_interval:2
cpu3/domain0/name:SMT
cpu3/domain1/busy_factor:16
cpu3/domain1/cache_nice_tries:1
cpu3/domain1/flags:SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_PREFER_SIBLING 
cpu3/domain1/groups_flags:SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_CPUCAPACITY SD_SHARE_LLC SD_PREFER_SIBLING 
cpu3/domain1/imbalance_pct:117
cpu3/domain1/level:2
cpu3/domain1/max_interval:8
cpu3/domain1/max_newidle_lb_cost:0
cpu3/domain1/min_interval:4
cpu3/domain1/name:PKG
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestProcFormatHasTheOlderFileSet(t *testing.T) {
	top := mustBuild(t, Machine{1, 1, 2, 1, Linear})
	var b strings.Builder
	if err := top.WriteCPU(&b, Proc, 1); err != nil {
		t.Fatal(err)
	}
	want := `CPU1 attaching sched-domain(s):
 domain-0: span=0-1 level=MC
  groups: 1:{ span=1 }, 0:{ span=0 }
cpu1/domain0/busy_factor:16
cpu1/domain0/cache_nice_tries:1
cpu1/domain0/flags:SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_LLC SD_PREFER_SIBLING 
cpu1/domain0/imbalance_pct:117
cpu1/domain0/max_interval:4
cpu1/domain0/max_newidle_lb_cost:0
cpu1/domain0/min_interval:2
cpu1/domain0/name:MC
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDmesgFormatIsTheBootLog(t *testing.T) {
	tests := []struct {
		name string
		m    Machine
		want string
	}{
		{"a one-CPU machine attaches no domain", Machine{1, 1, 1, 1, Linear},
			"CPU0 attaching NULL sched-domain.\nroot domain span: 0\n"},
		{"indentation grows a column a level", Machine{2, 1, 2, 1, Linear}, `CPU0 attaching sched-domain(s):
 domain-0: span=0-1 level=MC
  groups: 0:{ span=0 }, 1:{ span=1 }
  domain-1: span=0-3 level=PKG
   groups: 0:{ span=0-1 cap=2048 }, 2:{ span=2-3 cap=2048 }
CPU1 attaching sched-domain(s):
 domain-0: span=0-1 level=MC
  groups: 1:{ span=1 }, 0:{ span=0 }
  domain-1: span=0-3 level=PKG
   groups: 0:{ span=0-1 cap=2048 }, 2:{ span=2-3 cap=2048 }
CPU2 attaching sched-domain(s):
 domain-0: span=2-3 level=MC
  groups: 2:{ span=2 }, 3:{ span=3 }
  domain-1: span=0-3 level=PKG
   groups: 2:{ span=2-3 cap=2048 }, 0:{ span=0-1 cap=2048 }
CPU3 attaching sched-domain(s):
 domain-0: span=2-3 level=MC
  groups: 3:{ span=3 }, 2:{ span=2 }
  domain-1: span=0-3 level=PKG
   groups: 2:{ span=2-3 cap=2048 }, 0:{ span=0-1 cap=2048 }
root domain span: 0-3
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := mustBuild(t, tc.m).Write(&b, Dmesg); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestStringIsEveryCPUInDebugfsFormat(t *testing.T) {
	top := mustBuild(t, Machine{1, 1, 2, 2, X86})
	var b strings.Builder
	for cpu := 0; cpu < top.NumCPUs(); cpu++ {
		if cpu > 0 {
			b.WriteString("\n")
		}
		top.WriteCPU(&b, Debugfs, cpu)
	}
	if got := top.String(); got != b.String() {
		t.Errorf("String() differs from the CPUs written one by one:\n%s", got)
	}
	if !strings.Contains(top.String(), "cpu3/domain1/name:MC\n") || strings.Count(top.String(), "attaching sched-domain(s)") != 4 {
		t.Errorf("String():\n%s", top.String())
	}
}

func TestFormatErrors(t *testing.T) {
	top := mustBuild(t, Machine{1, 1, 2, 1, Linear})
	var b strings.Builder
	if err := top.WriteCPU(&b, Debugfs, 2); !errors.Is(err, ErrBadCPU) {
		t.Errorf("WriteCPU of CPU 2: %v", err)
	}
	if err := top.WriteCPU(&b, Format(9), 0); !errors.Is(err, ErrBadFormat) {
		t.Errorf("WriteCPU in format 9: %v", err)
	}
	if err := top.Write(&b, Format(-1)); !errors.Is(err, ErrBadFormat) {
		t.Errorf("Write in format -1: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q on error", b.String())
	}
	for _, f := range []Format{Debugfs, Proc, Dmesg} {
		if got, err := ParseFormat(f.String()); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("sysfs"); !errors.Is(err, ErrBadFormat) {
		t.Error("ParseFormat(sysfs)")
	}
}

func TestFlagsSpellings(t *testing.T) {
	tests := []struct {
		f               Flags
		str, debugfs    string
		fromOlderKernel string
	}{
		{0, "0", "", ""},
		{SDBalanceNewidle, "SD_BALANCE_NEWIDLE", "SD_BALANCE_NEWIDLE ", ""},
		{mcF, "SD_BALANCE_NEWIDLE|SD_BALANCE_EXEC|SD_BALANCE_FORK|SD_WAKE_AFFINE|SD_SHARE_LLC|SD_PREFER_SIBLING",
			"SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_LLC SD_PREFER_SIBLING ",
			"SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_PKG_RESOURCES SD_PREFER_SIBLING \n"},
		{SDNUMA | SDSerialize | SDAsymCPUCapacityFull | SDCluster, "SD_ASYM_CPUCAPACITY_FULL|SD_CLUSTER|SD_SERIALIZE|SD_NUMA",
			"SD_ASYM_CPUCAPACITY_FULL SD_CLUSTER SD_SERIALIZE SD_NUMA ", ""},
		{SDAsymPacking | 1<<20, "SD_ASYM_PACKING|0x100000", "SD_ASYM_PACKING 0x100000 ", ""},
	}
	for _, tc := range tests {
		if got := tc.f.String(); got != tc.str {
			t.Errorf("String() = %q, want %q", got, tc.str)
		}
		if got := tc.f.Debugfs(); got != tc.debugfs {
			t.Errorf("Debugfs() = %q, want %q", got, tc.debugfs)
		}
		if tc.f >= 1<<numFlags {
			continue
		}
		for _, s := range []string{tc.str, tc.debugfs, tc.fromOlderKernel} {
			if s == "" && tc.f != 0 {
				continue
			}
			if got, err := ParseFlags(s); err != nil || got != tc.f {
				t.Errorf("ParseFlags(%q) = %v, %v; want %v", s, got, err, tc.f)
			}
		}
	}
	if _, err := ParseFlags("SD_BALANCE_NEWIDLE SD_OVERLAP"); !errors.Is(err, ErrBadFlag) {
		t.Errorf("SD_OVERLAP is gone from the kernel: %v", err)
	}
	// The wake flags of fair.c reuse the low flag bits.
	if SDBalanceExec != 0x02 || SDBalanceFork != 0x04 || SDBalanceWake != 0x08 || SDNUMA != 1<<13 {
		t.Error("flag bit values")
	}
	if !mcF.Has(SDShareLLC|SDWakeAffine) || mcF.Has(SDShareCPUCapacity) {
		t.Error("Has")
	}
	if NeedsGroups != (1<<numFlags-1)&^SDWakeAffine {
		t.Error("every flag but SD_WAKE_AFFINE needs groups")
	}
}

func TestKindNames(t *testing.T) {
	if SMT.String() != "SMT" || MC.String() != "MC" || PKG.String() != "PKG" || Kind(7).String() != "Kind(7)" {
		t.Error("kind names")
	}
	if Debugfs.String() != "debugfs" || Format(5).String() != "Format(5)" || Preset(3).String() != "Preset(3)" {
		t.Error("format and preset names")
	}
}
