package governance

import (
	"fmt"
	"slices"
	"strings"

	"outboxlab/core/clock"
	gov "outboxlab/core/governance"
	"outboxlab/core/report"
)

// The checks several governance scenarios share, each over every run given.

// checkRetrySchedule: a failure below the threshold is Failed and due again
// after the backoff for its failed attempt number.
func checkRetrySchedule(r *report.Report, runs []*driveRun, f *drainFlags) {
	n, ok := 0, 0
	var delays []string
	for i, run := range runs {
		for _, ev := range run.events {
			t := ev.Transition
			if ev.Kind != gov.Handled || ev.Result.Kind != gov.ResultFailed || t.RetryCount >= f.MaxRetryAttempts {
				continue
			}
			n++
			if t.To == gov.Failed && t.NextRetryAt.Equal(t.At.Add(f.backoff().Delay(t.RetryCount))) {
				ok++
			}
			if d := clock.Millis(t.Delay); i == len(runs)-1 && !slices.Contains(delays, d) {
				delays = append(delays, d)
			}
		}
	}
	// With MaxRetryAttempts 1 the first failure is the threshold: nothing is ever below it.
	r.Check("below the threshold a failure is retried on schedule", (n > 0 || f.MaxRetryAttempts == 1) && ok == n,
		fmt.Sprintf("%d of %d failures below %d (all modes) → Failed, next retry = failure time + backoff(n) (%s)",
			ok, n, f.MaxRetryAttempts, orNone(strings.Join(delays, ", "), "none")))
}

// checkUnexpected: errors and panics count as failed attempts and the drain carries on.
func checkUnexpected(r *report.Report, runs []*driveRun) {
	errs, panics, counted := 0, 0, 0
	for _, run := range runs {
		for _, ev := range run.events {
			if ev.Kind != gov.Handled || ev.Unexpected == gov.Expected {
				continue
			}
			if ev.Unexpected == gov.UnexpectedPanic {
				panics++
			} else {
				errs++
			}
			if ev.Transition.RetryCount == ev.Entry.RetryCount+1 && (ev.Transition.To == gov.Failed || ev.Transition.To == gov.DeadLettered) {
				counted++
			}
		}
	}
	r.Check("emitter errors and panics count as failures; the drain never crashed", errs+panics > 0 && counted == errs+panics,
		fmt.Sprintf("%d errors and %d panics over %d drains, %d persisted as failed attempts; every drain finished its run",
			errs, panics, len(runs), counted))
}

// checkProviderDeadLetter: a provider-returned dead-letter is terminal at once,
// whatever the retry count, and the entry is never emitted again.
func checkProviderDeadLetter(r *report.Report, runs []*driveRun) {
	n, ok := 0, 0
	var detail []string
	for i, run := range runs {
		for _, ev := range run.events {
			if ev.Kind != gov.Handled || ev.Result.Kind != gov.ResultDeadLetter {
				continue
			}
			n++
			t, calls := ev.Transition, run.handled(ev.Entry.Key)
			if t.To == gov.DeadLettered && t.RetryCount == ev.Entry.RetryCount && t.ReasonCode == ev.Result.Code && calls[len(calls)-1].At.Equal(ev.At) {
				ok++
			}
			if i == len(runs)-1 {
				detail = append(detail, fmt.Sprintf("%s DeadLettered on call %d with %s, RetryCount %d", ev.Entry.Key, len(calls), t.ReasonCode, t.RetryCount))
			}
		}
	}
	r.Check("a provider-returned dead-letter is terminal at once", n > 0 && ok == n,
		fmt.Sprintf("%d of %d: %s", ok, n, orNone(strings.Join(detail, "; "), "none returned")))
}

// checkNoReplay: nothing is emitted after a terminal transition, and a pass a
// day later selects nothing: dead-letters are never replayed automatically.
func checkNoReplay(r *report.Report, runs []*driveRun) {
	after, later := 0, 0
	for _, run := range runs {
		later += run.laterSelected
		terminal := map[string]bool{}
		for _, ev := range run.events {
			if ev.Kind != gov.Handled {
				continue
			}
			if terminal[ev.Entry.Key] {
				after++
			}
			terminal[ev.Entry.Key] = ev.Transition.To.Terminal()
		}
	}
	r.Check("no automatic replay of terminal entries", after == 0 && later == 0,
		fmt.Sprintf("%d emissions after a terminal transition; a pass 24 h later selected %d entries", after, later))
}

// checkNotDelivery: a dead-letter is never counted or stamped as a delivery.
func checkNotDelivery(r *report.Report, runs []*driveRun) {
	delivered, dead, stamped := 0, 0, 0
	for _, run := range runs {
		for _, e := range run.entries {
			switch e.Status {
			case gov.Delivered:
				delivered++
			case gov.DeadLettered:
				dead++
				if !e.DeliveredAt.IsZero() {
					stamped++
				}
			}
		}
	}
	scope := ""
	if len(runs) > 1 {
		scope = " (both modes)"
	}
	r.Check("a dead-letter is never treated as a delivery", stamped == 0,
		fmt.Sprintf("%d Delivered, %d DeadLettered%s; %d dead-lettered rows carry a delivery time", delivered, dead, scope, stamped))
}

// recordMetrics records a run's figures for --json.
func recordMetrics(r *report.Report, run *driveRun, f *drainFlags) {
	r.Metric("max_retry_attempts", f.MaxRetryAttempts)
	r.Metric("dead_letter_on_max_retry_attempts", f.DeadLetterOnMaxRetryAttempts)
	r.Metric("delivered", countStatus(run, gov.Delivered))
	r.Metric("dead_lettered", countStatus(run, gov.DeadLettered))
	r.Metric("dead_letter_counter", run.alerts.DeadLettered())
	r.Metric("emitter_calls", len(run.emitter.Calls()))
	retry := map[string]int{}
	for _, e := range run.entries {
		retry[e.Key] = e.RetryCount
	}
	r.Metric("retry_count", retry)
	r.Metric("demo_capped", run.capped)
	r.Metric("scenario_end", clock.ISO(run.ended))
}
