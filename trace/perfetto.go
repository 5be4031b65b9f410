package trace

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the Perfetto protos read here (protos/perfetto/trace:
// trace.proto, trace_packet.proto, system_info.proto,
// ftrace/ftrace_event_bundle.proto, ftrace/ftrace_event.proto,
// ftrace/sched.proto, ftrace/task.proto). Perfetto never renumbers a field.
// TRACE-REPLAY.md lists most; those of task_newtask (pid 1, comm 2),
// sched_process_free (comm 1, pid 2, prio 3) and sched_pi_setprio (comm 1,
// newprio 2, oldprio 3, pid 4) are from Perfetto's sched.proto and
// task.proto, and the first two are checked against capture 5.
const (
	pfTracePacket = 1 // Trace.packet

	pfPacketFtrace     = 1   // TracePacket.ftrace_events
	pfPacketSystemInfo = 45  // TracePacket.system_info
	pfPacketCompressed = 50  // TracePacket.compressed_packets (zlib)
	pfPacketZstd       = 133 // TracePacket.zstd_compressed_packets
	pfSystemInfoUts    = 1   // SystemInfo.utsname
	pfUtsRelease       = 3   // Utsname.release

	pfBundleCPU     = 1 // FtraceEventBundle.cpu
	pfBundleEvent   = 2 // .event
	pfBundleLost    = 3 // .lost_events (overwrite_count in old protos)
	pfBundleCompact = 4 // .compact_sched

	pfEventTimestamp = 1 // FtraceEvent.timestamp
	pfEventPid       = 2 // FtraceEvent.pid
)

// perfettoKinds maps FtraceEvent's payload field numbers to kinds.
var perfettoKinds = map[protowire.Number]Kind{
	4:   KindSwitch,
	17:  KindWakeup,
	20:  KindWaking,
	114: KindWakeupNew,
	235: KindNewTask,
	237: KindProcessExec,
	238: KindProcessExit,
	239: KindProcessFork,
	240: KindProcessFree,
	353: KindPiSetprio,
	491: KindMigrateTask,
}

// CompactSched fields: parallel packed arrays, timestamps as deltas.
const (
	csSwitchTimestamp = 1
	csSwitchPrevState = 2
	csSwitchNextPid   = 3
	csSwitchNextPrio  = 4
	csInternTable     = 5
	csSwitchNextComm  = 6
	csWakingTimestamp = 7
	csWakingPid       = 8
	csWakingTargetCPU = 9
	csWakingPrio      = 10
	csWakingComm      = 11
	csWakingFlags     = 12
	csNumFields       = 13
)

// compactSched holds one bundle's compact arrays, reused across bundles.
type compactSched struct {
	col    [csNumFields][]uint64
	intern []string
}

// maxPacket bounds one TracePacket; Perfetto's own limit is far smaller.
const maxPacket = 64 << 20

// msg holds the scalar and bytes fields 1..7 of one small message.
type msg struct {
	v   [8]uint64
	s   [8][]byte
	has uint16
}

func (m *msg) i32(n int) int32 {
	if m.has&(1<<n) == 0 {
		return -1
	}
	return int32(int64(m.v[n]))
}

func decodeMsg(b []byte, m *msg) bool {
	*m = msg{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch {
		case typ == protowire.VarintType && num < 8:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return false
			}
			m.v[num], m.has = v, m.has|1<<num
			b = b[n:]
		case typ == protowire.BytesType && num < 8:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			m.s[num], m.has = v, m.has|1<<num
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return false
			}
			b = b[n:]
		}
	}
	return true
}

