package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/schedmodel/fairclass/eevdf"
)

// RTAppWorkload is a workload read from an rt-app JSON description
// (ParseRTApp, LoadRTApp).
//
// Supported, with rt-app's meaning (times in µs):
//   - "global": "duration" (seconds; -1 for none) becomes Duration,
//     "default_policy"; the keys that only concern rt-app's own logging and
//     setup (calibration, logdir, log_basename, log_size, ftrace, gnuplot,
//     lock_pages, pi_enabled, io_device, mem_buffer_size,
//     cumulative_slack) are accepted and ignored.
//   - per task: "instance", "loop" (-1: forever), "delay" (the creation
//     time), "policy" (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE), "priority"
//     (the nice value for these policies), "cpus" (affinity),
//     "dl-runtime" (a fair task's custom slice, as rt-app passes it to
//     sched_setattr), "phases", or events directly in the task;
//     "util_min", "util_max" and "membind_nodes" are accepted and ignored
//     (they do not affect a fair runqueue).
//   - per phase: "loop" (default 1), "priority" and "dl-runtime" (applied
//     at the start of each phase iteration, as rt-app does), events.
//   - events, in file order, matched by prefix like rt-app's parser ("run0",
//     "sleep1"): "run" and "runtime" (CPU time, no frequency scaling),
//     "sleep", "timer" ({"ref", "period", "mode": "relative"|"absolute"}),
//     "yield". A timer's wakeup latency is recorded as a latency sample.
//     Every timer ref is per thread, as if its name began with "unique".
//
// Not supported, rejected with an error naming the key: real-time and
// deadline policies, "taskgroup", a phase-level "policy" or "cpus" that
// differs from the task's, the events lock, unlock, wait, signal, broad,
// sync, barrier, suspend, resume, mem, iorun and fork, and any other key.
// rt-app's relaxed JSON (comments, trailing commas, repeated keys) is read.
type RTAppWorkload struct {
	// Label is the workload's name in reports (default "rt-app").
	Label string
	// Duration is the global duration (0: none given).
	Duration time.Duration
	specs    []TaskSpec
}

// Name implements Workload.
func (w *RTAppWorkload) Name() string { return orDefault(w.Label, "rt-app") }

// Kind implements Workload.
func (w *RTAppWorkload) Kind() string { return "rtapp" }

// Tasks implements Workload.
func (w *RTAppWorkload) Tasks() ([]TaskSpec, error) {
	return append([]TaskSpec(nil), w.specs...), nil
}

// LoadRTApp reads an rt-app JSON file.
func LoadRTApp(path string) (*RTAppWorkload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseRTApp(data)
}

// ParseRTApp reads an rt-app JSON description.
func ParseRTApp(data []byte) (*RTAppWorkload, error) {
	root, err := parseLooseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("rt-app: %w", err)
	}
	if root.kind != jObject {
		return nil, errors.New("rt-app: the top level must be an object")
	}
	w := &RTAppWorkload{}
	defPolicy := eevdf.PolicyNormal
	var tasks *jnode
	for i, k := range root.keys {
		v := root.vals[i]
		switch k {
		case "tasks":
			tasks = v
		case "resources":
			// Legacy: rt-app creates resources from their uses.
		case "global":
			if v.kind != jObject {
				return nil, errors.New("rt-app: global must be an object")
			}
			for gi, gk := range v.keys {
				gv := v.vals[gi]
				switch gk {
				case "duration":
					d, err := gv.int()
					if err != nil {
						return nil, fmt.Errorf("rt-app: global duration: %w", err)
					}
					if d > 0 {
						if d > math.MaxInt64/int64(time.Second) {
							return nil, errors.New("rt-app: global duration too large")
						}
						w.Duration = time.Duration(d) * time.Second
					}
				case "default_policy":
					s, err := gv.string()
					if err != nil {
						return nil, fmt.Errorf("rt-app: default_policy: %w", err)
					}
					if defPolicy, err = rtPolicy(s); err != nil {
						return nil, err
					}
				case "calibration", "logdir", "log_basename", "log_size", "ftrace", "gnuplot",
					"lock_pages", "pi_enabled", "io_device", "mem_buffer_size", "cumulative_slack":
				default:
					return nil, fmt.Errorf("rt-app: global %q is not supported", gk)
				}
			}
		default:
			return nil, fmt.Errorf("rt-app: top-level %q is not supported", k)
		}
	}
	if tasks == nil || tasks.kind != jObject {
		return nil, errors.New(`rt-app: a "tasks" object is required`)
	}
	for i, name := range tasks.keys {
		specs, err := rtTask(name, tasks.vals[i], defPolicy)
		if err != nil {
			return nil, fmt.Errorf("rt-app: task %q: %w", name, err)
		}
		w.specs = append(w.specs, specs...)
	}
	return w, nil
}

