package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// The ftrace family of text formats shares one line grammar:
//
//	tracefs trace:   COMM-PID (TGID) [CPU] FLAGS SECS.USECS: EVENT: BODY
//	trace-cmd:       COMM-PID [CPU] SECS.USECS: EVENT: BODY    (FLAGS with -l is not read)
//	perf script:     COMM TID [CPU] SECS.USECS: sched:EVENT: BODY
//
// where (TGID) and FLAGS are optional, TIME may be an integer (counter
// clock) and BODY is the kernel's key=value text or, for sched_switch and
// the wakeups, the libtraceevent sched plugin's form. One parser reads
// them all, line by line; systrace HTML feeds it the lines of its
// trace-data blocks.

// kvSpan is one key=value pair of an event body, as slices of the line.
type kvSpan struct{ key, val []byte }

// lineHead is a parsed line up to the event body.
type lineHead struct {
	comm  []byte
	pid   int32
	cpu   int32
	perf  bool // COMM TID, not COMM-PID
	time  int64
	event []byte
	body  []byte
}

// readLine returns the next line without its end-of-line bytes; a final
// line without a newline is returned too. The slice is valid until the
// next call.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			if len(r.long) < maxLine {
				r.long = append(r.long, line...)
			}
		}
		line = r.long
	}
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s:%d: %w", r.name, r.line+1, err)
	}
	if len(line) == 0 {
		return nil, io.EOF
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

var (
	scriptOpen  = []byte(`<script class="trace-data"`)
	scriptClose = []byte(`</script>`)
)

// nextText returns the next event of a text trace.
func (r *Reader) nextText() (Event, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return Event{}, err
		}
		r.line++
		r.stats.Lines++
		if len(line) >= maxLine {
			if e := r.skip(&SyntaxError{File: r.name, Line: r.line, Reason: fmt.Sprintf("line longer than %d bytes", maxLine)}); e != nil {
				return Event{}, e
			}
			continue
		}
		if r.systrace {
			var ok bool
			if line, ok = r.systraceLine(line); !ok {
				continue
			}
		}
		ev, ok, reason := r.parseLine(line)
		if reason != "" {
			if e := r.skip(&SyntaxError{File: r.name, Line: r.line, Reason: reason}); e != nil {
				return Event{}, e
			}
			continue
		}
		if ok {
			return ev, nil
		}
	}
}

// systraceLine keeps the part of an HTML line that belongs to a trace-data
// block holding ftrace text; ok is false for everything else (HTML, the
// JSON blocks of systrace's other agents).
func (r *Reader) systraceLine(line []byte) ([]byte, bool) {
	if !r.inBlock {
		i := bytes.Index(line, scriptOpen)
		if i < 0 {
			return nil, false
		}
		j := bytes.IndexByte(line[i:], '>')
		if j < 0 {
			return nil, false
		}
		r.inBlock, r.skipRest = true, false
		r.blockStart = true
		line = line[i+j+1:]
	}
	if i := bytes.Index(line, scriptClose); i >= 0 {
		line = line[:i]
		r.inBlock = false
	}
	if r.blockStart {
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			return nil, false
		}
		r.blockStart = false
		if t[0] == '{' || t[0] == '[' {
			r.skipRest = true
		}
	}
	if r.skipRest {
		return nil, false
	}
	return line, true
}

// parseLine parses one text line. ok reports an event to return; a
// non-empty reason says why the line is malformed. Comment, header, blank
// and lines of other events give neither.
func (r *Reader) parseLine(line []byte) (ev Event, ok bool, reason string) {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) == 0, t[0] == '#',
		bytes.HasPrefix(t, []byte("version = ")),
		bytes.HasPrefix(t, []byte("cpus=")),
		bytes.HasPrefix(t, []byte("TRACE:")):
		return ev, false, ""
	case bytes.HasPrefix(t, []byte("CPU:")):
		return r.parseLost(t)
	case bytes.HasPrefix(t, []byte("CPU ")) && bytes.HasSuffix(t, []byte(" is empty")):
		return ev, false, ""
	}
	h, reason := parseHead(line)
	if reason != "" {
		return ev, false, reason
	}
	r.lastTime = h.time
	kind, known := kindByName[string(h.event)]
	if !known && string(h.event) == "hrtimer_expire_entry" && isTickTimer(h.body) {
		ev = blank(KindTick)
		ev.Time, ev.CPU, ev.Ctx = h.time, h.cpu, h.pid
		return ev, true, ""
	}
	if !known {
		r.stats.Other++
		return ev, false, ""
	}
	ev = blank(kind)
	ev.Time, ev.CPU, ev.Ctx = h.time, h.cpu, h.pid
	if reason = r.parseBody(&ev, h.body); reason != "" {
		return Event{}, false, fmt.Sprintf("%s: %s", kind, reason)
	}
	return ev, true, ""
}

