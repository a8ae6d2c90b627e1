package ordered

import (
	"fmt"

	"github.com/spf13/pflag"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    poisonedName,
		Family:  "ordered",
		Kind:    report.After,
		Pair:    cascadeName,
		Summary: "Ordered AFTER: remember the poisoned correlation id and park later messages that carry it",
		Long: `The same log, bug and strict handler as ordered-crash-cascade. When order 42's
record is dead-lettered, the consumer stores its correlation id in Holds in the
same transaction; every record it reads first checks that store (one read per
record, counted) and a record of a poisoned id goes to ParkedMessages at once,
never to the handler. No cascade, no wasted attempts. After the fix, the dead
and parked records of order-42 are replayed in sequence order and the id is
removed from the holds: the rule for removing ids. Every order ends where an
in-order run ends.

--remember-poisoned=false switches the guard off: the consumer only
dead-letters, the cascade comes back and the checks fail (exit 1). With
--failing-message OrderShipped, the order's last message, no later message
comes for the guard to hold back: it is not exercised (exit 1).`,
		Example: `  outboxlab ordered-remember-poisoned-ids
  outboxlab ordered-remember-poisoned-ids --failing-message PaymentReceived
  outboxlab ordered-remember-poisoned-ids --orders 20 --partitions 4 --failing-order 50`,
		FailsWith:        []string{"--remember-poisoned=false"},
		NotExercisedWith: []string{"--failing-message=OrderShipped"},
		Bind: func(fs *pflag.FlagSet) scenarios.Options {
			o := &cascadeOptions{options: bindOptions(fs, OrderPlaced, false), after: true, RememberPoisoned: true}
			fs.BoolVar(&o.RememberPoisoned, "remember-poisoned", true,
				"park the later records of a dead-lettered record's correlation id (false: only dead-letter)")
			return o
		},
	})
}

func (o *cascadeOptions) poisonedChecks(r *page, run *run) {
	key := orderKey(o.FailingOrder)
	rec := o.failingRecord(run)
	var hold keyedlog.Hold
	for _, h := range run.holds {
		if h.Scope == keyedlog.ScopeCorrelation && h.Value == key {
			hold = h
		}
	}
	held := key + " held in Holds"
	if hold.ID == 0 {
		held = key + " not in Holds"
	}
	row, dead := deadLetterOf(run.idle, rec.ID)
	r.Check("correlation id remembered with the dead letter",
		hold.ID > 0 && dead && len(run.idle.dead) == 1 && hold.LogRecordID == rec.ID && hold.HeldAt.Equal(row.At),
		fmt.Sprintf("%s, %s", held, report.Plural(len(run.idle.dead), "dead letter")))
	parked := len(o.laterRows(run.idle.parked))
	handled := 0
	for _, c := range run.calls {
		if c.stage == beforeFix && c.rec.Key == key && c.rec.Sequence > o.failingSeq() {
			handled++
		}
	}
	if o.later() == 0 {
		r.NotExercised("later messages parked, never handed to the handler",
			o.noLater("no later message came for the remembered id to hold back"))
	} else {
		r.Check("later messages parked, never handed to the handler", parked == o.later() && handled == 0,
			fmt.Sprintf("%d / %d parked; %s on them", parked, o.later(), report.Plural(handled, "handler attempt")))
	}
	o.checkReleasedAfterReplay(r, run, "the id removed after the replay")
	o.checkReplayInSequence(r, run, 0)
	o.checkOthersFlowed(r, run)
	o.checkEndSame(r, run)
}

// writeGuardCost shows what the guard costs: one read of Holds for every
// record the consumer read, as the consumer counted them. It is a metric,
// not a check: the count comes from the code it would judge.
func (o *cascadeOptions) writeGuardCost(r *page, run *run) {
	consumed := 0
	for _, e := range run.timeline {
		if e.ev != nil && e.ev.Via == keyedlog.ViaLog && e.ev.Kind != keyedlog.Held && e.ev.Kind != keyedlog.Published {
			consumed++
		}
	}
	r.Section("Cost of the guard (as the consumer counted it)")
	r.Linef("%s of Holds for %s read (%d records, retries read again)",
		report.Plural(run.holdReads, "read"), report.Plural(consumed, "record"), len(run.log))
	scenarios.RecordMetrics(r.Report, holdMetrics, run)
}

// holdMetrics are the guard's cost: the reads of Holds it made.
var holdMetrics = []scenarios.Metric[*run]{
	{Key: "hold_reads", Value: func(x *run) any { return x.holdReads }},
}
