package topology

import (
	"errors"
	"slices"
	"testing"
)

func collect(m *Mask) []int {
	var out []int
	for c := m.First(); c >= 0; c = m.Next(c) {
		out = append(out, c)
	}
	return out
}

func collectWrap(m *Mask, start int) []int {
	var out []int
	for c := m.FirstWrap(start); c >= 0; c = m.NextWrap(c, start) {
		out = append(out, c)
	}
	return out
}

func TestMaskWalksAscendingAndWrapping(t *testing.T) {
	m := MaskOf(200, 3, 63, 64, 65, 130, 199)
	tests := []struct {
		name  string
		start int
		want  []int
	}{
		{"ascending", -1, []int{3, 63, 64, 65, 130, 199}},
		{"wrap from a member visits it first", 64, []int{64, 65, 130, 199, 3, 63}},
		{"wrap from a non-member starts at the next member", 100, []int{130, 199, 3, 63, 64, 65}},
		{"wrap from 0 is ascending", 0, []int{3, 63, 64, 65, 130, 199}},
		{"wrap from the last CPU", 199, []int{199, 3, 63, 64, 65, 130}},
		{"a start out of range is 0", 500, []int{3, 63, 64, 65, 130, 199}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got, seq []int
			if tc.start < 0 {
				got = collect(m)
				for c := range m.All() {
					seq = append(seq, c)
				}
			} else {
				got = collectWrap(m, tc.start)
				for c := range m.Wrap(tc.start) {
					seq = append(seq, c)
				}
			}
			if !slices.Equal(got, tc.want) || !slices.Equal(seq, tc.want) {
				t.Errorf("loop %v, iterator %v, want %v", got, seq, tc.want)
			}
		})
	}
	if got := collectWrap(NewMask(10), 3); got != nil {
		t.Errorf("empty mask walks %v", got)
	}
	if got := collectWrap(MaskOf(10, 7), 3); !slices.Equal(got, []int{7}) {
		t.Errorf("one CPU after start: %v", got)
	}
	if got := collectWrap(MaskOf(10, 1), 3); !slices.Equal(got, []int{1}) {
		t.Errorf("one CPU before start: %v", got)
	}
	// Breaking out of the iterators early stops them.
	n := 0
	for range m.Wrap(64) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Error("break in Wrap")
	}
}

func TestMaskSetOperations(t *testing.T) {
	const n = 130
	a := MaskOf(n, 0, 1, 64, 100, 129)
	b := MaskOf(n, 1, 2, 100, 128)
	got := NewMask(n)
	if !got.And(a, b) || got.String() != "1,100" {
		t.Errorf("and %v", got)
	}
	if got.And(a, MaskOf(n, 5)) || !got.Empty() {
		t.Errorf("empty and %v", got)
	}
	if !got.AndNot(a, b) || got.String() != "0,64,129" {
		t.Errorf("andnot %v", got)
	}
	got.Or(a, b)
	if got.String() != "0-2,64,100,128-129" || got.Weight() != 7 {
		t.Errorf("or %v weight %d", got, got.Weight())
	}
	if a.WeightAnd(b) != 2 || a.FirstAnd(b) != 1 || a.NextAnd(1, b) != 100 || a.NextAnd(100, b) != -1 {
		t.Error("weight/first/next and")
	}
	if !a.Intersects(b) || a.Intersects(MaskOf(n, 3)) {
		t.Error("intersects")
	}
	if !MaskOf(n, 1, 100).SubsetOf(a) || b.SubsetOf(a) {
		t.Error("subset")
	}
	c := a.Clone()
	if !c.Equal(a) || &c.Words()[0] == &a.Words()[0] {
		t.Error("clone")
	}
	c.Clear(0)
	c.Clear(-1)
	c.Set(n)
	c.Set(1 << 40)
	if c.Equal(a) || c.Test(0) || c.Test(n) || c.Test(-5) || c.Weight() != 4 {
		t.Errorf("set/clear out of range changed %v", c)
	}
	c.Copy(b)
	if !c.Equal(b) {
		t.Error("copy")
	}
	c.Fill()
	if c.Weight() != n || c.String() != "0-129" {
		t.Errorf("fill %v", c)
	}
	c.Reset()
	if !c.Empty() || c.First() != -1 {
		t.Error("reset")
	}
	// Masks of different sizes: absent words read as empty, the receiver's
	// size is kept.
	small := MaskOf(10, 1, 2)
	big := MaskOf(200, 2, 150)
	r := NewMask(10)
	r.Or(small, big)
	if r.String() != "1-2" || r.Len() != 10 {
		t.Errorf("or across sizes %v", r)
	}
	if small.Equal(big) || !MaskOf(10, 2).Equal(MaskOf(64, 2)) {
		t.Error("equal across sizes")
	}
	if NewMask(-3).Len() != 0 {
		t.Error("negative size")
	}
}