// isTickTimer reports whether an hrtimer_expire_entry body is the expiry of
// the scheduler tick's timer: tick_nohz_handler (from 6.9) or
// tick_sched_timer (before), as "function=NAME" or the raw symbol address
// followed by the name in trace-cmd's output.
func isTickTimer(body []byte) bool {
	i := bytes.Index(body, []byte("function="))
	if i < 0 {
		return false
	}
	f := body[i+len("function="):]
	if j := bytes.IndexByte(f, ' '); j >= 0 {
		f = f[:j]
	}
	return bytes.Equal(f, []byte("tick_nohz_handler")) || bytes.Equal(f, []byte("tick_sched_timer"))
}

// parseLost reads the loss marks: "CPU:N [LOST M EVENTS]" (tracefs) and
// "CPU:N [M EVENTS DROPPED]" (trace-cmd), each also without the count.
func (r *Reader) parseLost(t []byte) (Event, bool, string) {
	const bad = "CPU: line is not a [LOST M EVENTS] or [M EVENTS DROPPED] mark"
	rest := t[len("CPU:"):]
	n := digits(rest)
	cpu, ok := atoi32(rest[:n])
	if !ok {
		return Event{}, false, bad
	}
	rest = bytes.TrimSpace(rest[n:])
	if len(rest) < 2 || rest[0] != '[' || rest[len(rest)-1] != ']' {
		return Event{}, false, bad
	}
	words := bytes.Fields(rest[1 : len(rest)-1])
	var lost int64
	var count []byte
	switch {
	case len(words) == 2 && string(words[0]) == "LOST" && string(words[1]) == "EVENTS":
	case len(words) == 3 && string(words[0]) == "LOST" && string(words[2]) == "EVENTS":
		count = words[1]
	case len(words) == 2 && string(words[0]) == "EVENTS" && string(words[1]) == "DROPPED":
	case len(words) == 3 && string(words[1]) == "EVENTS" && string(words[2]) == "DROPPED":
		count = words[0]
	default:
		return Event{}, false, bad
	}
	if count != nil {
		v, ok := atoi64(count)
		if !ok || v < 0 {
			return Event{}, false, bad
		}
		lost = v
	}
	ev := blank(KindLost)
	ev.CPU, ev.Time, ev.Lost = cpu, r.lastTime, lost
	return ev, true, ""
}

