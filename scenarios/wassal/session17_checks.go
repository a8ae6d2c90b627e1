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
	if !f.recordsAgree {
		authorised += "; the Redrives rows name another approver or reason"
	}
	reasonKept := f.reason == o.Reason || f.redriveRows == 0 // nothing released: no row to carry the reason
	r.Check("redrive authorised", f.approvals == 1 && f.approver == o.Approver && reasonKept && f.recordsAgree, authorised)
	if len(f.dead) == 0 {
		for _, name := range []string{"audit record written", "counters never reset", "original terminal reason preserved",
			"each replay under a new claim", "bounded batches", "verified with the provider before closing"} {
			r.NotExercised(name, noDeadLetters)
		}
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
	r.Check("verified with the provider before closing", f.closedUnverified == 0,
		fmt.Sprintf("%d closed, %d of them without a matching status check", f.closed, f.closedUnverified))
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
		r.Check("halted after the first batch failed again, the rest parked", f.batches == 1 && f.halted == 1 &&
			len(f.deadAgain) > 0 && f.parkedIntact == len(f.notReleased) && len(f.released)+len(f.notReleased) == len(f.dead),
			fmt.Sprintf("%s, %d halt; %d dead again; %d of %d parked still DeadLettered with their count",
				report.Plural(f.batches, "batch"), f.halted, len(f.deadAgain), f.parkedIntact, len(f.notReleased)))
	}
	txInvariant(r, f.txIDs)
}
