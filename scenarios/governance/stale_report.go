package governance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/emission"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// staleMetrics are the numbers the pair is judged by, read from what was
// recorded outside the workers: the rows read back after each claim, the
// provider's ledger, the transition log, the alert log and the final row.
type staleMetrics struct {
	aClaim, bClaim   claimSeen         // the first claim of each worker
	bLog             emission.LogEntry // worker-B's first applied terminal transition
	aLog             emission.LogEntry // worker-A's late write, applied or refused
	leaseExpiredOpen bool              // B called the provider after A's lease ended and before A's answer
	final            emission.Entry
	deliveries       int
	falseDeadLetters int // dead-letter alerts for an entry the provider had accepted
	refused          int64
	refusedLog       int
}

func (r *staleRun) metrics() staleMetrics {
	var f staleMetrics
	// Worker-A makes the ledger's first call and no other; worker-B makes
	// the rest, each in the pass of its claim.
	var bCalls []emission.Call
	if len(r.calls) > 1 {
		bCalls = r.calls[1:]
	}
	for _, c := range r.claims {
		switch {
		case c.worker == workerA && f.aClaim.row.ClaimToken == 0 && len(r.calls) > 0:
			f.aClaim, f.aClaim.at = c, r.calls[0].At
		case c.worker == workerB && f.bClaim.row.ClaimToken == 0 && len(bCalls) > 0:
			f.bClaim, f.bClaim.at = c, bCalls[0].At
		}
	}
	for _, l := range r.log {
		switch {
		case l.Actor == workerA:
			f.aLog = l
		case l.Actor == workerB && l.Applied && l.To.Terminal() && f.bLog.ID == 0:
			f.bLog = l
		}
	}
	f.leaseExpiredOpen = f.bClaim.row.ClaimToken > 0 && f.bClaim.at.After(f.aClaim.row.ClaimLeaseUntil) && f.aLog.At.After(f.bClaim.at)
	f.final = r.entries[0]
	for _, c := range r.calls {
		if c.Step.Result.Kind == emission.ResultDelivered {
			f.deliveries++
		}
	}
	if f.deliveries > 0 {
		f.falseDeadLetters = r.alerts.DeadLettered()
	}
	f.refused, f.refusedLog = r.refused, r.refusedL
	return f
}

const (
	verdictStaleReproduced = "A STALE WORKER OVERWROTE A TERMINAL TRANSITION — NOTHING REFUSED IT"
	verdictStaleMissed     = "THE STALE OVERWRITE WAS NOT REPRODUCED"
	verdictFencedHeld      = "THE CLAIM CHECK REFUSED THE STALE WRITE — THE TERMINAL ROW STANDS"
	verdictFencedBroken    = "THE CLAIM CHECK DID NOT HOLD"
	verdictFencedNoRace    = "NO STALE WRITE TO REFUSE: WORKER-A ANSWERED INSIDE ITS LEASE"
)

// stalePair is the pair's report: the scenario's own design is the AFTER
// one (the claim check) when o.after.
var stalePair = scenarios.Pair{
	Before: staleBefore, BeforeTitle: "Governance — BEFORE: a stale worker's late write lands over a terminal row",
	After: staleAfter, AfterTitle: "Governance — AFTER: the claim check refuses a stale worker's write",
}

