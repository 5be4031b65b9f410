package trace

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ev builds an expected event from blank(k), so a table names only the
// fields that matter.
func ev(k Kind, time int64, cpu, ctx int32, f func(*Event)) Event {
	e := blank(k)
	e.Time, e.CPU, e.Ctx = time, cpu, ctx
	if f != nil {
		f(&e)
	}
	return e
}

func readString(t *testing.T, s string, opt Options) []Event {
	t.Helper()
	evs, _, err := ReadAll(strings.NewReader(s), opt)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestTextLines reads one line of each form the spec describes and checks
// every field. The lines are from the captures in shared/traces (cited by
// capture) or from TRACE-REPLAY.md's examples.
func TestTextLines(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		line string
		want Event
	}{{
		name: "tracefs switch, 4 flag chars, comm with a space (panopticon)",
		line: `    tmux: server-1613  [000] d..2 21926.770972: sched_switch: prev_comm=tmux: server prev_pid=1613 prev_prio=120 prev_state=D ==> next_comm=kworker/u8:2 next_pid=34380 next_prio=120`,
		want: ev(KindSwitch, 21926770972000, 0, 1613, func(e *Event) {
			e.Task = Task{Pid: 1613, Comm: "tmux: server", Prio: 120}
			e.Next = Task{Pid: 34380, Comm: "kworker/u8:2", Prio: 120}
			e.PrevState, e.RawState = StateUninterruptible, -1
		}),
	}, {
		name: "tracefs waking, zero-padded target_cpu (panopticon)",
		line: `     threaded-ml-32307 [001] d..3 21926.770086: sched_waking: comm=AudioOutputDevi pid=32308 prio=120 target_cpu=003`,
		want: ev(KindWaking, 21926770086000, 1, 32307, func(e *Event) {
			e.Task = Task{Pid: 32308, Comm: "AudioOutputDevi", Prio: 120}
			e.TargetCPU = 3
		}),
	}, {
		name: "tracefs migrate (panopticon)",
		line: `           <...>-34421 [003] d..4 21926.770345: sched_migrate_task: comm=kworker/u8:2 pid=34380 prio=120 orig_cpu=3 dest_cpu=0`,
		want: ev(KindMigrateTask, 21926770345000, 3, 34421, func(e *Event) {
			e.Task = Task{Pid: 34380, Comm: "kworker/u8:2", Prio: 120}
			e.OrigCPU, e.TargetCPU = 3, 0
		}),
	}, {
		name: "tracefs fork: parent in Task, child in Next (panopticon)",
		line: `           <...>-34421 [003] .... 21926.771611: sched_process_fork: comm=trace.sh pid=34421 child_comm=trace.sh child_pid=34422`,
		want: ev(KindProcessFork, 21926771611000, 3, 34421, func(e *Event) {
			e.Task = Task{Pid: 34421, Comm: "trace.sh", Prio: -1}
			e.Next = Task{Pid: 34422, Comm: "trace.sh", Prio: -1}
		}),
	}, {
		name: "tracefs exec (panopticon)",
		line: `           <...>-34422 [000] .... 21926.772425: sched_process_exec: filename=/usr/bin/ls pid=34422 old_pid=34422`,
		want: ev(KindProcessExec, 21926772425000, 0, 34422, func(e *Event) {
			e.Task.Pid, e.OldPid, e.Filename = 34422, 34422, "/usr/bin/ls"
		}),
	}, {
		name: "tracefs stat_runtime with vruntime, before 6.8 (panopticon)",
		line: ` AudioOutputDevi-32308 [002] d..2 21926.770213: sched_stat_runtime: comm=AudioOutputDevi pid=32308 runtime=100814 [ns] vruntime=1115808415504 [ns]`,
		want: ev(KindStatRuntime, 21926770213000, 2, 32308, func(e *Event) {
			e.Task = Task{Pid: 32308, Comm: "AudioOutputDevi", Prio: -1}
			e.Runtime, e.Vruntime = 100814, 1115808415504
		}),
	}, {
		name: "tracefs 6.x: five flag chars, exit with group_dead",
		line: `             cat-501     [001] ....1   100.000500: sched_process_exit: comm=cat pid=501 prio=139 group_dead=true`,
		want: ev(KindProcessExit, 100000500000, 1, 501, func(e *Event) {
			e.Task = Task{Pid: 501, Comm: "cat", Prio: 139}
		}),
	}, {
		name: "trace_pipe with the counter clock: an integer timestamp",
		line: `          <idle>-0       [000] d..2. 8812345678901: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=7 next_prio=120`,
		want: ev(KindSwitch, 8812345678901, 0, 0, func(e *Event) {
			e.Task = Task{Pid: 0, Comm: "swapper/0", Prio: 120}
			e.Next = Task{Pid: 7, Comm: "a", Prio: 120}
			e.RawState = -1
		}),
	}, {
		name: "tracefs loss mark: time of the previous line",
		line: "CPU:3 [LOST 42 EVENTS]",
		want: ev(KindLost, 0, 3, -1, func(e *Event) { e.Lost = 42 }),
	}, {
		name: "tracefs loss mark without a count",
		line: "CPU:0 [LOST EVENTS]",
		want: ev(KindLost, 0, 0, -1, nil),
	}, {
		name: "systrace TGID column, comm longer than its column (trappy)",
		line: `kworker/u17:1-959   (  959) [006] d..3   538.064659: sched_switch: prev_comm=kworker/u17:1 prev_pid=959 prev_prio=100 prev_state=S ==> next_comm=swapper/6 next_pid=0 next_prio=120`,
		want: ev(KindSwitch, 538064659000, 6, 959, func(e *Event) {
			e.Task = Task{Pid: 959, Comm: "kworker/u17:1", Prio: 100}
			e.Next = Task{Pid: 0, Comm: "swapper/6", Prio: 120}
			e.PrevState, e.RawState = StateSleeping, -1
		}),
	}, {
		name: "systrace unknown tgid, comm with spaces and digits (trappy)",
		line: `<7951>-7951  (-----) [004] d..3   538.070091: sched_switch: prev_comm=shell srvc 7950 prev_pid=7951 prev_prio=120 prev_state=x ==> next_comm=adbd next_pid=5833 next_prio=120`,
		want: ev(KindSwitch, 538070091000, 4, 7951, func(e *Event) {
			e.Task = Task{Pid: 7951, Comm: "shell srvc 7950", Prio: 120}
			e.Next = Task{Pid: 5833, Comm: "adbd", Prio: 120}
			e.PrevState, e.RawState = StateDying, -1
		}),
	}, {
		name: "trace-cmd -R: raw prev_state 4096 is R+ before 4.14 (Juno)",
		opt:  Options{Era: EraLegacy},
		line: `              sh-1642  [002]    76.211701: sched_switch:          prev_comm=sh prev_pid=1642 prev_prio=120 prev_state=4096 next_comm=kworker/u12:1 next_pid=46 next_prio=120`,
		want: ev(KindSwitch, 76211701000, 2, 1642, func(e *Event) {
			e.Task = Task{Pid: 1642, Comm: "sh", Prio: 120}
			e.Next = Task{Pid: 46, Comm: "kworker/u12:1", Prio: 120}
			e.PrevState, e.RawState = StatePreempted, 4096
		}),
	}, {
		name: "trace-cmd -R: 130 is D|K before 4.14 (Juno)",
		opt:  Options{Era: EraLegacy},
		line: `            sshd-1707  [002]    81.235397: sched_switch:          prev_comm=sshd prev_pid=1707 prev_prio=120 prev_state=130 next_comm=swapper/2 next_pid=0 next_prio=120`,
		want: ev(KindSwitch, 81235397000, 2, 1707, func(e *Event) {
			e.Task = Task{Pid: 1707, Comm: "sshd", Prio: 120}
			e.Next = Task{Pid: 0, Comm: "swapper/2", Prio: 120}
			e.PrevState, e.RawState = StateUninterruptible|StateWakekill, 130
		}),
	}, {
		name: "trace-cmd -R: 256 is R+ from 4.14",
		opt:  Options{Era: EraReport},
		line: `           a-7     [000]    10.000001: sched_switch: prev_comm=a prev_pid=7 prev_prio=120 prev_state=256 next_comm=b next_pid=8 next_prio=120`,
		want: ev(KindSwitch, 10000001000, 0, 7, func(e *Event) {
			e.Task = Task{Pid: 7, Comm: "a", Prio: 120}
			e.Next = Task{Pid: 8, Comm: "b", Prio: 120}
			e.PrevState, e.RawState = StatePreempted, 256
		}),
	}, {
		name: "trace-cmd -R: old wakeup with success= (Juno)",
		line: `          <idle>-0     [002]    76.211513: sched_wakeup:          comm=sh pid=1642 prio=120 success=1 target_cpu=2`,
		want: ev(KindWakeup, 76211513000, 2, 0, func(e *Event) {
			e.Task = Task{Pid: 1642, Comm: "sh", Prio: 120}
			e.TargetCPU = 2
		}),
	}, {
		name: "trace-cmd plugin switch with -t nanoseconds (spec §4)",
		line: `       trace-cmd-6973  [002] 259445.106979220: sched_switch:         trace-cmd:6973 [120] x ==> swapper/2:0 [120]`,
		want: ev(KindSwitch, 259445106979220, 2, 6973, func(e *Event) {
			e.Task = Task{Pid: 6973, Comm: "trace-cmd", Prio: 120}
			e.Next = Task{Pid: 0, Comm: "swapper/2", Prio: 120}
			e.PrevState, e.RawState = StateDying, -1
		}),
	}, {
		name: "trace-cmd plugin switch, comm with a colon, two letters",
		line: `            sudo-6972  [001] 259445.107500: sched_switch:         tmux: server:1613 [120] D|W ==> kworker/1:2:88 [100]`,
		want: ev(KindSwitch, 259445107500000, 1, 6972, func(e *Event) {
			e.Task = Task{Pid: 1613, Comm: "tmux: server", Prio: 120}
			e.Next = Task{Pid: 88, Comm: "kworker/1:2", Prio: 100}
			e.PrevState, e.RawState = StateUninterruptible|StateWaking, -1
		}),
	}, {
		name: "trace-cmd plugin wakeup with success= (spec §4)",
		line: `          <idle>-0     [001] 259445.107200: sched_wakeup:         kworker/1:2:812 [120] success=1 CPU:001`,
		want: ev(KindWakeup, 259445107200000, 1, 0, func(e *Event) {
			e.Task = Task{Pid: 812, Comm: "kworker/1:2", Prio: 120}
			e.TargetCPU = 1
		}),
	}, {
		name: "trace-cmd -l latency layout: comm cut to 8, CPU glued to the flags (spec §4)",
		line: `trace-cm-6973    2d..3. 259445.106979: sched_switch: prev_comm=trace-cmd prev_pid=6973 prev_prio=120 prev_state=X ==> next_comm=swapper/2 next_pid=0 next_prio=120`,
		want: ev(KindSwitch, 259445106979000, 2, 6973, func(e *Event) {
			e.Task = Task{Pid: 6973, Comm: "trace-cmd", Prio: 120}
			e.Next = Task{Pid: 0, Comm: "swapper/2", Prio: 120}
			e.PrevState, e.RawState = StateDead, -1
		}),
	}, {
		name: "trace-cmd loss mark",
		line: "CPU:5 [12 EVENTS DROPPED]",
		want: ev(KindLost, 0, 5, -1, func(e *Event) { e.Lost = 12 }),
	}, {
		name: "perf script, COMM TID, sched: prefix (spec §5)",
		line: `            perf  1234 [003]  5075.958079: sched:sched_switch: prev_comm=perf prev_pid=1234 prev_prio=120 prev_state=R+ ==> next_comm=swapper/3 next_pid=0 next_prio=120`,
		want: ev(KindSwitch, 5075958079000, 3, 1234, func(e *Event) {
			e.Task = Task{Pid: 1234, Comm: "perf", Prio: 120}
			e.Next = Task{Pid: 0, Comm: "swapper/3", Prio: 120}
			e.PrevState, e.RawState = StatePreempted, -1
		}),
	}, {
		name: "perf script --ns, PID/TID, stat_runtime without vruntime (6.8+)",
		line: `     kworker/0:1  17/17 [000]  5075.958200123: sched:sched_stat_runtime: comm=kworker/0:1 pid=17 runtime=12345 [ns]`,
		want: ev(KindStatRuntime, 5075958200123, 0, 17, func(e *Event) {
			e.Task = Task{Pid: 17, Comm: "kworker/0:1", Prio: -1}
			e.Runtime = 12345
		}),
	}, {
		name: "perf script, plugin body",
		line: `            perf  1234 [002]  5075.958400: sched:sched_switch: perf:1234 [120] S ==> swapper/2:0 [120]`,
		want: ev(KindSwitch, 5075958400000, 2, 1234, func(e *Event) {
			e.Task = Task{Pid: 1234, Comm: "perf", Prio: 120}
			e.Next = Task{Pid: 0, Comm: "swapper/2", Prio: 120}
			e.PrevState, e.RawState = StateSleeping, -1
		}),
	}, {
		name: "wakeup_new, deadline priority -1",
		line: `            sudo-6972  [001] 259445.107600: sched_wakeup_new:     comm=dl pid=6974 prio=-1 target_cpu=001`,
		want: ev(KindWakeupNew, 259445107600000, 1, 6972, func(e *Event) {
			e.Task = Task{Pid: 6974, Comm: "dl", Prio: -1}
			e.TargetCPU = 1
		}),
	}, {
		name: "sched_pi_setprio: the new priority in Task, the old in OldPrio",
		line: `     rcu_preempt-8     [001] d..2. 7.000000: sched_pi_setprio: comm=kworker/1:1 pid=44 oldprio=120 newprio=98`,
		want: ev(KindPiSetprio, 7000000000, 1, 8, func(e *Event) {
			e.Task, e.OldPrio = Task{Pid: 44, Comm: "kworker/1:1", Prio: 98}, 120
		}),
	}, {
		name: "schedstats sched_stat_sleep",
		line: `          <idle>-0     [002] d.h2. 8.000000: sched_stat_sleep: comm=cat pid=501 delay=1500000 [ns]`,
		want: ev(KindStatSleep, 8000000000, 2, 0, func(e *Event) {
			e.Task, e.Delay = Task{Pid: 501, Comm: "cat", Prio: -1}, 1500000
		}),
	}, {
		name: "task_newtask text form",
		line: `            bash-100   [000] .....  5.000000: task_newtask: pid=101 comm=bash clone_flags=1200000 oom_score_adj=0`,
		want: ev(KindNewTask, 5000000000, 0, 100, func(e *Event) {
			e.Task = Task{Pid: 101, Comm: "bash", Prio: -1}
		}),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := readString(t, tc.line+"\n", tc.opt)
			if len(evs) != 1 {
				t.Fatalf("%d events, want 1: %+v", len(evs), evs)
			}
			if !reflect.DeepEqual(evs[0], tc.want) {
				t.Errorf("got  %+v\nwant %+v", evs[0], tc.want)
			}
		})
	}
}

