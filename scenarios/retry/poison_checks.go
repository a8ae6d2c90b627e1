package retry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// checks judge both counter positions. That the table is the course's
// algorithm, that every death was a real SIGKILL and that the audit log and
// the queue agree are invariants: they hold in both designs. The rest is what
// the experiment demonstrates.
func (o *poisonOptions) checks(r *report.Report, metrics []poisonMetrics) {
	onCatch, atDelivery := metrics[0], metrics[1]
	var got, want []string
	for i, f := range metrics {
		got = append(got, seedTable{f.restarts, f.delivered, f.deaths, f.processed, f.deadLetters, f.remaining}.String())
		want = append(want, seedPoisonCounter(o.Messages, o.Lethal, o.Threshold, o.MaxRestarts, i == 1).String())
	}
	detail := fmt.Sprintf("%s and %s, as a reference run of poison-counter.mjs", got[0], got[1])
	if !slices.Equal(got, want) {
		detail = fmt.Sprintf("%s and %s; a reference run of poison-counter.mjs: %s and %s", got[0], got[1], want[0], want[1])
	}
	r.Invariant("the table is the course's algorithm", slices.Equal(got, want), detail)
	r.Check("on catch: the threshold is never reached",
		onCatch.deadLetters == 0 && report.AllEqual(onCatch.lethalCatchCounter, 0),
		fmt.Sprintf("lethal deliveries %s, caught failures %s, %d dead letters",
			report.JoinInts(onCatch.lethalDeliveries), report.JoinInts(onCatch.lethalCatchCounter), onCatch.deadLetters))
	r.Check("on catch: only the --max-restarts bound stops the loop",
		onCatch.restarts == o.MaxRestarts && onCatch.deaths == onCatch.restarts && onCatch.remaining > 0,
		fmt.Sprintf("%d of %d lifetimes died, %s left", onCatch.deaths, onCatch.restarts, report.Plural(onCatch.remaining, "message")))
	o.atDeliveryChecks(r, atDelivery)
	killed := fmt.Sprintf("%d / %d and %d / %d child processes", onCatch.kills, onCatch.deaths, atDelivery.kills, atDelivery.deaths)
	if atDelivery.deaths == 0 {
		// Threshold 1 isolates each lethal message before its job runs: the
		// on-catch run's deaths are all there is to judge.
		killed = fmt.Sprintf("%d / %d child processes on catch; at delivery none died, %d killed",
			onCatch.kills, onCatch.deaths, atDelivery.kills)
	}
	r.Invariant("every death was a real SIGKILL on a lethal message",
		onCatch.kills == onCatch.deaths && atDelivery.kills == atDelivery.deaths, killed)
	r.Invariant("the audit log and the queue agree on every delivery",
		onCatch.delivered == onCatch.claimTokens && atDelivery.delivered == atDelivery.claimTokens,
		fmt.Sprintf("%d = %d and %d = %d (audit deliveries = sum of ClaimToken)",
			onCatch.delivered, onCatch.claimTokens, atDelivery.delivered, atDelivery.claimTokens))
}

