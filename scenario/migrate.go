package scenario

import (
	"fmt"

	"github.com/schedmodel/fairclass/eevdf"
)

// The migration pair: a one-CPU scenario's way to say that a task leaves
// this CPU for another and comes back, its lag carried across as the
// kernel carries it. The other CPU is not modelled; what matters here is
// what the move does to this runqueue (docs/replay.md, "Migrations").
//
//	AT migrate_out T   T leaves. Queued (delayed or not, not running): as
//	                   the load balancer's detach_task, a dequeue as
//	                   migrating (eevdf.CfsRq.DetachTask): its lag is
//	                   saved (clamped), its deadline made relative under
//	                   PLACE_REL_DEADLINE. Asleep: as try_to_wake_up's
//	                   set_task_cpu to another CPU, migrate_task_rq_fair
//	                   (eevdf.CfsRq.MigrateOut): vruntime, vlag and
//	                   deadline untouched, PELT handed over.
//	AT migrate_in T    T arrives back the way it left. A task that left
//	                   queued is attached (attach_task: an enqueue with
//	                   ENQUEUE_MIGRATED, placed with its saved lag, then
//	                   the wakeup-preemption check with no wake flags); a
//	                   task that left asleep is woken here with WF_MIGRATED
//	                   (ttwu_do_activate: ENQUEUE_WAKEUP|ENQUEUE_MIGRATED,
//	                   then the check with WF_TTWU|WF_MIGRATED).
//
// While a task is away, every other operation naming it is an error, as
// is a second migrate_out; migrate_in of a task that is not away is one.
// The running task cannot leave (the kernel puts it back first: schedule
// away from it).

// awayState says whether and how a task left this CPU.
type awayState uint8

const (
	notAway      awayState = iota
	awayQueued             // left by detach_task: it arrives by attach_task
	awaySleeping           // left asleep: it arrives by a wakeup with WF_MIGRATED
)

// migrate applies migrate_out or migrate_in of se, the op.Task-th task.
func (r *Replayer) migrate(op *Op, se *eevdf.SchedEntity) error {
	if r.away == nil {
		r.away = make([]awayState, len(r.ses))
	}
	rq := r.rq
	switch op.Kind {
	case OpMigrateOut:
		switch {
		case !r.created[op.Task]:
			return fmt.Errorf("migrate_out %s: the task was never created (use new)", se.Name())
		case r.away[op.Task] != notAway:
			return fmt.Errorf("migrate_out %s: the task is already on another CPU", se.Name())
		case se == rq.Curr():
			return fmt.Errorf("migrate_out %s: the task is running (a running task is put back before it migrates: schedule first)", se.Name())
		case se.OnRq():
			if err := rq.DetachTask(se); err != nil {
				return err
			}
			r.away[op.Task] = awayQueued
		default:
			if err := rq.MigrateOut(se); err != nil {
				return err
			}
			r.away[op.Task] = awaySleeping
		}
	case OpMigrateIn:
		switch r.away[op.Task] {
		case notAway:
			return fmt.Errorf("migrate_in %s: the task is not on another CPU (migrate_out first)", se.Name())
		case awayQueued:
			if err := rq.Enqueue(se, eevdf.EnqueueMigrated); err != nil {
				return err
			}
			rq.WakeupPreempt(se, 0)
		default:
			if err := rq.Wakeup(se, eevdf.WFMigrated); err != nil {
				return err
			}
		}
		r.away[op.Task] = notAway
	}
	return nil
}
