package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// The strict reading of configuration JSON. encoding/json matches object
// keys case-insensitively, lets a repeated key override an earlier one,
// fills a short array with zeros and drops the extra elements of a long
// one, and reports the position of only some of its errors. A
// configuration is checked here first, token by token against the Go type
// it decodes into, so that every one of those is an error at a line and a
// column; only then does encoding/json decode it.

// ConfigError is an error in a configuration, at a position of its text
// when one is known. LoadConfig's and ParseConfig's errors are
// *ConfigError, except that LoadConfig returns the file system's error
// when it cannot read the file.
type ConfigError struct {
	// File is the name of the configuration: the path given to
	// LoadConfig, or "config" for ParseConfig.
	File string
	// Line and Col are the 1-based line and byte column of the offending
	// key or value; 0 when the error concerns the configuration as a whole
	// (a missing key, an empty file).
	Line, Col int
	// Err is the reason.
	Err error
}

// Error returns "FILE:LINE:COL: reason", or "FILE: reason" without a
// position.
func (e *ConfigError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
}

// Unwrap returns the reason.
func (e *ConfigError) Unwrap() error { return e.Err }

// errEmptyConfig is the reason for a configuration with no JSON value.
var errEmptyConfig = errors.New("empty config")

// newConfigError turns an error of reading data into a *ConfigError whose
// position is the byte offset that the error carries, if any.
func newConfigError(name string, data []byte, err error) *ConfigError {
	ce := &ConfigError{File: name, Err: err}
	var p *posError
	if errors.As(err, &p) {
		ce.Line, ce.Col = lineCol(data, p.off)
		if ce.Err == p {
			ce.Err = p.err // nothing wraps it: the position is all it adds
		}
	}
	return ce
}

// lineCol converts a byte offset of data to a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// posError is an error at a byte offset of the JSON text being read: of
// the innermost raw message it came from until shift moves it outwards.
type posError struct {
	off int64
	err error
}

func (e *posError) Error() string { return e.err.Error() }
func (e *posError) Unwrap() error { return e.err }

// errAt returns an error at offset off.
func errAt(off int64, format string, args ...any) error {
	return &posError{off, fmt.Errorf(format, args...)}
}

// shift moves err from the coordinates of a raw message that starts at
// off of the text being read into the coordinates of that text: an error
// with a position moves by off, an error without one is placed at off (the
// start of the raw message it concerns).
func shift(off int64, err error) error {
	if err == nil {
		return nil
	}
	var p *posError
	if errors.As(err, &p) {
		p.off += off
		return err
	}
	return &posError{off, err}
}

// offsets maps the path of every value that strictDecode read ("cpus",
// "machine.packages", "workloads[2]", "tasks[0].program[3]") to the byte
// offset where it starts.
type offsets map[string]int64

// place gives err, if it has no position yet, the position of the value at
// path (when the text had one).
func (o offsets) place(path string, err error) error {
	if err == nil {
		return nil
	}
	var p *posError
	if errors.As(err, &p) {
		return err
	}
	if off, ok := o[path]; ok {
		return &posError{off, err}
	}
	return err
}

// has reports whether the text gave a value at path.
func (o offsets) has(path string) bool {
	_, ok := o[path]
	return ok
}

// strictDecode decodes one JSON value into v (a pointer), refusing
// syntax errors, trailing data, keys that are not exactly one of the
// fields' names (case included), repeated keys, values of the wrong type
// or range, and arrays of the wrong length; each error is a *posError.
// It returns where each value starts.
func strictDecode(data []byte, v any) (offsets, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, syntaxError(data, err)
	}
	if rest := skipSpace(data, dec.InputOffset()); rest < int64(len(data)) {
		return nil, errAt(rest, "trailing data after the JSON value")
	}
	w := walker{data: data, dec: json.NewDecoder(bytes.NewReader(data)), offs: offsets{}}
	w.dec.UseNumber()
	if err := w.value(reflect.TypeOf(v).Elem(), "", ""); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		// The walk accepted it, so this is not expected; keep what
		// position the error has.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &posError{te.Offset, err}
		}
		return nil, err
	}
	return w.offs, nil
}

// syntaxError positions an error of reading the first JSON value of data.
func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return errEmptyConfig
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &posError{int64(len(bytes.TrimRight(data, " \t\r\n"))), errors.New("unexpected end of the JSON text")}
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		return &posError{max(se.Offset-1, 0), se}
	}
	return err
}

// skipSpace returns the offset of the first byte at or after off that is
// not JSON whitespace.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	return off
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// walker checks a JSON text token by token against a Go type.
type walker struct {
	data []byte
	dec  *json.Decoder
	offs offsets
}

// next returns the offset where the next value or key starts.
func (w *walker) next() int64 {
	off := w.dec.InputOffset()
	for off < int64(len(w.data)) && strings.IndexByte(" \t\r\n:,", w.data[off]) >= 0 {
		off++
	}
	return off
}