func (r *Reader) readUvarint() (uint64, error) {
	var v uint64
	for i := 0; ; i++ {
		c, err := r.br.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		r.off++
		if i == 9 && c > 1 {
			return 0, errVarint
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
}

var errVarint = fmt.Errorf("varint overflows 64 bits")

// nextPerfetto returns the next event of a Perfetto trace: it reads one
// TracePacket at a time and queues the events of its bundle.
func (r *Reader) nextPerfetto() (Event, error) {
	for {
		if r.next < len(r.pending) {
			ev := r.pending[r.next]
			r.next++
			return ev, nil
		}
		r.pending, r.next = r.pending[:0], 0
		start := r.off
		fatal := func(reason string) error {
			return &SyntaxError{File: r.name, Offset: start, Reason: reason}
		}
		tag, err := r.readUvarint()
		if err == io.EOF {
			return Event{}, io.EOF
		}
		if err != nil {
			return Event{}, fatal(fmt.Sprintf("top-level field tag: %v", err))
		}
		num, typ := protowire.DecodeTag(tag)
		if num < protowire.MinValidNumber {
			return Event{}, fatal("top-level field number 0: not a Perfetto trace")
		}
		switch typ {
		case protowire.VarintType:
			if _, err := r.readUvarint(); err != nil {
				return Event{}, fatal(fmt.Sprintf("top-level varint: %v", err))
			}
			continue
		case protowire.Fixed32Type, protowire.Fixed64Type:
			n := 4
			if typ == protowire.Fixed64Type {
				n = 8
			}
			if d, err := r.br.Discard(n); err != nil {
				return Event{}, fatal(fmt.Sprintf("top-level fixed field: %v", err))
			} else {
				r.off += int64(d)
			}
			continue
		case protowire.BytesType:
		default:
			return Event{}, fatal(fmt.Sprintf("top-level field %d has wire type %d: not a Perfetto trace", num, typ))
		}
		size, err := r.readUvarint()
		if err != nil {
			return Event{}, fatal(fmt.Sprintf("packet length: %v", err))
		}
		if size > maxPacket {
			return Event{}, fatal(fmt.Sprintf("packet of %d bytes (limit %d)", size, maxPacket))
		}
		// Read in steps so that a corrupt length cannot allocate more
		// than the input holds.
		r.pkt = r.pkt[:0]
		for uint64(len(r.pkt)) < size {
			step := min(int(size)-len(r.pkt), 1<<20)
			r.pkt = slices.Grow(r.pkt, step)
			n, err := io.ReadFull(r.br, r.pkt[len(r.pkt):len(r.pkt)+step])
			r.pkt = r.pkt[:len(r.pkt)+n]
			r.off += int64(n)
			if err != nil {
				return Event{}, fatal(fmt.Sprintf("packet of %d bytes cut short after %d: %v", size, len(r.pkt), err))
			}
		}
		if num != pfTracePacket {
			continue
		}
		reason, err := r.packet(r.pkt, 0)
		if err != nil {
			return Event{}, fmt.Errorf("%s: offset %d: %w", r.name, start, err)
		}
		if reason != "" {
			r.pending = r.pending[:0]
			if e := r.skip(&SyntaxError{File: r.name, Offset: start, Reason: reason}); e != nil {
				return Event{}, e
			}
		}
	}
}

// packet decodes one TracePacket, queueing its events. A packet of
// zlib-compressed packets is unpacked and its packets decoded in turn;
// zstd-compressed ones are refused (errZstd).
func (r *Reader) packet(b []byte, depth int) (reason string, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "TracePacket: bad field tag", nil
		}
		b = b[n:]
		if typ == protowire.BytesType {
			switch num {
			case pfPacketFtrace, pfPacketSystemInfo, pfPacketCompressed:
				v, n := protowire.ConsumeBytes(b)
				if n < 0 {
					return "TracePacket: bad field length", nil
				}
				b = b[n:]
				switch {
				case num == pfPacketSystemInfo:
					r.systemInfo(v)
				case num == pfPacketFtrace:
					if reason := r.bundle(v); reason != "" {
						return reason, nil
					}
				case depth > 0:
					return "compressed_packets inside compressed_packets", nil
				default:
					if reason, err := r.compressed(v); reason != "" || err != nil {
						return reason, err
					}
				}
				continue
			case pfPacketZstd:
				return "", errZstd
			}
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return fmt.Sprintf("TracePacket: bad field %d", num), nil
		}
		b = b[n:]
	}
	return "", nil
}

var errZstd = fmt.Errorf("%w: zstd-compressed Perfetto packets (convert with `traceconv decompress_packets`)", ErrUnsupported)

// maxInflated bounds one compressed_packets field once inflated.
const maxInflated = 256 << 20

