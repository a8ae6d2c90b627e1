package retry

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

func (o *poisonOptions) checks(r *report.Report, figs []poisonFigures) {
	onCatch, atDelivery := figs[0], figs[1]
	lethal := len(o.Lethal)
	r.Check("on catch: the threshold is never reached",
		onCatch.deadLetters == 0 && report.AllEqual(onCatch.lethalCatchCounter, 0),
		fmt.Sprintf("lethal deliveries %s, caught failures %s, %d dead letters",
			report.JoinInts(onCatch.lethalDeliveries), report.JoinInts(onCatch.lethalCatchCounter), onCatch.deadLetters))
	r.Check("on catch: only the --max-restarts bound stops the loop",
		onCatch.restarts == o.MaxRestarts && onCatch.deaths == onCatch.restarts && onCatch.remaining > 0,
		fmt.Sprintf("%d of %d lifetimes died, %d message(s) left", onCatch.deaths, onCatch.restarts, onCatch.remaining))
	r.Check("at delivery: each lethal message isolated on delivery number threshold",
		report.AllEqual(atDelivery.lethalDeliveries, o.Threshold) && report.AllEqual(atDelivery.lethalStatuses, outbox.DeadLettered),
		fmt.Sprintf("deliveries %s of threshold %d, status %s",
			report.JoinInts(atDelivery.lethalDeliveries), o.Threshold, report.JoinStrings(atDelivery.lethalStatuses)))
	r.Check("at delivery: the queue empties before the bound",
		atDelivery.remaining == 0,
		fmt.Sprintf("%d remaining after %d of at most %d lifetimes", atDelivery.remaining, atDelivery.restarts, o.MaxRestarts))
	r.Check("at delivery: the messages behind the poison are processed",
		atDelivery.processed == o.Messages-lethal,
		fmt.Sprintf("%d of %d healthy processed", atDelivery.processed, o.Messages-lethal))
	r.Check("at delivery: isolation still costs threshold − 1 deaths per lethal message",
		atDelivery.deaths == lethal*(o.Threshold-1),
		fmt.Sprintf("%d deaths = %d × (%d − 1)", atDelivery.deaths, lethal, o.Threshold))
	r.Check("every death was a real SIGKILL on a lethal message",
		onCatch.kills == onCatch.deaths && atDelivery.kills == atDelivery.deaths,
		fmt.Sprintf("%d / %d and %d / %d child processes", onCatch.kills, onCatch.deaths, atDelivery.kills, atDelivery.deaths))
	r.Check("the audit log and the queue agree on every delivery",
		onCatch.delivered == onCatch.claimTokens && atDelivery.delivered == atDelivery.claimTokens,
		fmt.Sprintf("%d = %d and %d = %d (audit deliveries = sum of ClaimToken)",
			onCatch.delivered, onCatch.claimTokens, atDelivery.delivered, atDelivery.claimTokens))
}

// mustParseISO parses a time the store wrote; the store only writes ISO times.
func mustParseISO(s string) time.Time {
	t, err := time.Parse(clock.ISOLayout, s)
	if err != nil {
		panic(fmt.Sprintf("stored time %q is not ISO: %v", s, err))
	}
	return t
}
