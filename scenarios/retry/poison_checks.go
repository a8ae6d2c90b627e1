package retry

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

func (o *poisonOptions) checks(r *report.Report, figs []poisonFigures) {
	onCatch, atDelivery := figs[0], figs[1]
	lethal := len(o.Lethal)
	r.Check("on catch: the threshold is never reached",
		onCatch.deadLetters == 0 && allEqual(onCatch.lethalCatchCounter, 0),
		fmt.Sprintf("lethal deliveries %s, caught failures %s, %d dead letters",
			joinInts(onCatch.lethalDeliveries), joinInts(onCatch.lethalCatchCounter), onCatch.deadLetters))
	r.Check("on catch: only the --max-restarts bound stops the loop",
		onCatch.restarts == o.MaxRestarts && onCatch.deaths == onCatch.restarts && onCatch.remaining > 0,
		fmt.Sprintf("%d of %d lifetimes died, %d message(s) left", onCatch.deaths, onCatch.restarts, onCatch.remaining))
	r.Check("at delivery: each lethal message isolated on delivery number threshold",
		allEqual(atDelivery.lethalDeliveries, o.Threshold) && allEqual(atDelivery.lethalStatuses, outbox.DeadLettered),
		fmt.Sprintf("deliveries %s of threshold %d, status %s",
			joinInts(atDelivery.lethalDeliveries), o.Threshold, joinStatuses(atDelivery.lethalStatuses)))
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

// allEqual reports whether every value in xs equals want (false for none).
func allEqual[T comparable](xs []T, want T) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if x != want {
			return false
		}
	}
	return true
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func joinStatuses(ss []outbox.Status) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

// mustParseISO parses a time the store wrote; the store only writes ISO times.
func mustParseISO(s string) time.Time {
	t, err := time.Parse(clock.ISOLayout, s)
	if err != nil {
		panic(fmt.Sprintf("stored time %q is not ISO: %v", s, err))
	}
	return t
}