// pairReport is the pair's scenarios.PairReport: the main race's setup,
// story, metrics and checks, with the dead-letter race's table and checks
// beside them.
func (o *staleOptions) pairReport(env scenarios.Env) scenarios.PairReport[*staleDesign] {
	verbose := env.Verbose
	main := func(d *staleDesign) staleSide { return side(d.main) }
	return scenarios.PairReport[*staleDesign]{
		Pair: stalePair, After: o.after, Family: "governance",
		Drive: func(ctx context.Context, db dialect.Database, after bool) (*staleDesign, error) {
			return o.driveDesign(ctx, env, db, after)
		},
		Setup:   func(r *report.Report, own *staleDesign) { o.writeSetup(r, own.main) },
		Story:   func(r *report.Report, own, _, _ *staleDesign) { writeStaleStory(r, own.main, verbose) },
		Metrics: scenarios.MetricsOf(staleMetricList(time.Time{}), main), // the JSON metrics; the labels are Compare's
		Compare: func(r *report.Report, before, after *staleDesign) {
			o.writeComparison(r, before, after, verbose)
		},
		ChecksTitle: "Safety checks",
		Checks: func(r *report.Report, own, _, _ *staleDesign) {
			mine, deadMine := side(own.main), side(own.dead)
			scenarios.RecordMetrics(r, deadFigs, deadMine)
			if !mine.f.leaseExpiredOpen {
				o.notRaced(r, mine.f)
				return
			}
			if !o.after {
				o.beforeChecks(r, own.main, mine.f)
				o.deadBeforeChecks(r, deadMine)
				return
			}
			o.afterChecks(r, own.main, mine.f)
			o.deadAfterChecks(r, deadMine)
		},
		Verdict: func(own *staleDesign) (string, string) {
			switch {
			case !o.after:
				return verdictStaleReproduced, verdictStaleMissed
			case !side(own.main).f.leaseExpiredOpen:
				return verdictFencedHeld, verdictFencedNoRace
			}
			return verdictFencedHeld, verdictFencedBroken
		},
	}
}

// writeSetup writes the pair's parameters, as the scenario's own race ran them.
func (o *staleOptions) writeSetup(r *report.Report, own *staleRun) {
	r.Linef("Entry     GOV-001 (%s), RetryCount %d before the run", eventType, o.PriorFailures)
	r.Line("Emitter   the first call fails with provider.timeout, later calls deliver")
	for _, l := range o.drain.describe() {
		r.Line(l)
	}
	r.Linef("Workers   worker-A and worker-B: one database, two connections, real goroutines; claims last %s", o.Lease)
	r.Line(databaseLine(own.dialect))
	r.Linef("Race      worker-A's provider call takes %s; worker-B claims once A's lease has ended", o.SlowEmit)
	write := "every claim-mode write carries the claim: Id, ClaimOwner, ClaimToken and a live status"
	switch {
	case !own.fenced && o.after:
		write = "claim-mode writes are keyed by Id alone: the claim check is off (--claim-check=false)"
	case !own.fenced:
		write = "claim-mode writes are keyed by Id alone (no claim-token check)"
	}
	r.Linef("Writes    %s", write)
	writeStart(r, own.started)
}

// writeStaleStory writes the own race: its tables, timeline and picture, the
// transition log, and with verbose the entry row and the host's alerts.
func writeStaleStory(r *report.Report, own *staleRun, verbose bool) {
	scenarios.SchemaSection(r, own.tables)
	writeTimeline(r, "Timeline (scenario clock)", own.lines)
	timelineFigure(r, "timeline", "The two workers' writes on GOV-001", own.events, own.started, own.ended)
	if verbose {
		r.Section("Entry (GovernanceOutboxEntries; payload never printed)")
		writeEntryLedger(r, own.entries)
	}
	r.Section("Transition log (GovernanceOutboxTransitions)")
	writeTransitionLog(r, own.log, own.entries)
	if verbose {
		r.Section("Host alerts")
		writeAlerts(r, own.alerts)
	}
}

// writeComparison sets both designs' races side by side: the main race's
// metrics (the workers' claims only with verbose: the timeline has them),
// then the dead-letter race's.
func (o *staleOptions) writeComparison(r *report.Report, before, after *staleDesign, verbose bool) {
	r.Section("Real BEFORE vs AFTER metrics")
	r.Linef("Both designs ran this interleaving in this invocation; this scenario's own run is the %s column.", r.Kind)
	afterHead := "AFTER (claim check)"
	if !after.main.fenced {
		afterHead = "AFTER (claim check off)"
	}
	metrics := staleMetricList(before.main.answerAt)
	shown := metrics
	if !verbose { // the claims are in the timeline
		shown = slices.DeleteFunc(slices.Clone(metrics), func(f scenarios.Metric[staleSide]) bool { return strings.HasSuffix(f.Label, "'s claim") })
	}
	scenarios.MetricTable(r, []string{"Metric (real run)", "BEFORE (by Id)", afterHead}, shown, side(before.main), side(after.main))
	own := before
	if o.after {
		own = after
	}
	o.writeDeadRace(r, deadRaces{own: own.dead, before: before.dead, after: after.dead}, afterHead)
}

