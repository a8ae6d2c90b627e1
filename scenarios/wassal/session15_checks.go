package wassal

import (
	"fmt"
	"strconv"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
)

func (o *session15Options) writeMetrics(r *report.Report, b, a session15Figures) {
	calls := func(f session15Figures, cause string) string {
		if len(f.repeated) == 0 {
			return strconv.Itoa(f.calls)
		}
		return fmt.Sprintf("%d (%s asked twice: %s)", f.calls, keysText(f.repeated), cause)
	}
	late := func(xs []refusal) string {
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
		if len(xs) == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%s)", len(xs), strings.Join(keys, ", "))
	}
	refused := func(f session15Figures, naive bool) string {
		if naive {
			return "0 (nothing checks the owner)"
		}
		return late(f.refused)
	}
	takeovers := func(f session15Figures, naive bool) string {
		if naive {
			return "0 (no lease to expire)"
		}
		parts := make([]string, len(f.takeovers))
		for i, t := range f.takeovers {
			parts[i] = t.key + " from " + t.from
		}
		if len(parts) == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%s)", len(parts), strings.Join(parts, ", "))
	}
	stuck := func(f session15Figures) string {
		if len(f.stuck) == 0 {
			return "0"
		}
		return countWith(f.stuck) + ", forever"
	}
	rows := [][]string{
		{"Messages taken by two workers at once", countWith(b.takenAtOnce), countWith(a.takenAtOnce)},
		{"Provider status checks", calls(b, "two owners at once"), calls(a, "redone after a lease expired")},
		{"Customer notifications (max per payment)", fmt.Sprintf("%d (%d)", b.notifications, b.maxNotified), fmt.Sprintf("%d (%d)", a.notifications, a.maxNotified)},
		{"Completions committed for one message (max)", strconv.Itoa(b.maxCompletions), strconv.Itoa(a.maxCompletions)},
		{"Completions committed after the row moved on", late(b.lateCommitted), late(a.lateCommitted)},
		{"Late completions refused (claim lost)", refused(b, true), refused(a, false)},
		{"Lease takeovers", takeovers(b, true), takeovers(a, false)},
		{"Messages stuck in Processing at the end", stuck(b), stuck(a)},
		{"Payments PendingConfirmation at the end", countWith(b.pending), countWith(a.pending)},
		{"Resolved Paid / Failed", fmt.Sprintf("%d / %d", b.paid, b.failed), fmt.Sprintf("%d / %d", a.paid, a.failed)},
		{"Fake successes", strconv.Itoa(b.fake), strconv.Itoa(a.fake)},
	}
	r.Table([]string{"Metric (real run)", "BEFORE (select-then-update)", "AFTER (lease + token)"}, rows)
}

// noDeath is the figure of a check about worker-c's death when it did not die.
const noDeath = "worker-c did not die (--crash-point none)"

func (o *session15Options) beforeChecks(r *report.Report, run *session15Run, f session15Figures) {
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

func (o *session15Options) afterChecks(r *report.Report, run *session15Run, f session15Figures) {
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

func (o *session15Options) recordMetrics(r *report.Report, run *session15Run, f session15Figures) {
	r.Metric("taken_at_once", len(f.takenAtOnce))
	r.Metric("status_checks", f.calls)
	r.Metric("payments_asked_twice", len(f.repeated))
	r.Metric("notifications", f.notifications)
	r.Metric("max_notifications_per_payment", f.maxNotified)
	r.Metric("max_completions_per_message", f.maxCompletions)
	r.Metric("refused_completions", len(f.refused))
	r.Metric("late_completions_committed", len(f.lateCommitted))
	r.Metric("takeovers", len(f.takeovers))
	r.Metric("stuck_processing", len(f.stuck))
	r.Metric("pending_payments", len(f.pending))
	r.Metric("paid", f.paid)
	r.Metric("failed", f.failed)
	r.Metric("fake_successes", f.fake)
	r.Metric("scenario_end", clock.ISO(run.ended))
}
