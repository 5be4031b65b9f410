package plot_test

import (
	"bytes"
	"fmt"
	"image/png"
	"math"

	"github.com/schedmodel/fairclass/sim/plot"
)

// A pinned replay of 30 ms in 10 ms windows, one CPU of which scored no
// pick in its second window, above the trace's wakeup latencies.
func ExamplePinnedReplay() {
	times := []int64{5e6, 15e6, 25e6}
	p := plot.Pinned{
		AgreementTitle: "pick agreement, 10 ms windows",
		Overall:        plot.Agreement{Name: "all CPUs", TimesNs: times, Percent: []float64{100, 75, 90}},
		PerCPU: []plot.Agreement{
			{Name: "CPU 0", TimesNs: times, Percent: []float64{100, 75, 80}},
			{Name: "CPU 1", TimesNs: times, Percent: []float64{100, math.NaN(), 100}},
		},
		LatencyTitle: "wakeup latency",
		Latency:      []plot.Series{{Name: "trace", Samples: []uint64{3e3, 12e3, 40e3, 250e3}}},
	}
	var b bytes.Buffer
	if err := plot.PinnedReplay(&b, p, plot.Options{Title: "trace.txt: mode A"}); err != nil {
		fmt.Println(err)
		return
	}
	img, err := png.Decode(&b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(img.Bounds().Size()) // 720 × 640 points at 96 dpi
	// Output: (960,853)
}
