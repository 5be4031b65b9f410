package main

import (
	"bytes"
	"strings"
	"testing"
)

// quantile is R's and NumPy's default: for 1..10, h = 9q, so p10 lies at
// rank 0.9 (1.9) and p90 at 8.1 (9.1); the median of an even count is the
// mean of the middle two.
func TestQuantileInterpolatesOrderStatistics(t *testing.T) {
	xs := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	for _, tt := range []struct{ q, want float64 }{{0, 1}, {0.1, 1.9}, {0.5, 5.5}, {0.9, 9.1}, {1, 10}} {
		if got := quantile(xs, tt.q); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("quantile(1..10, %v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := quantile([]float64{7}, 0.9); got != 7 {
		t.Errorf("quantile of one value = %v, want 7", got)
	}
	if xs[0] != 10 {
		t.Error("quantile sorted its argument in place")
	}
}

// A direction is reproduced when it holds in at least 8 of 10 seeds, and
// in the same proportion for another count.
func TestReproducedNeedsEightInTen(t *testing.T) {
	for _, tt := range []struct {
		holds, of int
		want      bool
	}{{8, 10, true}, {7, 10, false}, {10, 10, true}, {3, 3, true}, {2, 3, false}, {4, 5, true}, {1, 1, true}, {0, 1, false}} {
		f := &figure{format: countf}
		for i := 0; i < tt.of; i++ {
			f.add(1, 0, i < tt.holds)
		}
		if got := f.reproduced(); got != tt.want {
			t.Errorf("%d of %d: reproduced = %v, want %v", tt.holds, tt.of, got, tt.want)
		}
	}
}

func TestFigurePrintsBothSidesAndTheCount(t *testing.T) {
	f := &figure{claim: "lower with the patch", base: "before", patch: "after", format: countf}
	for i := 1; i <= 10; i++ {
		f.add(float64(10*i), float64(i), i != 3)
	}
	var b bytes.Buffer
	f.print(&b)
	for _, want := range []string{"[reproduced]", "lower with the patch", "before:", "median 55 (p10–p90 19 – 91)", "after:", "median 6 (p10–p90 2 – 9)", "holds in 9 of 10 seeds"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--runs", "-1"}, {"--runs", "1001"}, {"--seeds", "001"}, {"--seed", "18446744073709551615", "--runs", "2"}, {"extra"},
		{"--runs", "0"}, {"--runs=0", "--quick"}, {"--out", ""}, {"--seeds", "000,000"}, {"--seeds", ""}, {"--seeds", "000,"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errb.String())
		}
	}
}

// A value the command cannot take is refused before any work: one line on
// stderr, nothing on stdout, exit status 2. Only an absent flag means its
// default; --runs 0 used to mean "the default" silently.
func TestBadFlagsFailBeforeWork(t *testing.T) {
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--runs", "0"}, "--runs 0: want 1 to 1000 seeds"},
		{[]string{"--quick", "--runs", "0"}, "--runs 0: want 1 to 1000 seeds"},
		{[]string{"--out", ""}, `--out "": want a directory`},
		{[]string{"--seeds", "003,003"}, "seed 003 is listed twice"},
	} {
		var out, errb bytes.Buffer
		code := run(tt.args, &out, &errb)
		if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), tt.msg) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, and one line with %q", tt.args, code, out.String(), errb.String(), tt.msg)
		}
	}
}
