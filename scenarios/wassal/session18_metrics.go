package wassal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/scenarios"
)

// session18Metrics are the numbers a Day 18 run is judged by, read from what
// the run left behind: the provider's ledger, the notifications the
// completing transactions committed, the outbox rows, and each renewal's row
// as read right before and after it.
type session18Metrics struct {
	calls         map[string][]provider.Call // each key's status checks, in order
	callCount     int
	repeated      []string // payments asked about more than once
	whileRunning  []string // asked again before the first handler had returned
	maxToken      int64    // claims of one message, from its row's token
	renewals      []renewal18
	capped        []capStop
	notified      map[string][]notification
	notifications int
	maxNotified   int
	refused       []refusal // late completions that left no notification
	lateCommitted []refusal // late completions whose notification committed
	maxAttempts   int
	paid, failed  int
	txIDs

	renews bool
	ended  time.Time
}

// handlerOf is how long the first handler of key takes: worker-a's --handler
// on PAY-001, worker-b's --hang on PAY-002.
func (o *session18Options) handlerOf(key string) time.Duration {
	if key == PaymentKey(1) {
		return o.Handler
	}
	return o.Hang
}

func (o *session18Options) metrics(run *session18Run) session18Metrics {
	l := run.ledger
	f := session18Metrics{calls: callsByKey(l.Calls), renewals: run.renewals, capped: run.capped,
		notified: map[string][]notification{}, notifications: len(run.notifications), renews: run.renews, ended: run.ended}
	for _, k := range PaymentKeys(payments18) {
		cs := f.calls[k]
		f.callCount += len(cs)
		if len(cs) > 1 {
			f.repeated = append(f.repeated, k)
			if cs[1].At.Before(cs[0].At.Add(o.handlerOf(k))) {
				f.whileRunning = append(f.whileRunning, k)
			}
		}
	}
	for _, n := range run.notifications {
		f.notified[n.key] = append(f.notified[n.key], n)
		f.maxNotified = max(f.maxNotified, len(f.notified[n.key]))
	}
	for _, x := range run.late {
		if slices.ContainsFunc(run.notifications, func(n notification) bool {
			return n.key == x.key && n.by == x.worker && n.at == clock.ISO(x.at)
		}) {
			f.lateCommitted = append(f.lateCommitted, x)
		} else {
			f.refused = append(f.refused, x)
		}
	}
	for _, m := range l.Messages {
		f.maxToken, f.maxAttempts = max(f.maxToken, m.ClaimToken), max(f.maxAttempts, m.AttemptCount)
	}
	f.paid, f.failed = paidFailed(l.Payments)
	f.txIDs = readTxIDs(l, run.prov)
	return f
}

// metricList is every Day 18 metric: its row in the BEFORE vs AFTER table
// and its JSON metric.
func (o *session18Options) metricList() []scenarios.Metric[session18Metrics] {
	type f18 = session18Metrics
	calls := func(f f18) string {
		if len(f.repeated) == 0 {
			return strconv.Itoa(f.callCount)
		}
		return fmt.Sprintf("%d (%s twice)", f.callCount, keysText(f.repeated))
	}
	renewals := func(f f18) string {
		if !f.renews {
			return "0 (no renewal)"
		}
		return strconv.Itoa(len(f.renewals))
	}
	capped := func(f f18) []string {
		keys := make([]string, len(f.capped))
		for i, c := range f.capped {
			keys[i] = c.key
		}
		return keys
	}
	return slices.Concat(
		[]scenarios.Metric[f18]{
			{Label: "Provider status checks", Key: "status_checks", Show: calls, Value: func(f f18) any { return f.callCount }},
			keysMetric("Asked again while a handler ran", "asked_while_running", func(f f18) []string { return f.whileRunning }),
			intMetric("Claims of one message (max token)", "max_claim_token", func(f f18) int { return int(f.maxToken) }),
			intMetric("Attempts of one message (max)", "max_attempts", func(f f18) int { return f.maxAttempts }),
			{Label: "Lease renewals", Key: "renewals", Show: renewals, Value: func(f f18) any { return len(f.renewals) }},
			keysMetric("Renewals stopped at the cap", "capped", capped),
			{Label: "Late completions refused", Key: "refused_completions",
				Show: func(f f18) string { return lateText(f.refused) }, Value: func(f f18) any { return len(f.refused) }},
			{Label: "Late completions committed", Key: "late_completions_committed",
				Show: func(f f18) string { return lateText(f.lateCommitted) }, Value: func(f f18) any { return len(f.lateCommitted) }},
			{Label: "Notifications (max per payment)", Key: "notifications",
				Show:  func(f f18) string { return fmt.Sprintf("%d (%d)", f.notifications, f.maxNotified) },
				Value: func(f f18) any { return f.notifications }},
		},
		resolvedMetrics("Resolved Paid / Failed", func(f f18) int { return f.paid }, func(f f18) int { return f.failed }),
		[]scenarios.Metric[f18]{
			fakeMetric(func(f f18) txIDs { return f.txIDs }),
			metric("scenario_end", func(f f18) any { return clock.ISO(f.ended) }),
		},
	)
}

// notifiedText names who notified the customer of key and when: "worker-c 00:32.001, worker-a 01:15".
func notifiedText(ns []notification) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		at, _ := time.Parse(clock.ISOLayout, n.at)
		parts[i] = n.by + " " + clock.Stamp(at)
	}
	return strings.Join(parts, ", ")
}

// processedBy is the row of key as the ledger ends and whether its
// ProcessedAtUtc is its one notification's time: a late completion by id
// moves it.
func processedAtOne(l Ledger, key string, ns []notification) bool {
	m := messageOf(l, key)
	return m.Status == outbox.Processed && len(ns) == 1 && clock.ISO(m.ProcessedAt) == ns[0].at
}
