package replay

import (
	"bytes"
	"testing"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// Mode B on the simulator's own run: every task becomes a program (the
// hackbench threads wait for each other's messages, the hogs never
// block), and the model, free to place them, runs them for about as long
// as the trace did and wakes them as often.
func TestFreeRoundTrip(t *testing.T) {
	evs := roundTripEvents(t)
	r, err := Free(evs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tasks) != 11 || r.MessageWaits == 0 || r.OtherClass != 0 {
		t.Fatalf("%d tasks, %d message waits, %d timer waits, %d other: want the 11 tasks, messages", len(r.Tasks), r.MessageWaits, r.TimerWaits, r.OtherClass)
	}
	tr, mo := r.Trace, r.Model
	if d := mo.RuntimeNs - tr.RuntimeNs; d < -tr.RuntimeNs/10 || d > tr.RuntimeNs/10 {
		t.Errorf("runtime: trace %d ns, model %d ns; want within 10%%", tr.RuntimeNs, mo.RuntimeNs)
	}
	if tr.Placed == 0 || mo.Placed == 0 || tr.Stayed > tr.Placed || mo.Stayed > mo.Placed {
		t.Errorf("placements: trace %d of %d stayed, model %d of %d", tr.Stayed, tr.Placed, mo.Stayed, mo.Placed)
	}
	if mo.Wakeups == 0 || mo.Wakeup.Count == 0 || mo.Switches == 0 {
		t.Errorf("model side %+v: want wakeups, latency samples and switches", mo)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b, 3); err != nil || !bytes.Contains(b.Bytes(), []byte("mode B (free)")) {
		t.Errorf("text (err %v):\n%s", err, b.String())
	}
	t.Log("\n" + b.String())
	// The same programs under NO_RUN_TO_PARITY, beside the defaults.
	f, err := features.Parse("NO_RUN_TO_PARITY")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Free(evs, Options{Compare: &f})
	if err != nil {
		t.Fatal(err)
	}
	if c.Toggled == nil || c.Compare != "NO_RUN_TO_PARITY" || c.Model != r.Model || c.Tasks[0].Toggled == nil {
		t.Errorf("compare: toggled %v, %q, model %+v against %+v", c.Toggled, c.Compare, c.Model, r.Model)
	} else if c.Toggled.Switches == c.Model.Switches {
		t.Errorf("NO_RUN_TO_PARITY left the switches at %d", c.Model.Switches)
	}
}

// Mode B under an earlier kernel runs that kernel's fair class: v6.12's
// base slice (750 µs, not 700 µs, times the CPU factor) and feature
// defaults change the model's run, and the report names the kernel; the
// trace's side is the trace's whatever the kernel. A toggle v6.12 lacks is
// an error, as the simulator reports it.
func TestFreeUnderKernel(t *testing.T) {
	evs := roundTripEvents(t)
	r, err := Free(evs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []eevdf.Kernel{eevdf.KernelV612, eevdf.KernelV66} {
		o, err := Free(evs, Options{Kernel: k})
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if o.Kernel != k.String() || r.Kernel != "v7.3" {
			t.Errorf("%v: report says kernel %q (default run: %q)", k, o.Kernel, r.Kernel)
		}
		if o.Trace != r.Trace {
			t.Errorf("%v: the trace's side changed: %+v, want %+v", k, o.Trace, r.Trace)
		}
		if o.Model == r.Model {
			t.Errorf("%v: the model's side is v7.3's to the last count: %+v", k, o.Model)
		}
		if o.Model.Wakeup.Count == 0 || o.Model.Switches == 0 {
			t.Errorf("%v: model side %+v: want wakeups and switches", k, o.Model)
		}
		var b bytes.Buffer
		if err := o.WriteText(&b, 1); err != nil || !bytes.Contains(b.Bytes(), []byte("kernel "+k.String())) {
			t.Errorf("%v: text (err %v) does not name the kernel:\n%s", k, err, b.String())
		}
	}
	// v6.12 with the defaults of v7.3 as its feature set: features its
	// features.h does not have.
	all := features.Default()
	if _, err := Free(evs, Options{Kernel: eevdf.KernelV612, Features: &all}); err == nil {
		t.Error("v6.12 with v7.3's feature set: no error")
	}
}
