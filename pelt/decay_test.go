package pelt

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The check values of KERNEL-SPEC-GROUPS §4.3, each derived from the
// table: decay_load(v, n) = ⌊(v >> ⌊n/32⌋) · inv[n mod 32] / 2^32⌋.
func TestDecayLoadCheckValues(t *testing.T) {
	tests := []struct {
		name   string
		val, n uint64
		want   uint64
	}{
		// 1024·0xfa83b2da/2^32 = 1024·0.978572… = 1002.06
		{"one period of a full period's contribution", 1024, 1, 1002},
		// 47742·0.978572… = 46718.97: LOAD_AVG_MAX·y is PELT_MIN_DIVIDER
		{"one period of LOAD_AVG_MAX is the minimum divider", 47742, 1, 46718},
		// 47742 >> 1 = 23871, then ·(2^32−1)/2^32 = 23871 − 23871/2^32
		// floors to 23870: the inv[0] quirk takes one off.
		{"32 periods halve, minus the inv[0] quirk", 47742, 32, 23870},
		// 47742 >> 2 = 11935, same quirk: 11934.
		{"64 periods quarter, minus the quirk", 47742, 64, 11934},
		// 0 periods: ·(2^32−1)/2^32 takes one off any 0 < v ≤ 2^32.
		{"zero periods still applies inv[0]", 1000, 0, 999},
		{"zero stays zero", 0, 5, 0},
		// 2016 = 63·32: v >> 63 for the top bit, then the quirk on 1 gives 0.
		{"the last period before the horizon", 1 << 63, 2016, 0},
		{"2^64−1 at 2016 periods", ^uint64(0), 2016, 0},
		// 2^32 >> 31 = 2, ·inv[0] → 1.
		{"2^32 after 31 half-lives", 1 << 32, 31 * 32, 1},
		{"past 2016 periods everything is gone", ^uint64(0), 2017, 0},
		{"a huge period count", ^uint64(0), ^uint64(0), 0},
		// (2^64−1)·0x82cd8698/2^32 fits in 64 bits only with a wide product.
		{"a 96-bit product", ^uint64(0), 31, 0x82cd8697ffffffff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DecayLoad(tt.val, tt.n); got != tt.want {
				t.Errorf("DecayLoad(%d, %d) = %d, want %d", tt.val, tt.n, got, tt.want)
			}
		})
	}
}

// The package's table is ⌊(2^32 − 1)·y^k⌋, y = 2^(−1/32), entry by entry
// (the reference computes it with 256-bit floats).
func TestDecayTableFromDefinition(t *testing.T) {
	for k := range yInv {
		if got, want := uint64(yInv[k]), refInv[k].Uint64(); got != want {
			t.Errorf("inv[%d] = %#x, definition gives %#x", k, got, want)
		}
	}
}

// LOAD_AVG_MAX is where the series of an always-1 signal settles when each
// period is folded in with the truncating one-period decay: iterate
// m = ⌊m·⌊(2^32−1)·y⌋/2^32⌋ + 1024 from 1024 until it stops moving, as the
// kernel's generator does. MinDivider is one period's decay of it.
func TestLoadAvgMaxFromDefinition(t *testing.T) {
	yinv := refInv[1].Uint64()
	m, last := uint64(1024), uint64(0)
	for i := 0; m != last; i++ {
		if i > 10000 {
			t.Fatal("no fixed point")
		}
		last = m
		m = (m*yinv)>>32 + 1024
	}
	if m != LoadAvgMax {
		t.Errorf("fixed point %d, LoadAvgMax %d", m, LoadAvgMax)
	}
	if got := DecayLoad(LoadAvgMax, 1); got != MinDivider {
		t.Errorf("DecayLoad(LoadAvgMax, 1) = %d, MinDivider %d", got, MinDivider)
	}
}

