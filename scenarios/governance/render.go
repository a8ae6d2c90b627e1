package governance

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

// writeStart ends a report's setup with when scenario time started.
func writeStart(r *report.Report, started time.Time) {
	r.Linef("Clock     scenario time starts %s; nothing sleeps", clock.ISO(started))
}

// writeTimeline writes a timeline section: its title, the run's lines, then
// the legend's.
func writeTimeline(r *report.Report, title string, lines []string, legend ...string) {
	r.Section(title)
	for _, l := range lines {
		r.Line(l)
	}
	for _, l := range legend {
		r.Line(l)
	}
}

// timelineLine renders one drain event in scenario time, in at most 100
// columns with the default flags: when, which entry, what the emitter said,
// what was persisted. The drain is named by the timeline's title, the
// fencing token by the tables (a claim-drain write always carries its claim
// and clears it).
func timelineLine(ev emission.Event, maxAttempts int) string {
	at := clock.DayStamp(ev.At)
	if ev.Kind == emission.Advanced {
		return fmt.Sprintf("%s  —        nothing due → clock to %s (next due %s + 1 ms)",
			at, clock.DayStamp(ev.Due.Add(wakeupSlack)), clock.DayStamp(ev.Due))
	}
	line := fmt.Sprintf("%s  %-8s %s → %s", at, ev.Entry.Key, resultText(ev), transitionText(ev.Transition, maxAttempts))
	if ev.Kind == emission.Refused {
		line += " → write REFUSED (claim lost)"
	}
	return line
}

// timelineLegend says once what the timeline lines abbreviate; unexpected
// adds what ERROR and PANIC were recorded as, for a run that had them, and
// movesLeftOut that the clock's moves between passes are not shown.
func timelineLegend(maxAttempts int, unexpected, movesLeftOut bool) []string {
	out := []string{fmt.Sprintf("(n/%d = failed attempt n of MaxRetryAttempts; each claim-drain write is fenced by its claim)",
		maxAttempts)}
	if unexpected {
		out = append(out, fmt.Sprintf("(ERROR, PANIC: unexpected emitter failures, recorded as %s, %s)",
			emission.CodeUnexpectedError, emission.CodePanic))
	}
	if movesLeftOut {
		out = append(out, "(between passes the clock moves to 1 ms past the next retry; --verbose shows each move)")
	}
	return out
}

// hadUnexpected reports whether any event was an emitter error or panic.
func hadUnexpected(events []emission.Event) bool {
	for _, ev := range events {
		if ev.Unexpected != emission.Expected {
			return true
		}
	}
	return false
}

// resultText says what the emitter did.
func resultText(ev emission.Event) string {
	r := ev.Result
	switch {
	case ev.Unexpected == emission.UnexpectedPanic:
		return "PANIC"
	case ev.Unexpected == emission.UnexpectedError:
		return "ERROR"
	case r.Kind == emission.ResultPending || r.Kind == emission.ResultDeferred:
		return fmt.Sprintf("%s (+%s)", r.Kind, clock.Millis(r.RetryAfter))
	case r.Kind == emission.ResultRetryableFailure:
		return "retryable (" + r.Code + ")"
	case r.Code != "":
		return string(r.Kind) + " (" + r.Code + ")"
	}
	return string(r.Kind)
}

// transitionText says what the policy decided and the drain persisted.
func transitionText(t emission.Transition, maxAttempts int) string {
	switch {
	case t.To == emission.Delivered:
		return "Delivered"
	case t.To == emission.Deferred:
		return fmt.Sprintf("Deferred, RetryCount stays %d/%d, due %s", t.RetryCount, maxAttempts, clock.DayStamp(t.NextRetryAt))
	case t.To == emission.DeadLettered && t.Threshold:
		return fmt.Sprintf("%d/%d reaches the threshold → DEAD-LETTERED", t.RetryCount, maxAttempts)
	case t.To == emission.DeadLettered:
		return fmt.Sprintf("DEAD-LETTERED at once (%d/%d)", t.RetryCount, maxAttempts)
	case t.PastThreshold && t.RetryCount == maxAttempts:
		return fmt.Sprintf("%s %d/%d, DL off: kept live (+%s)", t.To, t.RetryCount, maxAttempts, clock.Millis(t.Delay))
	case t.PastThreshold:
		return fmt.Sprintf("%s %d/%d, past the threshold (+%s)", t.To, t.RetryCount, maxAttempts, clock.Millis(t.Delay))
	}
	return fmt.Sprintf("%s %d/%d, retry in %s", t.To, t.RetryCount, maxAttempts, clock.Millis(t.Delay))
}

