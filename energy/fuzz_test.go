package energy

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// FuzzLoad feeds Load any bytes: it either fails with an error wrapping
// ErrBadModel, or returns a model whose every derived number Check
// recomputes, whose JSON loads back into the same states, and whose
// estimates never exceed cost·sum (em_cpu_energy picks one of its own
// states).
func FuzzLoad(f *testing.F) {
	for _, m := range []*Model{Synthetic2x2(), RB5()} {
		b, _ := json.Marshal(m)
		f.Add(b)
	}
	f.Add([]byte(`{"domains":[{"cpus":[0],"states":[{"frequency_khz":500,"power_uw":1000},{"frequency_khz":750,"power_uw":3000},{"frequency_khz":1000,"power_uw":2000}]}]}`))
	f.Add([]byte(`{"domains":[{"cpus":[3,1],"capacity":800,"artificial":true,"states":[{"frequency_khz":2,"cost":3},{"frequency_khz":5,"cost":6}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadBytes(data)
		if err != nil {
			if !errors.Is(err, ErrBadModel) {
				t.Fatalf("error without ErrBadModel: %v", err)
			}
			return
		}
		if err := m.Check(); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := LoadBytes(b)
		if err != nil {
			t.Fatalf("the model's own JSON does not load: %v\n%s", err, b)
		}
		for k, d := range m.Domains() {
			if !slices.Equal(d.States(), m2.Domains()[k].States()) || !slices.Equal(d.CPUs(), m2.Domains()[k].CPUs()) {
				t.Fatalf("domain %d changed in a round trip", k)
			}
			for _, u := range []uint64{0, 1, 100, d.Capacity(), 1 << 20} {
				i := d.StateFor(u, d.Capacity())
				if i < 0 || i >= len(d.States()) {
					t.Fatalf("StateFor(%d) = %d", u, i)
				}
				if e := d.CPUEnergy(u, 7, d.Capacity()); e != d.States()[i].Cost*7 && d.States()[i].Cost < 1<<60 {
					t.Fatalf("CPUEnergy(%d, 7) = %d, state %d cost %d", u, e, i, d.States()[i].Cost)
				}
			}
		}
	})
}
