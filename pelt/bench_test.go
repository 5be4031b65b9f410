package pelt

import "testing"

var sinkU64 uint64
var sinkBool bool

func BenchmarkDecayLoad(b *testing.B) {
	b.ReportAllocs()
	var s uint64
	for i := 0; b.Loop(); i++ {
		s += DecayLoad(uint64(i)*0x9e3779b97f4a7c15>>20, uint64(i)&2047)
	}
	sinkU64 = s
}

// BenchmarkUpdateLoadSum times the sum update for gaps within a period,
// across one boundary (the 1 ms tick), and across many.
func BenchmarkUpdateLoadSum(b *testing.B) {
	for _, bc := range []struct {
		name string
		step uint64
	}{
		{"within-period", 100 * unitNs},
		{"tick-1ms", msNs},
		{"gap-100ms", 100 * msNs},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var a Avg
			now := uint64(0)
			ok := false
			for b.Loop() {
				now += bc.step
				ok = a.UpdateLoadSum(now, 1024, 1, true) != ok
			}
			sinkBool = ok
		})
	}
}

// BenchmarkUpdateEntity is __update_load_avg_se on a 1 ms tick: the sums,
// the averages and the util_est flag.
func BenchmarkUpdateEntity(b *testing.B) {
	b.ReportAllocs()
	var a Avg
	now := uint64(0)
	for b.Loop() {
		now += msNs
		a.UpdateEntity(now, 1, 1, true, 1024)
	}
	sinkU64 = a.UtilAvg
}

// BenchmarkAttachDetach is a migration's PELT work on the two queues.
func BenchmarkAttachDetach(b *testing.B) {
	b.ReportAllocs()
	q := Avg{LoadAvg: 3000, LoadSum: 3000 * 47000, UtilAvg: 900, UtilSum: 900 * 47000}
	se := Avg{LoadAvg: 500, UtilAvg: 300, RunnableAvg: 320}
	var prop int64
	for b.Loop() {
		prop += q.Attach(&se, 1024)
		prop += q.Detach(&se, 1024)
	}
	sinkU64 = uint64(prop)
}

// Nothing in the package allocates.
func TestNoAllocations(t *testing.T) {
	q := Avg{LoadAvg: 3000, LoadSum: 3000 * 47000, UtilAvg: 900, UtilSum: 900 * 47000}
	se, g := NewTaskAvg(1024), Avg{UtilAvg: 100, RunnableAvg: 200, LoadSum: 5000}
	var r Removed
	var qp, gp Propagation
	var tg TGContrib
	now := uint64(0)
	allocs := testing.AllocsPerRun(100, func() {
		now += msNs
		PostInitUtilAvg(&q, &se, 1024)
		qp.Add(q.Attach(&se, 1024))
		se.UpdateEntity(now, 1, 1, true, 1024)
		q.UpdateQueue(now, 1024, 1, true)
		se.UtilEstUpdate()
		UtilEstEnqueue(&q, &se)
		UtilEstDequeue(&q, &se)
		qp.Add(q.Detach(&se, 1024))
		se.Sync(q.LastUpdateTime, 1024)
		r.Add(&se)
		q.ApplyRemoved(&r)
		gp.Add(5)
		PropagateEntity(&q, &qp, &se, 1024, &g, &gp, 2048)
		se.Reweight(2048)
		tg.Update(&q, now)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
}
