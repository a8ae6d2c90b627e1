package wassal

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// session13Metrics are the numbers a Day 13 run is judged by.
type session13Metrics struct {
	submitted          int
	lostAnswers        []string // keys whose charge answer never reached the service
	checksAfterRestart int      // status checks, after the restart, for the payments pending at the crash
	stillPending       []string
	paid, failed       int
	chargedNotPaid     []string // the provider took the money; our books do not say Paid
	charges, maxCharge int
	txIDs

	crashed                     bool      // the service was killed
	pendingAtCrash, rowsAtCrash int       // payments pending, and re-check rows on disk, right after the crash
	ended                       time.Time // the end of the watch
}

func (o *session13Options) metrics(run *session13Run) session13Metrics {
	l := run.ledger
	f := session13Metrics{submitted: len(l.Payments), stillPending: pendingKeys(l.Payments),
		crashed: run.crashed, pendingAtCrash: len(run.pendingAtCrash), rowsAtCrash: len(run.rowsAtCrash), ended: run.windowEnd}
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
	number: 13,
	Pair: scenarios.Pair{
		Before: session13Before, BeforeTitle: "Day 13 — BEFORE: pending work lost on restart",
		After: session13After, AfterTitle: "Day 13 — AFTER: durable reconciliation survives a restart",
	},
	reproduced: "PENDING WORK KEPT IN MEMORY — LOST WITH THE PROCESS",
	held:       "DURABLE RECONCILIATION — THE PENDING WORK SURVIVES A RESTART",
	broken:     "THE PENDING WORK DID NOT REACH A RESULT",
	columns:    []string{"Metric (real run)", "BEFORE (memory)", "AFTER (durable)"},
}

func (o *session13Options) story(own *session13Run, _ session13Metrics) story {
	s := story{tables: own.tables, timeline: own.lines, ledger: own.ledger, design: Day(13), ledgersOnRequest: true,
		perMessage:  func(r *report.Report) { o.writePerPayment(r, own) },
		emptyOutbox: "(none: Day 13 has no outbox table; the outbox is Day 14's lesson)"}
	fig := o.timelineFigure(own)
	s.figure = &fig
	if own.durable && o.verbose {
		s.own = []ledgerTable{{"Re-check ledger (Rechecks table)", func(r *report.Report) { writeRechecks(r, own.rechecks) }}}
	}
	return s
}

func (o *session13Options) checks(r *report.Report, own *session13Run, f session13Metrics) {
	if o.after {
		o.afterChecks(r, own, f)
	} else {
		o.beforeChecks(r, own, f)
	}
}

func (o *session13Options) writeSetup(r *report.Report, _ *session13Run) {
	r.Linef("Requests  %s, one every %s from %s: write, then charge",
		paymentRange(o.Payments), clock.Millis(requestGap), clock.Stamp(clock.Start))
	r.Linef("Provider  answers lost (charged, but the service times out): %s;", keysText(o.TimeoutKeys))
	r.Linef("          %s; every other key pays", declinedText(o.DeclinedKey))
	if o.CrashAfter == "" {
		r.Line("Crash     none (--crash-after none): the service lives through the whole run")
	} else {
		r.Linef("Crash     life 1 (a real child process) is killed with SIGKILL right after %s's request;", o.CrashAfter)
		r.Linef("          life 2 starts %s later in the lab process, with fresh memory and connections", o.Downtime)
	}
	if o.after {
		r.Linef("Design    durable: the payment, then its re-check row in Rechecks (due +%s);", o.RecheckAfter)
		r.Line("          two separate writes; the crash comes after a whole request, never between them;")
		if o.Reconciler {
			r.Line("          life 2's reconciler reads the re-check rows and asks the provider when due")
		} else {
			r.Line("          reconciler OFF (--reconciler=false): nobody reads the re-check rows")
		}
		r.Line("Next      writing both in one transaction, so that no crash can fall between them: Day 14")
	} else {
		r.Linef("Design    in memory: a lost answer becomes a re-check due +%s in the process's memory", o.RecheckAfter)
	}
	switch restart := requestTime(keyIndex(o.CrashAfter)).Add(o.Downtime); {
	case o.CrashAfter == "":
		r.Linef("Watch     the run watches until %s after the last request", o.Observe)
	case o.watchFrom(restart).After(restart):
		r.Linef("Watch     the run watches until %s after the last request, which life 2 takes", o.Observe)
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
			kept = "memory, life " + life
			if run.durable {
				kept = "re-check row " + strconv.FormatInt(recheckID(run.rechecks, p.Key), 10)
			}
		}
		took := "—"
		for _, c := range l.Calls {
			if c.Op == provider.OpCharge && c.Key == p.Key {
				took = string(c.Outcome)
				if c.TransactionID != "" {
					took += " " + c.TransactionID
				}
			}
		}
		now := string(p.Status)
		if p.ProviderTransactionID != "" {
			now += " " + p.ProviderTransactionID
		}
		checks := callsAfter(l.Calls, provider.OpStatusCheck, p.Key, clock.Start)
		rows = append(rows, []string{p.Key, life, seen, took, kept, strconv.Itoa(checks), now})
	}
	r.Table([]string{"Key", "Life", "Answer", "Provider took", "Pending work in", "Checks", "Payment row"}, rows)
	if run.durable && !o.verbose {
		r.Line("Pending work in: its row in the Rechecks table, which --verbose prints.")
	}
}

// recheckID is the id of key's re-check row, 0 when it has none.
func recheckID(rows []recheckRow, key string) int64 {
	r, _ := recheckOf(rows, key)
	return r.id
}

