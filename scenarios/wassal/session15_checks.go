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
	check := func(name, idle string, held bool, detail string) {
		if idle != "" {
			r.NotExercised(name, idle)
			return
		}
		r.Check(name, held, detail)
	}
	noRace := ""
	if !o.Overlap {
		noRace = "worker-a and worker-b did not poll at the same moment (--overlap=false): worker-b read " +
			"after worker-a's update, so nothing raced; drop --overlap=false to race them"
	}
	detail := countWith(f.processedByTwo) + ": both read before either wrote"
	if len(f.processedByTwo) == 0 {
		detail = "0: no message was held by two workers at once"
	}
	check("two workers processed the same message", noRace, len(f.processedByTwo) > 0, detail)
	check("duplicate provider calls", noRace, len(f.repeated) > 0,
		fmt.Sprintf("%d status checks for %d payments; asked twice: %s", f.calls, len(run.ledger.Payments), keysText(f.repeated)))
	check("duplicate effect: customer notified twice", noRace, f.maxNotified > 1,
		fmt.Sprintf("%d notifications for %d payments; twice: %s", f.notifications, len(run.ledger.Payments), keysText(f.notifiedTwice)))
	detail = fmt.Sprintf("%s is %s at %s: it did not stay with worker-c", run.crashed, messageOf(run.ledger, run.crashed).Status, clock.Stamp(run.ended))
	if f.crashStuck {
		detail = fmt.Sprintf("%s Processing under worker-c at %s, no lease to expire", keysText(f.stuck), clock.Stamp(run.ended))
	}
	check("a dead worker's message is stuck in Processing", o.noDeath(run), f.crashStuck, detail)
	f.txIDs.invariant(r)
}

// noDeath says why worker-c's death was not exercised: it did not die, or
// it held nothing when it did; "" when it died holding a message.
func (o *session15Options) noDeath(run *session15Run) string {
	switch {
	case o.CrashPoint == noCrash15:
		return noDeath + ": it left no message behind; --crash-point after-call or before-call kills it"
	case run.crashed == "":
		return "worker-c held nothing when it died: give it a message to hold (--payments, --crash-point)"
	}
	return ""
}

func (o *session15Options) afterChecks(r *report.Report, run *session15Run, f session15Metrics) {
	r.Check("one owner at a time", len(f.takenAtOnce) == 0,
		fmt.Sprintf("%d messages claimed while another claim was still valid", len(f.takenAtOnce)))
	if why := o.noDeath(run); why != "" {
		r.NotExercised("a dead worker's lease expired and another took over", why)
	} else {
		detail := fmt.Sprintf("%s is %s at %s: nobody finished it after worker-c's lease ended",
			run.crashed, messageOf(run.ledger, run.crashed).Status, clock.Stamp(run.ended))
		if t := f.crashTakeover; t != nil {
			detail = fmt.Sprintf("%s: worker-c's lease ended %s, %s took it at %s (token %d)",
				t.key, clock.Stamp(t.expired), t.to, clock.Stamp(t.at), t.token)
		}
		r.Check("a dead worker's lease expired and another took over", f.crashTakeover != nil, detail)
	}
	switch {
	case len(f.lateCommitted) > 0:
		x := f.lateCommitted[0]
		r.Check("late completion refused", false, fmt.Sprintf("%d committed anyway (%s on %s with token %d, the row's token %d)",
			len(f.lateCommitted), x.worker, x.key, x.token, x.ownerToken))
	case len(f.refused) > 0:
		x := f.refused[0]
		r.Check("late completion refused", f.maxCompletions <= 1, fmt.Sprintf("%d refused (%s on %s with token %d, the row's token %d)",
			len(f.refused), x.worker, x.key, x.token, x.ownerToken))
	case f.maxCompletions > 1:
		r.Check("late completion refused", false, fmt.Sprintf("a message completed %d times", f.maxCompletions))
	default:
		r.NotExercised("late completion refused", o.noLateWorker())
	}
	r.Check("one effect per payment", f.maxNotified == 1 && len(f.unnotified) == 0,
		fmt.Sprintf("%d notifications for %d payments, max %d per payment", f.notifications, len(run.ledger.Payments), f.maxNotified))
	r.Check("queue drained", len(f.stuck) == 0 && f.pendingMessages == 0,
		fmt.Sprintf("%d pending / %d processing", f.pendingMessages, len(f.stuck)))
	f.txIDs.invariant(r)
}

// noLateWorker says why no completion came late: worker-a's stall ended
// before its lease did, or it had no message to stall on.
func (o *session15Options) noLateWorker() string {
	if o.Stall < o.Lease {
		return fmt.Sprintf("no worker came back after losing its claim: worker-a's stall (--stall %s) ended "+
			"within its lease (--lease %s); a --stall longer than --lease brings it back late",
			durationText(o.Stall), durationText(o.Lease))
	}
	return "no worker came back after losing its claim: worker-a had no message to stall on; " +
		"more --payments give it one"
}
