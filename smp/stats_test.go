package smp

import (
	"fmt"
	"testing"
)

// Every Rule prints by its name; a value that is no Rule says so.
func TestRuleNames(t *testing.T) {
	want := []string{"in_place", "single_cpu", "current_cpu", "target", "prev", "recent", "no_llc",
		"idle_smt", "idle_core", "idle_cpu", "busy_target", "slow_path", "fallback"}
	rules := Rules()
	if len(rules) != len(want) || len(want) != NumRules {
		t.Fatalf("%d rules, %d names, NumRules %d", len(rules), len(want), NumRules)
	}
	for i, r := range rules {
		if r.String() != want[i] {
			t.Errorf("Rule %d prints %q, want %q", i, r, want[i])
		}
	}
	if got := Rule(NumRules).String(); got != "Rule(13)" {
		t.Errorf("Rule(NumRules) prints %q", got)
	}
}

// RuleCounts prints its non-zero counts with the rules' names, in Rule
// order, with %v and %s alike; Total adds them up.
func TestRuleCountsPrintWithNames(t *testing.T) {
	var c RuleCounts
	if c.String() != "[]" || c.Total() != 0 {
		t.Errorf("zero counts print %q, total %d", c, c.Total())
	}
	c[RuleSlowPath], c[RuleTarget], c[RuleFallback] = 4, 1, 12
	const want = "[target:1 slow_path:4 fallback:12]"
	if got := fmt.Sprintf("%v|%s", c, c); got != want+"|"+want {
		t.Errorf("prints %q, want %q", got, want)
	}
	if c.Total() != 17 {
		t.Errorf("total %d, want 17", c.Total())
	}
	st := Stats{Placed: c}
	if got := fmt.Sprint(st.Placed); got != want {
		t.Errorf("Stats.Placed prints %q, want %q", got, want)
	}
}

// Stats prints every counter, the arrays by the names of their entries.
func TestStatsString(t *testing.T) {
	st := Stats{Forks: 4, Wakeups: 6, Migrations: 4, ForkBalance: 3, AffineThis: 1, AffinePrev: 2, MigratedAffine: 1,
		BalanceMoves: 1, NewidleSkips: 2, ActiveKicks: 1, ActiveMoves: 1, ILBKicks: 5, Execs: 7, ExecBalance: 6, WakeWide: 8}
	st.Placed[RuleSlowPath], st.Placed[RuleTarget], st.Placed[RulePrev] = 4, 3, 3
	st.Migrated[RuleTarget] = 1
	st.BalanceCalls = [3]uint64{0, 40, 2}
	st.NewidlePulls = [3]uint64{0, 1, 0}
	st.PeriodicPulls = [3]uint64{3, 0, 9}
	const want = `forks 4 wakeups 6 execs 7 migrations 4
placed [target:3 prev:3 slow_path:4] migrated [target:1]
fork_balance 3 exec_balance 6 wake_wide 8 affine_this 1 affine_prev 2 migrated_affine 1
balance_calls [idle:40 newly_idle:2] balance_moves 1
newidle_pulls [MC:1] newidle_skips 2 periodic_pulls [SMT:3 PKG:9]
active_kicks 1 active_moves 1 ilb_kicks 5`
	if got := st.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := fmt.Sprint(st); got != want {
		t.Errorf("fmt.Sprint does not use String:\n%s", got)
	}
}
