package governance

import (
	"fmt"
	"slices"
	"strconv"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

func (o *disabledOptions) checks(r *report.Report, store, claim *driveRun) {
	runs := []*driveRun{store, claim}
	checkSameOutcome(r, store, claim)
	o.checkRetryablePast(r, runs, claim)
	dl := 0
	for _, run := range runs {
		dl += countStatus(run, emission.DeadLettered)
	}
	r.Check("the drain creates no dead-letter when the option is off", dl == 0,
		fmt.Sprintf("%d dead-lettered entries (both modes)", dl))
	checkHostPolicy(r, claim)
	o.checkThresholdAlert(r, claim)
	checkRetrySchedule(r, runs, o.drain)
	quarantinedDelivered := 0
	for _, run := range runs {
		for _, e := range run.entries {
			if e.Status == emission.Quarantined && !e.DeliveredAt.IsZero() {
				quarantinedDelivered++
			}
		}
	}
	r.Check("a quarantined entry is not a delivery", quarantinedDelivered == 0,
		fmt.Sprintf("%d quarantined rows carry a delivery time; %d Delivered (claim drain)", quarantinedDelivered, countStatus(claim, emission.Delivered)))
}

// checkRetryablePast checks that GOV-001's failures stayed retryable at and
// past MaxRetryAttempts, in both modes.
func (o *disabledOptions) checkRetryablePast(r *report.Report, runs []*driveRun, claim *driveRun) {
	maxAttempts := o.drain.MaxRetryAttempts
	// The ledger says which calls failed; the rows as persisted right after
	// say whether the entry stayed retryable.
	atThreshold, beyond := 0, 0
	var past []int // the claim drain's failed attempts past the threshold, as its timeline numbers them
	storePast := false
	detail := "no failure reached the threshold"
	for _, run := range runs {
		for _, e := range run.emissions(entryKey(1)) {
			retryable := e.failed() && e.logged && e.log.To == e.retryStatus() && e.row.Status == e.retryStatus() && !e.row.NextRetryAt.IsZero()
			switch {
			case retryable && e.log.RetryCount == maxAttempts:
				atThreshold++
				if run == claim {
					detail = fmt.Sprintf("GOV-001 failed attempt %d/%d → Failed, next retry in %s", e.row.RetryCount, maxAttempts,
						clock.Millis(e.row.NextRetryAt.Sub(e.row.UpdatedAt)))
				}
			case retryable && e.log.RetryCount > maxAttempts:
				beyond++
				if run == claim {
					past = append(past, e.log.RetryCount)
				} else {
					storePast = true
				}
			}
		}
	}
	g1 := claim.entry(entryKey(1))
	// Say what ended the run before a failure past the threshold, if something did.
	switch {
	case beyond > 0:
	case claim.capped:
		detail += fmt.Sprintf(" (the demo cap, --retry-cap %d, stopped the run first)", o.drain.RetryCap)
	case g1.Status == emission.Quarantined && g1.RetryCount <= maxAttempts:
		detail += fmt.Sprintf(" (the host's review quarantined GOV-001 at RetryCount %d first)", g1.RetryCount)
	}
	if atThreshold == 0 && beyond == 0 && !claim.capped && g1.RetryCount < maxAttempts {
		r.NotExercised("failures stay eligible for retry past MaxRetryAttempts", fmt.Sprintf("%s: GOV-001 ended at "+
			"RetryCount %d, below MaxRetryAttempts %d (--host-review-after quarantined it first, or the run ended): "+
			"a --host-review-after above --max-retry-attempts", detail, g1.RetryCount, maxAttempts))
		return
	}
	switch {
	case len(past) > 0:
		scope := "the claim drain only"
		if storePast {
			scope = "both modes"
		}
		detail += fmt.Sprintf("; failed attempts %d/%d to %d/%d each kept it Failed and due again (%s)",
			past[0], maxAttempts, past[len(past)-1], maxAttempts, scope)
	case beyond == 0:
		detail += "; no failed attempt came past the threshold"
	}
	r.Check("failures stay eligible for retry past MaxRetryAttempts", atThreshold == 2 && beyond > 0,
		fmt.Sprintf("%s; RetryCount reached %d", detail, g1.RetryCount))

}

// checkHostPolicy checks the host's own terminal policy: GOV-001
// quarantined once, audited, its retry history kept.
func checkHostPolicy(r *report.Report, claim *driveRun) {
	g1 := claim.entry(entryKey(1))
	var rem emission.RemediationRecord
	if len(claim.remediations) > 0 {
		rem = claim.remediations[0]
	}
	audited := rem.Reviewer != "" && rem.Reason != "" && rem.Approval != "" && rem.Ticket != ""
	hostDetail := fmt.Sprintf("none: GOV-001 is %s with RetryCount %d at the end of the run (demo cap: %v)", g1.Status, g1.RetryCount, claim.capped)
	if g1.Status == emission.Quarantined {
		hostDetail = fmt.Sprintf("GOV-001 Quarantined at RetryCount %d by %s, approval %q, ticket %s", g1.RetryCount, rem.Reviewer, rem.Approval, rem.Ticket)
	}
	r.Check("the host supplied another terminal policy, audited", g1.Status == emission.Quarantined && len(claim.remediations) == 1 && audited && !claim.capped,
		hostDetail)

	failed := claim.failedCalls(g1.Key)
	r.Check("retry history is never reset", g1.RetryCount == failed && rem.RetryCountBefore == rem.RetryCountAfter && (len(claim.remediations) == 0 || rem.RetryCountAfter == failed),
		fmt.Sprintf("RetryCount %d = %s in the emitter ledger; remediation RetryCount %d → %d", g1.RetryCount, report.Plural(failed, "failed emission"), rem.RetryCountBefore, rem.RetryCountAfter))

}

// checkThresholdAlert checks that the host was told, once, when GOV-001
// passed the threshold without a dead-letter.
func (o *disabledOptions) checkThresholdAlert(r *report.Report, claim *driveRun) {
	maxAttempts := o.drain.MaxRetryAttempts
	g1 := claim.entry(entryKey(1))
	// The alert log against the transition log: one alert for the one
	// persisted failure at the threshold that left GOV-001 retryable.
	passed, reached := 0, 0
	for _, l := range claim.alerts.Lines() {
		if l.Name == emission.AlertThresholdPassed && l.EntryID == g1.ID {
			passed++
		}
	}
	for _, l := range claim.log {
		if l.EntryID == g1.ID && l.Applied && l.To.FailedAttempt() && l.RetryCount == maxAttempts {
			reached++
		}
	}
	alertDetail := fmt.Sprintf("%d %s alert for GOV-001", passed, emission.AlertThresholdPassed)
	if reached == 0 {
		alertDetail += fmt.Sprintf("; GOV-001 never reached failed attempt %d/%d as Failed, so the run could not show it", maxAttempts, maxAttempts)
	}
	if reached == 0 && passed == 0 && g1.RetryCount < maxAttempts {
		r.NotExercised("the host is told when the threshold passes without a dead-letter", alertDetail)
		return
	}
	r.Check("the host is told when the threshold passes without a dead-letter", reached == 1 && passed == 1, alertDetail)
}

// writeRemediations prints the host's remediation log: one row per
// decision, then once each the longer fields the decisions share (who
// reviewed and approved, why, the window, the fix), as the table would
// repeat them.
func writeRemediations(r *report.Report, recs []emission.RemediationRecord, entries []emission.Entry) {
	if len(recs) == 0 {
		r.Line("(empty: the host made no decision)")
		return
	}
	keys := map[int64]string{}
	for _, e := range entries {
		keys[e.ID] = e.Key
	}
	rows := make([][]string, 0, len(recs))
	var shared []string
	for _, m := range recs {
		rows = append(rows, []string{strconv.FormatInt(m.ID, 10), clock.DayStamp(m.At), keys[m.EntryID], m.Action,
			fmt.Sprintf("%d → %d", m.RetryCountBefore, m.RetryCountAfter), report.Dash(keys[m.ReplayEntryID])})
		for _, l := range remediationShared(m) {
			if !slices.Contains(shared, l) {
				shared = append(shared, l)
			}
		}
	}
	r.Table([]string{"#", "AtUtc", "Entry", "Action", "RetryCount", "Replay"}, rows)
	for _, l := range shared {
		r.Line(wrapFields(l, "         "))
	}
}

// remediationShared are the longer fields of a remediation record, one line
// each, to be printed once below a table whose rows share them.
func remediationShared(m emission.RemediationRecord) []string {
	window := ""
	if !m.AffectedFrom.IsZero() {
		window = ", window " + clock.DayStamp(m.AffectedFrom) + " – " + clock.DayStamp(m.AffectedTo)
	}
	out := []string{fmt.Sprintf("Reviewer %s, approval %s, ticket %s%s", m.Reviewer, m.Approval, m.Ticket, window),
		"Reason   " + m.Reason}
	if m.Cause != "" {
		out = append(out, "Cause    "+string(m.Cause))
	}
	if m.Fix != "" {
		out = append(out, "Fix      "+m.Fix)
	}
	return out
}
