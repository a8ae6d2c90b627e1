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
	n := 0
	var late, ended keyList
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
					ended.add(key)
				}
				if !persisted || !calledAgain {
					late.add(key)
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
	rule := fmt.Sprintf("row Failed (or RetryableFailure), NextRetryAtUtc = UpdatedAtUtc + %s, called again then (%s)",
		f.scheduleText(), orNone(strings.Join(shown, ", "), "none"))
	detail := fmt.Sprintf("every failure below %d (%s): %s", f.MaxRetryAttempts, modesText(runs), rule)
	if len(late) > 0 {
		detail = fmt.Sprintf("not every failure below %d (%s) kept the rule (%s); broken by %s",
			f.MaxRetryAttempts, modesText(runs), rule, allShown(runs, late))
	}
	if len(ended) > 0 {
		detail += fmt.Sprintf("; %s not called again after its last one: the run or the entry ended first", ended)
	}
	if n == 0 {
		// With MaxRetryAttempts 1 the first failure is the threshold: nothing is ever below it.
		r.NotExercised("below the threshold a failure is retried on schedule", fmt.Sprintf("no failure came below the "+
			"threshold (MaxRetryAttempts %d), so no retry was scheduled: --max-retry-attempts 2 or more", f.MaxRetryAttempts))
		return
	}
	r.Check("below the threshold a failure is retried on schedule", len(late) == 0, detail)
}

// checkUnexpected: errors and panics count as failures and the drain carries
// on. The provider's ledger says which calls errored or panicked; the
// transition log and the rows say what was persisted for each.
func checkUnexpected(r *report.Report, runs []*driveRun) {
	var errs, panics, uncounted, unlogged keyList
	for _, run := range runs {
		for _, key := range run.keys() {
			for _, e := range run.emissions(key) {
				if !e.logged {
					unlogged.add(key)
				}
				code := emission.CodeUnexpectedError
				switch {
				case e.call.Step.Panic != "":
					panics.add(key)
					code = emission.CodePanic
				case e.call.Step.Error != "":
					errs.add(key)
				default:
					continue
				}
				if !e.logged || e.log.RetryCount != e.before+1 || !(e.log.To.FailedAttempt() || e.log.To == emission.DeadLettered) ||
					e.row.LastErrorCode != code {
					uncounted.add(key)
				}
			}
		}
	}
	detail := fmt.Sprintf("every error (%s) and panic (%s) in %s persisted as a failed attempt (%s, %s); every drain finished its run",
		orNone(errs.String(), "none"), orNone(panics.String(), "none"), modesText(runs), emission.CodeUnexpectedError, emission.CodePanic)
	switch {
	case len(errs)+len(panics) == 0:
		detail = "no emitter call errored or panicked in this run; every drain finished its run"
	case len(uncounted) > 0:
		detail = fmt.Sprintf("an error or panic was not persisted as a failed attempt (%s, %s): %s",
			emission.CodeUnexpectedError, emission.CodePanic, allShown(runs, uncounted))
	}
	if len(unlogged) > 0 {
		detail += fmt.Sprintf("; calls with no persisted transition: %s", unlogged)
	}
	r.Check("emitter errors and panics count as failures; the drain never crashed",
		len(errs)+len(panics) > 0 && len(uncounted) == 0 && len(unlogged) == 0, detail)
}

// checkProviderDeadLetter: a provider-returned dead-letter is terminal at once,
// whatever the retry count, and the entry is never emitted again: the row
// records the provider's code at the call's time, and the ledger has no later call.
func checkProviderDeadLetter(r *report.Report, runs []*driveRun) {
	n := 0
	var broken keyList
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
				if !(e.logged && e.log.To == emission.DeadLettered && e.log.RetryCount == e.before && row.Status == emission.DeadLettered) ||
					!(row.ReasonCode == code && row.DeadLetteredAt.Equal(e.call.At) && j == len(ems)-1) {
					broken.add(key)
				}
				if i == len(runs)-1 {
					detail = append(detail, fmt.Sprintf("%s %s on call %d with %s, RetryCount %d", key, row.Status, j+1, row.ReasonCode, row.RetryCount))
				}
			}
		}
	}
	text := fmt.Sprintf("%s (%s)", strings.Join(detail, "; "), modesText(runs))
	switch {
	case n == 0:
		text = "the provider returned no dead-letter in this run"
	case len(broken) > 0:
		text = fmt.Sprintf("not terminal at once, or emitted again: %s", allShown(runs, broken))
	}
	r.Check("a provider-returned dead-letter is terminal at once", n > 0 && len(broken) == 0, text)
}

