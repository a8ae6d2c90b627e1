package wassal

import (
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
)

func (o *session18Options) story(own *session18Run, f session18Metrics) story {
	s := story{tables: own.tables, timeline: own.lines, ledger: own.ledger, design: Day(16), ledgersOnRequest: true,
		perMessage: func(r *report.Report) { o.writePerMessage(r, own, f) },
		own: []ledgerTable{{"Notification ledger (PaymentNotifications table)",
			func(r *report.Report) { writeNotifications(r, own.notifications) }}}}
	if len(own.renewals) > 0 {
		s.own = append(s.own, ledgerTable{"Lease renewals (each row read before and after its UPDATE)",
			func(r *report.Report) { writeRenewals(r, own.renewals) }})
	}
	return s
}

func (o *session18Options) writeSetup(r *report.Report, own *session18Run) {
	r.Linef("Seed      %s PendingConfirmation, one %s message each", paymentRange(payments18), ConfirmType)
	r.Line("Store     Day 16's outbox: the lease (LockedUntilUtc) and the claim token (--schema shows it)")
	fencing := "completion checks LockedBy and ClaimToken"
	if !own.fenced {
		fencing = "completion by id, owner NOT checked (--fencing=false)"
	}
	r.Linef("Claim     atomic, lease %s, ClaimToken +1 per claim; %s", durationText(o.Lease), fencing)
	if own.renews {
		margin := durationText(o.margin())
		if o.margin() < o.Margin {
			margin += " (--margin " + durationText(o.Margin) + " is more than half the lease)"
		}
		r.Linef("Renewal   %s before the lease ends: UPDATE LockedUntilUtc WHERE LockedBy, ClaimToken", margin)
		r.Linef("          match and the lease has not ended; never past %s from the claim", durationText(o.RenewCap))
	} else {
		r.Line("Renewal   none: a claim's lease is taken once and runs out")
	}
	r.Linef("Workers   %s worker-a claims PAY-001; its handler takes %s", stampAt(claimA18At), durationText(o.Handler))
	r.Linef("          %s worker-b claims PAY-002; its handler hangs %s", stampAt(claimB18At), durationText(o.Hang))
	if o.Rival {
		r.Linef("          %s worker-c polls, then just past each lease end; its handler takes %s", stampAt(rival18At),
			durationText(quickHandler))
	} else {
		r.Line("          worker-c polls once both handlers have returned (--rival=false)")
	}
	r.Line("Provider  every key pays; a worker asks as soon as it claims; each answer is recorded with")
	r.Line("          a customer notification, in the completing transaction")
	writeClockLine(r, clock.Start)
}

func (o *session18Options) writePerMessage(r *report.Report, run *session18Run, f session18Metrics) {
	l := run.ledger
	claimedBy, renewals, refused := map[string][]string{}, map[string]int{}, map[string]int{}
	for _, c := range run.claims {
		claimedBy[c.key] = append(claimedBy[c.key], c.worker)
	}
	for _, x := range run.renewals {
		renewals[x.key]++
	}
	for _, x := range f.refused {
		refused[x.key]++
	}
	var rows [][]string
	for _, m := range l.Messages {
		rows = append(rows, []string{m.Key,
			report.Dash(strings.Join(shortWorkers(claimedBy[m.Key]), ", ")), strconv.Itoa(len(f.calls[m.Key])),
			strconv.Itoa(renewals[m.Key]), strconv.Itoa(len(f.notified[m.Key])), strconv.Itoa(refused[m.Key]),
			strconv.Itoa(m.AttemptCount), string(m.Status)})
	}
	r.Table([]string{"Key", "Workers", "Checks", "Renewals", "Notified", "Refused", "Attempts", "Outbox"}, rows)
	r.Line(report.Wrap("Workers: who claimed it, in order; Checks: the provider's status checks; Notified: customer "+
		"notifications; Refused: late completions refused; Attempts: the row's AttemptCount.", report.MaxWidth))
}

func writeRenewals(r *report.Report, xs []renewal18) {
	rows := make([][]string, 0, len(xs))
	for _, x := range xs {
		rows = append(rows, []string{x.key, x.worker, strconv.FormatInt(x.token, 10), clock.Stamp(x.at),
			clock.Stamp(x.before.LockedUntil), clock.Stamp(x.after.LockedUntil)})
	}
	r.Table([]string{"Key", "Worker", "Token", "At", "Lease before", "Lease after"}, rows)
}
