package scenario

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// The trace must be valid JSON in the trace event format: every event has
// ph, pid, tid, ts and name; slices have a duration; timestamps never go
// backwards on a track.
func TestTraceFormat(t *testing.T) {
	f, err := os.Open("testdata/kernel/preempt-short-on.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := Parse(f, "preempt-short-on.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	tw := NewTraceWriter(&out, sc)
	if err := Replay(sc, Options{}, tw.Write); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(sc.Ops[len(sc.Ops)-1].At); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	kinds := map[string]int{}
	last := map[string]float64{}
	for i, e := range doc.TraceEvents {
		for _, k := range []string{"ph", "pid", "tid", "ts", "name"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("event %d lacks %q: %v", i, k, e)
			}
		}
		ph := e["ph"].(string)
		kinds[ph]++
		ts := e["ts"].(float64)
		track := ph + "/" + jsonString(e["tid"]) + "/" + e["name"].(string)
		if ph == "X" {
			if d, ok := e["dur"].(float64); !ok || d < 0 {
				t.Fatalf("slice %d without a valid dur: %v", i, e)
			}
			track = "X/" + jsonString(e["tid"])
		}
		if ts < last[track] {
			t.Fatalf("event %d goes back in time on track %s: %v < %v", i, track, ts, last[track])
		}
		last[track] = ts
	}
	for _, ph := range []string{"M", "X", "i", "C"} {
		if kinds[ph] == 0 {
			t.Errorf("no %q events", ph)
		}
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestMicroseconds(t *testing.T) {
	for ns, want := range map[uint64]string{0: "0.000", 999: "0.999", 1000: "1.000", 1234567: "1234.567", 5: "0.005"} {
		if got := us(ns); got != want {
			t.Errorf("us(%d) = %s, want %s", ns, got, want)
		}
	}
}
