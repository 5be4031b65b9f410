package topology

import (
	"fmt"
	"testing"
)

// Coords keep the ranges and relations their fields document, under both
// numberings: Package < Packages, LLC = Package·L + l, Core = LLC·C + c,
// Thread < ThreadsPerCore; every (Core, Thread) is one CPU, and
// Topology.CPU maps it back.
func TestCoordsStayInTheirDocumentedRanges(t *testing.T) {
	for _, m := range []Machine{
		{Packages: 1, LLCsPerPackage: 1, CoresPerLLC: 1, ThreadsPerCore: 1},
		{Packages: 2, LLCsPerPackage: 1, CoresPerLLC: 4, ThreadsPerCore: 2},
		{Packages: 2, LLCsPerPackage: 3, CoresPerLLC: 2, ThreadsPerCore: 4},
		{Packages: 3, LLCsPerPackage: 2, CoresPerLLC: 5, ThreadsPerCore: 1},
	} {
		for _, num := range []Numbering{Linear, X86} {
			m.Numbering = num
			t.Run(fmt.Sprint(m), func(t *testing.T) {
				top := mustBuild(t, m)
				llcs := m.Packages * m.LLCsPerPackage
				seen := map[[2]int]int{}
				for cpu := range m.NumCPUs() {
					c, ok := top.Coords(cpu)
					switch {
					case !ok:
						t.Fatalf("CPU %d has no coordinates", cpu)
					case c.Package < 0 || c.Package >= m.Packages,
						c.LLC < 0 || c.LLC >= llcs || c.LLC/m.LLCsPerPackage != c.Package,
						c.Core < 0 || c.Core >= llcs*m.CoresPerLLC || c.Core/m.CoresPerLLC != c.LLC,
						c.Thread < 0 || c.Thread >= m.ThreadsPerCore:
						t.Errorf("CPU %d: %+v out of its ranges", cpu, c)
					}
					if other, dup := seen[[2]int{c.Core, c.Thread}]; dup {
						t.Errorf("CPUs %d and %d are both thread %d of core %d", other, cpu, c.Thread, c.Core)
					}
					seen[[2]int{c.Core, c.Thread}] = cpu
					if back := top.CPU(c.Core, c.Thread); back != cpu {
						t.Errorf("CPU(%d, %d) = %d, want %d", c.Core, c.Thread, back, cpu)
					}
				}
				if _, ok := top.Coords(m.NumCPUs()); ok {
					t.Errorf("CPU %d, beyond the machine, has coordinates", m.NumCPUs())
				}
			})
		}
	}
}
