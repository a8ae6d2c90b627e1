package wassal

import (
	"fmt"

	"outboxlab/core/report"
)

// beforeChecks judge the blind reset by what it lost: the history and any
// record of it, whether the provider is fixed or not; with the provider
// still broken, also the poison loop it restarts.
func (o *session17Options) beforeChecks(r *report.Report, f session17Metrics) {
	if len(f.dead) == 0 {
		r.NotExercised("the rows' failure history is gone", noDeadLetters)
		r.NotExercised("no record of who or why", noDeadLetters)
		txInvariant(r, f.txIDs)
		return
	}
	if !o.ProviderFixed {
		r.Check("poison loop started again", f.failed > 0 && len(f.deadAgain) > 0,
			fmt.Sprintf("%d failed attempts after the reset; %d of %d dead-lettered again", f.failed, len(f.deadAgain), len(f.released)))
	}
	r.Check("the rows' failure history is gone", len(f.undercounted) > 0 && len(f.deadAtLost) > 0,
		fmt.Sprintf("AttemptCount undercounts on %s; first DeadLetteredAtUtc lost on %s", keysText(f.undercounted), keysText(f.deadAtLost)))
	record := fmt.Sprintf("%d redrive entries in the audit log", f.redriveAudit)
	if f.redriveRows > 0 {
		record += fmt.Sprintf("; %d Redrives rows", f.redriveRows)
	}
	r.Check("no record of who or why", len(f.released) > 0 && f.redriveAudit == 0 && f.redriveRows == 0, record)
	txInvariant(r, f.txIDs)
}

// txInvariant records the Days' tx-id check as what it is, an invariant: a
// transaction id comes only from the provider in both designs.
func txInvariant(r *report.Report, t txIDs) {
	probe := report.New(r.Scenario, r.Kind)
	t.check(probe)
	for _, c := range probe.Result().Checks {
		c.Role = report.RoleInvariant
		r.Record(c)
	}
}

// afterChecks judge the audited redrive's mechanism: authorised, audited,
// counters and history kept, new claims, batches the provider could take,
// verified before closing. Its end depends on the provider: fixed, every
// dead letter is resolved; still broken, the redrive halts after the first
// batch, the rest parked, and the incident stays open. Both pass.
func (o *session17Options) afterChecks(r *report.Report, f session17Metrics) {
	authorised := fmt.Sprintf("approver %s, reason %q, %d approval record", f.approver, f.reason, f.approvals)
	switch {
	case f.redriveRows == 0:
		// The reason is read from the Redrives rows: with none, the
		// approval is all there is to judge.
		authorised = fmt.Sprintf("approver %s, %d approval record; nothing released, so no Redrives row carries the reason",
			f.approver, f.approvals)
	case !o.ProviderFixed && len(f.deadAgain) > 0:
		// The reason says why the redrive is safe now; a batch that
		// dead-letters again contradicts it, so it is recorded, not accepted.
		authorised = fmt.Sprintf("approver %s, %d approval record; reason %q recorded, not accepted: "+
			"the run contradicts it, the first batch dead-lettered again", f.approver, f.approvals, f.reason)
	}
	if !f.recordsAgree {
		authorised += "; the Redrives rows name another approver or reason"
	}
	reasonKept := f.reason == o.Reason || f.redriveRows == 0 // nothing released: no row to carry the reason
	r.Check("redrive authorised", f.approvals == 1 && f.approver == o.Approver && reasonKept && f.recordsAgree, authorised)
	if len(f.dead) == 0 {
		for _, name := range []string{"audit record written", "counters never reset", "original terminal reason preserved",
			"each replay under a new claim", "bounded batches"} {
			r.NotExercised(name, noDeadLetters)
		}
		r.NotExercised(checkVerified, noDeadLetters)
		txInvariant(r, f.txIDs)
		return
	}
	r.Check("audit record written", f.approvals == 1 && f.redriveAudit > len(f.released),
		fmt.Sprintf("%d redrive entries for %s", f.redriveAudit, report.Plural(len(f.released), "released dead letter")))
	r.Check("counters never reset", len(f.undercounted) == 0 && len(f.released) > 0,
		fmt.Sprintf("%d of %d rows count every attempt made; undercounts: %s", len(f.released)-len(f.undercounted), len(f.released), keysText(f.undercounted)))
	r.Check("original terminal reason preserved", f.historyKept == len(f.released) && len(f.released) > 0,
		fmt.Sprintf("%d of %d Redrives rows keep count, error and time", f.historyKept, len(f.released)))
	r.Check("each replay under a new claim", f.tokenUp == len(f.released),
		fmt.Sprintf("ClaimToken rose on %d of %d released entries", f.tokenUp, len(f.released)))
	// Judged by the provider's throttle ledger, not by --batch: a batch is
	// bounded when the provider could take it.
	r.Check("bounded batches", f.throttled == 0,
		fmt.Sprintf("the provider takes %d status checks per %s; %d of %d throttled, at most %d in a window; %s",
			o.Capacity, o.Window, f.throttled, f.statusChecks, f.busiest, report.Plural(f.batches, "batch")))
	o.verifiedInvariant(r, f)
	if o.ProviderFixed {
		if len(o.PoisonKeys) > 0 {
			// As Day 16 says: Failed on the provider's Declined, no transaction id, never charged.
			r.Check("poison ends as Day 16 says", f.poisonAsDay16 == len(o.PoisonKeys),
				fmt.Sprintf("%s; as Day 16 says: %d of %d", keysText(f.poisonEnds), f.poisonAsDay16, len(o.PoisonKeys)))
		}
		r.Check("incident closed: every dead letter resolved", f.closed == len(f.dead) && len(f.pending) == 0,
			fmt.Sprintf("%d/%d closed; %d dead again, %d parked, %d pending",
				f.closed, len(f.dead), len(f.deadAgain), len(f.notReleased), len(f.pending)))
	} else {
		haltCheck(r, f)
	}
	txInvariant(r, f.txIDs)
}

