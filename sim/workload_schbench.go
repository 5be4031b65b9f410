package sim

import (
	"fmt"
	"time"
)

// SchbenchWorkload models schbench's request/worker structure:
// MessageThreads message threads, each serving Workers worker threads.
//
// A worker loops: it sleeps Sleeptime, sends a request to its message
// thread and blocks for the answer; when it runs again it records a latency
// sample — the time from the message thread's answer (its wakeup) to the
// moment the worker runs — then works CPUTime of CPU time and counts a
// "requests" mark. A message thread loops: it blocks for a request, spends
// MessageCost, and answers the worker that sent it. Both sides' wakeups are
// synchronous (WF_SYNC). The workload's latency histogram is schbench's
// wakeup latency; its "requests" count over the run gives the request rate.
type SchbenchWorkload struct {
	// Label is the workload's name in reports (default "schbench").
	Label string
	// MessageThreads is schbench -m (default 2).
	MessageThreads int
	// Workers is schbench -t, workers per message thread (default 16).
	Workers int
	// CPUTime is the work per request, schbench -c (default 10 ms).
	CPUTime time.Duration
	// Sleeptime is a worker's pause between requests, schbench -s (default
	// 10 ms).
	Sleeptime time.Duration
	// MessageCost is a message thread's CPU time per request (default 2 µs).
	MessageCost time.Duration
	// Options are the threads' scheduling attributes.
	Options TaskOptions
	// WorkerOptions, if set, replace Options for the workers.
	WorkerOptions *TaskOptions
}

// Schbench returns messageThreads message threads with workers workers each.
func Schbench(messageThreads, workers int, opt TaskOptions) *SchbenchWorkload {
	return &SchbenchWorkload{MessageThreads: messageThreads, Workers: workers, Options: opt}
}

// Name implements Workload.
func (w *SchbenchWorkload) Name() string { return orDefault(w.Label, "schbench") }

// Kind implements Workload.
func (w *SchbenchWorkload) Kind() string { return "schbench" }

// Tasks implements Workload.
func (w *SchbenchWorkload) Tasks() ([]TaskSpec, error) {
	m, n := orDefault(w.MessageThreads, 2), orDefault(w.Workers, 16)
	ct, st := orDefault(w.CPUTime, 10*time.Millisecond), orDefault(w.Sleeptime, 10*time.Millisecond)
	mc := orDefault(w.MessageCost, 2*time.Microsecond)
	if err := checkCount("schbench message threads", m, maxTasks); err != nil {
		return nil, err
	}
	if err := checkCount("schbench workers", n, maxTasks); err != nil {
		return nil, err
	}
	if m*(n+1) > maxTasks {
		return nil, fmt.Errorf("schbench: too many tasks")
	}
	for _, d := range []time.Duration{ct, st, mc} {
		if err := checkDur("schbench", d); err != nil {
			return nil, err
		}
	}
	wopt := w.Options
	if w.WorkerOptions != nil {
		wopt = *w.WorkerOptions
	}
	var out []TaskSpec
	for i := range m {
		req := NewChannel(fmt.Sprintf("%s-m%d-requests", w.Name(), i), max(n, 1), true)
		out = append(out, w.Options.spec(fmt.Sprintf("%s-msg%d", w.Name(), i),
			Forever(Recv(req, 1), Run(mc), Reply())))
		for k := range n {
			inbox := NewChannel(fmt.Sprintf("%s-m%d-w%d", w.Name(), i, k), 1, true)
			out = append(out, wopt.spec(fmt.Sprintf("%s-w%d.%d", w.Name(), i, k),
				Forever(Sleep(st), SendRequest(req, inbox), Recv(inbox, 1), Latency(), Run(ct), Mark("requests"))))
		}
	}
	return out, nil
}
