package trace

import (
	"bytes"
	"compress/zlib"
	"errors"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// pb builds protobuf messages for tests.
type pb []byte

func (b pb) varint(n protowire.Number, v uint64) pb {
	b = protowire.AppendTag(b, n, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func (b pb) int(n protowire.Number, v int64) pb { return b.varint(n, uint64(v)) }

func (b pb) bytes(n protowire.Number, v []byte) pb {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func (b pb) str(n protowire.Number, s string) pb { return b.bytes(n, []byte(s)) }

func (b pb) packed(n protowire.Number, vs ...int64) pb {
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return b.bytes(n, p)
}

// packet wraps a TracePacket body as one Trace.packet field.
func packet(body pb) pb { return pb(nil).bytes(pfTracePacket, body) }

func systemInfoPacket(release string) pb {
	uts := pb(nil).str(1, "Linux").str(pfUtsRelease, release)
	return packet(pb(nil).bytes(pfPacketSystemInfo, pb(nil).bytes(pfSystemInfoUts, uts)))
}

func switchEvent(ts uint64, pid int64, prev string, prevPid, prevPrio, state int64, next string, nextPid, nextPrio int64) pb {
	sw := pb(nil).str(1, prev).int(2, prevPid).int(3, prevPrio).int(4, state).
		str(5, next).int(6, nextPid).int(7, nextPrio)
	return pb(nil).varint(pfEventTimestamp, ts).int(pfEventPid, pid).bytes(4, sw)
}

// TestPerfettoHandBuilt decodes a trace built field by field: typed events
// of every carried kind, a compact_sched bundle whose switches take their
// prev task from the previous switch on the CPU, a loss mark, and an
// event kind that is not carried.
func TestPerfettoHandBuilt(t *testing.T) {
	var tr pb
	tr = append(tr, systemInfoPacket("6.6.30-android15-8")...)
	b1 := pb(nil).varint(pfBundleCPU, 2).
		bytes(pfBundleEvent, switchEvent(1000, 10, "a", 10, 120, 1, "b", 11, 120)).
		bytes(pfBundleEvent, pb(nil).varint(1, 1500).int(2, 11).bytes(20,
			pb(nil).str(1, "c").int(2, 12).int(3, 120).int(5, 3))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1600).int(2, 11).bytes(17,
			pb(nil).str(1, "c").int(2, 12).int(3, 120).int(4, 1).int(5, 2))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1700).int(2, 11).bytes(114,
			pb(nil).str(1, "n").int(2, 20).int(3, 120).int(5, 1))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1800).int(2, 11).bytes(491,
			pb(nil).str(1, "c").int(2, 12).int(3, 120).int(4, 3).int(5, 2))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1810).int(2, 11).bytes(239,
			pb(nil).str(1, "b").int(2, 11).str(3, "n").int(4, 20))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1820).int(2, 11).bytes(235,
			pb(nil).int(1, 20).str(2, "n").int(3, 0x11).int(4, 0))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1830).int(2, 20).bytes(237,
			pb(nil).str(1, "/bin/true").int(2, 20).int(3, 20))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1840).int(2, 20).bytes(238,
			pb(nil).str(1, "true").int(2, 20).int(3, 20).int(4, 120))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1850).int(2, 0).bytes(240,
			pb(nil).str(1, "true").int(2, 20).int(3, 120))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1855).int(2, 0).bytes(353,
											pb(nil).str(1, "b").int(2, 98).int(3, 120).int(4, 11))).
		bytes(pfBundleEvent, pb(nil).varint(1, 1860).int(2, 0).bytes(13, // cpu_idle
			pb(nil).int(1, 1).int(2, 2)))
	tr = append(tr, packet(pb(nil).bytes(pfPacketFtrace, b1))...)
	cs := pb(nil).str(csInternTable, "c").str(csInternTable, "b").str(csInternTable, "d").
		packed(csSwitchTimestamp, 2000, 500).packed(csSwitchPrevState, 256, 0).
		packed(csSwitchNextPid, 12, 11).packed(csSwitchNextPrio, 120, 120).
		packed(csSwitchNextComm, 0, 1).
		packed(csWakingTimestamp, 2100).packed(csWakingPid, 13).packed(csWakingTargetCPU, 1).
		packed(csWakingPrio, 110).packed(csWakingComm, 2).packed(csWakingFlags, 1)
	b2 := pb(nil).varint(pfBundleCPU, 2).varint(pfBundleLost, 1).bytes(pfBundleCompact, cs)
	tr = append(tr, packet(pb(nil).bytes(pfPacketFtrace, b2))...)

	r, err := NewReader(bytes.NewReader(tr), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Format() != FormatPerfetto || r.Era() != EraReport {
		t.Errorf("format %v era %v", r.Format(), r.Era())
	}
	var got []Event
	for e, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	want := []Event{
		ev(KindSwitch, 1000, 2, 10, func(e *Event) {
			e.Task, e.Next = Task{10, "a", 120}, Task{11, "b", 120}
			e.RawState, e.PrevState = 1, StateSleeping
		}),
		ev(KindWaking, 1500, 2, 11, func(e *Event) { e.Task, e.TargetCPU = Task{12, "c", 120}, 3 }),
		ev(KindWakeup, 1600, 2, 11, func(e *Event) { e.Task, e.TargetCPU = Task{12, "c", 120}, 2 }),
		ev(KindWakeupNew, 1700, 2, 11, func(e *Event) { e.Task, e.TargetCPU = Task{20, "n", 120}, 1 }),
		ev(KindMigrateTask, 1800, 2, 11, func(e *Event) {
			e.Task, e.OrigCPU, e.TargetCPU = Task{12, "c", 120}, 3, 2
		}),
		ev(KindProcessFork, 1810, 2, 11, func(e *Event) { e.Task, e.Next = Task{11, "b", -1}, Task{20, "n", -1} }),
		ev(KindNewTask, 1820, 2, 11, func(e *Event) { e.Task = Task{20, "n", -1} }),
		ev(KindProcessExec, 1830, 2, 20, func(e *Event) { e.Task.Pid, e.Filename, e.OldPid = 20, "/bin/true", 20 }),
		ev(KindProcessExit, 1840, 2, 20, func(e *Event) { e.Task = Task{20, "true", 120} }),
		ev(KindProcessFree, 1850, 2, 0, func(e *Event) { e.Task = Task{20, "true", 120} }),
		ev(KindPiSetprio, 1855, 2, 0, func(e *Event) { e.Task, e.OldPrio = Task{11, "b", 98}, 120 }),
		ev(KindLost, 2000, 2, -1, nil),
		ev(KindSwitch, 2000, 2, 11, func(e *Event) { // prev = the last next on CPU 2
			e.Task, e.Next = Task{11, "b", 120}, Task{12, "c", 120}
			e.RawState, e.PrevState = 256, StatePreempted
		}),
		ev(KindWaking, 2100, 2, -1, func(e *Event) { e.Task, e.TargetCPU = Task{13, "d", 110}, 1 }),
		ev(KindSwitch, 2500, 2, 12, func(e *Event) {
			e.Task, e.Next = Task{12, "c", 120}, Task{11, "b", 120}
		}),
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("event %d:\n got  %+v\n want %+v", i, got[i], want[i])
		}
	}
	if st := r.Stats(); st.Other != 1 || r.Kernel() != "6.6.30-android15-8" {
		t.Errorf("other %d kernel %q", st.Other, r.Kernel())
	}
}

