package scenario

import (
	"bufio"
	"io"
	"strconv"
)

// TraceWriter writes a replay as a Chrome/Perfetto trace (the JSON trace
// event format, which ui.perfetto.dev and chrome://tracing open): one track
// per task with a slice while it runs; instant events for wakeups and new
// tasks, for reschedule requests and for dequeues that were delayed;
// counter tracks for V and for each queued task's lag, relative to the
// first V. Timestamps are the scenario's nanoseconds, written in
// microseconds as the format wants.
type TraceWriter struct {
	w       *bufio.Writer
	sc      *Scenario
	n       int // events written
	base    uint64
	based   bool
	curr    string // running task
	start   uint64 // when it started running
	resched bool
	delayed []bool
	tids    map[string]string // task name to its thread id
	err     error
}

// Every event belongs to process 1: the tasks are its threads 1..n, in
// declaration order; the counters sit on thread 0.

// NewTraceWriter starts a trace on w; call Close at the end.
func NewTraceWriter(w io.Writer, sc *Scenario) *TraceWriter {
	t := &TraceWriter{w: bufio.NewWriter(w), sc: sc, delayed: make([]bool, len(sc.Tasks)), tids: map[string]string{}}
	t.raw(`{"displayTimeUnit":"ns","traceEvents":[`)
	t.event(`{"ph":"M","pid":1,"tid":0,"ts":0,"name":"process_name","args":{"name":` + strconv.Quote("runqueue "+sc.Name) + `}}`)
	for i, task := range sc.Tasks {
		t.tids[task.Name] = strconv.Itoa(i + 1)
		t.event(`{"ph":"M","pid":1,"tid":` + strconv.Itoa(i+1) + `,"ts":0,"name":"thread_name","args":{"name":` + strconv.Quote(task.Name) + `}}`)
	}
	return t
}

func (t *TraceWriter) raw(s string) {
	if t.err == nil {
		_, t.err = t.w.WriteString(s)
	}
}

func (t *TraceWriter) event(s string) {
	if t.n > 0 {
		t.raw(",\n")
	}
	t.n++
	t.raw(s)
}

// us formats nanoseconds as microseconds with three decimals, exactly.
func us(ns uint64) string {
	return strconv.FormatUint(ns/1000, 10) + "." + strconv.FormatUint(1000+ns%1000, 10)[1:]
}

func (t *TraceWriter) tid(name string) string {
	if id, ok := t.tids[name]; ok {
		return id
	}
	return "0"
}

func (t *TraceWriter) instant(name, task string, ts uint64) {
	t.event(`{"ph":"i","s":"t","pid":1,"tid":` + t.tid(task) + `,"ts":` + us(ts) + `,"name":"` + name + `"}`)
}

func (t *TraceWriter) counter(name string, ts uint64, v int64) {
	t.event(`{"ph":"C","pid":1,"tid":0,"ts":` + us(ts) + `,"name":` + strconv.Quote(name) +
		`,"args":{"value":` + strconv.FormatInt(v, 10) + `}}`)
}

// closeSlice ends the running task's slice at ts.
func (t *TraceWriter) closeSlice(ts uint64) {
	if t.curr == "" {
		return
	}
	t.event(`{"ph":"X","pid":1,"tid":` + t.tid(t.curr) + `,"ts":` + us(t.start) + `,"dur":` + us(ts-t.start) +
		`,"name":` + strconv.Quote(t.curr) + `}`)
}

// Write adds one result; it is an emit function for Replay.
func (t *TraceWriter) Write(res *Result) error {
	if res.smp != nil {
		return errSMPOutput
	}
	if !t.based {
		t.base, t.based = res.V, true
	}
	switch res.Op {
	case OpNew, OpWakeup, OpMigrateOut, OpMigrateIn:
		t.instant(res.Op.String(), res.Task, res.T)
	}
	for i := range res.Tasks {
		ts := &res.Tasks[i]
		if ts.Delayed && !t.delayed[i] {
			t.instant("delayed dequeue", ts.Name, res.T)
		}
		t.delayed[i] = ts.Delayed
	}
	if res.Resched && !t.resched && res.Curr != "" {
		t.instant("resched", res.Curr, res.T)
	}
	t.resched = res.Resched
	if res.Curr != t.curr {
		t.closeSlice(res.T)
		t.curr, t.start = res.Curr, res.T
	}
	t.counter("V", res.T, int64(res.V-t.base))
	for i := range res.Tasks {
		if ts := &res.Tasks[i]; ts.OnRq {
			t.counter("lag "+ts.Name, res.T, ts.Lag)
		}
	}
	return t.err
}

// Close ends the running slice at the last operation's time and finishes
// the JSON document.
func (t *TraceWriter) Close(end uint64) error {
	t.closeSlice(end)
	t.raw("\n]}\n")
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	return t.err
}
