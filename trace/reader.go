package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
)

// Format names an input format.
type Format uint8

// The formats Reader understands. FormatAuto asks NewReader to detect it.
const (
	FormatAuto     Format = iota
	FormatFtrace          // tracefs trace / trace_pipe text
	FormatTraceCmd        // trace-cmd report text
	FormatPerf            // perf script text
	FormatSystrace        // Android systrace HTML
	FormatPerfetto        // Perfetto protobuf
)

// String names the format.
func (f Format) String() string {
	switch f {
	case FormatAuto:
		return "auto"
	case FormatFtrace:
		return "ftrace"
	case FormatTraceCmd:
		return "trace-cmd"
	case FormatPerf:
		return "perf"
	case FormatSystrace:
		return "systrace"
	case FormatPerfetto:
		return "perfetto"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Errors. Every error a Reader returns for bad input wraps one of these.
var (
	// ErrSyntax: a line or record does not parse. The error is a
	// *SyntaxError naming the place.
	ErrSyntax = errors.New("malformed trace")
	// ErrFormat: the input is none of the formats this package reads.
	ErrFormat = errors.New("unrecognised trace format")
	// ErrUnsupported: a known format this package does not decode
	// (trace.dat, perf.data); the message says how to convert it.
	ErrUnsupported = errors.New("unsupported trace format")
)

// SyntaxError is a malformed line (text formats, Line > 0) or record
// (Perfetto, at byte Offset). Its message is "FILE:LINE: reason" or
// "FILE: offset N: reason".
type SyntaxError struct {
	File   string
	Line   int
	Offset int64
	Reason string
}

// Error formats the place and the reason.
func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Reason)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Options configure a Reader. The zero value detects the format, stops at
// the first malformed line and takes the prev_state era from the trace.
type Options struct {
	Format Format // FormatAuto: detect from the content
	// Lenient skips malformed lines and records (counted in
	// Stats.Skipped) instead of returning an error.
	Lenient bool
	// Era of numeric prev_state values; EraAuto: from the trace (see
	// EraOf for a kernel release string).
	Era Era
	// Name is the file name used in error messages ("trace" if empty).
	Name string
}

// Stats count what a Reader has read so far.
type Stats struct {
	Lines   int    // text lines read (0 for Perfetto)
	Skipped int    // malformed lines or records skipped (lenient mode)
	First   string // the first skipped line's error, if any
	Other   int    // well-formed events of kinds the stream does not carry
	counts  [numKinds]int
}

// Count returns how many events of kind k have been returned.
func (s *Stats) Count(k Kind) int {
	if k < numKinds {
		return s.counts[k]
	}
	return 0
}

// Total returns how many events have been returned.
func (s *Stats) Total() int {
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

// Reader reads events one at a time; it holds one line (text) or one
// packet (Perfetto) of the input at a time, plus a little per-CPU and
// per-comm state. A Reader is not safe for concurrent use.
type Reader struct {
	opt    Options
	name   string
	br     *bufio.Reader
	format Format
	era    Era
	stats  Stats
	err    error // sticky: io.EOF or the error returned

	// text
	line     int
	long     []byte // a line longer than the buffer
	systrace bool   // only lines inside trace-data blocks are events
	inBlock  bool
	// blockStart: the next non-blank line is a block's first
	blockStart bool
	skipRest   bool // the current block is not ftrace text
	lastTime   int64
	kv         [16]kvSpan
	nkv        int
	comms      map[string]string

	// Perfetto
	off      int64
	pkt      []byte
	pending  []Event
	next     int
	lastNext map[int32]Task
	cs       compactSched
	inflated []byte // compressed_packets, inflated

	kernel string // utsname.release from a Perfetto system_info
	closer io.Closer
}

const (
	bufSize  = 256 << 10
	peekSize = 64 << 10
	maxLine  = 4 << 20
)

// NewReader detects the format of r (unless opt says it), decompressing
// gzip input transparently, and returns a Reader positioned at the first
// event. It fails with ErrUnsupported for trace.dat and perf.data files and
// ErrFormat for input in no known format, and for gzip input, or atrace's
// zlib after its TRACE: line, whose header cannot be read (whatever
// Options.Format says).
func NewReader(r io.Reader, opt Options) (*Reader, error) {
	name := opt.Name
	if name == "" {
		name = "trace"
	}
	br := bufio.NewReaderSize(r, bufSize)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: bad gzip header: %v", name, ErrFormat, err)
		}
		br = bufio.NewReaderSize(zr, bufSize)
	}
	head, _ := br.Peek(peekSize)
	if bytes.HasPrefix(head, []byte("TRACE:\n")) || bytes.HasPrefix(head, []byte("TRACE:\r\n")) {
		// atrace output: a TRACE: line, then text or zlib-compressed text.
		i := bytes.IndexByte(head, '\n') + 1
		if len(head) > i && head[i] == 0x78 {
			if _, err := br.Discard(i); err != nil {
				return nil, err
			}
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, fmt.Errorf("%s: %w: bad zlib data after TRACE: %v", name, ErrFormat, err)
			}
			br = bufio.NewReaderSize(zr, bufSize)
			head, _ = br.Peek(peekSize)
		}
	}
	rd := &Reader{opt: opt, name: name, br: br, era: opt.Era, comms: map[string]string{}}
	f := opt.Format
	if f == FormatAuto {
		var err error
		if f, err = detect(head); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	rd.format = f
	switch f {
	case FormatFtrace, FormatTraceCmd, FormatPerf:
	case FormatSystrace:
		rd.systrace = true
	case FormatPerfetto:
		rd.lastNext = map[int32]Task{}
	default:
		return nil, fmt.Errorf("%s: %w: %v", name, ErrFormat, f)
	}
	if rd.era == EraAuto {
		if f == FormatPerfetto {
			rd.era = perfettoEra(head)
		} else {
			rd.era = textEra(head)
		}
	}
	return rd, nil
}

