package wassal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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
		r.Line("Demo cap  none: the dead-letter exit ends every retry at MaxAttempts (--retry-cap applies")
		r.Line("          to the naive loop, and to this one only with --dead-letter=false)")
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
	case f.capped && o.DeadLetter:
		return s + " (capped before MaxAttempts)"
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

// noPoison is the why of every poison check when --poison-key none leaves
// no message that fails every time.
const noPoison = "no poison key (--poison-key none): no message failed every time; name one with --poison-key"

func (o *session16Options) afterChecks(r *report.Report, f session16Metrics) {
	if len(o.PoisonKeys) == 0 {
		r.NotExercised("poison tried exactly MaxAttempts", noPoison)
		r.NotExercised("poison dead-lettered with LastError", noPoison)
	} else {
		r.Check("poison tried exactly MaxAttempts",
			report.AllEqual(f.poisonCalls, o.MaxAttempts) && slices.Equal(f.poisonAttempts, f.poisonCalls),
			o.triedDetail(f))
		errText := "error set"
		if !f.poisonErrorsSet {
			errText = "error missing"
		}
		r.Check("poison dead-lettered with LastError",
			report.AllEqual(f.poisonStatuses, outbox.DeadLettered) && f.poisonErrorsSet,
			fmt.Sprintf("status %s, %s", report.JoinStrings(f.poisonStatuses), errText))
	}
	o.backoffCheck(r, f)
	o.starvationCheck(r, f)
	if o.flaky.key != "" {
		o.flakyCheck(r, f)
	}
	r.Check("queue drained", f.pending == 0 && f.processing == 0,
		fmt.Sprintf("%d pending / %d processing", f.pending, f.processing))
	if len(o.PoisonKeys) > 0 {
		r.Check("dead-lettering lost no money", f.poisonMoneyTaken == 0 && report.AllEqual(f.poisonPayments, outbox.PendingConfirmation),
			fmt.Sprintf("poison payments %s; provider calls that paid: %d",
				report.JoinStrings(f.poisonPayments), f.poisonMoneyTaken))
	}
	o.integrityChecks(r, f)
}

// triedDetail is the metric of "poison tried exactly MaxAttempts": the
// status checks the provider received per poison key, against MaxAttempts,
// and why they differ when they do.
func (o *session16Options) triedDetail(f session16Metrics) string {
	detail := fmt.Sprintf("%s / %d", report.JoinInts(f.poisonCalls), o.MaxAttempts)
	if !slices.Equal(f.poisonAttempts, f.poisonCalls) {
		detail += fmt.Sprintf(" (the rows' AttemptCount says %s)", report.JoinInts(f.poisonAttempts))
	}
	if !report.AllEqual(f.poisonCalls, o.MaxAttempts) && !o.DeadLetter && f.capped {
		detail += fmt.Sprintf("; the dead-letter exit is off, so only the demo cap (--retry-cap %d) stopped them", o.RetryCap)
	}
	return detail
}

// backoffCheck judges the backoff from the provider's ledger: every retry of
// a message came no sooner than the course's backoff (base × 2^(n-1), at
// most --max-backoff) after its call before, and that wait was positive, so
// the claim was gated by NextAttemptUtc and the message was not hammered.
func (o *session16Options) backoffCheck(r *report.Report, f session16Metrics) {
	const name = "each retry waited its backoff (NextAttemptUtc)"
	if len(f.retried) == 0 {
		why := noPoison
		if o.flaky.key != "" || len(o.PoisonKeys) > 0 {
			why = fmt.Sprintf("no message was retried: MaxAttempts %d dead-letters at the first failure; "+
				"a higher --max-attempts retries", o.MaxAttempts)
		}
		r.NotExercised(name, why)
		return
	}
	var held []string
	for _, k := range f.retried {
		if bad := f.tooSoon[k]; bad != "" {
			r.Check(name, false, bad)
			return
		}
		held = append(held, fmt.Sprintf("%s retried %s", k, report.Plural(f.retries[k], "time")))
	}
	r.Check(name, true, fmt.Sprintf("%s, each called no sooner than its backoff (%s) after the call before",
		strings.Join(held, ", "), backoffRange(f.backoffs)))
}

// backoffRange is the backoffs waited, or the first and the last of many.
func backoffRange(ds []time.Duration) string {
	if len(ds) > 4 {
		return clock.Millis(ds[0]) + " … " + clock.Millis(ds[len(ds)-1])
	}
	return joinMillis(ds)
}

