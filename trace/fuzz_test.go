package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedFiles adds the testdata excerpts as seeds, whole and cut to their
// first lines, plus extra seeds.
func seedFiles(f *testing.F, files []string, extra ...string) {
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if i := bytes.IndexByte(b[min(len(b), 1500):], '\n'); i >= 0 {
			f.Add(b[:min(len(b), 1500)+i])
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// compressedInput reports whether NewReader decompresses data before it
// reads it: gzip's magic, or an atrace TRACE: line followed by zlib's first
// byte (0x78), as NewReader tests them.
func compressedInput(data []byte) bool {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return true
	}
	if !bytes.HasPrefix(data, []byte("TRACE:\n")) && !bytes.HasPrefix(data, []byte("TRACE:\r\n")) {
		return false
	}
	i := bytes.IndexByte(data, '\n') + 1
	return len(data) > i && data[i] == 0x78
}

// gzipped returns data compressed with gzip.
func gzipped(f *testing.F, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		f.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	return b.Bytes()
}

// checkText reads data as format in strict and lenient mode. Nothing may
// panic; a strict error is a *SyntaxError whose message is
// "fuzz:LINE: reason" with LINE one of the input's lines, or a
// decompression error for gzip input; lenient mode returns no syntax error
// at all.
func checkText(t *testing.T, data []byte, format Format) {
	lines := bytes.Count(data, []byte("\n")) + 1
	gz := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
	for _, lenient := range []bool{false, true} {
		r, err := NewReader(bytes.NewReader(data), Options{Format: format, Lenient: lenient, Name: "fuzz"})
		if err != nil {
			if !compressedInput(data) || !errors.Is(err, ErrFormat) {
				t.Fatalf("NewReader: %v", err)
			}
			return
		}
		n := 0
		for {
			ev, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var se *SyntaxError
				if !errors.As(err, &se) {
					if gz || r.line >= lines {
						break // a gzip or zlib stream's own error
					}
					t.Fatalf("error %v is not a SyntaxError", err)
				}
				if lenient {
					t.Fatalf("lenient mode returned %v", err)
				}
				if se.Line < 1 || !gz && se.Line > lines {
					t.Fatalf("error on line %d of %d: %v", se.Line, lines, err)
				}
				if !strings.HasPrefix(err.Error(), "fuzz:") || se.Reason == "" {
					t.Fatalf("error %q does not name FILE:LINE: and a reason", err)
				}
				break
			}
			if ev.Kind == KindInvalid || ev.Kind >= numKinds {
				t.Fatalf("event of kind %v", ev.Kind)
			}
			n++
		}
		st := r.Stats()
		if st.Total() != n || !gz && st.Lines > lines {
			t.Fatalf("stats %+v after %d events of %d lines", st, n, lines)
		}
	}
}

func FuzzFtrace(f *testing.F) {
	seedFiles(f, []string{"ftrace_panopticon.txt", "ftrace_v6.txt"},
		"CPU:3 [LOST 42 EVENTS]\n",
		"  <idle>-0 [000] d..2. 8812345678901: sched_switch: prev_comm=a prev_pid=1 prev_prio=1 prev_state=R ==> next_comm=b next_pid=2 next_prio=3\n",
		"  a-1 [000] 1.5: sched_stat_runtime: comm=a pid=1 runtime=1 [ns] vruntime=99999999999999999999 [ns]\n",
		"  a-1 [002] d.h1. 1.000000001: hrtimer_expire_entry: hrtimer=00000000a1b2c3d4 function=tick_nohz_handler now=1000000001\n",
		"  a-1 [002] d.h1. 1.5: hrtimer_expire_entry: hrtimer=x function=\n")
	f.Fuzz(func(t *testing.T, data []byte) { checkText(t, data, FormatFtrace) })
}

func FuzzTraceCmd(f *testing.F) {
	seedFiles(f, []string{"tracecmd_raw_juno.txt", "tracecmd_plugin.txt"},
		"CPU:5 [12 EVENTS DROPPED]\n",
		"  a-1 [001] 1.000001: sched_wakeup: tmux: server:1613 [120] success=1 CPU:000\n",
		"  a-1 [001] 1.000001: sched_switch: a:1 [120] D|W ==> b:2 [100]\n",
		"trace-cm-6973    2d..3. 259445.106979: sched_switch: prev_comm=a prev_pid=1 prev_prio=1 prev_state=X ==> next_comm=b next_pid=2 next_prio=3\n")
	f.Fuzz(func(t *testing.T, data []byte) { checkText(t, data, FormatTraceCmd) })
}

func FuzzPerf(f *testing.F) {
	seedFiles(f, []string{"perf_script.txt"},
		"  bash 4321/4322 [001]  5075.958300: sched:sched_migrate_task: comm=bash pid=4322 prio=120 orig_cpu=1 dest_cpu=2\n")
	f.Fuzz(func(t *testing.T, data []byte) { checkText(t, data, FormatPerf) })
}

func FuzzSystrace(f *testing.F) {
	seedFiles(f, []string{"systrace_pixel.html"},
		`<script class="trace-data" type="application/text">  a-1 (-----) [000] d..2 1.0: sched_switch: x</script>`)
	f.Fuzz(func(t *testing.T, data []byte) { checkText(t, data, FormatSystrace) })
}

// FuzzPerfetto: nothing panics; every error is a SyntaxError naming an
// offset inside the input, or ErrUnsupported for zstd-compressed packets.
// Input that NewReader decompresses (gzip, or atrace's zlib after a TRACE:
// line) may instead be refused by NewReader with ErrFormat when its header
// is bad, and its offsets count the decompressed stream, so they are only
// bound below.
func FuzzPerfetto(f *testing.F) {
	seedFiles(f, []string{"perfetto_android12.pftrace"})
	cs := pb(nil).str(csInternTable, "c").packed(csSwitchTimestamp, 2000).packed(csSwitchPrevState, 256).
		packed(csSwitchNextPid, 12).packed(csSwitchNextPrio, 120).packed(csSwitchNextComm, 0)
	compact := []byte(packet(pb(nil).bytes(pfPacketFtrace, pb(nil).varint(pfBundleCPU, 1).varint(pfBundleLost, 1).bytes(pfBundleCompact, cs))))
	f.Add(compact)
	f.Add([]byte(systemInfoPacket("4.9.1")))
	f.Add(gzipped(f, compact))
	f.Fuzz(func(t *testing.T, data []byte) {
		compressed := compressedInput(data)
		for _, lenient := range []bool{false, true} {
			r, err := NewReader(bytes.NewReader(data), Options{Format: FormatPerfetto, Lenient: lenient, Name: "fuzz"})
			if err != nil {
				if !compressed || !errors.Is(err, ErrFormat) {
					t.Fatalf("NewReader: %v", err)
				}
				return
			}
			n := 0
			for {
				ev, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					var se *SyntaxError
					if errors.Is(err, ErrUnsupported) {
						break // zstd-compressed packets
					}
					if !errors.As(err, &se) || se.Offset < 0 || !compressed && se.Offset > int64(len(data)) {
						t.Fatalf("error %v is not a SyntaxError inside the input", err)
					}
					break
				}
				if ev.Kind == KindInvalid || ev.Kind >= numKinds {
					t.Fatalf("event of kind %v", ev.Kind)
				}
				n++
			}
			if st := r.Stats(); st.Total() != n {
				t.Fatalf("stats count %d events, Next returned %d", st.Total(), n)
			}
		}
	})
}