// Open opens the named file and returns a Reader on it, named after the
// file in error messages. Close releases the file.
func Open(name string, opt Options) (*Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if opt.Name == "" {
		opt.Name = name
	}
	rd, err := NewReader(f, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	rd.closer = f
	return rd, nil
}

// Close closes the file opened by Open; it does nothing for a Reader made
// by NewReader.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Format returns the format being read.
func (r *Reader) Format() Format { return r.format }

// Era returns the prev_state era numeric values are decoded in.
func (r *Reader) Era() Era { return r.era }

// Kernel returns the kernel release the trace names (Perfetto's
// system_info), or "" when it names none.
func (r *Reader) Kernel() string { return r.kernel }

// Stats returns the counts so far.
func (r *Reader) Stats() Stats { return r.stats }

// Next returns the next event. At the end of the input it returns io.EOF;
// after any error it keeps returning that error. In strict mode the first
// malformed line or record is a *SyntaxError; in lenient mode it is skipped
// and counted. In compressed input, a Perfetto SyntaxError's offset counts
// the decompressed bytes, and a text format may also end on the
// decompressor's own error for a damaged stream.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	var ev Event
	var err error
	if r.format == FormatPerfetto {
		ev, err = r.nextPerfetto()
	} else {
		ev, err = r.nextText()
	}
	if err != nil {
		r.err = err
		return Event{}, err
	}
	r.stats.counts[ev.Kind]++
	return ev, nil
}

// All returns the events as an iterator. It stops after the first error,
// which it yields (io.EOF is not yielded).
func (r *Reader) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// ReadAll reads every event of r into memory.
func ReadAll(r io.Reader, opt Options) ([]Event, Stats, error) {
	rd, err := NewReader(r, opt)
	if err != nil {
		return nil, Stats{}, err
	}
	var evs []Event
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return evs, rd.stats, nil
		}
		if err != nil {
			return evs, rd.stats, err
		}
		evs = append(evs, ev)
	}
}