// TestTextSkipsNonEvents: comments, headers, blank lines and events the
// stream does not carry give no event and no error.
func TestTextSkipsNonEvents(t *testing.T) {
	in := strings.Join([]string{
		"# tracer: nop",
		"version = 6",
		"cpus=4",
		"",
		"CPU 2 is empty",
		`          <idle>-0     [001] d..2  10.000001: cpu_idle: state=1 cpu_id=1`,
		`              sh-1702  [005]    76.368433: print:                0xffff00000819ff24s: TRACE_MARKER_START`,
		`   surfaceflinger-500 (  500) [000] ...1   5.0: tracing_mark_write: B|500|onMessageReceived`,
	}, "\n")
	evs, st, err := ReadAll(strings.NewReader(in), Options{Format: FormatFtrace})
	if err != nil || len(evs) != 0 {
		t.Fatalf("events %v err %v, want none", evs, err)
	}
	if st.Other != 3 || st.Lines != 8 {
		t.Errorf("other %d lines %d, want 3 and 8", st.Other, st.Lines)
	}
}

// TestTextEraFromValues: with no era given, a value only the pre-4.14
// encoding has (4096 on line 7 of the Juno excerpt) decodes the 64 on line
// 3 as x (dying), not P (parked).
func TestTextEraFromValues(t *testing.T) {
	evs, _, err := readFile(t, "tracecmd_raw_juno.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].RawState != 64 || evs[0].PrevState != StateDying {
		t.Errorf("first switch %v (%d), want x (64)", evs[0].PrevState, evs[0].RawState)
	}
	evs, _, err = readFile(t, "tracecmd_raw_juno.txt", Options{Era: EraReport})
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].PrevState != StateParked {
		t.Errorf("with EraReport forced, 64 decodes to %v, want P", evs[0].PrevState)
	}
}