// compressed inflates a compressed_packets field (a zlib stream holding a
// Trace message) and decodes its packets.
func (r *Reader) compressed(z []byte) (string, error) {
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return fmt.Sprintf("compressed_packets: %v", err), nil
	}
	buf := bytes.NewBuffer(r.inflated[:0])
	_, err = buf.ReadFrom(io.LimitReader(zr, maxInflated+1))
	r.inflated = buf.Bytes()
	if err != nil {
		return fmt.Sprintf("compressed_packets: %v", err), nil
	}
	if len(r.inflated) > maxInflated {
		return fmt.Sprintf("compressed_packets inflate to more than %d bytes", maxInflated), nil
	}
	for b := r.inflated; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "compressed_packets: bad field tag", nil
		}
		b = b[n:]
		if num == pfTracePacket && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return "compressed_packets: bad packet length", nil
			}
			b = b[n:]
			if reason, err := r.packet(v, 1); reason != "" || err != nil {
				return reason, err
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return fmt.Sprintf("compressed_packets: bad field %d", num), nil
		}
		b = b[n:]
	}
	return "", nil
}

// systemRelease returns utsname.release of a SystemInfo message.
func systemRelease(b []byte) ([]byte, bool) {
	var m msg
	if !decodeMsg(b, &m) || m.has&(1<<pfSystemInfoUts) == 0 {
		return nil, false
	}
	var u msg
	if !decodeMsg(m.s[pfSystemInfoUts], &u) || u.has&(1<<pfUtsRelease) == 0 {
		return nil, false
	}
	return u.s[pfUtsRelease], true
}

func (r *Reader) systemInfo(b []byte) {
	rel, ok := systemRelease(b)
	if !ok || string(rel) == r.kernel {
		return
	}
	r.kernel = string(rel)
	if r.opt.Era == EraAuto {
		if e, ok := EraOf(r.kernel); ok {
			r.era = e
		}
	}
}

// perfettoEra finds a system_info packet among the complete packets at the
// start of a trace and returns the era of its kernel release (EraReport if
// there is none).
func perfettoEra(head []byte) Era {
	b := head
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		b = b[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				break
			}
			b = b[n:]
			continue
		}
		pkt, n := protowire.ConsumeBytes(b)
		if n < 0 {
			break
		}
		b = b[n:]
		for len(pkt) > 0 {
			pn, pt, m := protowire.ConsumeTag(pkt)
			if m < 0 {
				break
			}
			pkt = pkt[m:]
			if pn == pfPacketSystemInfo && pt == protowire.BytesType {
				v, _ := protowire.ConsumeBytes(pkt)
				if rel, ok := systemRelease(v); ok {
					if e, ok := EraOf(string(rel)); ok {
						return e
					}
				}
			}
			m = protowire.ConsumeFieldValue(pn, pt, pkt)
			if m < 0 {
				break
			}
			pkt = pkt[m:]
		}
	}
	return EraReport
}

// bundle decodes an FtraceEventBundle: the typed events, then the compact
// arrays, merged in time order; a loss mark goes first.
func (r *Reader) bundle(b []byte) string {
	cpu := int32(-1)
	var lost uint64
	var compact []byte
	hasCompact := false
	// First pass: the bundle's scalars, which may follow its events.
	for p := b; len(p) > 0; {
		num, typ, n := protowire.ConsumeTag(p)
		if n < 0 {
			return "FtraceEventBundle: bad field tag"
		}
		p = p[n:]
		switch {
		case num == pfBundleCPU && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(p)
			if n < 0 {
				return "FtraceEventBundle: bad cpu"
			}
			if v > 1<<20 {
				return fmt.Sprintf("FtraceEventBundle: cpu %d out of range", v)
			}
			cpu = int32(v)
			p = p[n:]
		case num == pfBundleLost && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(p)
			if n < 0 {
				return "FtraceEventBundle: bad lost_events"
			}
			lost = v
			p = p[n:]
		case num == pfBundleCompact && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(p)
			if n < 0 {
				return "FtraceEventBundle: bad compact_sched"
			}
			compact, hasCompact = v, true
			p = p[n:]
		default:
			n = protowire.ConsumeFieldValue(num, typ, p)
			if n < 0 {
				return fmt.Sprintf("FtraceEventBundle: bad field %d", num)
			}
			p = p[n:]
		}
	}
	first := len(r.pending)
	typed := false
	for p := b; len(p) > 0; {
		num, typ, n := protowire.ConsumeTag(p)
		p = p[n:]
		if num == pfBundleEvent && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(p)
			if n < 0 {
				return "FtraceEventBundle: bad event length"
			}
			p = p[n:]
			if reason := r.ftraceEvent(v, cpu); reason != "" {
				return reason
			}
			typed = true
			continue
		}
		p = p[protowire.ConsumeFieldValue(num, typ, p):]
	}
	if hasCompact {
		if reason := r.compact(compact, cpu); reason != "" {
			return reason
		}
		if typed {
			slices.SortStableFunc(r.pending[first:], func(a, b Event) int {
				switch {
				case a.Time < b.Time:
					return -1
				case a.Time > b.Time:
					return 1
				}
				return 0
			})
		}
	}
	if lost != 0 {
		ev := blank(KindLost)
		ev.CPU = cpu
		if len(r.pending) > first {
			ev.Time = r.pending[first].Time
		}
		r.pending = slices.Insert(r.pending, first, ev)
	}
	return ""
}

