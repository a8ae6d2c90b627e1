package wassal

import (
	"fmt"
	"slices"
	"strconv"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// session13Figures are the numbers a Day 13 run is judged by.
type session13Figures struct {
	submitted          int
	lostAnswers        []string // keys whose charge answer never reached the service
	checksAfterRestart int      // status checks, after the restart, for the payments pending at the crash
	stillPending       []string
	paid, failed       int
	chargedNotPaid     []string // the provider took the money; our books do not say Paid
	charges, maxCharge int
	txIDs
}

func (o *session13Options) figures(run *session13Run) session13Figures {
	l := run.ledger
	f := session13Figures{submitted: len(l.Payments), stillPending: pendingKeys(l.Payments)}
	for _, c := range l.Calls {
		if c.Op != provider.OpCharge {
			continue
		}
		f.charges++
		if slices.Contains(o.TimeoutKeys, c.Key) {
			f.lostAnswers = append(f.lostAnswers, c.Key)
		}
		if pay, ok := l.Payment(c.Key); ok && c.Outcome == provider.Paid && pay.Status != outbox.Paid {
			f.chargedNotPaid = append(f.chargedNotPaid, c.Key)
		}
	}
	for _, k := range run.pendingAtCrash {
		f.checksAfterRestart += callsAfter(l.Calls, provider.OpStatusCheck, k, run.restartAt)
	}
	f.paid, f.failed = paidFailed(l.Payments)
	f.maxCharge = maxCallsPerKey(l.Calls, provider.OpCharge)
	f.txIDs = readTxIDs(l, run.prov)
	return f
}

var session13Day = day{
	Pair: scenarios.Pair{
		Before: session13Before, BeforeTitle: "Session 13 — BEFORE: pending work lost on restart",
		After: session13After, AfterTitle: "Session 13 — AFTER: durable reconciliation survives a restart",
	},
	reproduced: "PENDING WORK KEPT IN MEMORY — LOST WITH THE PROCESS ❌",
	held:       "DURABLE RECONCILIATION — THE PENDING WORK SURVIVES A RESTART ✅",
	broken:     "THE PENDING WORK DID NOT REACH A RESULT — SEE THE FAILED CHECKS ❌",
}

func (o *session13Options) render(own, before, after *session13Run) *report.Report {
	r := session13Day.NewReport(o.durable)
	o.writeSetup(r)
	writeSchemaAndTimeline(r, own.tables, own.lines)
	r.Section("Per-message table")
	o.writePerPayment(r, own)
	writeLedgers(r, own.ledger, "(no rows: the in-memory design writes nothing to the outbox)")
	scenarios.CompareSection(r)
	o.writeMetrics(r, before, after)

	f := o.figures(own)
	if o.durable {
		o.afterChecks(r, own, f)
	} else {
		o.beforeChecks(r, own, f)
	}
	session13Day.closeReport(r, o.durable)
	o.recordMetrics(r, own, f)
	return r
}

func (o *session13Options) writeSetup(r *report.Report) {
	r.Linef("Requests  %s, one every %s from %s; each is written, then charged",
		paymentRange(o.Payments), clock.Millis(requestGap), clock.Stamp(clock.Start))
	r.Linef("Provider  charge answers lost (the provider takes the charge, the service times out): %s; %s; every other key pays",
		keysText(o.TimeoutKeys), declinedText(o.DeclinedKey))
	if o.CrashAfter == "" {
		r.Line("Crash     none (--crash-after none): the service lives through the whole run")
	} else {
		r.Linef("Crash     the service (life 1, a real child process) is killed with SIGKILL right after %s; life 2 starts %s later in the lab process, with fresh memory and connections",
			o.CrashAfter, o.Downtime)
	}
	if o.durable {
		reconciler := "on"
		if !o.Reconciler {
			reconciler = "OFF (--reconciler=false)"
		}
		r.Linef("Design    durable: payment + ConfirmPaymentStatus re-check row (due +%s) in one transaction; reconciler %s", o.RecheckAfter, reconciler)
	} else {
		r.Linef("Design    in memory: a lost answer becomes a re-check due +%s in the process's memory", o.RecheckAfter)
	}
	switch restart := requestTime(keyIndex(o.CrashAfter)).Add(o.Downtime); {
	case o.CrashAfter == "":
		r.Linef("Watch     the run watches until %s after the last request", o.Observe)
	case o.watchFrom(restart).After(restart):
		r.Linef("Watch     the run watches until %s after the last request, which life 2 takes after the restart", o.Observe)
	default:
		r.Linef("Watch     the run watches until %s after the restart", o.Observe)
	}
	writeClockLine(r, clock.Start)
}

func (o *session13Options) writePerPayment(r *report.Report, run *session13Run) {
	l := run.ledger
	var rows [][]string
	for _, p := range l.Payments {
		i := keyIndex(p.Key)
		life := "1"
		if run.crashed && i > run.crashIndex {
			life = "2"
		}
		seen, kept := "answered", "—"
		if slices.Contains(o.TimeoutKeys, p.Key) {
			seen = "TIMED OUT"
			kept = "memory of life " + life
			if run.durable {
				kept = "outbox row " + strconv.FormatInt(messageID(l, p.Key), 10)
			}
		}
		said := "—"
		for _, c := range l.Calls {
			if c.Op == provider.OpCharge && c.Key == p.Key {
				said = string(c.Outcome)
				if c.TransactionID != "" {
					said += " " + c.TransactionID
				}
			}
		}
		checks := callsAfter(l.Calls, provider.OpStatusCheck, p.Key, clock.Start)
		rows = append(rows, []string{p.Key, life, seen, said, kept, strconv.Itoa(checks), string(p.Status), report.Dash(p.ProviderTransactionID)})
	}
	r.Table([]string{"Key", "Life", "Charge answer", "Provider took the charge as", "Pending work kept in",
		"Status checks", "Payment status", "Provider tx id"}, rows)
}

// messageID is the id of key's outbox row, 0 when it has none.
func messageID(l Ledger, key string) int64 {
	m, _ := l.Message(key)
	return m.ID
}

func (o *session13Options) writeMetrics(r *report.Report, before, after *session13Run) {
	b, a := o.figures(before), o.figures(after)
	atCrash := func(run *session13Run) string {
		if !run.crashed {
			return "no crash"
		}
		return fmt.Sprintf("%d / %d", len(run.pendingAtCrash), len(run.rowsAtCrash))
	}
	stuck := func(f session13Figures) string {
		if len(f.stillPending) == 0 {
			return "0"
		}
		return countWith(f.stillPending) + " (forever)"
	}
	rows := [][]string{
		{"Payments submitted", strconv.Itoa(b.submitted), strconv.Itoa(a.submitted)},
		{"Charge answers lost (timed out)", countWith(b.lostAnswers), countWith(a.lostAnswers)},
		{"Right after the crash: pending payments / re-check rows on disk", atCrash(before), atCrash(after)},
		{"Status checks after the restart (for those payments)", strconv.Itoa(b.checksAfterRestart), strconv.Itoa(a.checksAfterRestart)},
		{"Payments still PendingConfirmation at the end", stuck(b), stuck(a)},
		{"Resolved Paid / Failed", fmt.Sprintf("%d / %d", b.paid, b.failed), fmt.Sprintf("%d / %d", a.paid, a.failed)},
		{"Charged at the provider, not Paid on our books", countWith(b.chargedNotPaid), countWith(a.chargedNotPaid)},
		{"Charges (max per payment)", fmt.Sprintf("%d (%d)", b.charges, b.maxCharge), fmt.Sprintf("%d (%d)", a.charges, a.maxCharge)},
		{"Fake successes", strconv.Itoa(b.fake), strconv.Itoa(a.fake)},
	}
	r.Table([]string{"Metric (real run)", "BEFORE (memory)", "AFTER (durable)"}, rows)
}

// noCrash is the figure of a check about the crash when there was none.
const noCrash = "no crash (--crash-after none)"

func (o *session13Options) beforeChecks(r *report.Report, run *session13Run, f session13Figures) {
	lost := fmt.Sprintf("%d payment(s) pending at the crash, %d still PendingConfirmation at %s: %s",
		len(run.pendingAtCrash), len(f.stillPending), clock.Stamp(run.windowEnd), keysText(f.stillPending))
	asked := fmt.Sprintf("%d status checks for them after the restart", f.checksAfterRestart)
	if !run.crashed {
		lost = fmt.Sprintf("%s: the process kept its memory; %d still PendingConfirmation at %s: %s",
			noCrash, len(f.stillPending), clock.Stamp(run.windowEnd), keysText(f.stillPending))
		asked = noCrash + ": no restart, nothing to forget"
	}
	r.Check("pending work lost with the process",
		run.crashed && len(run.pendingAtCrash) > 0 && slices.Equal(f.stillPending, run.pendingAtCrash), lost)
	r.Check("nobody asked the provider again", run.crashed && len(run.pendingAtCrash) > 0 && f.checksAfterRestart == 0, asked)
	o.integrityChecks13(r, f)
}

func (o *session13Options) afterChecks(r *report.Report, run *session13Run, f session13Figures) {
	survived := fmt.Sprintf("%d pending payment(s), %d re-check row(s) on disk after the crash", len(run.pendingAtCrash), len(run.rowsAtCrash))
	if missing := without(run.pendingAtCrash, run.rowsAtCrash); len(missing) > 0 {
		survived += "; no re-check row for " + keysText(missing)
	}
	if !run.crashed {
		survived = noCrash + ": nothing had to survive"
	}
	r.Check("pending work survived the restart", !run.crashed || len(without(run.pendingAtCrash, run.rowsAtCrash)) == 0, survived)
	r.Check("every payment ends Paid or Failed", len(f.stillPending) == 0,
		fmt.Sprintf("%d PendingConfirmation; %d Paid, %d Failed", len(f.stillPending), f.paid, f.failed)+o.whyPending(run, f))
	o.integrityChecks13(r, f)
}

// whyPending says, from the outbox rows, why payments are still pending at
// the end of an AFTER run: nobody read their re-check rows, or the rows fell
// due after the watch ended.
func (o *session13Options) whyPending(run *session13Run, f session13Figures) string {
	var late []string
	for _, k := range f.stillPending {
		if m, ok := run.ledger.Message(k); ok && m.Status == outbox.Pending && m.NextAttemptAt.After(run.windowEnd) {
			late = append(late, k)
		}
	}
	switch {
	case len(f.stillPending) == 0:
		return ""
	case !o.Reconciler:
		return "; the reconciler is off (--reconciler=false): nobody reads the re-check rows"
	case len(late) > 0:
		return fmt.Sprintf("; the re-checks of %s fall due after the watch ends (--observe %s)", keysText(late), durationText(o.Observe))
	}
	return ""
}

// without returns the keys of a that b lacks.
func without(a, b []string) []string {
	var out []string
	for _, k := range a {
		if !slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}

// integrityChecks13 are what both designs must keep: nothing charged twice,
// nothing made up.
func (o *session13Options) integrityChecks13(r *report.Report, f session13Figures) {
	r.Check("never charged twice", f.maxCharge <= 1,
		fmt.Sprintf("%d charges for %d payments, max %d per payment", f.charges, f.submitted, f.maxCharge))
	f.txIDs.check(r)
}

func (o *session13Options) recordMetrics(r *report.Report, run *session13Run, f session13Figures) {
	r.Metric("payments", f.submitted)
	r.Metric("lost_charge_answers", len(f.lostAnswers))
	r.Metric("crashed", run.crashed)
	r.Metric("pending_at_crash", len(run.pendingAtCrash))
	r.Metric("recheck_rows_at_crash", len(run.rowsAtCrash))
	r.Metric("status_checks_after_restart", f.checksAfterRestart)
	r.Metric("still_pending", len(f.stillPending))
	r.Metric("still_pending_keys", keysText(f.stillPending))
	r.Metric("paid", f.paid)
	r.Metric("failed", f.failed)
	r.Metric("charged_not_paid", len(f.chargedNotPaid))
	r.Metric("charges", f.charges)
	r.Metric("max_charges_per_payment", f.maxCharge)
	r.Metric("fake_successes", f.fake)
	r.Metric("scenario_end", clock.ISO(run.windowEnd))
}