// checkNoReplay: the provider's ledger holds no call for an entry after its
// persisted terminal transition, and none from a pass a day after the run:
// dead-letters are never replayed automatically.
func checkNoReplay(r *report.Report, runs []*driveRun) {
	var after, later keyList
	var capped []string
	for _, run := range runs {
		for _, key := range run.keys() {
			ended := false
			for _, e := range run.emissions(key) {
				if ended {
					after.add(key)
				}
				ended = ended || (e.logged && e.log.To.Terminal())
			}
		}
		if run.laterAt.IsZero() {
			capped = append(capped, string(run.mode))
			continue
		}
		for _, c := range run.calls {
			if !c.At.Before(run.laterAt) {
				later.add(c.Key)
			}
		}
	}
	detail := "no entry emitted after its terminal transition"
	if len(after) > 0 {
		detail = "emitted after its terminal transition: " + after.String()
	}
	switch {
	case len(capped) == len(runs):
		detail += "; no pass a day later: the demo cap ended the run"
	case len(later) > 0:
		detail += "; a pass a day later called the provider for " + later.String()
	default:
		detail += "; a pass a day later made no provider call"
	}
	if len(capped) > 0 && len(capped) < len(runs) {
		detail += fmt.Sprintf(" (the demo cap ended the %s drain before it)", strings.Join(capped, " and "))
	}
	r.Invariant("no automatic replay of terminal entries", len(after) == 0 && len(later) == 0, detail)
}

// checkNotDelivery: a dead-letter is never counted or stamped as a delivery.
func checkNotDelivery(r *report.Report, runs []*driveRun) {
	var dead, stamped keyList
	for _, run := range runs {
		for _, e := range run.entries {
			if e.Status != emission.DeadLettered {
				continue
			}
			dead.add(e.Key)
			if !e.DeliveredAt.IsZero() {
				stamped.add(e.Key)
			}
		}
	}
	if len(dead) == 0 {
		// No row was dead-lettered (--dead-letter-on-max-retry-attempts=false,
		// or no entry reached the threshold): the invariant judged nothing.
		r.Record(report.Check{Name: checkNotDeliveryName, Role: report.RoleInvariant, Outcome: report.OutcomeNotExercised,
			Detail: fmt.Sprintf("no row was dead-lettered (%s): no dead-letter to judge", modesText(runs))})
		return
	}
	detail := fmt.Sprintf("no DeadLettered row (%s) carries a delivery time (DeadLettered: %s)", modesText(runs), dead)
	if len(stamped) > 0 {
		detail = fmt.Sprintf("DeadLettered rows carry a delivery time (%s): %s", modesText(runs), stamped)
	}
	r.Invariant(checkNotDeliveryName, len(stamped) == 0, detail)
}

// checkNotDeliveryName is checkNotDelivery's check.
const checkNotDeliveryName = "a dead-letter is never treated as a delivery"

// keyList is a check's offending (or exercised) entries, each named once, in
// the order first met: a WHY names them rather than counting them, so that
// the reader finds each one in the run's tables.
type keyList []string

func (l *keyList) add(key string) {
	if !slices.Contains(*l, key) {
		*l = append(*l, key)
	}
}

func (l keyList) String() string { return strings.Join(l, ", ") }

// modesText says which of the runs a check read: "both modes" for the store
// and the claim drain, else the one drain's mode.
func modesText(runs []*driveRun) string {
	if len(runs) > 1 {
		return "both modes"
	}
	return string(runs[0].mode) + " drain"
}

// asShown is an entry as the outcome table shows it: its final status and RetryCount.
func asShown(run *driveRun, key string) string {
	e := run.entry(key)
	return fmt.Sprintf("%s %s, RetryCount %d", key, e.Status, e.RetryCount)
}

// allShown is asShown for each key, from the last run (the table's).
func allShown(runs []*driveRun, keys keyList) string {
	shown := make([]string, len(keys))
	for i, k := range keys {
		shown[i] = asShown(runs[len(runs)-1], k)
	}
	return strings.Join(shown, "; ")
}