// parseHead splits an event line into its columns. reason is non-empty
// when the line is not an event line.
func parseHead(line []byte) (h lineHead, reason string) {
	// The CPU column: the first "[DIGITS]" after a space.
	b, e := -1, -1
	for i := 1; i < len(line); i++ {
		if line[i] != '[' || line[i-1] != ' ' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(line) && line[j] == ']' {
			b, e = i, j
			break
		}
	}
	if b < 0 {
		if h, ok := parseLatencyHead(line); ok {
			return h, ""
		}
		return h, "no [CPU] column"
	}
	cpu, ok := atoi32(line[b+1 : e])
	if !ok {
		return h, "CPU number out of range"
	}
	h.cpu = cpu
	task := bytes.TrimRight(line[:b], " ")
	if len(task) > 0 && task[len(task)-1] == ')' { // (TGID) column
		k := bytes.LastIndexByte(task, '(')
		if k < 0 {
			return h, "unbalanced (TGID) column"
		}
		task = bytes.TrimRight(task[:k], " ")
	}
	sp := bytes.LastIndexByte(task, ' ')
	if last := task[sp+1:]; sp >= 0 && isTid(last) {
		// perf script: COMM TID or COMM PID/TID.
		if k := bytes.IndexByte(last, '/'); k >= 0 {
			last = last[k+1:]
		}
		if h.pid, ok = atoi32(last); !ok {
			return h, "TID out of range"
		}
		h.comm = bytes.TrimLeft(task[:sp], " ")
		h.perf = true
	} else {
		d := bytes.LastIndexByte(task, '-')
		if d < 0 || d == len(task)-1 {
			return h, "no COMM-PID before [CPU]"
		}
		if h.pid, ok = atoi32(task[d+1:]); !ok {
			return h, "no COMM-PID before [CPU]"
		}
		h.comm = bytes.TrimLeft(task[:d], " ")
	}
	rest := bytes.TrimLeft(line[e+1:], " ")
	tok, after := cutSpace(rest)
	if len(tok) == 0 {
		return h, "no timestamp after [CPU]"
	}
	if tok[len(tok)-1] != ':' { // latency flags
		tok, after = cutSpace(after)
	}
	if len(tok) < 2 || tok[len(tok)-1] != ':' {
		return h, "no timestamp after [CPU]"
	}
	if h.time, ok = parseTime(tok[:len(tok)-1]); !ok {
		return h, fmt.Sprintf("bad timestamp %q", tok[:len(tok)-1])
	}
	// EVENT: the text up to the first colon followed by a space or the
	// end; a system prefix (perf's "sched:") is dropped.
	c := -1
	for i := 0; i < len(after); i++ {
		if after[i] == ':' && (i+1 == len(after) || after[i+1] == ' ' || after[i+1] == '\t') {
			c = i
			break
		}
	}
	if c <= 0 {
		return h, "no EVENT: after the timestamp"
	}
	name := after[:c]
	if k := bytes.LastIndexByte(name, ':'); k >= 0 {
		name = name[k+1:]
	}
	if len(name) == 0 || bytes.IndexByte(name, ' ') >= 0 {
		return h, "no EVENT: after the timestamp"
	}
	h.event = name
	h.body = bytes.TrimSpace(after[c+1:])
	return h, ""
}

// parseLatencyHead reads the latency layout of trace-cmd report -l:
//
//	trace-cm-6973    2d..3. 259445.106979: sched_switch: BODY
//
// COMM (cut to 8 bytes) -PID, then the CPU number glued to the flags, then
// the timestamp.
func parseLatencyHead(line []byte) (h lineHead, ok bool) {
	t := bytes.TrimLeft(line, " ")
	// COMM-PID ends at the first "-DIGITS " after which come CPU+flags.
	for i := 0; i < len(t); i++ {
		if t[i] != '-' || i == 0 {
			continue
		}
		n := digits(t[i+1:])
		if n == 0 || i+1+n >= len(t) || t[i+1+n] != ' ' {
			continue
		}
		rest := bytes.TrimLeft(t[i+1+n:], " ")
		cf, after := cutSpace(rest)
		c := digits(cf)
		if c == 0 || c == len(cf) || len(cf)-c > 6 {
			continue
		}
		tok, after := cutSpace(after)
		if len(tok) < 2 || tok[len(tok)-1] != ':' {
			continue
		}
		var ok1, ok2, ok3 bool
		h.pid, ok1 = atoi32(t[i+1 : i+1+n])
		h.cpu, ok2 = atoi32(cf[:c])
		h.time, ok3 = parseTime(tok[:len(tok)-1])
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		h.comm = t[:i]
		name, body, found := bytes.Cut(after, []byte(": "))
		if !found {
			name, found = bytes.CutSuffix(bytes.TrimSpace(after), []byte(":"))
		}
		if !found || len(name) == 0 || bytes.IndexByte(name, ' ') >= 0 {
			return h, false
		}
		if k := bytes.LastIndexByte(name, ':'); k >= 0 {
			name = name[k+1:]
		}
		h.event, h.body = name, bytes.TrimSpace(body)
		return h, true
	}
	return h, false
}

