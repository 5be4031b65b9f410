package eevdf

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedmodel/fairclass/features"
)

// The group fuzzer: bytes decode into a hierarchy (groups, parents,
// weights, idle groups, the share function and the online CPU count),
// tasks spread over its groups, and a sequence of the runqueue fuzzer's
// operations interleaved with moves between groups, cpu.weight,
// cpu.weight.nice and cpu.idle writes and share-function switches. Every
// step is checked by Check (which includes the group invariants) and the
// pick oracle; the same sequence runs on both timelines, which must agree
// field for field, groups and PELT signals included.

type groupHarness struct {
	*harness
	h      *Hierarchy
	groups []*TaskGroup
}

func newGroupHarness(t testing.TB, data []byte, backend Backend) (*groupHarness, *byteReader) {
	r := &byteReader{b: data}
	fs := features.Default()
	mask := r.u16()
	for i, f := range fuzzFeatures {
		if mask&(1<<i) != 0 {
			fs = fs.Toggle(f, !fs.Has(f))
		}
	}
	// PLACE_JOIN_LAG stays off: the patch was written for the flat
	// runqueue, and with group weights down to MIN_SHARES (2) the residue
	// of its truncations, divided by such a weight at the next join
	// (J = sum_jlag/W), places tasks so far away that the s64 sums
	// overflow — as the patch's own arithmetic would.
	fs = fs.Without(features.PlaceJoinLag)
	h := NewHierarchy(WithCgroupMode(CgroupMode(r.next()%byte(numCgroupModes))), WithOnlineCPUs(1+int(r.next()%4)))
	rq, err := NewCfsRq(WithFeatures(fs), WithTimeline(backend), WithHierarchy(h))
	if err != nil {
		t.Fatal(err)
	}
	gh := &groupHarness{harness: &harness{t: t, rq: rq, sleepLag: map[*SchedEntity]int64{}, hasFloor: map[*SchedEntity]bool{}}, h: h}
	ng := 1 + int(r.next()%5)
	for i := 0; i < ng; i++ {
		var parent *TaskGroup
		if p := int(r.next()) % (i + 1); p < i {
			parent = gh.groups[p]
		}
		var opts []GroupOption
		switch k := r.next(); k % 4 {
		case 1:
			opts = append(opts, WithCPUWeight(1+uint64(k)*39))
		case 2:
			opts = append(opts, WithCPUWeightNice(int(k/4)%40-20))
		case 3:
			opts = append(opts, WithIdleGroup())
		}
		g, err := h.NewGroup(fmt.Sprintf("G%d", i), parent, opts...)
		if err != nil {
			t.Fatal(err)
		}
		gh.groups = append(gh.groups, g)
	}
	n := 2 + int(r.next()%8)
	for i := 0; i < n; i++ {
		opts := fuzzEntityOptions(r)
		if gi := int(r.next()) % (ng + 1); gi < ng {
			opts = append(opts, WithGroup(gh.groups[gi]))
		}
		se, err := NewEntity(fmt.Sprintf("T%d", i), opts...)
		if err != nil {
			t.Fatal(err)
		}
		gh.ents = append(gh.ents, se)
		gh.created = append(gh.created, false)
	}
	gh.logf("features %s, backend %v, mode %v, %d CPUs, %d groups, %d tasks", fs.Diff(features.Default()), backend, h.mode, h.onlineCPUs, ng, n)
	return gh, r
}

// group returns the group chosen by b, nil (the root) for one value in
// len+1.
func (gh *groupHarness) group(b byte) *TaskGroup {
	if i := int(b) % (len(gh.groups) + 1); i < len(gh.groups) {
		return gh.groups[i]
	}
	return nil
}

func (gh *groupHarness) step(r *byteReader) {
	if k := r.next(); k%4 != 0 {
		gh.harness.step(r)
		return
	}
	op, arg := r.next()%5, r.next()
	gh.clock += uint64(r.next()) * 997
	gh.must(gh.rq.SetClock(gh.clock))
	switch op {
	case 0: // cgroup T G
		_, se := gh.pick(arg, func(int, *SchedEntity) bool { return true })
		g := gh.group(r.next())
		gh.logf("%d cgroup %s %v", gh.clock, se.name, g)
		gh.must(gh.rq.MoveToGroup(se, g))
		delete(gh.hasFloor, se) // a save re-records a delayed task's lag
	case 1: // cpu.weight
		if g := gh.group(arg); g != nil {
			w := 1 + uint64(r.u16())%10000
			gh.logf("%d cpu.weight %v %d", gh.clock, g, w)
			if err := g.SetCPUWeight(w); err != nil && !g.idle {
				gh.fail("cpu.weight: %v", err)
			}
		}
	case 2: // cpu.weight.nice
		if g := gh.group(arg); g != nil {
			n := int(r.next())%40 - 20
			gh.logf("%d cpu.weight.nice %v %d", gh.clock, g, n)
			if err := g.SetCPUWeightNice(n); err != nil && !g.idle {
				gh.fail("cpu.weight.nice: %v", err)
			}
		}
	case 3: // cpu.idle
		if g := gh.group(arg); g != nil {
			idle := r.next()&1 == 1
			gh.logf("%d cpu.idle %v %v", gh.clock, g, idle)
			gh.must(g.SetIdle(idle))
		}
	case 4: // cgroup_mode
		m := CgroupMode(arg % byte(numCgroupModes))
		gh.logf("%d cgroup_mode %v", gh.clock, m)
		gh.h.SetMode(m)
	}
	if err := gh.rq.Check(); err != nil {
		gh.fail("Check: %v", err)
	}
	gh.comparePick()
}

func runGroups(t testing.TB, data []byte) {
	hb, rb := newGroupHarness(t, data, BTree)
	hr, rr := newGroupHarness(t, data, RBTree)
	for steps := 0; !rb.done() && steps < 1500; steps++ {
		hb.step(rb)
		hr.step(rr)
		if sb, sr := hb.rq.Snapshot(), hr.rq.Snapshot(); !reflect.DeepEqual(sb, sr) {
			hb.fail("the backends disagree (-btree +rbtree):\n%s", cmp.Diff(sb, sr))
		}
	}
}

func FuzzGroups(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	// A three-level hierarchy in mode tasks on 2 CPUs with moves and writes.
	f.Add([]byte{0, 0, 4, 1, 0, 1, 1, 2, 0, 1, 2, 5, 0, 1, 9, 1, 2, 1, 3, 0, 0, 1, 0, 1, 0, 2, 0, 3, 0, 3, 0, 0,
		0, 0, 1, 1, 3, 0, 0, 0, 1, 4, 0, 7, 40, 0, 1, 2, 9, 3, 1, 0, 2, 3, 4, 0, 3, 1, 5, 1, 0, 0, 4, 2, 5, 6})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 8192 {
			return // longer inputs add nothing but minimisation time
		}
		runGroups(t, data)
	})
}

// TestGroupProperties runs the group fuzzer's harness on random sequences
// from a fixed seed: deterministic, part of every test run.
func TestGroupProperties(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 20
	}
	rng := rand.New(rand.NewPCG(20261201, 3))
	for i := 0; i < n; i++ {
		b := make([]byte, 200+rng.IntN(3000))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		runGroups(t, b)
	}
}