// DecayLoad(v, n) is within 2 + v/2^31 below v·y^n and never above it:
// the shift loses less than 1 (after scaling by y^r ≤ 1), the table entry
// is at most 1 + y^r below 2^32·y^r (so at most 2v'/2^32 is lost), and the
// final floor less than 1.
func checkDecayBound(t *testing.T, val, n uint64) {
	t.Helper()
	got := DecayLoad(val, n)
	if n > maxDecayPeriods {
		if got != 0 {
			t.Fatalf("DecayLoad(%d, %d) = %d past the horizon", val, n, got)
		}
		return
	}
	const prec = 300
	exact := new(big.Float).SetPrec(prec).SetUint64(val)
	exact.Mul(exact, yPow(n, prec)) // from the exact root, not the truncated table
	g := new(big.Float).SetPrec(prec).SetUint64(got)
	if g.Cmp(exact) > 0 {
		t.Fatalf("DecayLoad(%d, %d) = %d above the exact %s", val, n, got, exact.Text('f', 6))
	}
	slack := new(big.Float).SetPrec(prec).SetUint64(val)
	slack.Quo(slack, new(big.Float).SetPrec(prec).SetUint64(1<<31))
	slack.Add(slack, new(big.Float).SetPrec(prec).SetInt64(2))
	low := new(big.Float).SetPrec(prec).Sub(exact, slack)
	if g.Cmp(low) < 0 {
		t.Fatalf("DecayLoad(%d, %d) = %d more than %s below the exact %s", val, n, got,
			slack.Text('f', 3), exact.Text('f', 6))
	}
}

// yPow is 2^(−n/32) to prec bits.
func yPow(n uint64, prec uint) *big.Float {
	r := new(big.Float).SetPrec(prec).SetFloat64(1)
	r.SetMantExp(r, -int(n/32)) // 2^(−⌊n/32⌋)
	for i := uint64(0); i < n%32; i++ {
		r.Mul(r, yRoot)
	}
	return r
}

// yRoot is 2^(−1/32) to 300 bits, by Newton's method on x^32 = 1/2.
var yRoot = func() *big.Float {
	const prec = 300
	x := new(big.Float).SetPrec(prec).SetFloat64(0.9785720620877)
	half := new(big.Float).SetPrec(prec).SetFloat64(0.5)
	for i := 0; i < 60; i++ {
		p := new(big.Float).SetPrec(prec).SetFloat64(1)
		for j := 0; j < 31; j++ {
			p.Mul(p, x)
		}
		num := new(big.Float).SetPrec(prec).Mul(p, x)
		num.Sub(num, half)
		den := new(big.Float).SetPrec(prec).Mul(p, new(big.Float).SetPrec(prec).SetInt64(32))
		x.Sub(x, num.Quo(num, den))
	}
	return x
}()

func TestDecayLoadAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		val := r.Uint64() >> r.UintN(64)
		n := r.Uint64N(2100)
		if i%7 == 0 {
			n = r.Uint64() // far past the horizon
		}
		want := refDecay(bu(val), n)
		if got := DecayLoad(val, n); !want.IsUint64() || got != want.Uint64() {
			t.Fatalf("DecayLoad(%d, %d) = %d, reference %s", val, n, got, want)
		}
		if i%50 == 0 {
			checkDecayBound(t, val, n)
		}
	}
}

// The segment formula's middle term approximates 1024·Σ_{n=1}^{p−1} y^n
// to within the 0.1 % by which LOAD_AVG_MAX falls short of 1024/(1−y).
func TestSegmentsApproximateTheSeries(t *testing.T) {
	exact := 0.0 // 1024·Σ_{n=1}^{p−1} y^n, built up as p grows
	for p := uint64(1); p <= 3000; p++ {
		if p >= 2 {
			exact += 1024 * math.Pow(2, -float64(p-1)/32)
		}
		got := float64(segments(p, 0, 0)) // c1 = decay(0) = 0, c3 = 0
		if d := got - exact; d > 1 || d < -0.001*exact-1 {
			t.Fatalf("p=%d: c2 = %.0f, 1024·Σy^n = %.2f", p, got, exact)
		}
	}
}
