package trace

import (
	"strings"
	"testing"
)

// The tick's timer expiry is a KindTick on its CPU at its time; the
// expiry of any other timer stays an "other" event.
func TestTickTimer(t *testing.T) {
	in := strings.Join([]string{
		`          <idle>-0       [002] d.h1.   100.000000001: hrtimer_expire_entry: hrtimer=00000000a1b2c3d4 function=tick_nohz_handler now=100000000001`,
		`            stress-500   [001] d.h1.   100.004000000: hrtimer_expire_entry: hrtimer=00000000a1b2c3d4 function=tick_sched_timer now=100004000000`,
		`            stress-500   [001] d.h1.   100.004000100: hrtimer_expire_entry: hrtimer=00000000deadbeef function=hrtimer_wakeup now=100004000100`,
		`            stress-500   [001] d.h1.   100.004000200: hrtimer_expire_entry: hrtimer=00000000deadbeef function=tick_nohz_handlers now=1`,
	}, "\n")
	evs, st, err := ReadAll(strings.NewReader(in), Options{Format: FormatFtrace})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || st.Count(KindTick) != 2 || st.Other != 2 {
		t.Fatalf("%d events, %d ticks, %d other; want 2, 2, 2", len(evs), st.Count(KindTick), st.Other)
	}
	want := []Event{{Time: 100_000_000_001, CPU: 2, Ctx: 0}, {Time: 100_004_000_000, CPU: 1, Ctx: 500}}
	for i, w := range want {
		if e := evs[i]; e.Kind != KindTick || e.Time != w.Time || e.CPU != w.CPU || e.Ctx != w.Ctx {
			t.Errorf("event %d = %+v, want a tick at %d on CPU %d in %d", i, e, w.Time, w.CPU, w.Ctx)
		}
	}
	if KindTick.String() != "sched_tick" {
		t.Errorf("KindTick prints %q", KindTick)
	}
}
