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
		Before: session17Before, BeforeTitle: "Day 17 — BEFORE: a blind dead-letter redrive",
		After: session17After, AfterTitle: "Day 17 — AFTER: an audited dead-letter redrive",
	},
	reproduced: "A BLIND REDRIVE — THE HISTORY GONE, NO RECORD OF WHO OR WHY",
	held:       "AUDITED REDRIVE — AUTHORISED, BATCHED, VERIFIED, HISTORY KEPT",
	broken:     "THE REDRIVE DID NOT CLOSE THE INCIDENT",
	columns:    []string{"Metric (real run)", "BEFORE (blind)", "AFTER (audited)"},
}

// day is Day 17 as this run tells it: the verdicts name what a provider
// still broken adds, the poison loop again (BEFORE) or a redrive that halts
// with the incident open (AFTER).
func (o *session17Options) day() day {
	d := session17Day
	if !o.ProviderFixed {
		d.reproduced = "A BLIND REDRIVE — THE POISON LOOP AGAIN, THE HISTORY GONE, NO RECORD"
		d.held = "AUDITED REDRIVE HALTED, HISTORY KEPT — THE CAUSE IS NOT FIXED: THE INCIDENT STAYS OPEN"
	}
	return d
}

func (o *session17Options) story(own *session17Run, _ session17Metrics) story {
	fig := o.timelineFigure(own)
	return story{tables: own.tables, timeline: own.lines, ledger: own.ledger, figure: &fig, design: Day(17), ledgersOnRequest: true,
		perMessage: func(r *report.Report) { o.writePerMessage(r, own) },
		own: []ledgerTable{
			{"Redrive ledger (Redrives table)", func(r *report.Report) { writeRedrives(r, own.redrives) }},
			{"Audit log (AuditLog table)", func(r *report.Report) { writeAudit(r, own.audit, messageKeys(own.ledger), o.verbose) }},
		}}
}

func (o *session17Options) checks(r *report.Report, _ *session17Run, f session17Metrics) {
	if o.after {
		o.afterChecks(r, f)
	} else {
		o.beforeChecks(r, f)
	}
}

func (o *session17Options) writeSetup(r *report.Report, own *session17Run) {
	r.Linef("Start     Day 16 AFTER's end state, rebuilt by its own code (%s):", session16After)
	declined := ""
	if o.DeclinedKey != "" {
		declined = "; " + o.DeclinedKey + " declines"
	}
	r.Linef("          %s, MaxAttempts %d, backoff %s × 2^(n-1)%s",
		paymentRange(o.Payments), o.MaxAttempts, clock.Millis(o.BaseBackoff), declined)
	if len(o.PoisonKeys) == 0 {
		r.Line("Dead      no poison message (--poison-key none)")
	} else {
		r.Linef("Dead      %s: Day 16's poison message, its status check failing until the provider is fixed", keysText(o.PoisonKeys))
	}
	if len(o.MoreDeadLetters) > 0 {
		r.Linef("          more: %s (--more-dead-letters), failing too", keysText(o.MoreDeadLetters))
	}
	fixed := "still broken (--provider-fixed=false)"
	if o.ProviderFixed {
		fixed = "fixed (--provider-fixed)"
	}
	r.Linef("Redrive   at %s; the provider is %s", clock.Stamp(own.redriveAt), fixed)
	if len(o.PoisonKeys) > 0 {
		r.Linef("          once fixed, %s: Declined (Day 16: a would-be Failed payment, no money lost)", keysText(o.PoisonKeys))
	}
	if len(o.MoreDeadLetters) > 0 {
		r.Linef("          once fixed, %s: Paid", keysText(o.MoreDeadLetters))
	}
	r.Linef("Capacity  from the redrive on, the provider takes %d status checks per %s; more are throttled (429)",
		o.Capacity, o.Window)
	if own.audited {
		r.Linef("Design    audited: approver %q, reason %q;", o.Approver, o.Reason)
		counters := " on top of its count"
		if !o.KeepCounters {
			counters = ", its count RESET to 0 (--keep-counters=false)"
		}
		r.Linef("          batches of %d, %s apart; +%s each%s; verify before closing",
			o.Batch, o.BatchInterval, report.Plural(o.RedriveAttempts, "attempt"), counters)
	} else {
		r.Line("Design    blind: one UPDATE back to Pending, AttemptCount 0, LastError and DeadLetteredAtUtc")
		r.Line("          cleared; the ordinary worker takes them")
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
		m, _ := l.Message(k)
		pay, _ := l.Payment(k)
		redrive := "blind reset"
		if run.audited {
			redrive = "not released"
			if rd, ok := redriven[k]; ok {
				redrive = fmt.Sprintf("batch %d, gen %d", rd.batch, rd.generation)
			}
		}
		payment := string(pay.Status)
		if pay.ProviderTransactionID != "" {
			payment += " " + pay.ProviderTransactionID
		}
		rows = append(rows, []string{k, redrive, fmt.Sprintf("%d / %d", m.AttemptCount, made[k]), string(m.Status),
			report.StampOrDash(m.DeadLetteredAt), payment})
	}
	r.Table([]string{"Key", "Redrive", "Count / made", "Outbox", "Dead-lettered at", "Payment"}, rows)
	r.Line("(Count / made: the row's AttemptCount / the attempts the provider's ledger shows were made)")
}