// metricList is every Day 13 metric: its row in the BEFORE vs AFTER table
// and its JSON metric.
func (o *session13Options) metricList() []scenarios.Metric[session13Metrics] {
	type f13 = session13Metrics
	atCrash := func(f f13) string {
		if !f.crashed {
			return "no crash"
		}
		return slash(f.pendingAtCrash, f.rowsAtCrash)
	}
	stuck := func(f f13) string {
		if len(f.stillPending) == 0 {
			return "0"
		}
		return countWith(f.stillPending) + " (forever)"
	}
	return slices.Concat(
		[]scenarios.Metric[f13]{
			intMetric("Payments submitted", "payments", func(f f13) int { return f.submitted }),
			keysMetric("Charge answers lost (timed out)", "lost_charge_answers", func(f f13) []string { return f.lostAnswers }),
			metric("crashed", func(f f13) any { return f.crashed }),
			{Label: "At the crash: pending / re-check rows", Key: "pending_at_crash", Show: atCrash,
				Value: func(f f13) any { return f.pendingAtCrash }},
			metric("recheck_rows_at_crash", func(f f13) any { return f.rowsAtCrash }),
			intMetric("Status checks after the restart", "status_checks_after_restart",
				func(f f13) int { return f.checksAfterRestart }),
			{Label: "Still PendingConfirmation at the end", Key: "still_pending", Show: stuck,
				Value: func(f f13) any { return len(f.stillPending) }},
			metric("still_pending_keys", func(f f13) any { return keysText(f.stillPending) }),
		},
		resolvedMetrics("Resolved Paid / Failed", func(f f13) int { return f.paid }, func(f f13) int { return f.failed }),
		[]scenarios.Metric[f13]{
			keysMetric("Charged by the provider, not Paid here", "charged_not_paid", func(f f13) []string { return f.chargedNotPaid }),
			{Label: "Charges (max per payment)", Key: "charges", Show: func(f f13) string { return fmt.Sprintf("%d (%d)", f.charges, f.maxCharge) },
				Value: func(f f13) any { return f.charges }},
			metric("max_charges_per_payment", func(f f13) any { return f.maxCharge }),
			fakeMetric(func(f f13) txIDs { return f.txIDs }),
			metric("scenario_end", func(f f13) any { return clock.ISO(f.ended) }),
		},
	)
}

// noCrash is the metric of a check about the crash when there was none.
const noCrash = "no crash (--crash-after none)"

func (o *session13Options) beforeChecks(r *report.Report, run *session13Run, f session13Metrics) {
	if why, idle := o.notExercised13(run); idle {
		r.NotExercised("pending work lost with the process", why)
		r.NotExercised("nobody asked the provider again", why)
		o.integrityChecks13(r, f)
		return
	}
	lost := fmt.Sprintf("%s pending at the crash, %d still PendingConfirmation at %s: %s",
		report.Plural(len(run.pendingAtCrash), "payment"), len(f.stillPending), clock.Stamp(run.windowEnd), keysText(f.stillPending))
	asked := fmt.Sprintf("%d status checks for them after the restart", f.checksAfterRestart)
	r.Check("pending work lost with the process", slices.Equal(f.stillPending, run.pendingAtCrash), lost)
	r.Check("nobody asked the provider again", f.checksAfterRestart == 0, asked)
	o.integrityChecks13(r, f)
}

// notExercised13 says, from the run, why a Day 13 run did not exercise what
// the day is about: the service never crashed, or nothing was pending when
// it did, so there was no pending work to lose or to keep.
func (o *session13Options) notExercised13(run *session13Run) (why string, idle bool) {
	switch {
	case !run.crashed:
		return noCrash + ": the service kept its memory, so no pending work could be lost; " +
			"name a key after a timed-out one with --crash-after", true
	case len(run.pendingAtCrash) == 0:
		return fmt.Sprintf("the service was killed after %s with no payment pending: "+
			"crash after a timed-out key (--timeout-key, --crash-after) to leave pending work", o.CrashAfter), true
	}
	return "", false
}

func (o *session13Options) afterChecks(r *report.Report, run *session13Run, f session13Metrics) {
	if why, idle := o.notExercised13(run); idle {
		r.NotExercised("pending work survived the restart", why)
	} else {
		survived := fmt.Sprintf("%s, %s on disk after the crash", report.Plural(len(run.pendingAtCrash), "pending payment"), report.Plural(len(run.rowsAtCrash), "re-check row"))
		missing := without(run.pendingAtCrash, run.rowsAtCrash)
		if len(missing) > 0 {
			survived += "; no re-check row for " + keysText(missing)
		}
		r.Check("pending work survived the restart", len(missing) == 0, survived)
	}
	r.Check("every payment ends Paid or Failed", len(f.stillPending) == 0,
		fmt.Sprintf("%d PendingConfirmation; %d Paid, %d Failed", len(f.stillPending), f.paid, f.failed)+o.whyPending(run, f))
	o.integrityChecks13(r, f)
}

// whyPending says, from the outbox rows, why payments are still pending at
// the end of an AFTER run: nobody read their re-check rows, or the rows fell
// due after the watch ended.
func (o *session13Options) whyPending(run *session13Run, f session13Metrics) string {
	var late []string
	for _, k := range f.stillPending {
		if r, ok := recheckOf(run.rechecks, k); ok && r.status == recheckPending && r.due.Add(claim.WakeupSlack).After(run.windowEnd) {
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
func (o *session13Options) integrityChecks13(r *report.Report, f session13Metrics) {
	r.Invariant("never charged twice", f.maxCharge <= 1,
		fmt.Sprintf("%d charges for %d payments, max %d per payment", f.charges, f.submitted, f.maxCharge))
	f.txIDs.invariant(r)
}