// splitHead is parseHead for format detection.
func splitHead(line []byte) (lineHead, bool) {
	h, reason := parseHead(line)
	return h, reason == ""
}

func isTid(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	slash := false
	for i, c := range b {
		if c == '/' && !slash && i > 0 && i < len(b)-1 {
			slash = true
			continue
		}
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func cutSpace(b []byte) (tok, rest []byte) {
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return b, nil
	}
	return b[:i], bytes.TrimLeft(b[i+1:], " ")
}

// parseTime reads SECS.FRACTION (any precision up to ns) as nanoseconds,
// or an integer (counter clocks) as it is.
func parseTime(b []byte) (int64, bool) {
	dot := bytes.IndexByte(b, '.')
	if dot < 0 {
		return atoi64(b)
	}
	secs, frac := b[:dot], b[dot+1:]
	if len(secs) == 0 || len(secs) > 10 || len(frac) == 0 || len(frac) > 9 {
		return 0, false
	}
	s, ok := atoi64(secs)
	if !ok || s < 0 {
		return 0, false
	}
	f, ok := atoi64(frac)
	if !ok || f < 0 || frac[0] == '-' || frac[0] == '+' {
		return 0, false
	}
	for i := len(frac); i < 9; i++ {
		f *= 10
	}
	return s*1e9 + f, true
}

func digits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}