func readFile(t *testing.T, name string, opt Options) ([]Event, Stats, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if opt.Name == "" {
		opt.Name = name
	}
	return ReadAll(f, opt)
}

// TestExcerpts: each file under testdata parses to the counts found in it
// with grep (" sched_switch: " and so on), and is detected as its format.
func TestExcerpts(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		counts map[Kind]int
		other  int
	}{
		{"ftrace_panopticon.txt", FormatFtrace, map[Kind]int{KindSwitch: 14, KindWaking: 8, KindWakeup: 9,
			KindWakeupNew: 1, KindMigrateTask: 4, KindProcessFork: 1, KindProcessExit: 1, KindStatRuntime: 15}, 6},
		{"ftrace_v6.txt", FormatFtrace, map[Kind]int{KindSwitch: 3, KindWaking: 1, KindProcessExit: 1, KindLost: 1}, 0},
		{"tracecmd_raw_juno.txt", FormatTraceCmd, map[Kind]int{KindSwitch: 25, KindWakeup: 14}, 2},
		{"tracecmd_plugin.txt", FormatTraceCmd, map[Kind]int{KindSwitch: 3, KindWaking: 1, KindWakeup: 2,
			KindWakeupNew: 1, KindLost: 2}, 0},
		{"perf_script.txt", FormatPerf, map[Kind]int{KindSwitch: 2, KindWaking: 1, KindStatRuntime: 1,
			KindMigrateTask: 1}, 1},
		{"systrace_pixel.html", FormatSystrace, map[Kind]int{KindSwitch: 26, KindWakeup: 13}, 24},
		{"perfetto_android12.pftrace", FormatPerfetto, map[Kind]int{KindSwitch: 23, KindWaking: 15,
			KindWakeup: 12}, 6},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := NewReader(f, Options{Name: tc.file})
			if err != nil {
				t.Fatal(err)
			}
			if r.Format() != tc.format {
				t.Errorf("format %v, want %v", r.Format(), tc.format)
			}
			for _, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
			}
			st := r.Stats()
			for k := KindInvalid; k < numKinds; k++ {
				if st.Count(k) != tc.counts[k] {
					t.Errorf("%s: %d, want %d", k, st.Count(k), tc.counts[k])
				}
			}
			if st.Other != tc.other {
				t.Errorf("other events %d, want %d", st.Other, tc.other)
			}
		})
	}
}