// value checks the next value against t; path names it, key is the
// object key it belongs to (for messages).
func (w *walker) value(t reflect.Type, path, key string) error {
	off := w.next()
	w.offs[path] = off
	name := key
	if name == "" {
		name = "the configuration"
	}
	ptr := false
	for t.Kind() == reflect.Pointer {
		t, ptr = t.Elem(), true
	}
	if t == rawMessageType || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) {
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return &posError{off, err}
		}
		if t == rawMessageType || t.Kind() == reflect.Interface || (ptr && string(raw) == "null") {
			return nil
		}
		if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			return errAt(off, "%s: %w", name, err)
		}
		return nil
	}
	tok, err := w.dec.Token()
	if err != nil {
		return &posError{off, err}
	}
	if tok == nil {
		return nil // null: as if absent
	}
	switch t.Kind() {
	case reflect.Struct:
		if tok != json.Delim('{') {
			return errAt(off, "%s: want an object, got %s", name, describe(tok))
		}
		return w.object(fieldsOf(t), path)
	case reflect.Map:
		if tok != json.Delim('{') {
			return errAt(off, "%s: want an object, got %s", name, describe(tok))
		}
		for w.dec.More() {
			koff := w.next()
			k, err := w.dec.Token()
			if err != nil {
				return &posError{koff, err}
			}
			if err := w.value(t.Elem(), join(path, k.(string)), k.(string)); err != nil {
				return err
			}
		}
		_, err := w.dec.Token()
		return err
	case reflect.Slice, reflect.Array:
		if tok != json.Delim('[') {
			return errAt(off, "%s: want an array, got %s", name, describe(tok))
		}
		n := 0
		for ; w.dec.More(); n++ {
			if err := w.value(t.Elem(), fmt.Sprintf("%s[%d]", path, n), key); err != nil {
				return err
			}
		}
		if _, err := w.dec.Token(); err != nil {
			return err
		}
		if t.Kind() == reflect.Array && n != t.Len() {
			return errAt(off, "%s: want %d elements, got %d", name, t.Len(), n)
		}
		return nil
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return errAt(off, "%s: want true or false, got %s", name, describe(tok))
		}
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return errAt(off, "%s: want a string, got %s", name, describe(tok))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		num, ok := tok.(json.Number)
		if !ok {
			return errAt(off, "%s: %s is not a number", name, describe(tok))
		}
		if !integral(num) {
			return errAt(off, "%s: %s is not an integer", name, num)
		}
		if _, err := strconv.ParseInt(string(num), 10, t.Bits()); err != nil {
			lo, hi := -int64(1)<<(t.Bits()-1), int64(1)<<(t.Bits()-1)-1
			return errAt(off, "%s: %s outside %d..%d", name, num, lo, hi)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		num, ok := tok.(json.Number)
		if !ok {
			return errAt(off, "%s: %s is not a number", name, describe(tok))
		}
		if !integral(num) {
			return errAt(off, "%s: %s is not an integer", name, num)
		}
		if _, err := strconv.ParseUint(string(num), 10, t.Bits()); err != nil {
			return errAt(off, "%s: %s outside 0..%d", name, num, uint64(math.MaxUint64)>>(64-t.Bits()))
		}
	case reflect.Float32, reflect.Float64:
		num, ok := tok.(json.Number)
		if !ok {
			return errAt(off, "%s: %s is not a number", name, describe(tok))
		}
		if _, err := strconv.ParseFloat(string(num), t.Bits()); err != nil {
			return errAt(off, "%s: %s is out of range", name, num)
		}
	default:
		return errAt(off, "%s: cannot be read from JSON", name)
	}
	return nil
}

// object checks the members of an object whose '{' has been read against
// fields, and reads its '}'.
func (w *walker) object(fields map[string]reflect.Type, path string) error {
	seen := map[string]bool{}
	for w.dec.More() {
		koff := w.next()
		tok, err := w.dec.Token()
		if err != nil {
			return &posError{koff, err}
		}
		k := tok.(string)
		ft, ok := fields[k]
		if !ok {
			for name := range fields {
				if strings.EqualFold(name, k) {
					return errAt(koff, "unknown field %q (keys are case-sensitive: did you mean %q?)", k, name)
				}
			}
			return errAt(koff, "unknown field %q", k)
		}
		if seen[k] {
			return errAt(koff, "%q given twice", k)
		}
		seen[k] = true
		if err := w.value(ft, join(path, k), k); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}

// integral reports whether a JSON number is written as an integer (no
// fraction, no exponent).
func integral(num json.Number) bool {
	return !strings.ContainsAny(string(num), ".eE")
}

// join appends an object key to a path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldsOf returns the JSON names of t's fields as encoding/json reads
// them: the tag's name, else the field's; the fields of an embedded
// struct without a name are promoted.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range fieldsOf(ft) {
					if _, ok := fields[k]; !ok {
						fields[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}

// describe names a JSON token in a message: strings quoted, numbers and
// literals as written, "an object" and "an array" for the delimiters.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}