func TestCPUListRoundTrip(t *testing.T) {
	tests := []struct {
		cpus []int
		list string
	}{
		{nil, ""},
		{[]int{5}, "5"},
		{[]int{0, 1, 2, 3, 8, 9, 10, 11}, "0-3,8-11"},
		{[]int{0, 2, 4}, "0,2,4"},
		{[]int{63, 64}, "63-64"},
		{[]int{1, 2, 5, 127}, "1-2,5,127"},
	}
	for _, tc := range tests {
		m := MaskOf(128, tc.cpus...)
		if got := m.String(); got != tc.list {
			t.Errorf("%v prints %q, want %q", tc.cpus, got, tc.list)
		}
		back, err := ParseCPUList(128, tc.list)
		if err != nil || !back.Equal(m) {
			t.Errorf("ParseCPUList(%q) = %v, %v", tc.list, back, err)
		}
	}
	for _, bad := range []string{"a", "1-", "3-1", "0-128", "-1", "1,,2"} {
		if _, err := ParseCPUList(128, bad); !errors.Is(err, ErrBadCPUList) {
			t.Errorf("ParseCPUList(%q): %v", bad, err)
		}
	}
}

// TestMaskWalksDoNotAllocate covers the walks smp runs on its hot paths,
// on a 4096-CPU machine's spans.
func TestMaskWalksDoNotAllocate(t *testing.T) {
	top := mustBuild(t, Machine{4, 2, 256, 2, X86})
	llc := top.SDLLC(1000).Span()
	all := top.All()
	scratch := top.NewMask()
	sum := 0
	walks := map[string]func(){
		"First/Next": func() {
			for c := llc.First(); c >= 0; c = llc.Next(c) {
				sum += c
			}
		},
		"FirstWrap/NextWrap": func() {
			for c := llc.FirstWrap(1000); c >= 0; c = llc.NextWrap(c, 1000) {
				sum += c
			}
		},
		"All": func() {
			for c := range all.All() {
				sum += c
			}
		},
		"Wrap": func() {
			for c := range llc.Wrap(1000) {
				sum += c
			}
		},
		"NextAnd": func() {
			for c := all.FirstAnd(llc); c >= 0; c = all.NextAnd(c, llc) {
				sum += c
			}
		},
		"And then wrap": func() {
			scratch.And(llc, all)
			for c := scratch.FirstWrap(7); c >= 0; c = scratch.NextWrap(c, 7) {
				sum += c
			}
		},
		"groups of every domain": func() {
			for _, d := range top.Domains(1000) {
				for i := 0; i < d.NumGroups(); i++ {
					sum += d.Group(i).Span().First()
				}
			}
		},
	}
	for name, walk := range walks {
		if allocs := testing.AllocsPerRun(20, walk); allocs != 0 {
			t.Errorf("%s: %v allocations per walk", name, allocs)
		}
	}
	if sum == 0 {
		t.Error("nothing walked")
	}
}

// FuzzMask checks every operation against a plain []bool model.
func FuzzMask(f *testing.F) {
	f.Add(uint16(130), []byte{1, 2, 3, 64, 65, 200}, []byte{2, 64, 129}, uint16(64))
	f.Add(uint16(1), []byte{0}, []byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, size uint16, as, bs []byte, start uint16) {
		n := int(size%300) + 1
		st := int(start) % n
		ref := func(bs []byte) []bool {
			r := make([]bool, n)
			for _, x := range bs {
				if int(x) < n {
					r[x] = true
				}
			}
			return r
		}
		mk := func(bs []byte) *Mask {
			m := NewMask(n)
			for _, x := range bs {
				m.Set(int(x))
			}
			return m
		}
		ra, rb, a, b := ref(as), ref(bs), mk(as), mk(bs)
		var asc, wrap, and, or, andnot []int
		for c := 0; c < n; c++ {
			if ra[c] {
				asc = append(asc, c)
			}
			if ra[c] && rb[c] {
				and = append(and, c)
			}
			if ra[c] || rb[c] {
				or = append(or, c)
			}
			if ra[c] && !rb[c] {
				andnot = append(andnot, c)
			}
		}
		for i := 0; i < n; i++ {
			if c := (st + i) % n; ra[c] {
				wrap = append(wrap, c)
			}
		}
		r := NewMask(n)
		r.And(a, b)
		gotAnd := collect(r)
		r.Or(a, b)
		gotOr := collect(r)
		r.AndNot(a, b)
		gotAndNot := collect(r)
		var gotNextAnd []int
		for c := a.FirstAnd(b); c >= 0; c = a.NextAnd(c, b) {
			gotNextAnd = append(gotNextAnd, c)
		}
		for _, cmp := range []struct {
			what      string
			got, want []int
		}{
			{"ascending", collect(a), asc},
			{"wrap", collectWrap(a, st), wrap},
			{"and", gotAnd, and},
			{"next and", gotNextAnd, and},
			{"or", gotOr, or},
			{"andnot", gotAndNot, andnot},
		} {
			if !slices.Equal(cmp.got, cmp.want) {
				t.Fatalf("n=%d %s: %v, want %v", n, cmp.what, cmp.got, cmp.want)
			}
		}
		if a.Weight() != len(asc) || a.WeightAnd(b) != len(and) || a.Intersects(b) != (len(and) > 0) ||
			a.SubsetOf(b) != (len(andnot) == 0) || a.Empty() != (len(asc) == 0) {
			t.Fatalf("n=%d: weight/intersects/subset disagree", n)
		}
		back, err := ParseCPUList(n, a.String())
		if err != nil || !back.Equal(a) {
			t.Fatalf("n=%d: %q does not parse back: %v", n, a.String(), err)
		}
	})
}
