package wassal

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

var session17Day = day{
	number: 17,
	Pair: scenarios.Pair{
		Before: session17Before, BeforeTitle: "Session 17 — BEFORE: a blind dead-letter redrive",
		After: session17After, AfterTitle: "Session 17 — AFTER: an audited dead-letter redrive",
	},
	reproduced: "A BLIND REDRIVE — THE POISON LOOP AGAIN, THE HISTORY GONE ❌",
	held:       "AUDITED REDRIVE — AUTHORISED, BATCHED, VERIFIED, HISTORY KEPT ✅",
	broken:     "THE REDRIVE DID NOT CLOSE THE INCIDENT — SEE THE FAILED CHECKS ❌",
	columns:    []string{"Metric (real run)", "BEFORE (blind)", "AFTER (audited)"},
}

func (o *session17Options) story(own *session17Run, _ session17Figures) story {
	return story{tables: own.tables, timeline: own.lines, ledger: own.ledger,
		perMessage: func(r *report.Report) { o.writePerMessage(r, own) },
		own: []ledgerTable{
			{"Redrive ledger (Redrives table)", func(r *report.Report) { writeRedrives(r, own.redrives) }},
			{"Audit log (AuditLog table)", func(r *report.Report) { writeAudit(r, own.audit) }},
		}}
}

func (o *session17Options) checks(r *report.Report, _ *session17Run, f session17Figures) {
	if o.audited {
		o.afterChecks(r, f)
	} else {
		o.beforeChecks(r, f)
	}
}

func (o *session17Options) writeSetup(r *report.Report, own *session17Run) {
	r.Linef("Seed      %s, PendingConfirmation, each with its %s outbox message (MaxAttempts %d)",
		paymentRange(o.Payments), ConfirmType, o.MaxAttempts)
	declined := ""
	if o.DeclinedKey != "" {
		declined = "; " + o.DeclinedKey + " declines"
	}
	if len(o.PoisonKeys) == 0 {
		r.Linef("Provider  the status API never fails (--poison-key none)%s; every other key pays", declined)
	} else {
		r.Linef("Provider  the status API fails for %s until it is fixed%s; every other key pays", keysText(o.PoisonKeys), declined)
	}
	fixed := "still broken (--provider-fixed=false)"
	if o.ProviderFixed {
		fixed = "fixed (--provider-fixed)"
	}
	r.Linef("Redrive   at %s; the provider is %s", clock.Stamp(own.redriveAt), fixed)
	if own.audited {
		r.Linef("Design    audited: approver %q, reason %q; batches of %d, %s apart; +%s per entry on top of its count; verify before closing",
			o.Approver, o.Reason, o.Batch, o.BatchInterval, report.Plural(o.RedriveAttempts, "attempt"))
	} else {
		r.Line("Design    blind: one UPDATE back to Pending with AttemptCount 0, LastError and DeadLetteredAtUtc cleared; the ordinary worker takes them")
	}
	writeClockLine(r, clock.Start)
}

func (o *session17Options) writePerMessage(r *report.Report, run *session17Run) {
	l := run.ledger
	made := attemptsMade(run)
	redriven := map[string]redriveRow{}
	for _, rd := range run.redrives {
		redriven[rd.key] = rd
	}
	var rows [][]string
	for _, k := range run.deadKeys {
		b := run.before[k]
		m, _ := l.Message(k)
		pay, _ := l.Payment(k)
		redrive := "reset to 0, no record"
		verified := "—"
		if run.audited {
			redrive = "not released (halted)"
			if rd, ok := redriven[k]; ok {
				redrive = fmt.Sprintf("generation %d, batch %d", rd.generation, rd.batch)
				verified = string(rd.outcome)
				if rd.verifiedTx != "" {
					verified += " (" + rd.verifiedTx + ")"
				}
			}
		}
		rows = append(rows, []string{k, fmt.Sprintf("%d, %s", b.AttemptCount, clock.Stamp(b.DeadLetteredAt)), redrive,
			fmt.Sprintf("%d / %d", m.AttemptCount, made[k]), string(m.Status), report.StampOrDash(m.DeadLetteredAt),
			fmt.Sprintf("%d → %d", b.ClaimToken, m.ClaimToken), verified, string(pay.Status), report.Dash(pay.ProviderTransactionID)})
	}
	r.Table([]string{"Key", "Dead letter: attempts, at", "Redrive", "AttemptCount / attempts made", "Outbox status",
		"DeadLetteredAtUtc", "ClaimToken", "Verified", "Payment status", "Provider tx id"}, rows)
}

func writeRedrives(r *report.Report, rows []redriveRow) {
	if len(rows) == 0 {
		r.Line("(no rows: nothing recorded the redrive)")
		return
	}
	out := make([][]string, 0, len(rows))
	for _, rd := range rows {
		out = append(out, []string{strconv.FormatInt(rd.id, 10), rd.key, strconv.Itoa(rd.generation), strconv.Itoa(rd.batch),
			rd.approver, isoStamp(rd.requestedAt), fmt.Sprintf("%d/%d", rd.origAttempts, rd.origMax), isoStamp(rd.origDeadAt),
			report.Dash(rd.origLastError), string(rd.outcome), report.Dash(rd.verifiedTx), isoStamp(rd.close)})
	}
	r.Table([]string{"Id", "Key", "Generation", "Batch", "Approver", "RequestedAtUtc", "Original attempts", "Original DeadLetteredAtUtc",
		"Original LastError", "Outcome", "VerifiedTransactionId", "ClosedAtUtc"}, out)
}

func writeAudit(r *report.Report, entries []outbox.AuditEntry) {
	rows := make([][]string, 0, len(entries))
	for _, e := range entries {
		id := "—"
		if e.MessageID > 0 {
			id = strconv.FormatInt(e.MessageID, 10)
		}
		rows = append(rows, []string{strconv.FormatInt(e.ID, 10), isoStamp(e.At), e.Actor, e.Action, id, e.Detail})
	}
	r.Table([]string{"Id", "AtUtc", "Actor", "Action", "MessageId", "Detail"}, rows)
}

// isoStamp shortens a stored ISO time to the timeline's time of day.
func isoStamp(iso string) string {
	if i := strings.IndexByte(iso, 'T'); i >= 0 {
		return iso[i+1:]
	}
	return report.Dash(iso)
}
