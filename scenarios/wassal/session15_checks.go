package wassal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// figureList is every Day 15 metric: its row in the BEFORE vs AFTER table
// and its JSON metric.
func (o *session15Options) metricList() []scenarios.Metric[session15Metrics] {
	type f15 = session15Metrics
	calls := func(f f15) string {
		if len(f.repeated) == 0 {
			return strconv.Itoa(f.calls)
		}
		return fmt.Sprintf("%d (%s twice)", f.calls, keysText(f.repeated))
	}
	refused := func(f f15) string {
		if f.naive {
			return "0 (nothing checks the owner)"
		}
		return lateText(f.refused)
	}
	takeovers := func(f f15) string {
		if f.naive {
			return "0 (no lease to expire)"
		}
		parts := make([]string, len(f.takeovers))
		for i, t := range f.takeovers {
			parts[i] = t.key
		}
		if len(parts) == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%s)", len(parts), strings.Join(parts, ", "))
	}
	stuck := func(f f15) string {
		if len(f.stuck) == 0 {
			return "0"
		}
		return countWith(f.stuck) + ", forever"
	}
	return slices.Concat(
		[]scenarios.Metric[f15]{
			keysMetric("Taken by two workers at once", "taken_at_once", func(f f15) []string { return f.takenAtOnce }),
			{Label: "Provider status checks", Key: "status_checks", Show: calls, Value: func(f f15) any { return f.calls }},
			metric("payments_asked_twice", func(f f15) any { return len(f.repeated) }),
			{Label: "Notifications (max per payment)", Key: "notifications",
				Show:  func(f f15) string { return fmt.Sprintf("%d (%d)", f.notifications, f.maxNotified) },
				Value: func(f f15) any { return f.notifications }},
			metric("max_notifications_per_payment", func(f f15) any { return f.maxNotified }),
			intMetric("Completions of one message (max)", "max_completions_per_message", func(f f15) int { return f.maxCompletions }),
			{Label: "Completions after the row moved on", Key: "late_completions_committed",
				Show: func(f f15) string { return lateText(f.lateCommitted) }, Value: func(f f15) any { return len(f.lateCommitted) }},
			{Label: "Late completions refused", Key: "refused_completions", Show: refused,
				Value: func(f f15) any { return len(f.refused) }},
			{Label: "Lease takeovers", Key: "takeovers", Show: takeovers, Value: func(f f15) any { return len(f.takeovers) }},
			{Label: "Stuck in Processing at the end", Key: "stuck_processing", Show: stuck,
				Value: func(f f15) any { return len(f.stuck) }},
			keysMetric("PendingConfirmation at the end", "pending_payments", func(f f15) []string { return f.pending }),
		},
		resolvedMetrics("Resolved Paid / Failed", func(f f15) int { return f.paid }, func(f f15) int { return f.failed }),
		[]scenarios.Metric[f15]{
			fakeMetric(func(f f15) txIDs { return f.txIDs }),
			metric("scenario_end", func(f f15) any { return clock.ISO(f.ended) }),
		},
	)
}

// lateText names the late completions, "2 (PAY-006 ×2)", or "0".
func lateText(xs []refusal) string {
	if len(xs) == 0 {
		return "0"
	}
	var keys []string
	times := map[string]int{}
	for _, x := range xs {
		if times[x.key]++; times[x.key] == 1 {
			keys = append(keys, x.key)
		}
	}
	for i, k := range keys {
		if times[k] > 1 {
			keys[i] = fmt.Sprintf("%s ×%d", k, times[k])
		}
	}
	return fmt.Sprintf("%d (%s)", len(xs), strings.Join(keys, ", "))
}

// noDeath is the metric of a check about worker-c's death when it did not die.
const noDeath = "worker-c did not die (--crash-point none)"

func (o *session15Options) beforeChecks(r *report.Report, run *session15Run, f session15Metrics) {
	detail := countWith(f.processedByTwo) + ": both read before either wrote"
	if len(f.processedByTwo) == 0 {
		detail = "0: no message was held by two workers at once"
	}
	r.Check("two workers processed the same message", len(f.processedByTwo) > 0, detail)
	r.Check("duplicate provider calls", len(f.repeated) > 0,
		fmt.Sprintf("%d status checks for %d payments; asked twice: %s", f.calls, len(run.ledger.Payments), keysText(f.repeated)))
	r.Check("duplicate effect: customer notified twice", f.maxNotified > 1,
		fmt.Sprintf("%d notifications for %d payments; twice: %s", f.notifications, len(run.ledger.Payments), keysText(f.notifiedTwice)))
	detail = "worker-c held nothing when it died"
	switch {
	case o.CrashPoint == noCrash15:
		detail = noDeath + ": nothing was left behind"
	case run.crashed != "" && f.crashStuck:
		detail = fmt.Sprintf("%s Processing under worker-c at %s, no lease to expire", keysText(f.stuck), clock.Stamp(run.ended))
	case run.crashed != "":
		detail = fmt.Sprintf("%s is %s at %s: it did not stay with worker-c", run.crashed, messageOf(run.ledger, run.crashed).Status, clock.Stamp(run.ended))
	}
	r.Check("a dead worker's message is stuck in Processing", f.crashStuck, detail)
	f.txIDs.check(r)
}

func (o *session15Options) afterChecks(r *report.Report, run *session15Run, f session15Metrics) {
	r.Check("one owner at a time", len(f.takenAtOnce) == 0,
		fmt.Sprintf("%d messages claimed while another claim was still valid", len(f.takenAtOnce)))
	detail := "worker-c held nothing when it died"
	switch t := f.crashTakeover; {
	case o.CrashPoint == noCrash15:
		detail = noDeath + ": no lease to take over"
	case t != nil:
		detail = fmt.Sprintf("%s: worker-c's lease ended %s, %s took it at %s (token %d)",
			t.key, clock.Stamp(t.expired), t.to, clock.Stamp(t.at), t.token)
	case run.crashed != "":
		detail = fmt.Sprintf("%s is %s at %s: nobody finished it after worker-c's lease ended",
			run.crashed, messageOf(run.ledger, run.crashed).Status, clock.Stamp(run.ended))
	}
	r.Check("a dead worker's lease expired and another took over", run.crashed == "" || f.crashTakeover != nil, detail)
	late := "no worker came back after losing its claim"
	switch {
	case len(f.lateCommitted) > 0:
		x := f.lateCommitted[0]
		late = fmt.Sprintf("%d committed anyway (%s on %s with token %d, the row's token %d)", len(f.lateCommitted), x.worker, x.key, x.token, x.ownerToken)
	case len(f.refused) > 0:
		x := f.refused[0]
		late = fmt.Sprintf("%d refused (%s on %s with token %d, the row's token %d)", len(f.refused), x.worker, x.key, x.token, x.ownerToken)
	}
	r.Check("late completion refused", len(f.lateCommitted) == 0 && f.maxCompletions <= 1, late)
	r.Check("one effect per payment", f.maxNotified == 1 && len(f.unnotified) == 0,
		fmt.Sprintf("%d notifications for %d payments, max %d per payment", f.notifications, len(run.ledger.Payments), f.maxNotified))
	r.Check("queue drained", len(f.stuck) == 0 && f.pendingMessages == 0,
		fmt.Sprintf("%d pending / %d processing", f.pendingMessages, len(f.stuck)))
	f.txIDs.check(r)
}
