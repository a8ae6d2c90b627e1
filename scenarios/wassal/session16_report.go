package wassal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

var session16Day = day{
	number: 16,
	Pair: scenarios.Pair{
		Before: session16Before, BeforeTitle: "Day 16 — BEFORE: a poison message retried forever",
		After: session16After, AfterTitle: "Day 16 — AFTER: bounded retry, backoff and a dead-letter exit",
	},
	reproduced: "A POISON MESSAGE RETRIED FOREVER — NO LIMIT, NO EXIT",
	held:       "BOUNDED RETRY + DEAD-LETTER — THE QUEUE KEEPS MOVING",
	broken:     "THE RETRY POLICY DID NOT HOLD",
	columns:    []string{"Metric (real run)", "BEFORE (naive)", "AFTER (policy)"},
}

func (o *session16Options) story(own *session16Run, f session16Metrics) story {
	plot := AttemptPlot(own.events, own.ledger.Messages, own.started, own.ended)
	return story{tables: own.tables, timeline: o.timeline(own, o.verbose), figure: &plot,
		perMessage: func(r *report.Report) { o.writePerMessage(r, own) }, ledger: own.ledger, ledgersOnRequest: true,
		design: o.design(own.naive), footnote: o.footnote(f)}
}

func (o *session16Options) checks(r *report.Report, own *session16Run, f session16Metrics) {
	if !o.after {
		o.beforeChecks(r, own, f)
	} else {
		o.afterChecks(r, f)
	}
}

func (o *session16Options) writeSetup(r *report.Report, own *session16Run) {
	r.Linef("Seed      %s, PendingConfirmation, each written with its outbox message", paymentRange(o.Payments))
	r.Linef("          (%s) in one transaction", ConfirmType)
	var script []string
	for _, k := range o.PoisonKeys {
		script = append(script, k+": status check always fails (poison)")
	}
	if o.flaky.key != "" {
		script = append(script, fmt.Sprintf("%s: status check fails %s, then pays (transient)",
			o.flaky.key, report.Plural(o.flaky.fails, "time")))
	}
	if o.DeclinedKey != "" {
		script = append(script, o.DeclinedKey+": declines")
	}
	if len(script) == 0 {
		r.Line("Provider  every key pays (--poison-key none, --declined-key none)")
	} else {
		r.Linef("Provider  %s; every other key pays", strings.Join(script, "; "))
	}
	if !o.after {
		r.Line("Policy    naive: on failure straight back to Pending; no MaxAttempts, no backoff, no dead-letter")
	} else {
		limit := "no cap"
		if o.MaxBackoff > 0 {
			limit = "capped at " + clock.Millis(o.MaxBackoff)
		}
		exit := "on"
		if !o.DeadLetter {
			exit = "OFF (--dead-letter=false)"
		}
		r.Linef("Policy    MaxAttempts %d; backoff %s × 2^(n-1), %s; dead-letter exit %s", o.MaxAttempts, clock.Millis(o.BaseBackoff), limit, exit)
	}
	r.Linef("Worker    worker-1 claims up to %s per poll; lease %s", report.Plural(o.Batch, "due message"), o.Lease)
	if o.capped(!o.after) {
		r.Linef("Demo cap  the run is stopped if a poison message reaches %d attempts", o.RetryCap)
	} else {
		r.Line("Demo cap  none: the dead-letter exit ends every retry at MaxAttempts (--retry-cap applies to the naive loop, " +
			"and to this one only with --dead-letter=false)")
	}
	writeClockLine(r, own.started)
}

// writePerMessage is one row per message. The AFTER's rows show the
// ceiling, and the error a row keeps is shown in full below the table (the
// BEFORE's store, Day 15's, has neither).
func (o *session16Options) writePerMessage(r *report.Report, run *session16Run) {
	l := run.ledger
	calls := map[string]int{}
	for _, c := range l.Calls {
		calls[c.Key]++
	}
	head := []string{"Key", "Script", "Outbox status", "Attempts", "Calls", "Payment status", "Tx id"}
	var rows [][]string
	var errs []string
	for _, m := range l.Messages {
		pay, _ := l.Payment(m.Key)
		attempts := strconv.Itoa(m.AttemptCount)
		if !run.naive {
			attempts += "/" + scenarios.MaxAttemptsText(m.MaxAttempts)
		}
		rows = append(rows, []string{m.Key, ScriptText(run.prov, m.Key), string(m.Status), attempts,
			strconv.Itoa(calls[m.Key]), string(pay.Status), report.Dash(pay.ProviderTransactionID)})
		if m.LastError != "" {
			errs = append(errs, m.Key+": "+m.LastError)
		}
	}
	r.Table(head, rows)
	for _, e := range errs {
		r.Line("LastError " + e)
	}
	if !run.naive {
		o.writeNoMoneyLost(r, run)
	}
}

// writeNoMoneyLost says why dead-lettering the poison loses no money, from
// the ledgers: its payment has no provider transaction and the provider
// answered none of its calls with a payment.
func (o *session16Options) writeNoMoneyLost(r *report.Report, run *session16Run) {
	for _, k := range o.PoisonKeys {
		m, ok := run.ledger.Message(k)
		if !ok || m.Status != outbox.DeadLettered {
			continue
		}
		pay, _ := run.ledger.Payment(k)
		calls := 0
		for _, c := range run.ledger.Calls {
			if c.Key == k {
				calls++
			}
		}
		r.Linef("%s is a would-be Failed payment: none of its %s paid, so dead-lettering it loses",
			k, report.Plural(calls, "status check"))
		r.Linef("no money; the payment stays %s for a human, with no provider transaction.", pay.Status)
	}
}