func writeRedrives(r *report.Report, rows []redriveRow) {
	if len(rows) == 0 {
		r.Line("(no rows: nothing recorded the redrive)")
		return
	}
	out := make([][]string, 0, len(rows))
	for _, rd := range rows {
		out = append(out, []string{strconv.FormatInt(rd.id, 10), rd.key, strconv.Itoa(rd.generation), strconv.Itoa(rd.batch),
			fmt.Sprintf("%d/%d at %s", rd.origAttempts, rd.origMax, isoStamp(rd.origDeadAt)), string(rd.outcome), report.Dash(rd.verifiedTx)})
	}
	r.Table([]string{"Id", "Key", "Gen", "Batch", "Original: attempts, dead at", "Outcome", "Verified tx"}, out)
	for _, rd := range rows {
		r.Linef("Original LastError of %s (row %d): %s", rd.key, rd.id, report.Dash(rd.origLastError))
	}
}

// writeAudit prints the audit log; its details, which the timeline tells,
// only in full (--verbose).
func writeAudit(r *report.Report, entries []outbox.AuditEntry, keys map[int64]string, full bool) {
	if len(entries) == 0 {
		r.Line("(no rows: nothing was audited)")
		return
	}
	rows := make([][]string, 0, len(entries))
	for _, e := range entries {
		key := "—"
		if e.MessageID > 0 {
			key = fmt.Sprintf("%d (%s)", e.MessageID, keys[e.MessageID])
		}
		row := []string{strconv.FormatInt(e.ID, 10), isoStamp(e.At), e.Actor, e.Action, key}
		if full {
			row = append(row, e.Detail)
		}
		rows = append(rows, row)
	}
	header := []string{"Id", "AtUtc", "Actor", "Action", "MessageId"}
	if full {
		header = append(header, "Detail")
	}
	r.Table(header, rows) // without Detail, which the timeline tells: --verbose prints it
}

// isoStamp shortens a stored ISO time to the timeline's time of day.
func isoStamp(iso string) string {
	if i := strings.IndexByte(iso, 'T'); i >= 0 {
		return iso[i+1:]
	}
	return report.Dash(iso)
}

// messageKeys maps each outbox row's id to its key.
func messageKeys(l Ledger) map[int64]string {
	keys := make(map[int64]string, len(l.Messages))
	for _, m := range l.Messages {
		keys[m.ID] = m.Key
	}
	return keys
}