// ftraceEvent decodes one FtraceEvent and queues it if its kind is
// carried.
func (r *Reader) ftraceEvent(b []byte, cpu int32) string {
	var ts, pid uint64
	var payload []byte
	kind := KindInvalid
	other := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "FtraceEvent: bad field tag"
		}
		b = b[n:]
		switch {
		case num == pfEventTimestamp && typ == protowire.VarintType:
			ts, n = protowire.ConsumeVarint(b)
		case num == pfEventPid && typ == protowire.VarintType:
			pid, n = protowire.ConsumeVarint(b)
		case typ == protowire.BytesType:
			var v []byte
			v, n = protowire.ConsumeBytes(b)
			if k, ok := perfettoKinds[num]; ok {
				kind, payload = k, v
			} else {
				other = true
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Sprintf("FtraceEvent: bad field %d", num)
		}
		b = b[n:]
	}
	if kind == KindInvalid {
		if other {
			r.stats.Other++
		}
		return ""
	}
	var m msg
	if !decodeMsg(payload, &m) {
		return fmt.Sprintf("FtraceEvent: malformed %s", kind)
	}
	ev := blank(kind)
	ev.Time, ev.CPU, ev.Ctx = int64(ts), cpu, int32(int64(pid))
	str := func(n int) string { return r.intern(m.s[n]) }
	switch kind {
	case KindSwitch:
		ev.Task = Task{Comm: str(1), Pid: m.i32(2), Prio: m.i32(3)}
		ev.RawState = int64(m.v[4])
		ev.PrevState = DecodeState(ev.RawState, r.era)
		ev.Next = Task{Comm: str(5), Pid: m.i32(6), Prio: m.i32(7)}
		r.lastNext[cpu] = ev.Next
	case KindWaking, KindWakeup, KindWakeupNew:
		ev.Task = Task{Comm: str(1), Pid: m.i32(2), Prio: m.i32(3)}
		ev.TargetCPU = m.i32(5)
	case KindMigrateTask:
		ev.Task = Task{Comm: str(1), Pid: m.i32(2), Prio: m.i32(3)}
		ev.OrigCPU, ev.TargetCPU = m.i32(4), m.i32(5)
	case KindProcessFork:
		ev.Task = Task{Comm: str(1), Pid: m.i32(2), Prio: -1}
		ev.Next = Task{Comm: str(3), Pid: m.i32(4), Prio: -1}
	case KindProcessExec:
		ev.Filename = str(1)
		ev.Task.Pid = m.i32(2)
		ev.OldPid = m.i32(3)
	case KindProcessExit:
		ev.Task = Task{Comm: str(1), Pid: m.i32(2), Prio: m.i32(4)}
	case KindProcessFree:
		ev.Task = Task{Comm: str(1), Pid: m.i32(2), Prio: m.i32(3)}
	case KindNewTask:
		ev.Task = Task{Pid: m.i32(1), Comm: str(2), Prio: -1}
	case KindPiSetprio:
		ev.Task = Task{Comm: str(1), Pid: m.i32(4), Prio: m.i32(2)}
		ev.OldPrio = m.i32(3)
	}
	r.pending = append(r.pending, ev)
	return ""
}

