package pelt

import (
	"math"
	"testing"
)

// update_tg_load_avg: at most once per ms, and only for a change of more
// than 1/64 of the published contribution.
func TestTGContrib(t *testing.T) {
	tests := []struct {
		name               string
		c                  TGContrib
		q                  Avg
		now                uint64
		wantDL, wantDR     int64
		wantPub            bool
		wantContribLoadAvg uint64
	}{
		{"nothing is published before 1 ms", TGContrib{}, Avg{LoadAvg: 1024}, 999999, 0, 0, false, 0},
		{"the first change after 1 ms is", TGContrib{}, Avg{LoadAvg: 1024, RunnableAvg: 512}, 1000000, 1024, 512, true, 1024},
		// 6500 − 6400 = 100, not above 6400/64 = 100.
		{"a change of exactly 1/64 is not", TGContrib{LoadAvg: 6400}, Avg{LoadAvg: 6500}, 5000000, 0, 0, false, 6400},
		{"one more is", TGContrib{LoadAvg: 6400}, Avg{LoadAvg: 6501}, 5000000, 101, 0, true, 6501},
		{"a decrease is published negative", TGContrib{LoadAvg: 6400}, Avg{LoadAvg: 6000}, 5000000, -400, 0, true, 6000},
		// runnable 300 → 320: 20 > 300/64 = 4; load 6400 unchanged.
		{"runnable alone can publish both", TGContrib{LoadAvg: 6400, RunnableAvg: 300}, Avg{LoadAvg: 6400, RunnableAvg: 320}, 5000000, 0, 20, true, 6400},
		{"the interval counts from the last publication", TGContrib{LastUpdate: 4500000}, Avg{LoadAvg: 9}, 5000000, 0, 0, false, 0},
		// abs(LONG_MIN) stays LONG_MIN, 2^63 as an unsigned long: published.
		{"the most negative delta is above any threshold", TGContrib{LoadAvg: 1 << 63}, Avg{LoadAvg: 0}, 5000000, math.MinInt64, 0, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, q := tt.c, tt.q
			dl, dr, pub := c.Update(&q, tt.now)
			if dl != tt.wantDL || dr != tt.wantDR || pub != tt.wantPub {
				t.Errorf("got %d %d %v, want %d %d %v", dl, dr, pub, tt.wantDL, tt.wantDR, tt.wantPub)
			}
			if c.LoadAvg != tt.wantContribLoadAvg {
				t.Errorf("contribution %d, want %d", c.LoadAvg, tt.wantContribLoadAvg)
			}
			if pub && (c.LastUpdate != tt.now || c.RunnableAvg != q.RunnableAvg) {
				t.Errorf("published state %+v", c)
			}
			if !pub && c != tt.c {
				t.Errorf("state changed without publishing: %+v", c)
			}
		})
	}
}
