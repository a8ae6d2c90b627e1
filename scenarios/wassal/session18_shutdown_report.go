package wassal

import (
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

func (o *shutdownOptions) story(own *shutdownRun, f shutdownMetrics) story {
	s := story{tables: own.tables, timeline: own.lines, ledger: own.ledger, design: Day(16), ledgersOnRequest: true,
		perMessage: func(r *report.Report) { o.writePerMessage(r, own, f) },
		own: []ledgerTable{{"Notification ledger (PaymentNotifications table)",
			func(r *report.Report) { writeNotifications(r, own.notifications) }}}}
	if len(own.releases) > 0 {
		s.own = append(s.own, ledgerTable{"Releases (each row read before and after its UPDATE)",
			func(r *report.Report) { writeReleases(r, own.releases) }})
	}
	return s
}

func (o *shutdownOptions) writeSetup(r *report.Report, own *shutdownRun) {
	r.Linef("Seed      %s PendingConfirmation, one %s message each", paymentRange(shutdownPays), ConfirmType)
	r.Line("Store     Day 16's outbox: the lease (LockedUntilUtc) and the claim token (--schema shows it)")
	r.Linef("Claim     atomic, lease %s, ClaimToken +1 and AttemptCount +1 per claim; completion checks", durationText(shutdownLease))
	r.Line("          LockedBy and ClaimToken")
	r.Linef("Workers   %s worker-a claims up to %d at a time; its handlers: PAY-001 %s, PAY-002 %s",
		stampAt(0), shutdownSlots, durationText(o.Finish), durationText(o.Long))
	r.Linef("          (a cancel ends it), PAY-003 hangs %s and ignores a cancel, PAY-004 %s", durationText(o.Hang),
		durationText(quickHandler))
	r.Linef("          worker-b, the replacement, starts %s after worker-a is gone; its handler takes %s",
		durationText(o.Restart), durationText(quickHandler))
	r.Linef("Stop      TERM at %s; the supervisor's KILL %s after it", stampAt(o.StopAt), durationText(shutdownGrace))
	if own.drains {
		release := "AttemptCount back to the claim's less one"
		if own.countRelease {
			release = "the attempt kept (--count-release)"
		}
		r.Linef("Drain     no claim after TERM; the handlers have %s, then each is cancelled and what", durationText(o.Drain))
		r.Linef("          returns is released: Pending at once, no owner, %s", release)
	} else {
		r.Line("Drain     none: nobody handles TERM, worker-a exits at once")
	}
	r.Line("Provider  every key pays; a worker asks as soon as it claims; each answer is recorded with")
	r.Line("          a customer notification, in the completing transaction")
	writeClockLine(r, clock.Start)
}

func (o *shutdownOptions) writePerMessage(r *report.Report, run *shutdownRun, f shutdownMetrics) {
	claimedBy, released := map[string][]string{}, map[string]int{}
	for _, c := range run.claims {
		claimedBy[c.key] = append(claimedBy[c.key], c.worker)
	}
	for _, x := range run.releases {
		released[x.key]++
	}
	var rows [][]string
	for _, m := range run.ledger.Messages {
		rows = append(rows, []string{m.Key, rowState(rowOf(run.atStop, m.Key)),
			report.Dash(strings.Join(shortWorkers(claimedBy[m.Key]), ", ")), strconv.Itoa(len(f.calls[m.Key])),
			strconv.Itoa(released[m.Key]), strconv.Itoa(len(f.notified[m.Key])), strconv.Itoa(m.AttemptCount), string(m.Status)})
	}
	r.Table([]string{"Key", "At the stop", "Workers", "Checks", "Released", "Notified", "Attempts", "Outbox"}, rows)
	r.Line(report.Wrap("At the stop: the row then; Workers: who claimed it, in order; Checks: the provider's status "+
		"checks; Notified: customer notifications; Attempts: the row's AttemptCount as the run ends.", report.MaxWidth))
}

// rowState is a row's status, and its holder while Processing.
func rowState(m outbox.Message) string {
	if m.Status == outbox.Processing {
		return "Processing (" + strings.Join(shortWorkers([]string{m.LockedBy}), "") + ")"
	}
	return report.Dash(string(m.Status))
}

func writeReleases(r *report.Report, xs []release18) {
	rows := make([][]string, 0, len(xs))
	for _, x := range xs {
		rows = append(rows, []string{x.key, clock.Stamp(x.at),
			string(x.before.Status) + " → " + string(x.after.Status),
			report.Dash(x.before.LockedBy) + " → " + report.Dash(x.after.LockedBy),
			strconv.FormatInt(x.before.ClaimToken, 10) + " → " + strconv.FormatInt(x.after.ClaimToken, 10),
			strconv.Itoa(x.before.AttemptCount) + " → " + strconv.Itoa(x.after.AttemptCount)})
	}
	r.Table([]string{"Key", "At", "Status", "LockedBy", "Token", "AttemptCount"}, rows)
}