// atoi64 parses an optionally signed decimal that fits in 18 digits.
func atoi64(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// atou64 parses an unsigned decimal up to 20 digits that fits in 64 bits.
func atou64(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

func atoi32(b []byte) (int32, bool) {
	v, ok := atoi64(b)
	if !ok || v < -1<<31 || v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}

// splitKV splits a kernel event body into key=value pairs. A pair starts
// at the body's start or after a space, with a lower-case identifier and
// "="; its value runs to the space before the next pair, so values may
// hold spaces (comm=tmux: server). ok is false when the body does not
// start with a pair or has more pairs than the Reader keeps.
func (r *Reader) splitKV(body []byte) bool {
	r.nkv = 0
	start := -1 // start of the current value
	for i := 0; i <= len(body); i++ {
		if i < len(body) && i > 0 && body[i-1] != ' ' {
			continue
		}
		if i < len(body) {
			j := i
			for j < len(body) && (body[j] >= 'a' && body[j] <= 'z' || body[j] == '_' || j > i && body[j] >= '0' && body[j] <= '9') {
				j++
			}
			if j == i || j >= len(body) || body[j] != '=' {
				if i == 0 {
					return false
				}
				continue
			}
			if start >= 0 {
				r.kv[r.nkv-1].val = bytes.TrimRight(body[start:i], " ")
			}
			if r.nkv == len(r.kv) {
				return false
			}
			r.kv[r.nkv].key = body[i:j]
			r.nkv++
			start = j + 1
			i = j
			continue
		}
		if start >= 0 {
			r.kv[r.nkv-1].val = bytes.TrimRight(body[start:], " ")
		}
	}
	return r.nkv > 0
}

// fieldReader takes the values of named keys out of the last splitKV,
// remembering the first problem.
type fieldReader struct {
	r      *Reader
	reason string
}

func (f *fieldReader) raw(key string) ([]byte, bool) {
	for _, kv := range f.r.kv[:f.r.nkv] {
		if string(kv.key) == key {
			return kv.val, true
		}
	}
	return nil, false
}

func (f *fieldReader) fail(format string, a ...any) {
	if f.reason == "" {
		f.reason = fmt.Sprintf(format, a...)
	}
}

func (f *fieldReader) str(key string) string {
	v, ok := f.raw(key)
	if !ok {
		f.fail("no %s=", key)
		return ""
	}
	return f.r.intern(v)
}

func (f *fieldReader) i32(key string) int32 {
	v, ok := f.raw(key)
	if !ok {
		f.fail("no %s=", key)
		return -1
	}
	n, ok := atoi32(v)
	if !ok {
		f.fail("%s=%q is not a number", key, v)
		return -1
	}
	return n
}

// opt32 is i32 for a key that older or newer kernels leave out.
func (f *fieldReader) opt32(key string) int32 {
	if _, ok := f.raw(key); !ok {
		return -1
	}
	return f.i32(key)
}

// ns reads a nanosecond count printed as "N [ns]".
func (f *fieldReader) ns(key string, required bool) uint64 {
	v, ok := f.raw(key)
	if !ok {
		if required {
			f.fail("no %s=", key)
		}
		return 0
	}
	v = bytes.TrimSpace(bytes.TrimSuffix(v, []byte("[ns]")))
	n, ok := atou64(v)
	if !ok {
		f.fail("%s=%q is not a number of ns", key, v)
	}
	return n
}

// state reads prev_state in either form: letters, or a number decoded in
// the Reader's era.
func (f *fieldReader) state(ev *Event) {
	v, ok := f.raw("prev_state")
	if !ok {
		f.fail("no prev_state=")
		return
	}
	v = bytes.TrimSpace(bytes.TrimSuffix(v, []byte("==>")))
	f.r.setState(ev, v, &f.reason)
}

func (r *Reader) setState(ev *Event, v []byte, reason *string) {
	if len(v) > 0 && v[0] >= '0' && v[0] <= '9' {
		n, ok := atoi64(v)
		if !ok {
			if *reason == "" {
				*reason = fmt.Sprintf("prev_state=%q is not a number", v)
			}
			return
		}
		ev.RawState, ev.PrevState = n, DecodeState(n, r.era)
		return
	}
	s, ok := parseStateLetters(v)
	if !ok {
		if *reason == "" {
			*reason = fmt.Sprintf("prev_state %q is not a task state", v)
		}
		return
	}
	ev.RawState, ev.PrevState = -1, s
}

// parseBody fills ev from an event body; it returns why the body is
// malformed, or "".
func (r *Reader) parseBody(ev *Event, body []byte) string {
	switch ev.Kind {
	case KindSwitch:
		if !bytes.HasPrefix(body, []byte("prev_comm=")) {
			return r.pluginSwitch(ev, body)
		}
	case KindWaking, KindWakeup, KindWakeupNew:
		if !bytes.HasPrefix(body, []byte("comm=")) {
			return r.pluginWakeup(ev, body)
		}
	}
	if !r.splitKV(body) {
		return "body is not key=value pairs"
	}
	f := fieldReader{r: r}
	switch ev.Kind {
	case KindSwitch:
		ev.Task = Task{Comm: f.str("prev_comm"), Pid: f.i32("prev_pid"), Prio: f.i32("prev_prio")}
		f.state(ev)
		ev.Next = Task{Comm: f.str("next_comm"), Pid: f.i32("next_pid"), Prio: f.i32("next_prio")}
	case KindWaking, KindWakeup, KindWakeupNew:
		ev.Task = Task{Comm: f.str("comm"), Pid: f.i32("pid"), Prio: f.i32("prio")}
		ev.TargetCPU = f.opt32("target_cpu")
	case KindMigrateTask:
		ev.Task = Task{Comm: f.str("comm"), Pid: f.i32("pid"), Prio: f.i32("prio")}
		ev.OrigCPU, ev.TargetCPU = f.i32("orig_cpu"), f.i32("dest_cpu")
	case KindProcessFork:
		ev.Task = Task{Comm: f.str("comm"), Pid: f.i32("pid"), Prio: -1}
		ev.Next = Task{Comm: f.str("child_comm"), Pid: f.i32("child_pid"), Prio: -1}
	case KindProcessExec:
		ev.Filename = f.str("filename")
		ev.Task.Pid = f.i32("pid")
		ev.OldPid = f.i32("old_pid")
	case KindProcessExit, KindProcessFree:
		ev.Task = Task{Comm: f.str("comm"), Pid: f.i32("pid"), Prio: f.i32("prio")}
	case KindNewTask:
		ev.Task = Task{Comm: f.str("comm"), Pid: f.i32("pid"), Prio: -1}
	case KindStatRuntime:
		ev.Task = Task{Comm: f.str("comm"), Pid: f.i32("pid"), Prio: -1}
		ev.Runtime = f.ns("runtime", true)
		ev.Vruntime = f.ns("vruntime", false)
	case KindPiSetprio:
		ev.Task = Task{Comm: f.str("comm"), Pid: f.i32("pid"), Prio: f.i32("newprio")}
		ev.OldPrio = f.i32("oldprio")
	case KindStatWait, KindStatSleep, KindStatIOWait, KindStatBlocked:
		ev.Task = Task{Comm: f.str("comm"), Pid: f.i32("pid"), Prio: -1}
		ev.Delay = f.ns("delay", true)
	}
	return f.reason
}

// pluginSwitch reads the sched plugin's sched_switch body:
// PREVCOMM:PREVPID [PREVPRIO] STATE ==> NEXTCOMM:NEXTPID [NEXTPRIO].
func (r *Reader) pluginSwitch(ev *Event, body []byte) string {
	i := bytes.Index(body, []byte(" ==> "))
	if i < 0 {
		return "body is neither prev_comm=… nor COMM:PID [PRIO] STATE ==> COMM:PID [PRIO]"
	}
	left, right := body[:i], bytes.TrimSpace(body[i+5:])
	lb := bytes.LastIndex(left, []byte(" ["))
	if lb < 0 {
		return "no [PRIO] before ==>"
	}
	rb := bytes.IndexByte(left[lb:], ']')
	if rb < 0 {
		return "no [PRIO] before ==>"
	}
	var reason string
	prev, ok := r.taskColon(left[:lb], left[lb+2:lb+rb])
	if !ok {
		return "prev task is not COMM:PID [PRIO]"
	}
	ev.Task = prev
	r.setState(ev, bytes.TrimSpace(left[lb+rb+1:]), &reason)
	if reason != "" {
		return reason
	}
	if len(right) == 0 || right[len(right)-1] != ']' {
		return "next task is not COMM:PID [PRIO]"
	}
	lb = bytes.LastIndex(right, []byte(" ["))
	if lb < 0 {
		return "next task is not COMM:PID [PRIO]"
	}
	next, ok := r.taskColon(right[:lb], right[lb+2:len(right)-1])
	if !ok {
		return "next task is not COMM:PID [PRIO]"
	}
	ev.Next = next
	return ""
}

// pluginWakeup reads the sched plugin's wakeup body:
// COMM:PID [PRIO] CPU:NNN, with " success=N" on old kernels.
func (r *Reader) pluginWakeup(ev *Event, body []byte) string {
	const bad = "body is neither comm=… nor COMM:PID [PRIO] CPU:NNN"
	b := bytes.TrimSpace(body)
	for len(b) > 0 && b[len(b)-1] != ']' {
		sp := bytes.LastIndexByte(b, ' ')
		if sp < 0 {
			return bad
		}
		tok := b[sp+1:]
		switch {
		case bytes.HasPrefix(tok, []byte("CPU:")):
			cpu, ok := atoi32(tok[4:])
			if !ok {
				return bad
			}
			ev.TargetCPU = cpu
		case bytes.HasPrefix(tok, []byte("success=")):
		default:
			return bad
		}
		b = bytes.TrimRight(b[:sp], " ")
	}
	lb := bytes.LastIndex(b, []byte(" ["))
	if lb < 0 {
		return bad
	}
	t, ok := r.taskColon(b[:lb], b[lb+2:len(b)-1])
	if !ok {
		return bad
	}
	ev.Task = t
	return ""
}

// taskColon reads COMM:PID and a priority.
func (r *Reader) taskColon(commPid, prio []byte) (Task, bool) {
	commPid = bytes.TrimSpace(commPid)
	c := bytes.LastIndexByte(commPid, ':')
	if c < 0 {
		return Task{}, false
	}
	pid, ok1 := atoi32(commPid[c+1:])
	pr, ok2 := atoi32(prio)
	if !ok1 || !ok2 {
		return Task{}, false
	}
	return Task{Pid: pid, Comm: r.intern(commPid[:c]), Prio: pr}, true
}
