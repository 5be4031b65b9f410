package trace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// repeated returns the testdata file name concatenated with itself until
// it is at least size bytes (Perfetto packets and text lines both stay
// whole).
func repeated(tb testing.TB, name string, size int) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.Repeat(b, size/len(b)+1)
}

// TestNextAllocations: once a Reader has seen a trace's comms, returning an
// event allocates nothing.
func TestNextAllocations(t *testing.T) {
	for _, name := range []string{"ftrace_panopticon.txt", "tracecmd_plugin.txt", "perfetto_android12.pftrace"} {
		r, err := NewReader(bytes.NewReader(repeated(t, name, 4<<20)), Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 { // warm up: comms interned, buffers grown
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(1000, func() {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %.2f allocations per event, want 0", name, allocs)
		}
	}
}

// BenchmarkReader measures reading events, per format, from an excerpt
// repeated to 4 MiB.
func BenchmarkReader(b *testing.B) {
	for _, name := range []string{"ftrace_panopticon.txt", "tracecmd_raw_juno.txt", "perf_script.txt",
		"systrace_pixel.html", "perfetto_android12.pftrace"} {
		data := repeated(b, name, 4<<20)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			events := 0
			for b.Loop() {
				r, err := NewReader(bytes.NewReader(data), Options{})
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					events++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}
