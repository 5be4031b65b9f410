package topology_test

import (
	"fmt"
	"os"

	"github.com/schedmodel/fairclass/topology"
)

// A two-socket machine, four SMT-2 cores per socket, one LLC per socket:
// CPU 0's domains as the kernel's boot log shows them, then the values of
// each domain.
func ExampleBuild() {
	t, err := topology.Build(topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	t.WriteCPU(os.Stdout, topology.Dmesg, 0)
	for _, d := range t.Domains(0) {
		fmt.Printf("%s level %d span %v: interval %d-%d ms, imbalance_pct %d, cache_nice_tries %d\n  flags %v\n",
			d.Name(), d.Level(), d.Span(), d.MinInterval(), d.MaxInterval(), d.ImbalancePct(), d.CacheNiceTries(), d.Flags())
	}
	fmt.Printf("sd_llc %s, size %d; base slice %d ns\n", t.SDLLC(0).Name(), t.SDLLCSize(0), t.BaseSlice())
	// Output:
	// CPU0 attaching sched-domain(s):
	//  domain-0: span=0-1 level=SMT
	//   groups: 0:{ span=0 }, 1:{ span=1 }
	//   domain-1: span=0-7 level=MC
	//    groups: 0:{ span=0-1 cap=2048 }, 2:{ span=2-3 cap=2048 }, 4:{ span=4-5 cap=2048 }, 6:{ span=6-7 cap=2048 }
	//    domain-2: span=0-15 level=PKG
	//     groups: 0:{ span=0-7 cap=8192 }, 8:{ span=8-15 cap=8192 }
	// SMT level 0 span 0-1: interval 2-4 ms, imbalance_pct 110, cache_nice_tries 0
	//   flags SD_BALANCE_NEWIDLE|SD_BALANCE_EXEC|SD_BALANCE_FORK|SD_WAKE_AFFINE|SD_SHARE_CPUCAPACITY|SD_SHARE_LLC|SD_PREFER_SIBLING
	// MC level 1 span 0-7: interval 8-16 ms, imbalance_pct 117, cache_nice_tries 1
	//   flags SD_BALANCE_NEWIDLE|SD_BALANCE_EXEC|SD_BALANCE_FORK|SD_WAKE_AFFINE|SD_SHARE_LLC|SD_PREFER_SIBLING
	// PKG level 2 span 0-15: interval 16-32 ms, imbalance_pct 117, cache_nice_tries 1
	//   flags SD_BALANCE_NEWIDLE|SD_BALANCE_EXEC|SD_BALANCE_FORK|SD_WAKE_AFFINE|SD_PREFER_SIBLING
	// sd_llc MC, size 8; base slice 2800000 ns
}

// The same machine numbered as x86 firmware numbers it: the second thread
// of every core comes after the first threads of all cores, so CPU 0's SMT
// sibling is CPU 8 and each socket's LLC spans two ranges.
func ExampleMachine_x86Numbering() {
	t, err := topology.Build(topology.Machine{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2, Numbering: topology.X86})
	if err != nil {
		fmt.Println(err)
		return
	}
	t.WriteCPU(os.Stdout, topology.Dmesg, 9)
	fmt.Println("siblings of 9:", t.SMTMask(9), "- LLC of 9:", t.LLCSpan(t.LLC(9)))
	fmt.Println("9 and 3 share a cache:", t.CPUsShareCache(9, 3), "- 9 and 4:", t.CPUsShareCache(9, 4))
	// Output:
	// CPU9 attaching sched-domain(s):
	//  domain-0: span=1,9 level=SMT
	//   groups: 9:{ span=9 }, 1:{ span=1 }
	//   domain-1: span=0-3,8-11 level=MC
	//    groups: 1:{ span=1,9 cap=2048 }, 2:{ span=2,10 cap=2048 }, 3:{ span=3,11 cap=2048 }, 0:{ span=0,8 cap=2048 }
	//    domain-2: span=0-15 level=PKG
	//     groups: 0:{ span=0-3,8-11 cap=8192 }, 4:{ span=4-7,12-15 cap=8192 }
	// siblings of 9: 1,9 - LLC of 9: 0-3,8-11
	// 9 and 3 share a cache: true - 9 and 4: false
}

// A CPU-list walk "wrap from k", the order select_idle_cpu scans an LLC in.
func ExampleMask_Wrap() {
	llc, _ := topology.ParseCPUList(16, "0-3,8-11")
	for cpu := range llc.Wrap(9) {
		fmt.Print(cpu, " ")
	}
	fmt.Println()
	// Output: 9 10 11 0 1 2 3 8
}

// Walking a domain's groups in the balancer's order, local group first.
func ExampleDomain_Group() {
	t, _ := topology.Build(topology.Machine{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2})
	mc := t.SDLLC(5)
	for i := 0; i < mc.NumGroups(); i++ {
		g := mc.Group(i)
		fmt.Printf("%v (balance CPU %d, capacity %d, id %d)\n", g.Span(), g.BalanceCPU(), g.Capacity(), g.ID())
	}
	// Output:
	// 4-5 (balance CPU 4, capacity 2048, id 10)
	// 6-7 (balance CPU 6, capacity 2048, id 11)
	// 0-1 (balance CPU 0, capacity 2048, id 8)
	// 2-3 (balance CPU 2, capacity 2048, id 9)
}
