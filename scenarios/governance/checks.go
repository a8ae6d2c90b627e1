package governance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

// The checks several governance scenarios share, each over every run given.

// checkRetrySchedule: a failure below the threshold is persisted Failed,
// due again after the documented delay for its failed attempt number, and the
// provider is called again then. It reads each row as persisted right after
// the failure, computes the delay on its own (scheduledDelay, not the
// policy's backoff) and finds the next call in the provider's ledger.
func checkRetrySchedule(r *report.Report, runs []*driveRun, f *drainFlags) {
	n, ok, ended := 0, 0, 0
	var delays []time.Duration
	for i, run := range runs {
		for _, key := range run.keys() {
			ems := run.emissions(key)
			for j, e := range ems {
				if !e.failed() || !e.logged || e.log.RetryCount >= f.MaxRetryAttempts {
					continue
				}
				n++
				row := e.row
				want := scheduledDelay(f.RetryBackoff, f.MaxRetryBackoff, e.log.RetryCount)
				persisted := e.log.To == e.retryStatus() && row.Status == e.retryStatus() && row.RetryCount == e.log.RetryCount &&
					row.NextRetryAt.Equal(row.UpdatedAt.Add(want))
				calledAgain := false
				if j+1 < len(ems) {
					next := ems[j+1].call.At
					calledAgain = !next.Before(row.NextRetryAt) && next.Sub(row.NextRetryAt) <= wakeupSlack
				} else if run.capped || run.entry(key).Status.Terminal() {
					// Nothing called it again because the run or the entry ended first.
					calledAgain = true
					ended++
				}
				if persisted && calledAgain {
					ok++
				}
				if d := row.NextRetryAt.Sub(row.UpdatedAt); i == len(runs)-1 && !slices.Contains(delays, d) {
					delays = append(delays, d)
				}
			}
		}
	}
	slices.Sort(delays)
	shown := make([]string, len(delays))
	for i, d := range delays {
		shown[i] = clock.Millis(d)
	}
	detail := fmt.Sprintf("%d of %d failures below %d (all modes): row Failed (or RetryableFailure), NextRetryAtUtc = UpdatedAtUtc + %s, called again then (%s)",
		ok, n, f.MaxRetryAttempts, f.scheduleText(), orNone(strings.Join(shown, ", "), "none"))
	if ended > 0 {
		detail += fmt.Sprintf("; %d not called again: the run or the entry ended first", ended)
	}
	if n == 0 {
		// With MaxRetryAttempts 1 the first failure is the threshold: nothing is ever below it.
		r.NotExercised("below the threshold a failure is retried on schedule", fmt.Sprintf("no failure came below the "+
			"threshold (MaxRetryAttempts %d), so no retry was scheduled: --max-retry-attempts 2 or more", f.MaxRetryAttempts))
		return
	}
	r.Check("below the threshold a failure is retried on schedule", ok == n, detail)
}

// checkUnexpected: errors and panics count as failures and the drain carries
// on. The provider's ledger says which calls errored or panicked; the
// transition log and the rows say what was persisted for each.
func checkUnexpected(r *report.Report, runs []*driveRun) {
	errs, panics, counted, unlogged := 0, 0, 0, 0
	for _, run := range runs {
		for _, key := range run.keys() {
			for _, e := range run.emissions(key) {
				if !e.logged {
					unlogged++
				}
				code := emission.CodeUnexpectedError
				switch {
				case e.call.Step.Panic != "":
					panics++
					code = emission.CodePanic
				case e.call.Step.Error != "":
					errs++
				default:
					continue
				}
				if e.logged && e.log.RetryCount == e.before+1 && (e.log.To.FailedAttempt() || e.log.To == emission.DeadLettered) &&
					e.row.LastErrorCode == code {
					counted++
				}
			}
		}
	}
	detail := fmt.Sprintf("%d errors and %d panics over %d drains, %d persisted as failed attempts; every drain finished its run",
		errs, panics, len(runs), counted)
	if unlogged > 0 {
		detail += fmt.Sprintf("; %d calls have no persisted transition", unlogged)
	}
	r.Check("emitter errors and panics count as failures; the drain never crashed", errs+panics > 0 && counted == errs+panics && unlogged == 0,
		detail)
}

// checkProviderDeadLetter: a provider-returned dead-letter is terminal at once,
// whatever the retry count, and the entry is never emitted again: the row
// records the provider's code at the call's time, and the ledger has no later call.
func checkProviderDeadLetter(r *report.Report, runs []*driveRun) {
	n, ok := 0, 0
	var detail []string
	for i, run := range runs {
		for _, key := range run.keys() {
			ems := run.emissions(key)
			for j, e := range ems {
				if e.kind() != emission.ResultDeadLetter {
					continue
				}
				n++
				code := e.call.Step.Result.Code
				if code == "" {
					code = emission.CodeProviderRejected
				}
				row := e.row
				if e.logged && e.log.To == emission.DeadLettered && e.log.RetryCount == e.before && row.Status == emission.DeadLettered &&
					row.ReasonCode == code && row.DeadLetteredAt.Equal(e.call.At) && j == len(ems)-1 {
					ok++
				}
				if i == len(runs)-1 {
					detail = append(detail, fmt.Sprintf("%s %s on call %d with %s, RetryCount %d", key, row.Status, j+1, row.ReasonCode, row.RetryCount))
				}
			}
		}
	}
	r.Check("a provider-returned dead-letter is terminal at once", n > 0 && ok == n,
		fmt.Sprintf("%d of %d: %s", ok, n, orNone(strings.Join(detail, "; "), "none returned")))
}

// checkNoReplay: the provider's ledger holds no call for an entry after its
// persisted terminal transition, and none from a pass a day after the run:
// dead-letters are never replayed automatically.
func checkNoReplay(r *report.Report, runs []*driveRun) {
	after, later, passes := 0, 0, 0
	for _, run := range runs {
		for _, key := range run.keys() {
			ended := false
			for _, e := range run.emissions(key) {
				if ended {
					after++
				}
				ended = ended || (e.logged && e.log.To.Terminal())
			}
		}
		if !run.laterAt.IsZero() {
			passes++
			later += callsSince(run.calls, run.laterAt)
		}
	}
	detail := fmt.Sprintf("%d emissions after a terminal transition; a pass 24 h later called the provider %d times", after, later)
	switch {
	case passes == 0:
		detail = fmt.Sprintf("%d emissions after a terminal transition; no pass 24 h later: the demo cap ended the run", after)
	case passes < len(runs):
		detail += fmt.Sprintf(" (the demo cap ended %d of the %d drains before it)", len(runs)-passes, len(runs))
	}
	r.Invariant("no automatic replay of terminal entries", after == 0 && later == 0, detail)
}

// checkNotDelivery: a dead-letter is never counted or stamped as a delivery.
func checkNotDelivery(r *report.Report, runs []*driveRun) {
	delivered, dead, stamped := 0, 0, 0
	for _, run := range runs {
		for _, e := range run.entries {
			switch e.Status {
			case emission.Delivered:
				delivered++
			case emission.DeadLettered:
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
	r.Invariant("a dead-letter is never treated as a delivery", stamped == 0,
		fmt.Sprintf("%d Delivered, %d DeadLettered%s; %d dead-lettered rows carry a delivery time", delivered, dead, scope, stamped))
}
