package governance

import (
	"fmt"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

// writeStart ends a report's setup with when scenario time started.
func writeStart(r *report.Report, started time.Time) {
	r.Linef("Clock     scenario time starts %s; nothing sleeps", clock.ISO(started))
}

// writeTimeline writes a timeline section: its title, then the run's lines.
func writeTimeline(r *report.Report, title string, lines []string) {
	r.Section(title)
	for _, l := range lines {
		r.Line(l)
	}
}

// timelineLine renders one drain event in scenario time.
func timelineLine(ev emission.Event, maxAttempts int) string {
	at := clock.DayStamp(ev.At)
	who := string(ev.Mode)
	if ev.Kind == emission.Advanced {
		return fmt.Sprintf("%s  %-5s —        nothing due → clock advances to %s (next due %s + 1 ms)",
			at, who, clock.DayStamp(ev.Due.Add(wakeupSlack)), clock.DayStamp(ev.Due))
	}
	head := fmt.Sprintf("%s  %-5s %s  ", at, who, ev.Entry.Key)
	if ev.Mode == emission.ClaimMode {
		head += fmt.Sprintf("[token %d] ", ev.Token)
	}
	line := head + "emit → " + resultText(ev) + " → " + transitionText(ev.Transition, ev.Mode, maxAttempts)
	if ev.Kind == emission.Refused {
		line += " → write REFUSED (claim lost)"
	}
	return line
}

// resultText says what the emitter did.
func resultText(ev emission.Event) string {
	r := ev.Result
	switch {
	case ev.Unexpected == emission.UnexpectedPanic:
		return "PANIC (treated as failed: " + r.Code + ")"
	case ev.Unexpected == emission.UnexpectedError:
		return "ERROR (treated as failed: " + r.Code + ")"
	case r.Kind == emission.ResultPending || r.Kind == emission.ResultDeferred:
		return fmt.Sprintf("%s (retry after %s)", r.Kind, clock.Millis(r.RetryAfter))
	case r.Kind == emission.ResultDeadLetter:
		return "provider dead-letter (" + r.Code + ")"
	case r.Code != "":
		return string(r.Kind) + " (" + r.Code + ")"
	}
	return string(r.Kind)
}

// transitionText says what the policy decided and the drain persisted.
func transitionText(t emission.Transition, mode emission.Mode, maxAttempts int) string {
	cleared := ""
	if mode == emission.ClaimMode {
		cleared = ", claim cleared"
	}
	switch {
	case t.To == emission.Delivered:
		return "Delivered"
	case t.To == emission.Deferred:
		return fmt.Sprintf("Deferred, RetryCount stays %d/%d, next check %s", t.RetryCount, maxAttempts, clock.DayStamp(t.NextRetryAt))
	case t.To == emission.DeadLettered && t.Threshold:
		return fmt.Sprintf("failed attempt %d/%d reaches MaxRetryAttempts → DEAD-LETTERED %s, no next retry%s",
			t.RetryCount, maxAttempts, t.ReasonCode, cleared)
	case t.To == emission.DeadLettered:
		return fmt.Sprintf("DEAD-LETTERED at once (the provider's terminal result), RetryCount %d/%d%s", t.RetryCount, maxAttempts, cleared)
	case t.PastThreshold && t.RetryCount == maxAttempts:
		return fmt.Sprintf("failed attempt %d/%d reaches MaxRetryAttempts, but DeadLetterOnMaxRetryAttempts is false → Failed, next retry %s (+%s)",
			t.RetryCount, maxAttempts, clock.DayStamp(t.NextRetryAt), clock.Millis(t.Delay))
	case t.PastThreshold:
		return fmt.Sprintf("failed attempt %d/%d, past the threshold → Failed, next retry %s (+%s)",
			t.RetryCount, maxAttempts, clock.DayStamp(t.NextRetryAt), clock.Millis(t.Delay))
	}
	return fmt.Sprintf("failed attempt %d/%d < %d → Failed, next retry %s (+%s)",
		t.RetryCount, maxAttempts, maxAttempts, clock.DayStamp(t.NextRetryAt), clock.Millis(t.Delay))
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
		rows = append(rows, []string{strconv.FormatInt(l.ID, 10), clock.DayStamp(l.At), keys[l.EntryID], l.Actor,
			strconv.FormatInt(l.ClaimToken, 10), string(l.From), string(l.To), strconv.Itoa(l.RetryCount), report.Dash(l.ReasonCode), outcome})
	}
	r.Table([]string{"#", "AtUtc", "Entry", "Actor", "ClaimToken", "From", "To", "RetryCount", "ReasonCode", "Outcome"}, rows)
}

// writeAlerts prints the host's alert lines and dead-letter counters.
func writeAlerts(r *report.Report, a *emission.Alerts) {
	lines := a.Lines()
	if len(lines) == 0 {
		r.Line("(no alert or warning was raised)")
	}
	for _, l := range lines {
		r.Line(l.String())
	}
	r.Line("")
	writeCounters(r, a)
}

// writeCounters prints the dead-letter counters, overall and per reason code and provider.
func writeCounters(r *report.Report, a *emission.Alerts) {
	rows := [][]string{{"governance_outbox_dead_lettered_total", "(all)", "(all)", strconv.Itoa(a.DeadLettered())}}
	for _, c := range a.ByReason() {
		rows = append(rows, []string{"governance_outbox_dead_lettered_total", c.ReasonCode, c.Provider, strconv.Itoa(c.Count)})
	}
	r.Table([]string{"Counter", "reason_code", "provider", "Value"}, rows)
}

// calls says "1 call", "5 calls".
func calls(n int) string { return report.Plural(n, "call") }

// stampOrDash is clock.DayStamp, or report.Empty for the zero time.
func stampOrDash(t time.Time) string {
	if t.IsZero() {
		return report.Empty
	}
	return clock.DayStamp(t)
}
