package scenario

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// TableWriter prints results as an aligned table, one row per task per
// operation, in the manner of the worked tables of scheduler threads:
// vruntimes, deadlines and V relative to the first operation's V; the
// state column shows R (running), Q (queued), D (delayed) or - (not
// queued), followed by * when the task is eligible. A task that was never
// created shows no vruntime, deadline or lag. A scenario with task groups
// adds each task's group and h_weight.
type TableWriter struct {
	tw     *tabwriter.Writer
	base   uint64
	based  bool
	groups bool
	err    error
}

// NewTableWriter returns a TableWriter writing to w. Call Flush at the end.
func NewTableWriter(w io.Writer, sc *Scenario) *TableWriter {
	t := &TableWriter{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight), groups: sc != nil && sc.HasGroups}
	cols := []string{"i", "t", "op", "V", "curr", "resched", "picked", "task", "state", "vruntime", "deadline", "vlag", "lag", "weight", "slice", "sum_exec"}
	if t.groups {
		cols = append(cols, "group", "h_weight")
	}
	t.line(cols...)
	return t
}

func (t *TableWriter) line(cols ...string) {
	if t.err != nil {
		return
	}
	for _, c := range cols {
		if _, err := io.WriteString(t.tw, c+"\t"); err != nil {
			t.err = err
			return
		}
	}
	_, t.err = io.WriteString(t.tw, "\n")
}

func (t *TableWriter) rel(x uint64) string {
	d := int64(x - t.base)
	if d >= 0 {
		return "+" + strconv.FormatInt(d, 10)
	}
	return strconv.FormatInt(d, 10)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Write adds the rows of one result; it is an emit function for Replay.
func (t *TableWriter) Write(res *Result) error {
	if res.smp != nil {
		return errSMPOutput
	}
	if !t.based {
		t.base, t.based = res.V, true
	}
	op := res.Op.String()
	if res.Task != "" {
		op += " " + res.Task
	}
	resched := ""
	if res.Resched {
		resched = "yes"
	}
	picked := ""
	if res.HasPick {
		picked = orDash(res.Picked)
	}
	head := []string{strconv.Itoa(res.I), strconv.FormatUint(res.T, 10), op, t.rel(res.V), orDash(res.Curr), resched, picked}
	blank := []string{"", "", "", "", "", "", ""}
	for k := range res.Tasks {
		ts := &res.Tasks[k]
		state := "-"
		switch {
		case ts.Name == res.Curr:
			state = "R"
		case ts.Delayed:
			state = "D"
		case ts.OnRq:
			state = "Q"
		}
		if ts.Eligible {
			state += "*"
		}
		cols := blank
		if k == 0 {
			cols = head
		}
		vr, dl, lag := t.rel(ts.Vruntime), t.rel(ts.Deadline), strconv.FormatInt(ts.Lag, 10)
		if !ts.Created {
			vr, dl, lag = "", "", "" // never created: nothing to show
		}
		row := append(cols[:7:7], ts.Name, state, vr, dl,
			strconv.FormatInt(ts.VLag, 10), lag,
			strconv.FormatUint(ts.Weight, 10), strconv.FormatUint(ts.Slice, 10),
			strconv.FormatUint(ts.SumExec, 10))
		if t.groups {
			row = append(row, ts.Group, strconv.FormatUint(ts.HWeight, 10))
		}
		t.line(row...)
	}
	if len(res.Tasks) == 0 {
		t.line(head...)
	}
	return t.err
}

// Flush writes the aligned table.
func (t *TableWriter) Flush() error {
	if err := t.tw.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	if t.err != nil {
		return fmt.Errorf("table: %w", t.err)
	}
	return nil
}