// writeEntryLedger prints the GovernanceOutboxEntries table. The payload is
// never printed: only its size.
func writeEntryLedger(r *report.Report, entries []emission.Entry) {
	rows := make([][]string, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, []string{strconv.FormatInt(e.ID, 10), e.Key, string(e.Status), strconv.Itoa(e.RetryCount),
			strconv.Itoa(e.MaxRetryCount), stampOrDash(e.NextRetryAt), report.Dash(e.ClaimOwner), stampOrDash(e.ClaimLeaseUntil),
			strconv.FormatInt(e.ClaimToken, 10), report.Dash(e.LastErrorCode), report.Dash(e.ReasonCode),
			stampOrDash(e.DeliveredAt), stampOrDash(e.DeadLetteredAt), fmt.Sprintf("%d B", len(e.Payload))})
	}
	r.Table([]string{"Id", "Key", "Status", "RetryCount", "MaxRetryCount", "NextRetryAtUtc", "ClaimOwner",
		"ClaimLeaseUntilUtc", "ClaimToken", "LastErrorCode", "ReasonCode", "DeliveredAtUtc", "DeadLetteredAtUtc", "Payload"}, rows)
}

// writeTransitionLog prints the GovernanceOutboxTransitions table.
func writeTransitionLog(r *report.Report, log []emission.LogEntry, entries []emission.Entry) {
	keys := map[int64]string{}
	for _, e := range entries {
		keys[e.ID] = e.Key
	}
	rows := make([][]string, 0, len(log))
	for _, l := range log {
		outcome := "applied"
		if !l.Applied {
			outcome = "REFUSED"
		}
		rows = append(rows, []string{clock.DayStamp(l.At), keys[l.EntryID], l.Actor,
			strconv.FormatInt(l.ClaimToken, 10), string(l.From), string(l.To), strconv.Itoa(l.RetryCount), outcome})
	}
	r.Table([]string{"AtUtc", "Entry", "Actor", "Token", "From", "To", "RetryCount", "Outcome"}, rows)
}

// writeAlerts prints the host's alert lines, each wrapped at its fields to
// fit the terminal, and the dead-letter counters.
func writeAlerts(r *report.Report, a *emission.Alerts) {
	lines := a.Lines()
	if len(lines) == 0 {
		r.Line("(no alert or warning was raised)")
	}
	for _, l := range lines {
		r.Line(wrapFields(l.String(), alertIndent))
	}
	r.Line("")
	writeCounters(r, a)
}

// alertIndent starts the continuation of an alert line, under its name.
const alertIndent = "                     "

// wrapFields breaks a line of space-separated fields wider than
// report.MaxWidth into lines that start with indent; a field is never cut.
func wrapFields(line, indent string) string {
	if report.Width(line) <= report.MaxWidth {
		return line
	}
	var out []string
	cur := ""
	for _, f := range strings.SplitAfter(line, " ") {
		if f == " " && cur != "" && !strings.HasSuffix(cur, " ") {
			cur += f
			continue
		}
		if cur != "" && strings.TrimSpace(cur) != "" && report.Width(strings.TrimRight(cur+f, " ")) > report.MaxWidth {
			out = append(out, strings.TrimRight(cur, " "))
			cur = indent
		}
		cur += f
	}
	return strings.Join(append(out, strings.TrimRight(cur, " ")), "\n")
}

// writeAlertSummary says in one line what the host raised, and the counter.
func writeAlertSummary(r *report.Report, a *emission.Alerts) {
	count := map[string]int{}
	for _, l := range a.Lines() {
		count[l.Name]++
	}
	r.Linef("dead-letter events %d, repeat alerts %d, warnings near the threshold %d, past it with DL off %d",
		count[emission.AlertDeadLettered], count[emission.AlertDeadLetterRepeat], count[emission.AlertThresholdNear],
		count[emission.AlertThresholdPassed])
	r.Linef("governance_outbox_dead_lettered_total %d (--verbose lists the alerts and the counters)", a.DeadLettered())
}

// writeCounters prints the dead-letter counters, overall and per reason code and provider.
func writeCounters(r *report.Report, a *emission.Alerts) {
	parts := make([]string, 0, len(a.ByReason()))
	for _, c := range a.ByReason() {
		parts = append(parts, fmt.Sprintf("reason_code=%s provider=%s %d", c.ReasonCode, c.Provider, c.Count))
	}
	r.Line(wrapFields(fmt.Sprintf("Counter governance_outbox_dead_lettered_total %d; by reason and provider: %s", a.DeadLettered(),
		orNone(strings.Join(parts, ", "), "none")), "        "))
}

// stampOrDash is clock.DayStamp, or report.Empty for the zero time.
func stampOrDash(t time.Time) string {
	if t.IsZero() {
		return report.Empty
	}
	return clock.DayStamp(t)
}
