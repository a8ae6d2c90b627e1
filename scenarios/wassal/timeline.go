package wassal

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/plot"
	"outboxlab/core/report"
	"outboxlab/core/worker"
)

// TimelineLine renders one worker event in scenario time.
func TimelineLine(e worker.Event) string {
	at := clock.Stamp(e.At)
	if e.Kind == worker.Advanced {
		return fmt.Sprintf("%s  %-8s nothing claimable → clock advances to %s (%s + 1 ms)",
			at, "—", clock.Stamp(e.NextAttempt), e.Detail)
	}
	head := fmt.Sprintf("%s  %-8s attempt %s  ", at, e.Key, attemptOf(e.Attempt, e.MaxAttempts))
	switch e.Kind {
	case worker.Processed:
		return head + e.Detail + " → Processed"
	case worker.DeadLettered:
		return head + "FAILED (" + e.Detail + ") → limit reached → DEAD-LETTERED (LastError recorded)"
	case worker.Refused:
		return head + "transition REFUSED: " + e.Detail
	}
	// Retrying.
	line := head + "FAILED (" + e.Detail + ")"
	if e.MaxAttempts > 0 && e.Attempt >= e.MaxAttempts {
		line += " → limit reached but the dead-letter exit is off"
	}
	if e.Delay == 0 {
		if e.MaxAttempts == 0 {
			return line + " → straight back to Pending (no limit, no backoff)"
		}
		return line + " → back to Pending, claimable at once"
	}
	return line + fmt.Sprintf(" → backoff %s → NextAttempt = %s (not claimable until then)",
		clock.Millis(e.Delay), clock.Stamp(e.NextAttempt))
}

func attemptOf(attempt, maxAttempts int) string {
	if maxAttempts == 0 {
		return strconv.Itoa(attempt) + "/∞"
	}
	return fmt.Sprintf("%d/%d", attempt, maxAttempts)
}

// AttemptPlot draws every message's attempts on the scenario clock's axis.
func AttemptPlot(events []worker.Event, msgs []outbox.Message, start, end time.Time) plot.Figure {
	symbols := map[worker.EventKind]string{worker.Processed: "✓", worker.Retrying: "✗", worker.DeadLettered: "☠", worker.Refused: "!"}
	lanes := make([]plot.Lane, 0, len(msgs))
	for _, m := range msgs {
		lane := plot.Lane{Label: m.Key, Note: fmt.Sprintf("%s after %s", m.Status, report.Plural(m.AttemptCount, "attempt"))}
		for _, e := range events {
			if e.MessageID == m.ID && symbols[e.Kind] != "" {
				lane.Marks = append(lane.Marks, plot.Mark{At: e.At.Sub(start), Symbol: symbols[e.Kind]})
			}
		}
		if n := len(lane.Marks); n > 1 && lane.Marks[0].At == lane.Marks[n-1].At {
			lane.Note += ", all at the same instant"
		}
		lanes = append(lanes, lane)
	}
	return plot.Timeline("attempts", "Attempts on the scenario clock", lanes, end.Sub(start), 60,
		"✓ processed   ✗ failed, back to Pending   ☠ dead-lettered   ! transition refused")
}

// WritePaymentLedger prints the Payments table.
func WritePaymentLedger(r *report.Report, pays []outbox.Payment) {
	rows := make([][]string, 0, len(pays))
	for _, p := range pays {
		rows = append(rows, []string{strconv.FormatInt(p.ID, 10), p.Key, money(p.AmountCents), string(p.Status),
			report.Dash(p.ProviderTransactionID), clock.Stamp(p.CreatedAt), clock.Stamp(p.UpdatedAt)})
	}
	r.Table([]string{"Id", "PaymentKey", "Amount", "Status", "ProviderTransactionId", "CreatedAtUtc", "UpdatedAtUtc"}, rows)
}

// WriteProviderLedger prints every call the provider received.
func WriteProviderLedger(r *report.Report, l Ledger) {
	rows := make([][]string, 0, len(l.Calls))
	for _, c := range l.Calls {
		result := string(c.Outcome)
		if c.Failed() {
			result = "FAILED: " + c.Err
		}
		rows = append(rows, []string{strconv.Itoa(c.Seq), clock.Stamp(c.At), c.Op, c.Key, result, report.Dash(c.TransactionID)})
	}
	r.Table([]string{"#", "At", "Call", "Key", "Result", "TransactionId"}, rows)
}

func money(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

func joinMillis(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = clock.Millis(d)
	}
	return strings.Join(parts, ", ")
}
