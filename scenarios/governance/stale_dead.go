package governance

import (
	"fmt"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The second race of the stale-claim pair: the same interleaving on GOV-002,
// whose current owner (worker-B) writes a dead-letter, the provider having
// rejected the entry for good. Fencing must protect that terminal row too.

// deadRaces are the dead-letter race's runs: the scenario's own design and
// the two designs side by side.
type deadRaces struct{ own, before, after *staleRun }

// emittedAfter counts the provider calls the ledger holds after worker-B's
// terminal transition: a dead-letter that stands is never emitted again.
func emittedAfter(s staleSide) int {
	n := 0
	for _, c := range s.run.calls {
		if s.f.bLog.ID > 0 && c.At.After(s.f.bLog.At) {
			n++
		}
	}
	return n
}

// deadFigs are the dead-letter race's metrics: its table's rows and its JSON metrics.
var deadFigs = []scenarios.Metric[staleSide]{
	{Label: "worker-B's transition", Show: func(s staleSide) string { return transitionAt(s.f.bLog) }},
	{Label: "worker-A's late write", Key: "dead_letter_stale_write_applied",
		Show: func(s staleSide) string { return lateWriteText(s.f) }, Value: func(s staleSide) any { return s.f.aLog.Applied }},
	{Label: "Row right after A's write", Key: "dead_letter_row_after_stale_write",
		Show: func(s staleSide) string { return rowText(s.run.afterA) }, Value: func(s staleSide) any { return string(s.run.afterA.Status) }},
	{Label: "Final row", Key: "dead_letter_final_status",
		Show: func(s staleSide) string { return rowText(s.f.final) }, Value: func(s staleSide) any { return string(s.f.final.Status) }},
	{Label: "Emissions after B's dead-letter", Key: "dead_letter_emitted_after", Value: func(s staleSide) any { return emittedAfter(s) }},
	{Label: "Dead-letter events", Key: "dead_letter_events", Value: func(s staleSide) any { return s.run.alerts.DeadLettered() }},
	{Label: "Refused writes (counted / logged)", Key: "dead_letter_refused",
		Show: func(s staleSide) string { return fmt.Sprintf("%d / %d", s.f.refused, s.f.refusedLog) }, Value: func(s staleSide) any { return s.f.refusedLog }},
}

// writeDeadRace prints the dead-letter race: the own design's timeline and both designs side by side.
func (o *staleOptions) writeDeadRace(r *report.Report, dead deadRaces, afterHead string) {
	r.Section("The same race on GOV-002: the current owner writes a dead-letter")
	r.Linef("The same claims as above; the provider rejects B's call for good (%s):", rejected.Result.Code)
	r.Line("")
	for _, l := range dead.own.lines {
		if !strings.Contains(l, "claims it:") && !strings.Contains(l, "provider call is") {
			r.Line(l)
		}
	}
	timelineFigure(r, "timeline-dead-letter", "The two workers' writes on GOV-002 (dead-lettered by its owner)", dead.own.events, dead.own.started, dead.own.ended)
	r.Line("")
	scenarios.MetricTable(r, []string{"Metric (real run)", "BEFORE (by Id)", afterHead}, deadFigs, side(dead.before), side(dead.after))
}

// deadStood reports whether B's dead-letter is the row's last word: applied
// by the owner, still DeadLettered with its reason, no next retry, no owner,
// one dead-letter event, never emitted again.
func deadStood(s staleSide) bool {
	f := s.f
	return f.bLog.ID > 0 && f.bLog.To == emission.DeadLettered && s.run.afterA.Status == emission.DeadLettered &&
		f.final.Status == emission.DeadLettered && f.final.ReasonCode == rejected.Result.Code && f.final.NextRetryAt.IsZero() &&
		f.final.ClaimOwner == "" && s.run.alerts.DeadLettered() == 1 && emittedAfter(s) == 0
}

func (o *staleOptions) deadBeforeChecks(r *report.Report, s staleSide) {
	f := s.f
	after := s.run.afterA
	r.Check("the dead-letter race: worker-A's late write overwrote the owner's dead-letter",
		f.leaseExpiredOpen && f.bLog.To == emission.DeadLettered && f.aLog.Applied && f.aLog.From == emission.DeadLettered &&
			(after.Status != emission.DeadLettered || after.ReasonCode != rejected.Result.Code),
		fmt.Sprintf("B wrote %s; A's write %s; right after A the row reads %s; %s after the dead-letter, %s",
			transitionAt(f.bLog), lateWriteText(f), rowText(s.run.afterA), report.Plural(emittedAfter(s), "emission"),
			report.Plural(s.run.alerts.DeadLettered(), "dead-letter event")))
}

func (o *staleOptions) deadAfterChecks(r *report.Report, s staleSide) {
	f := s.f
	r.Check("the dead-letter race: worker-A's stale write was refused; the owner's dead-letter stands",
		f.leaseExpiredOpen && f.aLog.ID > 0 && !f.aLog.Applied && f.refusedLog == 1 && deadStood(s),
		fmt.Sprintf("B wrote %s at %s; A's write %s; final row: %s; %s after it, %s",
			f.bLog.To, clock.DayStamp(f.bLog.At), lateWriteText(f), rowText(f.final), report.Plural(emittedAfter(s), "emission"),
			report.Plural(s.run.alerts.DeadLettered(), "dead-letter event")))
}
