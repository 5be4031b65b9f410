package sim

import (
	"strings"
	"testing"
	"time"
)

// TestMigrationCausesAddUp: on a machine with SMT and two packages, every
// migration has one cause — a wakeup rule, load balancing, active or exec
// balancing — and the affine pulls are wakeup migrations.
func TestMigrationCausesAddUp(t *testing.T) {
	cfg, err := LoadConfig("testdata/machine.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Duration = 300 * time.Millisecond
	r, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sum, wakeups, balance uint64
	for _, c := range r.MigrationCauses {
		switch {
		case c.Cause == "fork_balance":
			continue
		case strings.HasPrefix(c.Cause, "wakeup:"):
			wakeups += c.Count
		case c.Cause == "balance":
			balance = c.Count
		case c.Cause == "other":
			t.Errorf("%d migrations of no known cause", c.Count)
		}
		sum += c.Count
	}
	if sum != r.Migrations {
		t.Errorf("causes add up to %d, migrations %d (%+v)", sum, r.Migrations, r.MigrationCauses)
	}
	if balance == 0 || wakeups == 0 {
		t.Errorf("want wakeup and balancing migrations: %+v", r.MigrationCauses)
	}
	if a := r.Placement.AffineMigrated; a == 0 || a > wakeups {
		t.Errorf("affine pulls %d of %d wakeup migrations", a, wakeups)
	}
}