// checkVerified is the rule every closing obeys, whichever way the redrive
// ends: an invariant, judged on the entries closed. A redrive into a
// provider still broken closes none, and that is its point: it says so
// (report.Check.OnNone) rather than claim a verification it never made.
// Any other run that closes nothing (the provider fixed, the status checks
// throttled) has failed a check of its own, and the rule judged nothing: N/A.
const checkVerified = "verified with the provider before closing"

func (o *session17Options) verifiedInvariant(r *report.Report, f session17Metrics) {
	switch {
	case f.closed == 0 && !o.ProviderFixed && len(f.deadAgain) == len(f.released):
		r.InvariantOnNone(checkVerified, f.closedUnverified == 0,
			fmt.Sprintf("no entry closed, none without a matching status check: %d released, %d dead again",
				len(f.released), len(f.deadAgain)),
			"a redrive into a provider still broken must close nothing: every released entry failed its "+
				"status check again, so the rule held on no closing, and the halt check judges the run")
	case f.closed == 0:
		r.Record(report.Check{Name: checkVerified, Role: report.RoleInvariant, Outcome: report.OutcomeNotExercised,
			Detail: fmt.Sprintf("no entry closed (%d released): no closing to judge", len(f.released))})
	default:
		r.Invariant(checkVerified, f.closedUnverified == 0,
			fmt.Sprintf("%d closed, %d of them without a matching status check", f.closed, f.closedUnverified))
	}
}

// haltCheck judges a redrive into a provider still broken: one batch, one
// halt, its entries dead again and, when one batch did not release them all,
// the rest parked with their count. The check claims a rest only when
// there was one.
func haltCheck(r *report.Report, f session17Metrics) {
	halted := f.batches == 1 && f.halted == 1 && len(f.deadAgain) > 0 && len(f.released)+len(f.notReleased) == len(f.dead)
	detail := fmt.Sprintf("%s, %d halt; %d dead again", report.Plural(f.batches, "batch"), f.halted, len(f.deadAgain))
	if len(f.notReleased) == 0 {
		all := "the one dead letter"
		if len(f.dead) != 1 {
			all = fmt.Sprintf("all %d dead letters", len(f.dead))
		}
		r.Check("halted after the first batch failed again", halted, detail+"; the batch released "+all+": none left to park")
		return
	}
	r.Check("halted after the first batch failed again, the rest parked", halted && f.parkedIntact == len(f.notReleased),
		detail+fmt.Sprintf("; %d of %d parked still DeadLettered with their count", f.parkedIntact, len(f.notReleased)))
}