// skip records a malformed line or record: an error in strict mode, a
// count in lenient mode.
func (r *Reader) skip(e *SyntaxError) error {
	if !r.opt.Lenient {
		return e
	}
	r.stats.Skipped++
	if r.stats.First == "" {
		r.stats.First = e.Error()
	}
	return nil
}

// intern returns a string equal to b, shared by every event that names the
// same comm (the map lookup with string(b) does not allocate).
func (r *Reader) intern(b []byte) string {
	if s, ok := r.comms[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.comms) < 1<<16 {
		r.comms[s] = s
	}
	return s
}

var (
	traceDatMagic  = []byte("\x17\x08\x44tracing")
	perfDataMagic  = []byte("PERFILE2")
	perfDataMagic2 = []byte("2ELIFREP")
)

// detect names the format of the input's first bytes.
func detect(head []byte) (Format, error) {
	switch {
	case bytes.HasPrefix(head, traceDatMagic):
		return 0, fmt.Errorf("%w: a trace-cmd trace.dat file: convert it with `trace-cmd report -N -t > trace.txt`", ErrUnsupported)
	case bytes.HasPrefix(head, perfDataMagic), bytes.HasPrefix(head, perfDataMagic2):
		return 0, fmt.Errorf("%w: a perf.data file: convert it with `perf script --ns > trace.txt`", ErrUnsupported)
	case len(head) == 0:
		return FormatFtrace, nil // empty: no events in any text format
	}
	if isBinary(head) {
		if head[0] == 0x0a { // Trace.packet, field 1, length-delimited
			return FormatPerfetto, nil
		}
		return 0, fmt.Errorf("%w: binary data that is not a Perfetto trace", ErrFormat)
	}
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if isHTML(t) {
		return FormatSystrace, nil
	}
	for len(t) > 0 {
		line := t
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			line, t = t[:i], t[i+1:]
		} else {
			t = nil
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("TRACE:")):
			continue
		case bytes.HasPrefix(line, []byte("version = ")), bytes.HasPrefix(line, []byte("cpus=")):
			return FormatTraceCmd, nil
		}
		if h, ok := splitHead(line); ok {
			if h.perf {
				return FormatPerf, nil
			}
			return FormatFtrace, nil
		}
	}
	return FormatFtrace, nil
}

// isHTML reports whether t starts an HTML page (a systrace capture), not
// an ftrace line that starts with "<idle>" or "<...>".
func isHTML(t []byte) bool {
	if len(t) > 64 {
		t = t[:64]
	}
	l := bytes.ToLower(t)
	return bytes.HasPrefix(l, []byte("<!doctype html")) || bytes.HasPrefix(l, []byte("<html")) ||
		bytes.HasPrefix(l, []byte("<!--")) || bytes.HasPrefix(l, scriptOpen)
}

// isBinary reports whether head looks like binary data: a NUL, or many
// control bytes, in its first 4 KiB.
func isBinary(head []byte) bool {
	if len(head) > 4096 {
		head = head[:4096]
	}
	ctl := 0
	for _, c := range head {
		if c == 0 {
			return true
		}
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			ctl++
		}
	}
	return ctl*20 > len(head)
}

// textEra looks at the numeric prev_state values in the first bytes of a
// text trace: any that only the pre-4.14 encoding produces selects
// EraLegacy, otherwise EraReport.
func textEra(head []byte) Era {
	key := []byte("prev_state=")
	for {
		i := bytes.Index(head, key)
		if i < 0 {
			return EraReport
		}
		head = head[i+len(key):]
		var v int64
		n := 0
		for n < len(head) && n < 18 && head[n] >= '0' && head[n] <= '9' {
			v = v*10 + int64(head[n]-'0')
			n++
		}
		if n > 0 && legacyValue(v) {
			return EraLegacy
		}
	}
}