// TestGzip: a gzip-compressed input reads exactly as the plain one.
func TestGzip(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "systrace_pixel.html"))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	a, _, err := ReadAll(bytes.NewReader(plain), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(&z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Format() != FormatSystrace {
		t.Errorf("gzip input detected as %v", r.Format())
	}
	var b []Event
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, e)
	}
	if len(a) != 39 || !reflect.DeepEqual(a, b) {
		t.Errorf("plain gave %d events, gzip %d; want the same 39", len(a), len(b))
	}
}

// TestSystraceBlocks: only ftrace text inside trace-data blocks counts; a
// JSON block, HTML and script code around it are ignored, even when they
// would not parse as trace lines; a block may start on the tag's line.
func TestSystraceBlocks(t *testing.T) {
	in := `<!DOCTYPE html>
<html><script>var x = "[000] not a trace line";</script>
<script class="trace-data" type="application/text">{"traceEvents": []}</script>
<script class="trace-data" type="application/text">          <idle>-0     (-----) [006] d..2   538.000001: sched_wakeup: comm=a pid=5 prio=120 target_cpu=006
          <idle>-0     (-----) [006] d..2   538.000002: sched_switch: prev_comm=swapper/6 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=5 next_prio=120
  </script>
not a trace line
</html>
`
	evs, st, err := ReadAll(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Kind != KindWakeup || evs[1].Kind != KindSwitch || st.Lines != 8 {
		t.Errorf("events %+v lines %d, want a wakeup and a switch of 8 lines", evs, st.Lines)
	}
}

// TestStrictAndLenient: in strict mode the first malformed line stops the
// stream with FILE:LINE: reason; in lenient mode it is skipped and counted
// and the events around it still come through.
func TestStrictAndLenient(t *testing.T) {
	in := strings.Join([]string{
		`          <idle>-0     [001] d..2  10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=7 next_prio=120`,
		`garbage without a cpu column`,
		`               a-7     [001] d..2  10.000002: sched_switch: prev_comm=a prev_pid=seven prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120`,
		`               a-7     [001] d..2  10.000003: sched_switch: prev_comm=a prev_pid=7 prev_prio=120 prev_state=Q ==> next_comm=swapper/1 next_pid=0 next_prio=120`,
		`               a-7     [001] d..2  10.000004: sched_waking: comm=b prio=120 target_cpu=001`,
		`               a-7     [001] d..2  10.000005: sched_switch: prev_comm=a prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120`,
	}, "\n")
	evs, _, err := ReadAll(strings.NewReader(in), Options{Name: "t.txt"})
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || se.Line != 2 {
		t.Fatalf("strict: err %v, want a SyntaxError on line 2", err)
	}
	if want := "t.txt:2: no [CPU] column"; err.Error() != want {
		t.Errorf("strict: %q, want %q", err, want)
	}
	if len(evs) != 1 {
		t.Errorf("strict: %d events before the error, want 1", len(evs))
	}
	evs, st, err := ReadAll(strings.NewReader(in), Options{Name: "t.txt", Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || st.Skipped != 4 || st.First != "t.txt:2: no [CPU] column" {
		t.Errorf("lenient: %d events, %d skipped, first %q; want 2, 4, the line-2 error", len(evs), st.Skipped, st.First)
	}
	for i, want := range []string{
		"t.txt:3: sched_switch: prev_pid=\"seven\" is not a number",
		"t.txt:4: sched_switch: prev_state \"Q\" is not a task state",
		"t.txt:5: sched_waking: no pid=",
	} {
		r, _ := NewReader(strings.NewReader(strings.Join(strings.Split(in, "\n")[i+2:i+3], "\n")), Options{Name: "t.txt"})
		r.line = i + 2
		if _, err := r.Next(); err == nil || err.Error() != want {
			t.Errorf("line %d: %v, want %q", i+3, err, want)
		}
	}
}

// TestDetect: each format from its first bytes, and the binary formats
// this package refuses.
func TestDetect(t *testing.T) {
	tests := []struct {
		head string
		want Format
		err  error
	}{
		{"# tracer: nop\n#\n", FormatFtrace, nil},
		{"  <idle>-0 [000] d..2 1.000000: cpu_idle: state=1 cpu_id=0\n", FormatFtrace, nil},
		{"version = 6\ncpus=6\n", FormatTraceCmd, nil},
		{"cpus=2\n", FormatTraceCmd, nil},
		{"  perf  1234 [003]  5075.958079: sched:sched_switch: x\n", FormatPerf, nil},
		{"<!DOCTYPE html>\n<html>", FormatSystrace, nil},
		{"\x0a\x02\x08\x01", FormatPerfetto, nil},
		{"\x17\x08\x44tracing6\x00", 0, ErrUnsupported},
		{"PERFILE2\x00\x00", 0, ErrUnsupported},
		{"\x01\x02\x03\x00", 0, ErrFormat},
		{"", FormatFtrace, nil},
	}
	for _, tc := range tests {
		got, err := detect([]byte(tc.head))
		if !errors.Is(err, tc.err) || err == nil && got != tc.want {
			t.Errorf("detect(%q) = %v, %v; want %v, %v", tc.head, got, err, tc.want, tc.err)
		}
	}
}

// TestAtraceZlib: atrace -z output (a TRACE: line, then zlib) is read.
func TestAtraceZlib(t *testing.T) {
	line := "  a-7 [001] d..2  10.000001: sched_waking: comm=b pid=8 prio=120 target_cpu=001\n"
	var z bytes.Buffer
	z.WriteString("TRACE:\n")
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("# tracer: nop\n" + line))
	zw.Close()
	evs, _, err := ReadAll(&z, Options{})
	if err != nil || len(evs) != 1 || evs[0].Task.Pid != 8 {
		t.Fatalf("events %+v err %v, want the one waking", evs, err)
	}
}
