package ordered

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const failureEventName = "ordered-publish-failure-event"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:   failureEventName,
		Family: "ordered",
		Kind:   report.After,
		// Remember (as ordered-remember-poisoned-ids does) and announce: the
		// cascade of its strict handler is what the remembered id stops.
		Answers: cascadeName,
		Summary: "Ordered AFTER: remember and announce; a PaymentFailed event published with the dead letter, heard once by a listener",
		Long: `The course's PaymentReceivedGuard as one consumer: when order 42's PaymentReceived
fails for good it is dead-lettered, its correlation id is remembered and a
PaymentFailed event is written to FailureEvents, all in one transaction (an
outbox, so the event exists exactly when the dead letter does). A listener,
customer care, takes each event once and records what it does about it in
its own table; a second pass of the listener finds nothing new. Later records
of order-42 are parked; after the fix they are replayed in sequence order with
the dead letter, the id is released, and every order ends where an in-order run ends.

--publish=false dead-letters without writing the event: customer care still
listens, hears nothing, and the checks fail (exit 1).`,
		Example: `  outboxlab ordered-publish-failure-event
  outboxlab ordered-publish-failure-event --failing-message OrderPlaced   # OrderPlacementFailed instead
  outboxlab ordered-publish-failure-event --failing-order 47 --partitions 2`,
		FailsWith:        []string{"--publish=false"},
		NotExercisedWith: []string{"--failing-message=OrderShipped"},
		Bind: func(fs *pflag.FlagSet) scenarios.Options {
			o := &failureEventOptions{options: bindOptions(fs, PaymentReceived, false), Publish: true}
			fs.BoolVar(&o.Publish, "publish", true,
				"write a failure event with each dead letter, in its transaction (false: write none)")
			return o
		},
	})
}

type failureEventOptions struct {
	*options
	Publish bool
}

func (o *failureEventOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	d := design{contain: keyedlog.PoisonCorrelation, publish: o.Publish, listen: true, idempotent: true, strict: true, recovery: replay}
	if !o.Publish {
		d.off = "--publish=false: no failure event is written; customer care still listens"
	}
	run, err := o.execute(ctx, env, "outbox", d, nil)
	if err != nil {
		return nil, err
	}
	r := o.start(env, identity{name: failureEventName, kind: report.After,
		title: "Ordered messages — AFTER: remember the poisoned id and announce the failure"}, run)
	scenarios.SchemaSection(r.Report, run.tables)
	o.writeLog(r, run.log)
	o.writeTimeline(r, run, nil)
	writeQueues(r, run)
	o.writeEvents(r, run)
	o.writeStates(r, run)
	o.failureEventChecks(r, run)
	scenarios.RecordMetrics(r.Report, failureEventMetrics, run)
	return o.finish(r, run, "REMEMBERED AND ANNOUNCED — THE FAILURE WAS HEARD ONCE, THE ORDER WAITED",
		"THE FAILURE WAS NOT ANNOUNCED AS IT SHOULD BE"), nil
}

func (o *failureEventOptions) writeEvents(r *page, run *run) {
	r.Section("Failure events (FailureEvents, written in the dead-letter transaction)")
	var rows [][]string
	for _, e := range run.failures {
		rec := recordByID(run, e.LogRecordID)
		rows = append(rows, []string{strconv.FormatInt(e.ID, 10), e.Type, e.CorrelationID, shortID(rec) + " " + rec.Place(),
			stamp(e.PublishedAt), stamp(e.DeliveredAt), r.notes.ref(e.Reason)})
	}
	table(r, []string{"Id", "Type", "CorrelationId", "Record", "PublishedAt", "DeliveredAt", "Reason"}, rows)
	r.notes.flush(r)
	r.Line("")
	r.Linef("The listener, customer care, wrote %s:", report.Plural(len(run.care), "CustomerCareLog row"))
	for _, c := range run.care {
		r.Line(fit(fmt.Sprintf("  event %d %s for %s at %s: %s", c.EventID, c.EventType, c.CorrelationID, stamp(c.At), c.Action), "    "))
	}
	r.Linef("A second listener pass at the end of the run took %s.", report.Plural(run.lateDeliv, "event"))
}

func (o *failureEventOptions) failureEventChecks(r *page, run *run) {
	o.checkFailingDeadLettered(r, run)
	matched := 0
	for _, e := range run.failures {
		for _, d := range run.end.dead {
			if d.Record.ID == e.LogRecordID && d.At.Equal(e.PublishedAt) {
				matched++
			}
		}
	}
	r.Check("one failure event per dead letter, in its transaction", len(run.failures) == len(run.end.dead) && matched == len(run.end.dead),
		fmt.Sprintf("%s for %s, %d published at the dead letter's instant",
			report.Plural(len(run.failures), "event"), report.Plural(len(run.end.dead), "dead letter"), matched))
	heard := 0
	for _, c := range run.care {
		for _, e := range run.failures {
			if c.EventID == e.ID && !e.DeliveredAt.IsZero() {
				heard++
			}
		}
	}
	const listened = "the listener recorded each event exactly once"
	if len(run.failures) == 0 && len(run.care) == 0 && run.lateDeliv == 0 {
		// No event, and nothing recorded without one: the check judged nothing.
		why := "no failure event was published, so the listener had nothing to record"
		if !o.Publish {
			why = "--publish=false: no failure event was published, so the listener had nothing to record; drop it to publish one"
		}
		r.NotExercised(listened, why)
	} else {
		r.Check(listened, heard == len(run.failures) && len(run.care) == len(run.failures) && run.lateDeliv == 0,
			fmt.Sprintf("%s for %s; a second pass took %d",
				report.Plural(len(run.care), "record"), report.Plural(len(run.failures), "event"), run.lateDeliv))
	}
	o.checkLaterParked(r, run, "later messages of the poisoned id parked")
	o.checkReplayInSequence(r, run, 0)
	o.checkOthersFlowed(r, run)
	o.checkEndSame(r, run)
}

// failureEventMetrics are what the failure event adds to the family's
// metrics: the events published, what the listener recorded, and the
// deliveries that came late.
var failureEventMetrics = []scenarios.Metric[*run]{
	{Key: "failure_events", Value: func(x *run) any { return len(x.failures) }},
	{Key: "listener_records", Value: func(x *run) any { return len(x.care) }},
	{Key: "late_deliveries", Value: func(x *run) any { return x.lateDeliv }},
}