// staleSide is one design's run with its metrics: a column of the
// comparison table, and the JSON metrics of the scenario's own design.
type staleSide struct {
	run *staleRun
	f   staleMetrics
}

func side(run *staleRun) staleSide { return staleSide{run: run, f: run.metrics()} }

// staleMetricList are the pair's metrics, declared once: the comparison table's
// rows (lateAt, when worker-A's answer arrives, names the late write's row)
// and the JSON metrics.
func staleMetricList(lateAt time.Time) []scenarios.Metric[staleSide] {
	return []scenarios.Metric[staleSide]{
		{Key: "lease_expired_while_open", Value: func(s staleSide) any { return s.f.leaseExpiredOpen }},
		{Label: "worker-A's claim", Show: func(s staleSide) string { return claimText(s.f.aClaim) }},
		{Label: "worker-B's claim", Show: func(s staleSide) string { return claimText(s.f.bClaim) }},
		{Label: "worker-B's transition", Show: func(s staleSide) string { return transitionAt(s.f.bLog) }},
		{Label: "worker-A's late write at " + clock.DayStamp(lateAt), Key: "stale_write_applied",
			Show: func(s staleSide) string { return lateWriteText(s.f) }, Value: func(s staleSide) any { return s.f.aLog.Applied }},
		{Label: "Row right after A's write", Key: "row_after_stale_write",
			Show: func(s staleSide) string { return rowText(s.run.afterA) }, Value: func(s staleSide) any { return string(s.run.afterA.Status) }},
		{Label: "Final row", Key: "final_status",
			Show: func(s staleSide) string { return rowText(s.f.final) }, Value: func(s staleSide) any { return string(s.f.final.Status) }},
		{Label: "Deliveries to the provider", Key: "deliveries", Value: func(s staleSide) any { return s.f.deliveries }},
		{Label: "Dead-letter alerts for a delivered entry", Key: "false_dead_letters", Value: func(s staleSide) any { return s.f.falseDeadLetters }},
		{Label: "Refused writes (counted / logged)", Key: "refused_counted",
			Show: func(s staleSide) string { return fmt.Sprintf("%d / %d", s.f.refused, s.f.refusedLog) }, Value: func(s staleSide) any { return s.f.refused }},
		{Key: "refused_logged", Value: func(s staleSide) any { return s.f.refusedLog }},
		{Key: "scenario_end", Value: func(s staleSide) any { return clock.ISO(s.run.ended) }},
	}
}

// lateWriteText says what became of worker-A's late write.
func lateWriteText(f staleMetrics) string {
	if f.aLog.ID == 0 {
		return "none"
	}
	if f.aLog.Applied {
		return fmt.Sprintf("APPLIED over %s (by Id, no token)", f.aLog.From)
	}
	return fmt.Sprintf("REFUSED (token %d, row token %d)", f.aLog.ClaimToken, f.bClaim.row.ClaimToken)
}

// databaseLine says how the database keeps the two workers' connections
// apart: a line about the database itself, which compare skips.
func databaseLine(d dialect.Dialect) string {
	if !d.SerialWriters() {
		return "Database  one PostgreSQL schema, READ COMMITTED; FOR UPDATE SKIP LOCKED and row locks " + report.DatabaseMarker + "\n" +
			"          keep the workers apart, both may write at once " + report.DatabaseMarker
	}
	return "Database  one SQLite file: every transaction is BEGIN IMMEDIATE, " + report.DatabaseMarker + "\n" +
		"          so the two connections write one at a time " + report.DatabaseMarker
}

func claimText(c claimSeen) string {
	if c.row.ClaimToken == 0 {
		return "none"
	}
	return fmt.Sprintf("token %d at %s, lease until %s", c.row.ClaimToken, clock.DayStamp(c.at), clock.DayStamp(c.row.ClaimLeaseUntil))
}

func transitionAt(l emission.LogEntry) string {
	if l.ID == 0 {
		return "none"
	}
	return fmt.Sprintf("%s at %s", l.To, clock.DayStamp(l.At))
}
