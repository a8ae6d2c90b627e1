package governance

import (
	"fmt"
	"strconv"

	"outboxlab/core/clock"
	gov "outboxlab/core/governance"
	"outboxlab/core/report"
)

// staleFigures are the numbers the pair is judged by.
type staleFigures struct {
	aClaim, bClaim   gov.Event // the first claim of each worker
	bTerminal        gov.Event // B's first terminal transition
	aWrite           gov.Event // A's late write (Handled or Refused)
	aLog             gov.LogEntry
	leaseExpiredOpen bool // B claimed after A's lease ended and before A's answer
	final            gov.Entry
	deliveries       int
	falseDeadLetters int // dead-letter alerts for an entry the provider had accepted
	refused          int64
	refusedLog       int
}

func (r *staleRun) figures() staleFigures {
	var f staleFigures
	for _, ev := range r.events {
		switch {
		case ev.Kind == gov.Claimed && ev.Drainer == "worker-A" && f.aClaim.Token == 0:
			f.aClaim = ev
		case ev.Kind == gov.Claimed && ev.Drainer == "worker-B" && f.bClaim.Token == 0:
			f.bClaim = ev
		case ev.Kind == gov.Handled && ev.Drainer == "worker-B" && ev.Transition.To.Terminal() && f.bTerminal.Token == 0:
			f.bTerminal = ev
		case ev.Kind != gov.Claimed && ev.Drainer == "worker-A":
			f.aWrite = ev
		}
	}
	for _, l := range r.log {
		if l.Actor == "worker-A" {
			f.aLog = l
		}
	}
	f.leaseExpiredOpen = f.bClaim.Token > 0 && f.bClaim.At.After(f.aClaim.LeaseUntil) && r.answerAt.After(f.bClaim.At)
	f.final = r.entries[0]
	for _, c := range r.emitter.Calls() {
		if c.Step.Result.Kind == gov.ResultDelivered {
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
	verdictStaleReproduced = "A STALE WORKER OVERWROTE A TERMINAL TRANSITION — NOTHING REFUSED IT ❌"
	verdictStaleMissed     = "THE STALE OVERWRITE WAS NOT REPRODUCED — SEE THE FAILED CHECKS ⚠️"
	verdictFencedHeld      = "THE CLAIM CHECK REFUSED THE STALE WRITE — THE TERMINAL ROW STANDS ✅"
	verdictFencedBroken    = "THE CLAIM CHECK DID NOT HOLD — SEE THE FAILED CHECKS ❌"
)

func (o *staleOptions) render(own, before, after *staleRun) *report.Report {
	name, kind, partner := staleAfter, report.After, staleBefore
	title := "Governance — AFTER: the claim check refuses a stale worker's write"
	if !o.fenced {
		name, kind, partner = staleBefore, report.Before, staleAfter
		title = "Governance — BEFORE: a stale worker's late write lands over a terminal row"
	}
	r := report.New(name, kind)
	r.Title(title)
	r.Linef("Scenario  %s (%s; pairs with %s)", name, kind, partner)
	r.Linef("Entry     GOV-001 (%s), RetryCount %d before the run; emitter: the first call fails with provider.timeout, later calls deliver", eventType, o.PriorFailures)
	for _, l := range o.drain.describe() {
		r.Line(l)
	}
	r.Linef("Workers   worker-A and worker-B: one SQLite file, two connections, real goroutines; claims last %s", o.Lease)
	r.Linef("Race      worker-A's provider call takes %s; worker-B claims once A's lease has ended", o.SlowEmit)
	write := "every claim-mode write carries the claim: Id AND ClaimOwner AND ClaimToken AND a live status"
	if !o.fenced {
		write = "claim-mode writes are keyed by Id alone (no claim-token check)"
	}
	r.Linef("Writes    %s", write)
	r.Linef("Clock     scenario time starts %s; nothing sleeps", clock.ISO(own.started))

	r.Section("Schema")
	writeSchema(r, own.tables)
	r.Section("Timeline (scenario clock)")
	for _, l := range own.lines {
		r.Line(l)
	}
	r.Section("Entry (GovernanceOutboxEntries; payload never printed)")
	writeEntryLedger(r, own.entries)
	r.Section("Transition log (GovernanceOutboxTransitions)")
	writeTransitionLog(r, own.log, own.entries)
	r.Section("Host alerts")
	writeAlerts(r, own.alerts)
	r.Section("Real BEFORE vs AFTER metrics")
	r.Linef("Both designs ran this interleaving in this invocation; this scenario's own run is the %s column.", kind)
	o.writeComparison(r, before, after)

	f := own.figures()
	if o.fenced {
		o.afterChecks(r, own, f)
		r.Checks("Safety checks")
		r.Verdict(verdictFencedHeld, verdictFencedBroken)
	} else {
		o.beforeChecks(r, own, f)
		r.Checks("Safety checks")
		r.Verdict(verdictStaleReproduced, verdictStaleMissed)
	}
	o.recordMetrics(r, own, f)
	return r
}

func (o *staleOptions) writeComparison(r *report.Report, before, after *staleRun) {
	b, a := before.figures(), after.figures()
	write := func(f staleFigures) string {
		if f.aLog.ID == 0 {
			return "none"
		}
		if f.aLog.Applied {
			return fmt.Sprintf("APPLIED over %s (written by Id, no token checked)", f.aLog.From)
		}
		return fmt.Sprintf("REFUSED (token %d, row token %d)", f.aLog.ClaimToken, f.bClaim.Token)
	}
	rows := [][]string{
		{"worker-A's claim", claimText(b.aClaim), claimText(a.aClaim)},
		{"worker-B's claim", claimText(b.bClaim), claimText(a.bClaim)},
		{"worker-B's transition", transitionAt(b.bTerminal), transitionAt(a.bTerminal)},
		{"worker-A's late write at " + clock.Stamp(before.answerAt), write(b), write(a)},
		{"Row right after A's write", rowText(before.afterA), rowText(after.afterA)},
		{"Final row", rowText(b.final), rowText(a.final)},
		{"Deliveries to the provider", strconv.Itoa(b.deliveries), strconv.Itoa(a.deliveries)},
		{"Dead-letter alerts for a delivered entry", strconv.Itoa(b.falseDeadLetters), strconv.Itoa(a.falseDeadLetters)},
		{"Refused writes (counted / logged)", fmt.Sprintf("%d / %d", b.refused, b.refusedLog), fmt.Sprintf("%d / %d", a.refused, a.refusedLog)},
	}
	r.Table([]string{"Metric (real run)", "BEFORE (by Id)", "AFTER (claim check)"}, rows)
}

func claimText(ev gov.Event) string {
	if ev.Token == 0 {
		return "none"
	}
	return fmt.Sprintf("token %d at %s, lease until %s", ev.Token, clock.Stamp(ev.At), clock.Stamp(ev.LeaseUntil))
}

func transitionAt(ev gov.Event) string {
	if ev.Token == 0 {
		return "none"
	}
	return fmt.Sprintf("%s at %s", ev.Transition.To, clock.Stamp(ev.At))
}
