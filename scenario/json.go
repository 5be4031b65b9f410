package scenario

import (
	"io"
	"strconv"
)

// AppendJSON appends res as one JSON object, keys in the order of the
// replay format: i, t, op, task, V, curr, resched, picked, tasks (each
// with name, on_rq, delayed, vruntime, deadline, vlag, lag, eligible,
// weight, slice, sum_exec). Integers are exact decimal.
func (res *Result) AppendJSON(b []byte) []byte {
	b = append(b, `{"i":`...)
	b = strconv.AppendInt(b, int64(res.I), 10)
	b = append(b, `,"t":`...)
	b = strconv.AppendUint(b, res.T, 10)
	b = append(b, `,"op":"`...)
	b = append(b, res.Op.String()...)
	b = append(b, `","task":`...)
	b = appendName(b, res.Task)
	b = append(b, `,"V":`...)
	b = strconv.AppendUint(b, res.V, 10)
	b = append(b, `,"curr":`...)
	b = appendName(b, res.Curr)
	b = append(b, `,"resched":`...)
	b = strconv.AppendBool(b, res.Resched)
	b = append(b, `,"picked":`...)
	b = appendName(b, res.Picked)
	b = append(b, `,"tasks":[`...)
	for i := range res.Tasks {
		t := &res.Tasks[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = strconv.AppendQuote(b, t.Name)
		b = append(b, `,"on_rq":`...)
		b = strconv.AppendBool(b, t.OnRq)
		b = append(b, `,"delayed":`...)
		b = strconv.AppendBool(b, t.Delayed)
		b = append(b, `,"vruntime":`...)
		b = strconv.AppendUint(b, t.Vruntime, 10)
		b = append(b, `,"deadline":`...)
		b = strconv.AppendUint(b, t.Deadline, 10)
		b = append(b, `,"vlag":`...)
		b = strconv.AppendInt(b, t.VLag, 10)
		b = append(b, `,"lag":`...)
		b = strconv.AppendInt(b, t.Lag, 10)
		b = append(b, `,"eligible":`...)
		b = strconv.AppendBool(b, t.Eligible)
		b = append(b, `,"weight":`...)
		b = strconv.AppendUint(b, t.Weight, 10)
		b = append(b, `,"slice":`...)
		b = strconv.AppendUint(b, t.Slice, 10)
		b = append(b, `,"sum_exec":`...)
		b = strconv.AppendUint(b, t.SumExec, 10)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func appendName(b []byte, name string) []byte {
	if name == "" {
		return append(b, "null"...)
	}
	return strconv.AppendQuote(b, name)
}

// JSONWriter returns an emit function for Replay that writes one JSON
// line per result to w.
func JSONWriter(w io.Writer) func(*Result) error {
	var buf []byte
	return func(res *Result) error {
		buf = res.AppendJSON(buf[:0])
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	}
}