// flakyCheck judges the transient failure from its row: it fails a few
// times and then pays, so a policy that gives up before that has
// dead-lettered a message that would have recovered.
func (o *session16Options) flakyCheck(r *report.Report, f session16Metrics) {
	k := o.flaky.key
	const name = "the transient failure recovered"
	switch {
	case f.flakyStatus == outbox.Processed && f.flakyPayment == outbox.Paid:
		r.Check(name, true, fmt.Sprintf("%s failed %s, then paid at attempt %d: Processed",
			k, report.Plural(o.flaky.fails, "time"), f.flakyAttempts))
	case f.flakyStatus == outbox.DeadLettered:
		r.Check(name, false, fmt.Sprintf("%s DeadLettered after %s (MaxAttempts %d), though it fails only %d "+
			"times, then pays: a --max-attempts of %d or less gives up on a message that would have recovered",
			k, report.Plural(f.flakyAttempts, "attempt"), o.MaxAttempts, o.flaky.fails, o.flaky.fails))
	default:
		r.Check(name, false, fmt.Sprintf("%s ended %s after %s, payment %s",
			k, f.flakyStatus, report.Plural(f.flakyAttempts, "attempt"), f.flakyPayment))
	}
}

func (o *session16Options) beforeChecks(r *report.Report, run *session16Run, f session16Metrics) {
	loop := []string{"poison retried with no limit", "no dead-letter exit", "provider calls wasted on the poison", "queue never drains"}
	switch {
	case len(o.PoisonKeys) == 0 && o.flaky.key != "":
		// A transient failure is no poison: the naive loop retried it until it paid.
		recovered := fmt.Sprintf("no poison key; %s failed %s, then %s at attempt %d",
			o.flaky.key, report.Plural(o.flaky.fails, "time"), f.flakyStatus, f.flakyAttempts)
		r.Check(loop[0], false, recovered)
		r.Check(loop[1], false, fmt.Sprintf("%d dead-lettered; no message needed an exit: %s", f.deadLettered, recovered))
		r.Check(loop[2], false, fmt.Sprintf("%d of %d status checks failed, none for a poison", f.failedCalls, f.calls))
		r.Check(loop[3], f.pending+f.processing > 0, fmt.Sprintf("%d pending / %d processing when the run ended by itself", f.pending, f.processing))
		o.integrityChecks(r, f)
		return
	case len(o.PoisonKeys) == 0:
		for _, name := range loop {
			r.NotExercised(name, noPoison)
		}
		o.integrityChecks(r, f)
		return
	}
	retried := slices.ContainsFunc(f.poisonAttempts, func(n int) bool { return n > 1 })
	noRetry := fmt.Sprintf("the demo cap (--retry-cap %d) stopped the run at %s's first attempt, before any retry; "+
		"a higher --retry-cap shows the loop", o.RetryCap, keysText(f.atCap))
	detail := fmt.Sprintf("AttemptCount %s at the demo cap of %d, status %s", report.JoinInts(f.poisonAttempts), o.RetryCap, report.JoinStrings(f.poisonStatuses))
	if !slices.Equal(f.poisonAttempts, f.poisonCalls) {
		detail += fmt.Sprintf("; the provider was asked %s times", report.JoinInts(f.poisonCalls))
	}
	if retried {
		r.Check(loop[0], len(f.atCap) > 0 && report.AllEqual(f.poisonStatuses, outbox.Pending) && slices.Equal(f.poisonAttempts, f.poisonCalls), detail)
		detail = fmt.Sprintf("%d dead-lettered", f.deadLettered)
		if f.poisonCeilings > 0 {
			detail += "; " + report.Plural(f.poisonCeilings, "poison row carries", "poison rows carry") + " a MaxAttempts ceiling"
		}
		r.Check(loop[1], f.deadLettered == 0 && f.poisonCeilings == 0 && len(f.atCap) > 0, detail)
	} else {
		r.NotExercised(loop[0], noRetry)
		r.NotExercised(loop[1], noRetry)
	}
	wasted := 0
	for _, n := range f.poisonAttempts {
		wasted += n
	}
	r.Check(loop[2], f.failedCalls > 0 && f.failedCalls == wasted+f.flakyFails,
		fmt.Sprintf("%d of %d status checks failed", f.failedCalls, f.calls))
	ended := "when the run was stopped"
	if !run.capped {
		ended = "when the run ended by itself"
	}
	if retried {
		r.Check(loop[3], f.pending+f.processing > 0,
			fmt.Sprintf("%d pending / %d processing %s", f.pending, f.processing, ended))
	} else {
		r.NotExercised(loop[3], noRetry)
	}
	o.starvationCheck(r, f)
	o.integrityChecks(r, f)
}

// integrityChecks are what both designs must keep: nothing is a lie.
func (o *session16Options) integrityChecks(r *report.Report, f session16Metrics) {
	r.Invariant("no duplicate payment/outbox rows", f.maxPayRows <= 1 && f.maxMsgRows <= 1,
		fmt.Sprintf("max %d per key", max(f.maxPayRows, f.maxMsgRows)))
	f.txIDs.invariant(r)
}

// sameInstantRetry reports whether next is another immediate failed attempt
// of e's message at e's instant, with the same error: a line that would
// only repeat the one before it.
func sameInstantRetry(e, next worker.Event) bool {
	return e.Kind == worker.Retrying && next.Kind == worker.Retrying && e.Delay == 0 && next.Delay == 0 &&
		next.MessageID == e.MessageID && next.At.Equal(e.At) && next.Detail == e.Detail
}