func rtPolicy(s string) (eevdf.Policy, error) {
	switch s {
	case "SCHED_OTHER":
		return eevdf.PolicyNormal, nil
	case "SCHED_BATCH":
		return eevdf.PolicyBatch, nil
	case "SCHED_IDLE":
		return eevdf.PolicyIdle, nil
	case "SCHED_FIFO", "SCHED_RR", "SCHED_DEADLINE":
		return 0, fmt.Errorf("rt-app: policy %s is not supported (only the fair class is modelled)", s)
	}
	return 0, fmt.Errorf("rt-app: unknown policy %q", s)
}

// rtEventKeys are rt-app's event names, longest first so that "runtime" is
// not read as "run".
var rtEventKeys = []string{"runtime", "run", "sleep", "timer", "yield",
	"lock", "unlock", "wait", "signal", "broad", "sync", "barrier", "suspend", "resume", "mem", "iorun", "fork"}

func rtEventKind(key string) string {
	for _, k := range rtEventKeys {
		if strings.HasPrefix(key, k) {
			return k
		}
	}
	return ""
}

// rtTask converts one rt-app thread object into its instances.
func rtTask(name string, obj *jnode, defPolicy eevdf.Policy) ([]TaskSpec, error) {
	if obj.kind != jObject {
		return nil, errors.New("a task must be an object")
	}
	instances, loop := 1, -1
	opt := TaskOptions{Policy: defPolicy}
	var phases *jnode
	var inline []Phase
	for i, k := range obj.keys {
		v := obj.vals[i]
		var err error
		switch k {
		case "instance":
			var n int64
			if n, err = v.int(); err == nil {
				if n < 0 || n > maxTasks {
					err = fmt.Errorf("instance %d outside 0..%d", n, maxTasks)
				}
				instances = int(n)
			}
		case "loop":
			var n int64
			if n, err = v.int(); err == nil {
				if n < -1 || n > math.MaxInt32 {
					err = fmt.Errorf("loop %d", n)
				}
				loop = int(n)
			}
		case "delay":
			var n int64
			if n, err = v.int(); err == nil {
				opt.Start, err = usec(n)
			}
		case "policy":
			var s string
			if s, err = v.string(); err == nil {
				opt.Policy, err = rtPolicy(s)
			}
		case "priority":
			var n int64
			if n, err = v.int(); err == nil {
				opt.Nice = int(max(min(n, 1000), -1000))
			}
		case "cpus":
			opt.CPUs, err = v.ints()
		case "dl-runtime":
			var n int64
			if n, err = v.int(); err == nil {
				opt.Slice, err = usec(n)
			}
		case "phases":
			if v.kind != jObject {
				err = errors.New("phases must be an object")
			}
			phases = v
		case "util_min", "util_max", "membind_nodes":
		case "taskgroup":
			err = errors.New(`"taskgroup" is not supported (group scheduling is not modelled)`)
		default:
			var ph []Phase
			if ph, err = rtEvent(k, v); err == nil {
				inline = append(inline, ph...)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
	}
	if phases != nil && len(inline) > 0 {
		return nil, errors.New("events both in the task and in phases")
	}
	var body []Phase
	if phases != nil {
		for i, pn := range phases.keys {
			p, err := rtPhase(phases.vals[i], opt)
			if err != nil {
				return nil, fmt.Errorf("phase %q: %w", pn, err)
			}
			body = append(body, p...)
		}
	} else {
		body = inline
	}
	if len(body) == 0 {
		return nil, errors.New("no events")
	}
	var prog []Phase
	switch {
	case loop == -1:
		if !passesTime(body) {
			return nil, errors.New("an endless loop must contain run, runtime, sleep or timer")
		}
		prog = []Phase{Forever(body...)}
	case loop == 0:
		prog = nil
	default:
		prog = []Phase{Loop(loop, body...)}
	}
	out := make([]TaskSpec, instances)
	for i := range out {
		n := name
		if instances > 1 {
			n = fmt.Sprintf("%s-%d", name, i)
		}
		out[i] = TaskSpec{Name: n, TaskOptions: opt, Program: prog}
	}
	return out, nil
}

// rtPhase converts one phase object: its scheduling changes, then its
// events, repeated "loop" times.
func rtPhase(obj *jnode, task TaskOptions) ([]Phase, error) {
	if obj.kind != jObject {
		return nil, errors.New("a phase must be an object")
	}
	loop := 1
	var pre, events []Phase
	for i, k := range obj.keys {
		v := obj.vals[i]
		var err error
		switch k {
		case "loop":
			var n int64
			if n, err = v.int(); err == nil {
				if n < 0 || n > math.MaxInt32 {
					err = fmt.Errorf("phase loop %d", n)
				}
				loop = int(n)
			}
		case "priority":
			var n int64
			if n, err = v.int(); err == nil {
				pre = append(pre, SetNice(int(max(min(n, 1000), -1000))))
			}
		case "dl-runtime":
			var n int64
			if n, err = v.int(); err == nil {
				var d time.Duration
				if d, err = usec(n); err == nil {
					pre = append(pre, SetSlice(d))
				}
			}
		case "policy":
			var s string
			if s, err = v.string(); err == nil {
				var p eevdf.Policy
				if p, err = rtPolicy(s); err == nil && p != task.Policy {
					err = errors.New("a phase-level policy change is not supported")
				}
			}
		case "cpus":
			var l []int
			if l, err = v.ints(); err == nil && fmt.Sprint(l) != fmt.Sprint(task.CPUs) {
				err = errors.New("a phase-level affinity change is not supported")
			}
		case "util_min", "util_max", "membind_nodes":
		case "taskgroup":
			err = errors.New(`"taskgroup" is not supported (group scheduling is not modelled)`)
		default:
			var ph []Phase
			if ph, err = rtEvent(k, v); err == nil {
				events = append(events, ph...)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
	}
	body := append(pre, events...)
	if loop == 0 || len(body) == 0 {
		return nil, nil
	}
	if loop == 1 {
		return body, nil
	}
	return []Phase{Loop(loop, body...)}, nil
}

// rtEvent converts one event.
func rtEvent(key string, v *jnode) ([]Phase, error) {
	switch kind := rtEventKind(key); kind {
	case "run", "runtime":
		n, err := v.int()
		if err != nil {
			return nil, err
		}
		d, err := usec(n)
		if err != nil {
			return nil, err
		}
		return []Phase{Run(d)}, nil
	case "sleep":
		n, err := v.int()
		if err != nil {
			return nil, err
		}
		d, err := usec(n)
		if err != nil {
			return nil, err
		}
		return []Phase{Sleep(d)}, nil
	case "yield":
		return []Phase{Yield()}, nil
	case "timer":
		if v.kind != jObject {
			return nil, errors.New(`timer must be {"ref": ..., "period": ...}`)
		}
		ref, mode := "", TimerRelative
		var period time.Duration
		havePeriod := false
		for i, k := range v.keys {
			tv := v.vals[i]
			switch k {
			case "ref":
				s, err := tv.string()
				if err != nil {
					return nil, fmt.Errorf("timer ref: %w", err)
				}
				ref = s
			case "period":
				n, err := tv.int()
				if err != nil {
					return nil, fmt.Errorf("timer period: %w", err)
				}
				if period, err = usec(n); err != nil {
					return nil, err
				}
				havePeriod = true
			case "mode":
				s, err := tv.string()
				if err != nil {
					return nil, fmt.Errorf("timer mode: %w", err)
				}
				switch s {
				case "relative":
					mode = TimerRelative
				case "absolute":
					mode = TimerAbsolute
				default:
					return nil, fmt.Errorf("timer mode %q: want relative or absolute", s)
				}
			default:
				return nil, fmt.Errorf("timer key %q is not supported", k)
			}
		}
		if !havePeriod || period <= 0 {
			return nil, errors.New("timer needs a positive period")
		}
		return []Phase{NamedTimer(ref, period, mode), Latency()}, nil
	case "":
		return nil, fmt.Errorf("unknown key")
	default:
		return nil, fmt.Errorf("the %s event is not supported", kind)
	}
}

// usec converts rt-app microseconds.
func usec(n int64) (time.Duration, error) {
	if n < 0 || n > math.MaxInt64/int64(time.Microsecond) {
		return 0, fmt.Errorf("time %d µs out of range", n)
	}
	return time.Duration(n) * time.Microsecond, nil
}

// A small JSON reader that keeps object keys in file order and allows
// repeated keys, as rt-app's parser does, after removing comments and
// trailing commas.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

type jnode struct {
	kind jkind
	keys []string
	vals []*jnode // object values, or array elements
	str  string
	num  json.Number
	b    bool
}

func (n *jnode) int() (int64, error) {
	if n.kind != jNumber {
		return 0, errors.New("want an integer")
	}
	v, err := n.num.Int64()
	if err != nil {
		return 0, fmt.Errorf("want an integer, got %s", n.num)
	}
	return v, nil
}

func (n *jnode) string() (string, error) {
	if n.kind != jString {
		return "", errors.New("want a string")
	}
	return n.str, nil
}

func (n *jnode) ints() ([]int, error) {
	if n.kind != jArray {
		return nil, errors.New("want an array of integers")
	}
	out := make([]int, 0, len(n.vals))
	for _, e := range n.vals {
		v, err := e.int()
		if err != nil {
			return nil, err
		}
		if v < 0 || v > 1<<20 {
			return nil, fmt.Errorf("CPU %d out of range", v)
		}
		out = append(out, int(v))
	}
	return out, nil
}

// parseLooseJSON reads rt-app's relaxed JSON.
func parseLooseJSON(data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(relaxJSON(data)))
	dec.UseNumber()
	n, err := readNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return n, nil
}

func readNode(dec *json.Decoder, depth int) (*jnode, error) {
	if depth > 64 {
		return nil, errors.New("JSON nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &jnode{kind: jObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				val, err := readNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		case '[':
			n := &jnode{kind: jArray}
			for dec.More() {
				val, err := readNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		}
		return nil, fmt.Errorf("unexpected %v", v)
	case string:
		return &jnode{kind: jString, str: v}, nil
	case json.Number:
		return &jnode{kind: jNumber, num: v}, nil
	case bool:
		return &jnode{kind: jBool, b: v}, nil
	case nil:
		return &jnode{kind: jNull}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// relaxJSON removes /* */ and // comments outside strings, and commas
// directly before a closing brace or bracket.
func relaxJSON(in []byte) []byte {
	out := make([]byte, 0, len(in))
	inStr := false
	for i := 0; i < len(in); i++ {
		c := in[i]
		if inStr {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(in) {
					i++
					out = append(out, in[i])
				}
			case '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(in) && in[i+1] == '*':
			end := bytes.Index(in[i+2:], []byte("*/"))
			if end < 0 {
				i = len(in)
			} else {
				i += 2 + end + 1
			}
			out = append(out, ' ')
		case c == '/' && i+1 < len(in) && in[i+1] == '/':
			for i < len(in) && in[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		default:
			out = append(out, c)
		}
	}
	// Trailing commas: a comma followed only by blanks and a closer.
	res := make([]byte, 0, len(out))
	inStr = false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inStr {
			res = append(res, c)
			if c == '\\' && i+1 < len(out) {
				i++
				res = append(res, out[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case ',':
			j := i + 1
			for j < len(out) && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				continue
			}
		}
		res = append(res, c)
	}
	return res
}
