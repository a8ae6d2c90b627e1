package wassal

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// What every Wassal day's report is made of. Each day tells its story in the
// same sections and order: setup, schema, timeline, per-message table,
// ledgers, the BEFORE vs AFTER metrics, safety checks and a verdict.

// day is one Wassal day: its BEFORE/AFTER pair and the verdicts its reports end on.
type day struct {
	scenarios.Pair
	reproduced string // BEFORE, every check passed: the failure mode shown
	held       string // AFTER, every check passed: the fix held
	broken     string // AFTER, a check failed
}

// verdictNotReproduced is every day's BEFORE verdict when a check failed.
const verdictNotReproduced = "THE FAILURE MODE WAS NOT REPRODUCED — SEE THE FAILED CHECKS ⚠️"

// closeReport writes the safety checks recorded so far and the verdict of
// the side the report is for.
func (d day) closeReport(r *report.Report, after bool) {
	r.Checks("Safety checks")
	if after {
		r.Verdict(d.held, d.broken)
	} else {
		r.Verdict(d.reproduced, verdictNotReproduced)
	}
}

// writeSchemaAndTimeline writes the tables a run created and its timeline,
// one line each.
func writeSchemaAndTimeline(r *report.Report, tables []outbox.Table, timeline []string) {
	r.Section("Schema")
	scenarios.WriteSchema(r, tables)
	r.Section("Timeline (scenario clock)")
	for _, line := range timeline {
		r.Line(line)
	}
}

// ledgerTable is a table of a day's own, written among the ledgers.
type ledgerTable struct {
	title string
	write func(r *report.Report)
}

// writeLedgers writes what a run left behind: the payments, the outbox, the
// day's own tables, then every call the provider received. emptyOutbox, when
// set, is said instead of an outbox table with no rows.
func writeLedgers(r *report.Report, l Ledger, emptyOutbox string, own ...ledgerTable) {
	r.Section("Payment ledger (Payments table)")
	WritePaymentLedger(r, l.Payments)
	r.Section("Outbox ledger (OutboxMessages table)")
	if len(l.Messages) == 0 && emptyOutbox != "" {
		r.Line(emptyOutbox)
	} else {
		scenarios.WriteOutboxLedger(r, l.Messages)
	}
	for _, t := range own {
		r.Section(t.title)
		t.write(r)
	}
	r.Section("Provider ledger (every call)")
	WriteProviderLedger(r, l)
}

// paymentRange says how many payments a day seeds: "6 payments PAY-001..PAY-006".
func paymentRange(n int) string {
	keys := PaymentKeys(n)
	return fmt.Sprintf("%d payments %s..%s", n, keys[0], keys[len(keys)-1])
}

// declinedText says which key the provider declines, for a setup line.
func declinedText(key string) string {
	if key == "" {
		return "no key is declined"
	}
	return key + " is declined"
}

// writeClockLine is every setup's last line.
func writeClockLine(r *report.Report, start time.Time) {
	r.Linef("Clock     scenario time starts %s; nothing sleeps", clock.ISO(start))
}

// txIDs are the figures behind the check every day keeps, BEFORE and AFTER:
// transaction ids only from the provider, on Paid payments only.
type txIDs struct {
	fake          int // payments showing an outcome the provider never gave
	paidWithID    int // Paid, with an id the provider issued
	otherWithID   int // not Paid, yet carrying an id
	paidWithoutID int // Paid, without an id the provider issued
}

func readTxIDs(l Ledger, p *provider.Provider) txIDs {
	t := txIDs{fake: l.FakeSuccesses()}
	t.paidWithID, t.otherWithID, t.paidWithoutID = l.TxIDs(p)
	return t
}

// check records the transaction-id check, fake outcomes included: every day
// keeps it, and it is the only place it is declared.
func (t txIDs) check(r *report.Report) {
	detail := fmt.Sprintf("%d Paid w/ id, %d Failed w/ id, %d fake", t.paidWithID, t.otherWithID, t.fake)
	if t.paidWithoutID > 0 {
		detail += fmt.Sprintf(", %d Paid without a provider id", t.paidWithoutID)
	}
	r.Check("tx ids only from provider, Paid only", t.otherWithID == 0 && t.paidWithoutID == 0 && t.fake == 0, detail)
}
