package eevdf

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzBackends runs the same operation sequence on a B-tree runqueue and
// on a red-black-tree runqueue, each also checked against the pick oracle
// and Check after every step (by the harness), and requires the two to
// agree exactly: the same pick, with and without protection, and the same
// Snapshot, field for field. The timeline is a choice of data structure,
// never of behaviour.
func FuzzBackends(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runBackends(t, data)
	})
}

func runBackends(t testing.TB, data []byte) {
	hb, rb := newHarnessOn(t, data, int(BTree))
	hr, rr := newHarnessOn(t, data, int(RBTree))
	for steps := 0; !rb.done() && steps < 2000; steps++ {
		hb.step(rb)
		hr.step(rr)
		for _, protect := range []bool{true, false} {
			pb, pr := hb.rq.pickEevdf(protect), hr.rq.pickEevdf(protect)
			if pb.nameOrEmpty() != pr.nameOrEmpty() {
				hb.fail("pick_eevdf(protect=%v): btree %v, rbtree %v", protect, pb, pr)
			}
		}
		if diff := cmp.Diff(hb.rq.Snapshot(), hr.rq.Snapshot()); diff != "" {
			hb.fail("the backends disagree (-btree +rbtree):\n%s", diff)
		}
	}
}

// TestBackendsAgree runs the differential check on the property test's
// sequences.
func TestBackendsAgree(t *testing.T) {
	for _, b := range propertyInputs(40) {
		runBackends(t, b)
	}
}
