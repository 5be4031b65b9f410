package topology

import (
	"fmt"
	"testing"
)

// TestLargeMachines builds machines of 1024, 4096 and MaxCPUs CPUs, checks
// every invariant, and spot-checks the numbers a balancer reads on them.
func TestLargeMachines(t *testing.T) {
	tests := []struct {
		m                    Machine
		depth, llcSize, nllc int
		top                  string // top domain's name
		topGroups            int
	}{
		{Machine{2, 4, 64, 2, Linear}, 3, 128, 8, "PKG", 8},
		{Machine{2, 4, 64, 2, X86}, 3, 128, 8, "PKG", 8},
		{Machine{1, 1, 1024, 1, Linear}, 1, 1024, 1, "MC", 1024},
		{Machine{4, 2, 256, 2, X86}, 3, 512, 8, "PKG", 8},
		{Machine{8, 16, 16, 2, Linear}, 3, 32, 128, "PKG", 128},
		{Machine{4096, 1, 1, 1, Linear}, 1, 1, 4096, "PKG", 4096},
		{Machine{2, 1, 1024, 4, X86}, 3, 4096, 2, "PKG", 2},
		{Machine{1, 1, MaxCPUs / 2, 2, X86}, 2, MaxCPUs, 1, "MC", MaxCPUs / 2},
	}
	for _, tc := range tests {
		t.Run(tc.m.String(), func(t *testing.T) {
			if testing.Short() && tc.m.NumCPUs() > 4096 {
				t.Skip("large machine")
			}
			top := mustBuild(t, tc.m)
			n := top.NumCPUs()
			last := n - 1
			chain := top.Domains(last)
			if top.Depth() != tc.depth || len(chain) != tc.depth || top.NumLLCs() != tc.nllc {
				t.Fatalf("depth %d, %d domains, %d LLCs", top.Depth(), len(chain), top.NumLLCs())
			}
			topD := chain[len(chain)-1]
			if topD.Name() != tc.top || topD.NumGroups() != tc.topGroups || topD.Weight() != n || topD.MaxInterval() != 2*uint64(n) {
				t.Errorf("top domain %s with %d groups, weight %d", topD.Name(), topD.NumGroups(), topD.Weight())
			}
			if got := top.SDLLCSize(last); got != tc.llcSize {
				t.Errorf("sd_llc_size %d, want %d", got, tc.llcSize)
			}
			// The last CPU's local group comes first, the rest wrap around.
			if g := topD.Group(0); !g.Span().Test(last) || topD.Group(topD.NumGroups()) != g {
				t.Errorf("local group %v", g.Span())
			}
			if top.BaseSlice() != 2800000 || top.MaxLoadBalanceInterval(1000) != uint64(100*n) {
				t.Errorf("base slice %d, max interval %d", top.BaseSlice(), top.MaxLoadBalanceInterval(1000))
			}
		})
	}
}

// BenchmarkBuild measures Build at several sizes and both numberings.
func BenchmarkBuild(b *testing.B) {
	for _, m := range []Machine{
		{1, 1, 8, 2, Linear},
		{2, 1, 32, 2, Linear},
		{2, 4, 64, 2, Linear},
		{2, 4, 64, 2, X86},
		{1, 1, 1024, 1, Linear},
		{4, 2, 256, 2, X86},
	} {
		b.Run(fmt.Sprintf("cpus=%d/%v", m.NumCPUs(), m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMaskWalk measures the walks select_idle_cpu and the balancer
// run: an LLC span ascending, an LLC "wrap from k", and the intersection
// of two masks, on a 1024-CPU machine.
func BenchmarkMaskWalk(b *testing.B) {
	top, err := Build(Machine{2, 4, 64, 2, X86})
	if err != nil {
		b.Fatal(err)
	}
	llc := top.SDLLC(300).Span()
	allowed := top.All().Clone()
	for c := 0; c < top.NumCPUs(); c += 3 {
		allowed.Clear(c)
	}
	scratch := NewMask(top.NumCPUs())
	sum := 0
	b.Run("ascending/llc=128", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for c := llc.First(); c >= 0; c = llc.Next(c) {
				sum += c
			}
		}
	})
	b.Run("wrap/llc=128", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for c := llc.FirstWrap(300); c >= 0; c = llc.NextWrap(c, 300) {
				sum += c
			}
		}
	})
	b.Run("wrap-iterator/llc=128", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for c := range llc.Wrap(300) {
				sum += c
			}
		}
	})
	b.Run("and+wrap/llc=128", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			scratch.And(llc, allowed)
			for c := scratch.FirstWrap(301); c >= 0; c = scratch.NextWrap(c, 301) {
				sum += c
			}
		}
	})
	b.Run("ascending/all=1024", func(b *testing.B) {
		b.ReportAllocs()
		all := top.All()
		for b.Loop() {
			for c := all.First(); c >= 0; c = all.Next(c) {
				sum += c
			}
		}
	})
	if sum == 0 {
		b.Fatal("nothing walked")
	}
}
