package scenario

import (
	"errors"
	"io"

	"github.com/schedmodel/fairclass/eevdf"
)

// How the one-CPU entry points (Parse, Replay, Result) carry a multi-CPU
// scenario, so that a caller of Parse and Replay — the replay command —
// replays either kind of file without knowing which it is.

// errMachine is parseLine's signal that the header has a machine line.
var errMachine = errors.New("scenario: machine line")

// errSMPOutput is the table and trace writers' refusal of a multi-CPU
// result, which only the JSON format prints.
var errSMPOutput = errors.New("scenario: a multi-CPU scenario prints JSON lines only (no table, no trace)")

// headerRecorder keeps what Parse's scanner reads while on is set (until
// the first operation), so that a file found to be multi-CPU can be read
// again from its first byte without reading all of it into memory.
type headerRecorder struct {
	r   io.Reader
	buf []byte
	on  bool
}

func (h *headerRecorder) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if h.on {
		h.buf = append(h.buf, p[:n]...)
	}
	return n, err
}

// parseSMPScenario is Parse of a multi-CPU scenario: ParseSMP, wrapped in
// a Scenario whose SMP field holds it.
func parseSMPScenario(r io.Reader, name string) (*Scenario, error) {
	m, err := ParseSMP(r, name)
	if err != nil {
		return nil, err
	}
	return &Scenario{Name: name, Features: m.Features, HZ: m.HZ, BaseSlice: m.BaseSlice, SMP: m}, nil
}

// SMP returns the multi-CPU result a Result carries when Replay replays a
// multi-CPU scenario (nil for a one-CPU scenario's result); AppendJSON
// prints it.
func (res *Result) SMP() *SMPResult { return res.smp }

// replaySMPResults is Replay of a multi-CPU scenario: each SMPResult is
// passed to emit inside a Result. Options.Backend and Options.Features
// apply; the multi-CPU model is the modelled kernel's and always keeps
// PELT signals, so another Kernel is refused and PELT changes nothing.
func replaySMPResults(sc *SMPScenario, opt Options, emit func(*Result) error) error {
	if opt.Kernel != eevdf.KernelV73 {
		return &Error{File: sc.Name, Pos: Pos{1, 1}, Msg: "a multi-CPU scenario replays only on the modelled kernel (v7.3)"}
	}
	var res Result
	return ReplaySMP(sc, SMPOptions{Backend: opt.Backend, Features: opt.Features}, func(r *SMPResult) error {
		res.smp = r
		res.I, res.T = r.I, r.T
		return emit(&res)
	})
}
