package governance

import (
	"fmt"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

// raceChecks are what both designs must show: the interleaving really happened.
func (o *staleOptions) raceChecks(r *report.Report, f staleMetrics) {
	r.Check("worker-A's lease expired while its provider call was still open", f.leaseExpiredOpen,
		fmt.Sprintf("A: %s; B claimed %s; A's answer at %s", claimText(f.aClaim), claimText(f.bClaim), answerText(f.aLog)))
	r.Check("worker-B, the current claim owner, reached a terminal state", f.bLog.ID > 0 && f.bClaim.row.ClaimToken > f.aClaim.row.ClaimToken,
		fmt.Sprintf("%s by worker-B holding token %d", transitionAt(f.bLog), f.bClaim.row.ClaimToken))
}

func answerText(l emission.LogEntry) string {
	if l.ID == 0 {
		return "never written"
	}
	return clock.DayStamp(l.At)
}

func (o *staleOptions) beforeChecks(r *report.Report, run *staleRun, f staleMetrics) {
	o.raceChecks(r, f)
	r.Check("worker-A's late write landed over the terminal row", f.aLog.Applied && f.aLog.From.Terminal(),
		fmt.Sprintf("transition log: worker-A %s → %s, applied, written by Id with no claim token checked", f.aLog.From, f.aLog.To))
	r.Check("the terminal transition was lost", f.bLog.ID > 0 && run.afterA.Status != f.bLog.To,
		fmt.Sprintf("B wrote %s; right after A the row reads %s", f.bLog.To, rowText(run.afterA)))
	harm := f.deliveries > 1 || f.falseDeadLetters > 0
	r.Check("the overwrite did real harm", harm,
		fmt.Sprintf("%s of one entry, %s for a delivered entry", report.Plural(f.deliveries, "delivery"), report.Plural(f.falseDeadLetters, "dead-letter alert")))
	r.Check("nothing refused or counted it", f.refused == 0 && f.refusedLog == 0,
		fmt.Sprintf("%s counted, %d in the transition log", report.Plural(int(f.refused), "refused write"), f.refusedLog))
}

func (o *staleOptions) afterChecks(r *report.Report, run *staleRun, f staleMetrics) {
	o.raceChecks(r, f)
	r.Check("the terminal transition cleared the claim", f.bLog.ID > 0 && f.final.ClaimOwner == "" && f.final.ClaimLeaseUntil.IsZero(),
		fmt.Sprintf("final row: %s", rowText(f.final)))
	outcome := "applied"
	if !f.aLog.Applied {
		outcome = "refused"
	}
	r.Check("worker-A's stale write was refused by the claim check", f.aLog.ID > 0 && !f.aLog.Applied && f.final.ClaimToken != f.aLog.ClaimToken,
		fmt.Sprintf("worker-A wrote with token %d; the row carries token %d and no owner → %s", f.aLog.ClaimToken, f.final.ClaimToken, outcome))
	r.Check("the refusal was counted", f.refused == 1 && f.refusedLog == 1,
		fmt.Sprintf("%s counted by the store, %d in the transition log", report.Plural(int(f.refused), "refused write"), f.refusedLog))
	unchanged := f.bLog.ID > 0 && run.afterA.Status == f.bLog.To && f.final.Status == f.bLog.To &&
		f.final.RetryCount == o.PriorFailures && f.final.NextRetryAt.IsZero() && f.final.DeliveredAt.Equal(f.bLog.At)
	r.Check("the terminal row stands", unchanged,
		fmt.Sprintf("right after A: %s; delivered at %s", rowText(run.afterA), stampOrDash(f.final.DeliveredAt)))
	r.Check("delivered exactly once, no false dead-letter", f.deliveries == 1 && f.falseDeadLetters == 0,
		fmt.Sprintf("%s, %s", report.Plural(f.deliveries, "delivery"), report.Plural(f.falseDeadLetters, "dead-letter alert")))
}

// notRaced records a run whose race did not happen: worker-A answered
// inside its lease, so there was no stale write for either design to
// judge. Each check of the race is not exercised, and says what to change.
func (o *staleOptions) notRaced(r *report.Report, f staleMetrics) {
	why := fmt.Sprintf("worker-A answered at %s, inside its lease (--slow-emit %s, --lease %s): no stale write to judge; "+
		"a --slow-emit longer than --lease", answerText(f.aLog), o.SlowEmit, o.Lease)
	names := []string{"worker-A's late write landed over the terminal row", "the terminal transition was lost",
		"the overwrite did real harm", "nothing refused or counted it",
		"the dead-letter race: worker-A's late write overwrote the owner's dead-letter"}
	if o.after {
		names = []string{"worker-A's stale write was refused by the claim check", "the refusal was counted",
			"the terminal row stands", "the dead-letter race: worker-A's stale write was refused; the owner's dead-letter stands"}
	}
	r.NotExercised("worker-A's lease expired while its provider call was still open", why)
	for _, name := range names {
		r.NotExercised(name, why)
	}
}
