package topology

import (
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"strconv"
	"strings"
)

// A Mask is a set of CPU ids 0..Len()-1, the kernel's struct cpumask: a
// bitmap of 64-bit words, CPU c in bit c%64 of word c/64. Its size is fixed
// when it is made; no operation grows it.
//
// Iteration follows the kernel's orders (KERNEL-SPEC-SMP §0.4): ascending
// CPU id (First/Next, All: for_each_cpu) and "wrap from k" (FirstWrap/
// NextWrap, Wrap: for_each_cpu_wrap), which visits k, k+1, …, Len()-1, 0, …,
// k-1, members only. None of these allocates; each step costs O(1) plus the
// empty words it skips.
//
// CPU ids outside 0..Len()-1 are never members: Test reports false, Set and
// Clear ignore them. Binary operations between masks of different sizes read
// missing words as empty and write only the receiver's words.
//
// The masks a Topology hands out (domain and group spans, SMT and LLC masks)
// are shared by every caller and must not be modified; Clone one to get a
// mask of your own. A Mask is not safe for concurrent modification.
type Mask struct {
	words []uint64
	n     int
}

// NewMask returns an empty mask of n CPUs (n < 0 is taken as 0).
func NewMask(n int) *Mask {
	if n < 0 {
		n = 0
	}
	return &Mask{words: make([]uint64, (n+63)/64), n: n}
}

// MaskOf returns a mask of n CPUs holding cpus (ids outside 0..n-1 are
// ignored).
func MaskOf(n int, cpus ...int) *Mask {
	m := NewMask(n)
	for _, c := range cpus {
		m.Set(c)
	}
	return m
}

// Len returns the number of CPUs the mask can hold (nr_cpu_ids).
func (m *Mask) Len() int { return m.n }

// Words returns the bitmap itself, for callers that combine masks a word at
// a time. Bits at and above Len() are always clear. Do not modify the words
// of a mask you did not make.
func (m *Mask) Words() []uint64 { return m.words }

// Clone returns a copy of m that the caller owns.
func (m *Mask) Clone() *Mask {
	c := &Mask{words: make([]uint64, len(m.words)), n: m.n}
	copy(c.words, m.words)
	return c
}

// Test reports whether cpu is in m (cpumask_test_cpu).
func (m *Mask) Test(cpu int) bool {
	if uint(cpu) >= uint(m.n) {
		return false
	}
	return m.words[cpu>>6]&(1<<(uint(cpu)&63)) != 0
}

// Set adds cpu to m (cpumask_set_cpu).
func (m *Mask) Set(cpu int) {
	if uint(cpu) < uint(m.n) {
		m.words[cpu>>6] |= 1 << (uint(cpu) & 63)
	}
}

// Clear removes cpu from m (cpumask_clear_cpu).
func (m *Mask) Clear(cpu int) {
	if uint(cpu) < uint(m.n) {
		m.words[cpu>>6] &^= 1 << (uint(cpu) & 63)
	}
}

// Reset empties m (cpumask_clear).
func (m *Mask) Reset() { clear(m.words) }

// Fill sets every CPU of m (cpumask_setall).
func (m *Mask) Fill() {
	for i := range m.words {
		m.words[i] = ^uint64(0)
	}
	m.trim()
}

// trim clears the bits at and above n in the last word.
func (m *Mask) trim() {
	if r := uint(m.n) & 63; r != 0 {
		m.words[len(m.words)-1] &= 1<<r - 1
	}
}

// Weight returns the number of CPUs in m (cpumask_weight).
func (m *Mask) Weight() int {
	w := 0
	for _, x := range m.words {
		w += bits.OnesCount64(x)
	}
	return w
}

// WeightAnd returns |m ∩ o| without building the intersection
// (cpumask_weight_and).
func (m *Mask) WeightAnd(o *Mask) int {
	w := 0
	k := min(len(m.words), len(o.words))
	for i := 0; i < k; i++ {
		w += bits.OnesCount64(m.words[i] & o.words[i])
	}
	return w
}

// Empty reports whether m has no CPU (cpumask_empty).
func (m *Mask) Empty() bool {
	for _, x := range m.words {
		if x != 0 {
			return false
		}
	}
	return true
}

// First returns the lowest CPU of m, or -1 if m is empty (cpumask_first).
func (m *Mask) First() int { return m.from(0) }

// Next returns the lowest CPU of m above cpu, or -1 if there is none
// (cpumask_next). Next(-1) is First. The ascending walk is
//
//	for c := m.First(); c >= 0; c = m.Next(c) { … }
func (m *Mask) Next(cpu int) int {
	if cpu < -1 {
		cpu = -1
	}
	return m.from(cpu + 1)
}

// from returns the lowest CPU of m at or above c, or -1.
func (m *Mask) from(c int) int {
	if c >= m.n {
		return -1
	}
	i := c >> 6
	x := m.words[i] &^ (1<<(uint(c)&63) - 1)
	for {
		if x != 0 {
			return i<<6 + bits.TrailingZeros64(x)
		}
		i++
		if i >= len(m.words) {
			return -1
		}
		x = m.words[i]
	}
}

// FirstAnd returns the lowest CPU in both m and o, or -1
// (cpumask_first_and).
func (m *Mask) FirstAnd(o *Mask) int { return m.NextAnd(-1, o) }

// NextAnd returns the lowest CPU above cpu in both m and o, or -1
// (cpumask_next_and; for_each_cpu_and walks with it).
func (m *Mask) NextAnd(cpu int, o *Mask) int {
	c := cpu + 1
	if c < 0 {
		c = 0
	}
	if c >= m.n {
		return -1
	}
	k := min(len(m.words), len(o.words))
	i := c >> 6
	if i >= k {
		return -1
	}
	x := m.words[i] & o.words[i] &^ (1<<(uint(c)&63) - 1)
	for {
		if x != 0 {
			return i<<6 + bits.TrailingZeros64(x)
		}
		i++
		if i >= k {
			return -1
		}
		x = m.words[i] & o.words[i]
	}
}