// compact decodes a CompactSched message: switches whose prev task is the
// previous switch's next on the same CPU, and wakings.
func (r *Reader) compact(b []byte, cpu int32) string {
	cs := &r.cs
	for i := range cs.col {
		cs.col[i] = cs.col[i][:0]
	}
	cs.intern = cs.intern[:0]
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "compact_sched: bad field tag"
		}
		b = b[n:]
		switch {
		case num == csInternTable && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return "compact_sched: bad intern_table entry"
			}
			cs.intern = append(cs.intern, r.intern(v))
			b = b[n:]
		case num > 0 && num < csNumFields && typ == protowire.BytesType: // packed
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return fmt.Sprintf("compact_sched: bad packed field %d", num)
			}
			b = b[n:]
			for len(v) > 0 {
				x, m := protowire.ConsumeVarint(v)
				if m < 0 {
					return fmt.Sprintf("compact_sched: bad varint in field %d", num)
				}
				cs.col[num] = append(cs.col[num], x)
				v = v[m:]
			}
		case num > 0 && num < csNumFields && typ == protowire.VarintType: // unpacked
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return fmt.Sprintf("compact_sched: bad varint in field %d", num)
			}
			cs.col[num] = append(cs.col[num], x)
			b = b[n:]
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return fmt.Sprintf("compact_sched: bad field %d", num)
			}
			b = b[n:]
		}
	}
	c := &cs.col
	ns := len(c[csSwitchTimestamp])
	if len(c[csSwitchPrevState]) != ns || len(c[csSwitchNextPid]) != ns ||
		len(c[csSwitchNextPrio]) != ns || len(c[csSwitchNextComm]) != ns {
		return "compact_sched: switch arrays of different lengths"
	}
	nw := len(c[csWakingTimestamp])
	if len(c[csWakingPid]) != nw || len(c[csWakingTargetCPU]) != nw ||
		len(c[csWakingPrio]) != nw || len(c[csWakingComm]) != nw {
		return "compact_sched: waking arrays of different lengths"
	}
	comm := func(i uint64) (string, bool) {
		if i >= uint64(len(cs.intern)) {
			return "", false
		}
		return cs.intern[i], true
	}
	var t uint64
	for i := 0; i < ns; i++ {
		t += c[csSwitchTimestamp][i]
		name, ok := comm(c[csSwitchNextComm][i])
		if !ok {
			return fmt.Sprintf("compact_sched: switch %d: comm index %d outside the intern table of %d", i, c[csSwitchNextComm][i], len(cs.intern))
		}
		next := Task{Pid: int32(int64(c[csSwitchNextPid][i])), Comm: name, Prio: int32(int64(c[csSwitchNextPrio][i]))}
		prev, ok := r.lastNext[cpu]
		if !ok {
			prev = Task{Pid: -1, Prio: -1}
		}
		ev := blank(KindSwitch)
		ev.Time, ev.CPU, ev.Ctx = int64(t), cpu, prev.Pid
		ev.Task, ev.Next = prev, next
		ev.RawState = int64(c[csSwitchPrevState][i])
		ev.PrevState = DecodeState(ev.RawState, r.era)
		r.lastNext[cpu] = next
		r.pending = append(r.pending, ev)
	}
	t = 0
	for i := 0; i < nw; i++ {
		t += c[csWakingTimestamp][i]
		name, ok := comm(c[csWakingComm][i])
		if !ok {
			return fmt.Sprintf("compact_sched: waking %d: comm index %d outside the intern table of %d", i, c[csWakingComm][i], len(cs.intern))
		}
		ev := blank(KindWaking)
		ev.Time, ev.CPU = int64(t), cpu
		ev.Task = Task{Pid: int32(int64(c[csWakingPid][i])), Comm: name, Prio: int32(int64(c[csWakingPrio][i]))}
		ev.TargetCPU = int32(int64(c[csWakingTargetCPU][i]))
		r.pending = append(r.pending, ev)
	}
	if ns > 0 && nw > 0 {
		// Switches and wakings are two sorted runs; merge them.
		slices.SortStableFunc(r.pending[len(r.pending)-ns-nw:], func(a, b Event) int {
			switch {
			case a.Time < b.Time:
				return -1
			case a.Time > b.Time:
				return 1
			}
			return 0
		})
	}
	return ""
}