// TestPerfettoLegacyEra: a 4.9 kernel's system_info selects the pre-4.14
// decoding, so 4096 is R+ and 64 is x.
func TestPerfettoLegacyEra(t *testing.T) {
	var tr pb
	tr = append(tr, systemInfoPacket("4.9.112-perf")...)
	b := pb(nil).varint(pfBundleCPU, 0).
		bytes(pfBundleEvent, switchEvent(1, 1, "a", 1, 120, 4096, "b", 2, 120)).
		bytes(pfBundleEvent, switchEvent(2, 2, "b", 2, 120, 64, "a", 1, 120))
	tr = append(tr, packet(pb(nil).bytes(pfPacketFtrace, b))...)
	evs, _, err := ReadAll(bytes.NewReader(tr), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].PrevState != StatePreempted || evs[1].PrevState != StateDying {
		t.Errorf("events %+v, want R+ then x", evs)
	}
}

// TestPerfettoMalformed: a bad packet is an error naming its offset in
// strict mode, and is skipped with the packets around it kept in lenient
// mode; a broken top-level framing is an error in both.
func TestPerfettoMalformed(t *testing.T) {
	good := packet(pb(nil).bytes(pfPacketFtrace, pb(nil).varint(pfBundleCPU, 1).
		bytes(pfBundleEvent, switchEvent(5, 1, "a", 1, 120, 0, "b", 2, 120))))
	bad := packet(pb(nil).bytes(pfPacketFtrace, pb(nil).varint(pfBundleCPU, 1).
		bytes(pfBundleCompact, pb(nil).packed(csSwitchTimestamp, 1, 2).packed(csSwitchNextPid, 3))))
	var tr pb
	tr = append(tr, good...)
	tr = append(tr, bad...)
	tr = append(tr, good...)
	_, _, err := ReadAll(bytes.NewReader(tr), Options{Name: "x.pftrace"})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != int64(len(good)) {
		t.Fatalf("strict: %v, want a SyntaxError at offset %d", err, len(good))
	}
	if want := "x.pftrace: offset 30: compact_sched: switch arrays of different lengths"; err.Error() != want {
		t.Errorf("strict: %q, want %q", err, want)
	}
	evs, st, err := ReadAll(bytes.NewReader(tr), Options{Lenient: true})
	if err != nil || len(evs) != 2 || st.Skipped != 1 {
		t.Errorf("lenient: %d events, %d skipped, err %v; want 2, 1, nil", len(evs), st.Skipped, err)
	}
	cut := tr[:len(tr)-3]
	if _, _, err := ReadAll(bytes.NewReader(cut), Options{Lenient: true}); !errors.Is(err, ErrSyntax) {
		t.Errorf("truncated trace: %v, want ErrSyntax", err)
	}
}

// TestPerfettoCompressedPackets: a compressed_packets field (a zlib stream
// of a Trace message) is inflated and its packets read; zstd-compressed
// packets are refused with ErrUnsupported.
func TestPerfettoCompressedPackets(t *testing.T) {
	var inner pb
	inner = append(inner, systemInfoPacket("4.9.0")...)
	inner = append(inner, packet(pb(nil).bytes(pfPacketFtrace, pb(nil).varint(pfBundleCPU, 3).
		bytes(pfBundleEvent, switchEvent(7, 1, "a", 1, 120, 4096, "b", 2, 120))))...)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(inner)
	zw.Close()
	tr := packet(pb(nil).bytes(pfPacketCompressed, z.Bytes()))
	evs, _, err := ReadAll(bytes.NewReader(tr), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].CPU != 3 || evs[0].Next.Comm != "b" || evs[0].PrevState != StatePreempted {
		t.Errorf("events %+v, want the one switch, R+ in the 4.9 encoding", evs)
	}
	tr = packet(pb(nil).bytes(pfPacketZstd, []byte{0x28, 0xb5, 0x2f, 0xfd}))
	if _, _, err := ReadAll(bytes.NewReader(tr), Options{Lenient: true}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("zstd packets: %v, want ErrUnsupported", err)
	}
}
