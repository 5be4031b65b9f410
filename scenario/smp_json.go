package scenario

import (
	"io"
	"strconv"

	"github.com/schedmodel/fairclass/smp"
)

// AppendJSON appends res as one JSON object in the format of
// SMP-SCENARIOS §7, keys in its order: i, t, op, cpu, task, picked,
// prev_cpu, chosen_cpu, jiffies, overloaded (0 or 1), cpus (each with
// cpu, curr, resched, nr_running, h_nr_queued, h_nr_runnable, V, load,
// load_avg, runnable_avg, util_avg, util_est, last_update_time,
// idle_stamp, avg_idle, max_idle_balance_cost, next_balance, cfs_tasks and
// domains), llcs, tasks and events. Integers are exact decimal.
func (res *SMPResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"i":`...)
	b = strconv.AppendInt(b, int64(res.I), 10)
	b = append(b, `,"t":`...)
	b = strconv.AppendUint(b, res.T, 10)
	b = append(b, `,"op":"`...)
	b = append(b, res.Op.String()...)
	b = append(b, `","cpu":`...)
	b = appendInt(b, res.CPU)
	b = append(b, `,"task":`...)
	b = appendName(b, res.Task)
	b = append(b, `,"picked":`...)
	b = appendName(b, res.Picked)
	b = append(b, `,"prev_cpu":`...)
	b = appendInt(b, res.PrevCPU)
	b = append(b, `,"chosen_cpu":`...)
	b = appendInt(b, res.ChosenCPU)
	b = append(b, `,"jiffies":`...)
	b = strconv.AppendUint(b, res.Jiffies, 10)
	b = append(b, `,"overloaded":`...)
	b = appendBit(b, res.Overloaded)
	b = append(b, `,"cpus":[`...)
	for i := range res.CPUs {
		c := &res.CPUs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"cpu":`...)
		b = strconv.AppendInt(b, int64(c.CPU), 10)
		b = append(b, `,"curr":`...)
		b = appendName(b, c.Curr)
		b = append(b, `,"resched":`...)
		b = strconv.AppendBool(b, c.Resched)
		b = appendKV(b, "nr_running", uint64(c.NrRunning))
		b = appendKV(b, "h_nr_queued", uint64(c.HNrQueued))
		b = appendKV(b, "h_nr_runnable", uint64(c.HNrRunnable))
		b = appendKV(b, "V", c.V)
		b = appendKV(b, "load", c.Load)
		b = appendKV(b, "load_avg", c.Avg.LoadAvg)
		b = appendKV(b, "runnable_avg", c.Avg.RunnableAvg)
		b = appendKV(b, "util_avg", c.Avg.UtilAvg)
		b = appendKV(b, "util_est", uint64(c.Avg.UtilEst))
		b = appendKV(b, "last_update_time", c.Avg.LastUpdateTime)
		b = appendKV(b, "idle_stamp", c.IdleStamp)
		b = appendKV(b, "avg_idle", c.AvgIdle)
		b = appendKV(b, "max_idle_balance_cost", c.MaxIdleCost)
		b = appendKV(b, "next_balance", c.NextBalance)
		b = append(b, `,"cfs_tasks":[`...)
		for k, n := range c.CfsTasks {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, n)
		}
		b = append(b, `],"domains":[`...)
		for k := range c.Domains {
			d := &c.Domains[k]
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"sd":`...)
			b = strconv.AppendQuote(b, d.Level.String())
			b = appendKV(b, "balance_interval", d.BalanceInterval)
			b = appendKV(b, "nr_balance_failed", d.NrBalanceFailed)
			b = appendKV(b, "last_balance", d.LastBalance)
			b = appendKV(b, "max_newidle_lb_cost", d.MaxNewidleLBCost)
			b = appendKV(b, "newidle_call", d.NewidleCall)
			b = appendKV(b, "newidle_success", d.NewidleSuccess)
			b = appendKV(b, "newidle_ratio", d.NewidleRatio)
			b = append(b, '}')
		}
		b = append(b, ']')
		if res.HasGroups {
			b = append(b, `,"leaf":[`...)
			for k, n := range c.Leaf {
				if k > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendQuote(b, n)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, `],"llcs":[`...)
	for i, l := range res.LLCs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"first_cpu":`...)
		b = strconv.AppendInt(b, int64(l.FirstCPU), 10)
		b = append(b, `,"has_idle_cores":`...)
		b = appendBit(b, l.HasIdleCores)
		b = append(b, `,"nr_idle_scan":`...)
		b = strconv.AppendInt(b, int64(l.NrIdleScan), 10)
		b = append(b, '}')
	}
	b = append(b, `],"tasks":[`...)
	for i := range res.Tasks {
		t := &res.Tasks[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = strconv.AppendQuote(b, t.Name)
		b = appendKV(b, "cpu", uint64(t.CPU))
		b = append(b, `,"on_rq":`...)
		b = strconv.AppendBool(b, t.OnRq)
		b = append(b, `,"delayed":`...)
		b = strconv.AppendBool(b, t.Delayed)
		b = append(b, `,"running":`...)
		b = strconv.AppendBool(b, t.Running)
		b = appendKV(b, "vruntime", t.Vruntime)
		b = appendKV(b, "deadline", t.Deadline)
		b = append(b, `,"vlag":`...)
		b = strconv.AppendInt(b, t.VLag, 10)
		b = append(b, `,"lag":`...)
		b = strconv.AppendInt(b, t.Lag, 10)
		b = append(b, `,"eligible":`...)
		b = strconv.AppendBool(b, t.Eligible)
		b = appendKV(b, "weight", t.Weight)
		b = appendKV(b, "slice", t.Slice)
		b = appendKV(b, "sum_exec", t.SumExec)
		if res.HasGroups {
			b = append(b, `,"group":`...)
			b = strconv.AppendQuote(b, t.Group)
			b = appendKV(b, "h_weight", t.HWeight)
		}
		b = appendKV(b, "load_avg", t.Avg.LoadAvg)
		b = appendKV(b, "runnable_avg", t.Avg.RunnableAvg)
		b = appendKV(b, "util_avg", t.Avg.UtilAvg)
		b = appendKV(b, "util_est", uint64(t.Avg.UtilEst))
		b = appendKV(b, "last_update_time", t.Avg.LastUpdateTime)
		b = appendKV(b, "wakee_flips", uint64(t.WakeeFlips))
		b = appendKV(b, "recent_used_cpu", uint64(t.RecentUsedCPU))
		b = appendKV(b, "nr_migrations", t.NrMigrations)
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.HasGroups {
		b = appendGroupsJSON(b, res.Groups)
	}
	b = append(b, `,"events":[`...)
	for i := range res.Events {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEvent(b, &res.Events[i])
	}
	b = appendHLoadEvents(b, res.HLoads, len(res.Events) > 0)
	return append(b, "]}"...)
}

// appendEvent appends one balancing event with the keys of its kind.
func appendEvent(b []byte, e *smp.Event) []byte {
	b = append(b, `{"ev":"`...)
	b = append(b, e.Kind.String()...)
	b = append(b, '"')
	switch e.Kind {
	case smp.EventBalance:
		b = appendKV(b, "cpu", uint64(e.CPU))
		b = append(b, `,"sd":`...)
		b = strconv.AppendQuote(b, e.Level.String())
		b = appendKV(b, "idle", uint64(e.Idle))
		b = appendKV(b, "src", uint64(e.Busiest))
		b = appendKV(b, "type", uint64(e.MigrationType))
		b = appendKV(b, "moved", uint64(e.Moved))
	case smp.EventNewidleSkip:
		b = appendKV(b, "cpu", uint64(e.CPU))
		b = append(b, `,"sd":`...)
		b = strconv.AppendQuote(b, e.Level.String())
		b = appendKV(b, "draw", uint64(e.Draw))
	case smp.EventActiveKick:
		b = appendKV(b, "busiest", uint64(e.Busiest))
		b = appendKV(b, "push_cpu", uint64(e.Target))
	case smp.EventActive:
		b = appendKV(b, "busiest", uint64(e.Busiest))
		b = appendKV(b, "target", uint64(e.Target))
		b = append(b, `,"task":`...)
		name := ""
		if e.Task != nil {
			name = e.Task.Name()
		}
		b = appendName(b, name)
	}
	return append(b, '}')
}

// appendKV appends ,"key":v.
func appendKV(b []byte, key string, v uint64) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	return strconv.AppendUint(b, v, 10)
}

// appendInt appends v, or null for a negative v.
func appendInt(b []byte, v int) []byte {
	if v < 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(v), 10)
}

// appendBit appends a flag as the integer 0 or 1.
func appendBit(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// SMPJSONWriter returns an emit function for ReplaySMP that writes one
// JSON line per result to w.
func SMPJSONWriter(w io.Writer) func(*SMPResult) error {
	var buf []byte
	return func(res *SMPResult) error {
		buf = res.AppendJSON(buf[:0])
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	}
}