// FirstWrap starts a "wrap from start" walk: it returns the first CPU of m
// at or above start, else the first below it, or -1 if m is empty. A start
// outside 0..Len()-1 is taken as 0. The walk is
//
//	for c := m.FirstWrap(k); c >= 0; c = m.NextWrap(c, k) { … }
//
// and visits what for_each_cpu_wrap(c, m, k) visits, in its order.
func (m *Mask) FirstWrap(start int) int {
	if uint(start) >= uint(m.n) {
		start = 0
	}
	if c := m.from(start); c >= 0 {
		return c
	}
	if c := m.from(0); c >= 0 && c < start {
		return c
	}
	return -1
}

// NextWrap returns the CPU after cpu in the "wrap from start" walk of m, or
// -1 when the walk is over (it stops before returning to start).
func (m *Mask) NextWrap(cpu, start int) int {
	if uint(start) >= uint(m.n) {
		start = 0
	}
	if cpu >= start {
		if c := m.Next(cpu); c >= 0 {
			return c
		}
		cpu = -1
	}
	if c := m.Next(cpu); c >= 0 && c < start {
		return c
	}
	return -1
}

// All returns the CPUs of m in ascending order, as a range-over-func
// iterator (for_each_cpu). It reads m as it goes: modifying m during the
// walk has the effects the First/Next loop would have.
func (m *Mask) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for c := m.from(0); c >= 0; c = m.Next(c) {
			if !yield(c) {
				return
			}
		}
	}
}

// Wrap returns the CPUs of m in "wrap from start" order (for_each_cpu_wrap).
func (m *Mask) Wrap(start int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for c := m.FirstWrap(start); c >= 0; c = m.NextWrap(c, start) {
			if !yield(c) {
				return
			}
		}
	}
}

// Copy sets m to src (cpumask_copy).
func (m *Mask) Copy(src *Mask) {
	k := copy(m.words, src.words)
	clear(m.words[k:])
	m.trim()
}

// And sets m to a ∩ b (cpumask_and) and reports whether the result is not
// empty, as the kernel's does.
func (m *Mask) And(a, b *Mask) bool {
	for i := range m.words {
		m.words[i] = word(a, i) & word(b, i)
	}
	m.trim()
	return !m.Empty()
}

// AndNot sets m to a ∖ b (cpumask_andnot) and reports whether the result is
// not empty.
func (m *Mask) AndNot(a, b *Mask) bool {
	for i := range m.words {
		m.words[i] = word(a, i) &^ word(b, i)
	}
	m.trim()
	return !m.Empty()
}

// Or sets m to a ∪ b (cpumask_or).
func (m *Mask) Or(a, b *Mask) {
	for i := range m.words {
		m.words[i] = word(a, i) | word(b, i)
	}
	m.trim()
}

func word(m *Mask, i int) uint64 {
	if i < len(m.words) {
		return m.words[i]
	}
	return 0
}

// Equal reports whether m and o hold the same CPUs (cpumask_equal).
func (m *Mask) Equal(o *Mask) bool {
	k := max(len(m.words), len(o.words))
	for i := 0; i < k; i++ {
		if word(m, i) != word(o, i) {
			return false
		}
	}
	return true
}

// Intersects reports whether m and o share a CPU (cpumask_intersects).
func (m *Mask) Intersects(o *Mask) bool {
	k := min(len(m.words), len(o.words))
	for i := 0; i < k; i++ {
		if m.words[i]&o.words[i] != 0 {
			return true
		}
	}
	return false
}

// SubsetOf reports whether every CPU of m is in o (cpumask_subset(m, o)).
func (m *Mask) SubsetOf(o *Mask) bool {
	for i, x := range m.words {
		if x&^word(o, i) != 0 {
			return false
		}
	}
	return true
}

// String returns m as a CPU list, the kernel's "%*pbl" format: ascending
// ranges joined by commas, "0-3,8-11"; a lone CPU is "5", the empty mask "".
func (m *Mask) String() string {
	var b strings.Builder
	m.appendList(&b)
	return b.String()
}

func (m *Mask) appendList(b *strings.Builder) {
	first := true
	for c := m.First(); c >= 0; {
		end := c
		for n := m.Next(end); n == end+1; n = m.Next(end) {
			end = n
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.Itoa(c))
		if end > c {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(end))
		}
		c = m.Next(end)
	}
}

// ErrBadCPUList is wrapped by ParseCPUList's errors.
var ErrBadCPUList = errors.New("topology: bad CPU list")

// ParseCPUList parses a CPU list as the kernel prints it ("0-3,8-11"; the
// empty string is the empty mask) into a mask of n CPUs. It accepts what
// String produces and what /sys prints; a CPU outside 0..n-1, a reversed
// range or a malformed item is an error wrapping ErrBadCPUList.
func ParseCPUList(n int, s string) (*Mask, error) {
	m := NewMask(n)
	s = strings.TrimSpace(s)
	if s == "" {
		return m, nil
	}
	for _, item := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("%w: %q", ErrBadCPUList, item)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("%w: %q", ErrBadCPUList, item)
			}
		}
		if a < 0 || b < a || b >= n {
			return nil, fmt.Errorf("%w: %q is not a range of CPUs 0..%d", ErrBadCPUList, item, n-1)
		}
		for c := a; c <= b; c++ {
			m.Set(c)
		}
	}
	return m, nil
}
