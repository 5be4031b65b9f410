package scenario

import (
	"io"
	"strconv"

	"github.com/schedmodel/fairclass/pelt"
)

// AppendJSON appends res as one JSON object, keys in the order of the
// replay format: i, t, op, task, V, curr, resched, picked, tasks (each
// with name, on_rq, delayed, vruntime, deadline, vlag, lag, eligible,
// weight, slice, sum_exec). With groups each task adds group and h_weight,
// and a groups array follows (name, parent, shares, idle, se_weight, on_rq,
// load, h_nr_queued, h_nr_runnable, h_nr_idle); with PELT tasks and groups
// add load_avg, runnable_avg and util_avg (groups also se_load_avg,
// tg_load_avg, tg_runnable_avg) and a root object closes the line (load,
// nr_queued and the averages). Integers are exact decimal.
func (res *Result) AppendJSON(b []byte) []byte {
	if res.smp != nil {
		return res.smp.AppendJSON(b) // a multi-CPU scenario's line
	}
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
	if res.hasMinV {
		b = append(b, `,"min_vruntime":`...)
		b = strconv.AppendUint(b, res.MinVruntime, 10)
	}
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
		if res.hasGroups {
			b = append(b, `,"group":`...)
			b = strconv.AppendQuote(b, t.Group)
			b = append(b, `,"h_weight":`...)
			b = strconv.AppendUint(b, t.HWeight, 10)
		}
		if res.pelt {
			b = res.appendAvg(b, "", &t.Avg)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.hasGroups {
		b = append(b, `,"groups":[`...)
		for i := range res.Groups {
			g := &res.Groups[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = strconv.AppendQuote(b, g.Name)
			b = append(b, `,"parent":`...)
			b = strconv.AppendQuote(b, g.Parent)
			b = append(b, `,"shares":`...)
			b = strconv.AppendUint(b, g.Shares, 10)
			b = append(b, `,"idle":`...)
			b = strconv.AppendBool(b, g.Idle)
			b = append(b, `,"se_weight":`...)
			b = strconv.AppendUint(b, g.SEWeight, 10)
			b = append(b, `,"on_rq":`...)
			b = strconv.AppendBool(b, g.OnRq)
			b = append(b, `,"load":`...)
			b = strconv.AppendUint(b, g.Load, 10)
			b = append(b, `,"h_nr_queued":`...)
			b = strconv.AppendInt(b, int64(g.HNrQueued), 10)
			b = append(b, `,"h_nr_runnable":`...)
			b = strconv.AppendInt(b, int64(g.HNrRunnable), 10)
			b = append(b, `,"h_nr_idle":`...)
			b = strconv.AppendInt(b, int64(g.HNrIdle), 10)
			if res.pelt {
				b = res.appendAvg(b, "", &g.Avg)
				b = append(b, `,"se_load_avg":`...)
				b = strconv.AppendUint(b, g.SEAvg.LoadAvg, 10)
				b = append(b, `,"tg_load_avg":`...)
				b = strconv.AppendInt(b, g.TGLoadAvg, 10)
				b = append(b, `,"tg_runnable_avg":`...)
				b = strconv.AppendInt(b, g.TGRunAvg, 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if res.pelt {
		b = append(b, `,"root":{"load":`...)
		b = strconv.AppendUint(b, res.Root.Load, 10)
		b = append(b, `,"nr_queued":`...)
		b = strconv.AppendInt(b, int64(res.Root.NrQueued), 10)
		b = res.appendAvg(b, "", &res.Root.Avg)
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendAvg appends load_avg, runnable_avg and util_avg, and with
// --pelt=raw the sums, period_contrib and last_update_time.
func (res *Result) appendAvg(b []byte, prefix string, a *pelt.Avg) []byte {
	b = append(b, `,"`+prefix+`load_avg":`...)
	b = strconv.AppendUint(b, a.LoadAvg, 10)
	b = append(b, `,"`+prefix+`runnable_avg":`...)
	b = strconv.AppendUint(b, a.RunnableAvg, 10)
	b = append(b, `,"`+prefix+`util_avg":`...)
	b = strconv.AppendUint(b, a.UtilAvg, 10)
	if res.peltRaw {
		b = append(b, `,"`+prefix+`load_sum":`...)
		b = strconv.AppendUint(b, a.LoadSum, 10)
		b = append(b, `,"`+prefix+`runnable_sum":`...)
		b = strconv.AppendUint(b, a.RunnableSum, 10)
		b = append(b, `,"`+prefix+`util_sum":`...)
		b = strconv.AppendUint(b, uint64(a.UtilSum), 10)
		b = append(b, `,"`+prefix+`period_contrib":`...)
		b = strconv.AppendUint(b, uint64(a.PeriodContrib), 10)
		b = append(b, `,"`+prefix+`last_update_time":`...)
		b = strconv.AppendUint(b, a.LastUpdateTime, 10)
	}
	return b
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