// atDeliveryChecks judge the at-delivery run; they are not exercised when
// --max-restarts is below what isolating every lethal message costs
// (lifetimesNeeded): the bound, not the counter, then ends the run.
func (o *poisonOptions) atDeliveryChecks(r *report.Report, atDelivery poisonMetrics) {
	lethal := len(o.Lethal)
	if need := o.lifetimesNeeded(); o.MaxRestarts < need {
		why := fmt.Sprintf("--max-restarts %d stops the at-delivery run before the counter can isolate: "+
			"isolating %s at threshold %d costs %d × (%d − 1) deaths, so it needs at least %d lifetimes; "+
			"raise --max-restarts to %d",
			o.MaxRestarts, report.Plural(int64(lethal), "lethal message"), o.Threshold, lethal, o.Threshold, need, need)
		for _, name := range []string{checkIsolated, checkQueueEmpties, checkHealthyProcessed, checkIsolationCost} {
			r.NotExercised(name, why)
		}
		return
	}
	r.Check(checkIsolated,
		report.AllEqual(atDelivery.lethalDeliveries, o.Threshold) && report.AllEqual(atDelivery.lethalStatuses, outbox.DeadLettered),
		fmt.Sprintf("deliveries %s of threshold %d, status %s",
			report.JoinInts(atDelivery.lethalDeliveries), o.Threshold, report.JoinStrings(atDelivery.lethalStatuses)))
	r.Check(checkQueueEmpties,
		atDelivery.remaining == 0,
		fmt.Sprintf("%d remaining after %d of at most %d lifetimes", atDelivery.remaining, atDelivery.restarts, o.MaxRestarts))
	o.healthyChecks(r, atDelivery)
	r.Check(checkIsolationCost,
		atDelivery.deaths == lethal*(o.Threshold-1),
		fmt.Sprintf("%d deaths = %d × (%d − 1)", atDelivery.deaths, lethal, o.Threshold))
}

// healthyChecks judge the healthy messages, ahead of the poison and behind
// it (a threshold of 1 dead-letters those ahead too); with every message
// lethal there is none, and the check judged nothing.
func (o *poisonOptions) healthyChecks(r *report.Report, atDelivery poisonMetrics) {
	healthy := o.Messages - len(o.Lethal)
	if healthy == 0 {
		r.NotExercised(checkHealthyProcessed, fmt.Sprintf("--lethal names all %d --messages: no healthy message "+
			"to process; name fewer in --lethal or raise --messages", o.Messages))
		return
	}
	behind := fmt.Sprintf("%d of %d healthy processed", atDelivery.processed, healthy)
	if len(atDelivery.healthyUnprocessed) > 0 {
		behind = fmt.Sprintf("%d processed; not processed: %s", atDelivery.processed,
			firstOf(strings.Join(atDelivery.healthyUnprocessed, ", ")))
	}
	r.Check(checkHealthyProcessed, atDelivery.processed == healthy && len(atDelivery.healthyUnprocessed) == 0, behind)
}

// lifetimesNeeded is how many lifetimes the at-delivery run needs to empty
// the queue: one death per lethal message per delivery below the threshold,
// and one lifetime that survives to the end.
func (o *poisonOptions) lifetimesNeeded() int { return len(o.Lethal)*(o.Threshold-1) + 1 }

// The at-delivery checks, by name.
const (
	checkHealthyProcessed = "at delivery: every healthy message is processed"
	checkIsolated         = "at delivery: each lethal message isolated on delivery number threshold"
	checkQueueEmpties     = "at delivery: the queue empties before the bound"
	checkIsolationCost    = "at delivery: isolation still costs threshold − 1 deaths per lethal message"
)

// mustParseISO parses a time the store wrote; the store only writes ISO times.
func mustParseISO(s string) time.Time {
	t, err := time.Parse(clock.ISOLayout, s)
	if err != nil {
		panic(fmt.Sprintf("stored time %q is not ISO: %v", s, err))
	}
	return t
}

// whyFailed says what these flags did to the checks that failed.
func (o *poisonOptions) whyFailed(failed map[string]bool, runs []*poisonRun, metrics []poisonMetrics) []string {
	var why []string
	if o.Threshold == 1 && failed[checkHealthyProcessed] {
		var isolated []string
		for _, m := range runs[1].msgs {
			if m.Status == outbox.DeadLettered && m.AttemptCount == 1 && !slices.Contains(o.lethalKeys(), m.Key) {
				isolated = append(isolated, m.Key)
			}
		}
		why = append(why, fmt.Sprintf("a threshold of 1 dead-letters every message at its first delivery, before its job runs:\n"+
			"%s dead-lettered unprocessed at AttemptCount 1", firstOf(strings.Join(isolated, ", "))))
		delete(failed, checkHealthyProcessed)
	}
	if len(failed) > 0 {
		why = append(why, "no flag explains the other failures: the real run did not do what the course's algorithm does")
	}
	return why
}