// figureList is every Day 16 metric: its row in the BEFORE vs AFTER table
// and its JSON metric.
func (o *session16Options) metricList() []scenarios.Metric[session16Metrics] {
	type f16 = session16Metrics
	return slices.Concat(
		twoMetrics("Healthy messages Processed", "healthy_processed", "healthy_total",
			func(f f16) int { return f.healthyProcessed }, func(f f16) int { return f.healthy }),
		[]scenarios.Metric[f16]{
			{Label: "Poison attempts", Key: "poison_attempts", Show: o.attemptsText, Value: func(f f16) any { return f.poisonAttempts }},
			{Label: "Retries with backoff", Key: "retries_with_backoff", Show: retriesText, Value: func(f f16) any { return len(f.backoffs) }},
			metric("backoffs_ms", func(f f16) any {
				ms := make([]int64, len(f.backoffs))
				for i, d := range f.backoffs {
					ms[i] = d.Milliseconds()
				}
				return ms
			}),
			{Label: "Poison final outbox status", Key: "poison_final_status", Show: statusText,
				Value: func(f f16) any { return report.JoinStrings(f.poisonStatuses) }},
			metric("poison_payment_status", func(f f16) any { return report.JoinStrings(f.poisonPayments) }),
			{Label: "Dead-lettered messages", Key: "dead_lettered", Show: deadLetteredText, Value: func(f f16) any { return f.deadLettered }},
			{Label: "Provider status-check calls", Key: "provider_calls", Show: func(f f16) string { return failedOf(f.calls, f.failedCalls) },
				Value: func(f f16) any { return f.calls }},
			metric("provider_calls_failed", func(f f16) any { return f.failedCalls }),
			{Label: "Outbox Pending / Processing at end", Key: "pending_at_end", Show: queueText, Value: func(f f16) any { return f.pending }},
			metric("processing_at_end", func(f f16) any { return f.processing }),
		},
		resolvedMetrics("Resolved Paid / Failed (healthy)", func(f f16) int { return f.paid }, func(f f16) int { return f.failed }),
		twoMetrics("Duplicate payment / outbox rows", "duplicate_payment_rows", "duplicate_outbox_rows",
			func(f f16) int { return f.dupPayments }, func(f f16) int { return f.dupMessages }),
		[]scenarios.Metric[f16]{
			fakeMetric(func(f f16) txIDs { return f.txIDs }),
			metric("refused_transitions", func(f f16) any { return f.refused }),
			metric("demo_capped", func(f f16) any { return f.capped }),
			metric("scenario_end", func(f f16) any { return clock.ISO(f.ended) }),
		},
	)
}

// attemptsText is the poison messages' attempt counts, and what bounded them.
func (o *session16Options) attemptsText(f session16Metrics) string {
	s := report.JoinInts(f.poisonAttempts)
	switch {
	case len(f.poisonAttempts) == 0:
		return report.Empty + " (no poison key)"
	case f.naive && f.capped:
		return s + " (capped; unbounded)"
	case f.naive:
		return s
	case report.AllEqual(f.poisonAttempts, o.MaxAttempts):
		return s + " (= MaxAttempts)"
	case f.capped:
		return s + " (capped; MaxAttempts ignored)"
	}
	return s
}

// retriesText is how many retries waited a backoff, and the backoffs.
func retriesText(f session16Metrics) string {
	if len(f.backoffs) == 0 {
		return "0 (none)"
	}
	return fmt.Sprintf("%d (%s)", len(f.backoffs), joinMillis(f.backoffs))
}

// statusText is the poison messages' final outbox status.
func statusText(f session16Metrics) string {
	if len(f.poisonStatuses) == 0 {
		return report.Empty + " (no poison key)"
	}
	s := report.JoinStrings(f.poisonStatuses)
	if !report.AllEqual(f.poisonStatuses, outbox.DeadLettered) && !report.AllEqual(f.poisonStatuses, outbox.Processed) {
		s += " (never ends)"
	}
	return s
}

// deadLetteredText is the dead-lettered messages, and whether their error was kept.
func deadLetteredText(f session16Metrics) string {
	switch {
	case f.naive:
		return fmt.Sprintf("%d (no such concept)", f.deadLettered)
	case f.deadLettered > 0 && f.poisonErrorsSet:
		return fmt.Sprintf("%d (LastError recorded)", f.deadLettered)
	}
	return strconv.Itoa(f.deadLettered)
}

// queueText is the outbox's Pending / Processing at the end: drained or stuck.
func queueText(f session16Metrics) string {
	s := slash(f.pending, f.processing)
	if f.pending+f.processing == 0 {
		return s + " (drained)"
	}
	return s + " (stuck)"
}

// sameInstantRetry reports whether next is another immediate failed attempt
// of e's message at e's instant, with the same error: a line that would
// only repeat the one before it.
func sameInstantRetry(e, next worker.Event) bool {
	return e.Kind == worker.Retrying && next.Kind == worker.Retrying && e.Delay == 0 && next.Delay == 0 &&
		next.MessageID == e.MessageID && next.At.Equal(e.At) && next.Detail == e.Detail
}
