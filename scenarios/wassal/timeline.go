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
	"outboxlab/scenarios"
)

// TimelineLine renders one worker event in scenario time.
func TimelineLine(e worker.Event) string {
	at := clock.Stamp(e.At)
	if e.Kind == worker.Advanced {
		return fmt.Sprintf("%s  %-8s nothing claimable until %s → clock advances to %s",
			at, "—", strings.TrimPrefix(e.Detail, "next due "), clock.Stamp(e.NextAttempt))
	}
	head := fmt.Sprintf("%s  %-8s attempt %s  ", at, e.Key, attemptOf(e.Attempt, e.MaxAttempts))
	// The line names the key: the error need not say it again.
	failure := strings.Replace(e.Detail, " for "+e.Key+" failed: ", ": ", 1)
	switch e.Kind {
	case worker.Processed:
		return head + e.Detail + " → Processed"
	case worker.DeadLettered:
		return head + "FAILED (" + failure + ") → limit reached → DEAD-LETTERED (LastError recorded)"
	case worker.Refused:
		return head + "transition REFUSED: " + e.Detail
	}
	// Retrying.
	line := head + "FAILED (" + failure + ")"
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
			lane.Note = fmt.Sprintf("%s, %d attempts at one instant", m.Status, m.AttemptCount)
		}
		lanes = append(lanes, lane)
	}
	return plot.Timeline("attempts", "Attempts on the scenario clock", lanes, start, end.Sub(start), 50,
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

// timelineIndent is where a timeline line's text starts, after the time and
// the key column: a continuation line starts there too.
const timelineIndent = 24

// wrapTimeline breaks a timeline line wider than report.MaxWidth into
// continuation lines indented to its text, at its arrows first ("→ ..."
// starts a continuation line), else at a space.
//
// A line true of one database only (it ends with report.DatabaseMarker)
// keeps the marker on every piece, so compare still skips all of them.
func wrapTimeline(line string) []string {
	if report.Width(line) <= report.MaxWidth {
		return []string{line}
	}
	if body, ok := strings.CutSuffix(line, " "+report.DatabaseMarker); ok {
		pieces := wrapWidth(body, report.MaxWidth-report.Width(report.DatabaseMarker)-1)
		for i := range pieces {
			pieces[i] += " " + report.DatabaseMarker
		}
		return pieces
	}
	return wrapWidth(line, report.MaxWidth)
}

func wrapWidth(line string, width int) []string {
	indent := strings.Repeat(" ", timelineIndent)
	var out []string
	rest := line
	for report.Width(rest) > width {
		cut := breakBefore(rest, width)
		if cut <= timelineIndent {
			break
		}
		out = append(out, strings.TrimRight(rest[:cut], " "))
		rest = indent + strings.TrimLeft(rest[cut:], " ")
	}
	return append(out, rest)
}

// breakBefore is the byte offset at which to break s so that what comes
// before it fits in width columns: the last " → " that fits, else the last
// space; 0 when neither fits.
func breakBefore(s string, width int) int {
	fits := 0
	for i := range s {
		if report.Width(s[:i]) > width {
			break
		}
		fits = i
	}
	if report.Width(s) <= width {
		fits = len(s)
	}
	// The space right after the last rune that fits is a place to break
	// too: a word ending at the last column stays on the line.
	head := s[:min(fits+1, len(s))]
	if i := strings.LastIndex(head, " → "); i > timelineIndent {
		return i + 1
	}
	if i := strings.LastIndex(head, " "); i > timelineIndent {
		return i + 1
	}
	return 0
}

// writeOutboxLedger prints the OutboxMessages table with the columns the
// run's design has, and no others.
func writeOutboxLedger(r *report.Report, msgs []outbox.Message, d outbox.Design) {
	type col struct {
		name string
		cell func(m outbox.Message) string
	}
	cols := []col{
		{"Id", func(m outbox.Message) string { return strconv.FormatInt(m.ID, 10) }},
		{"Key", func(m outbox.Message) string { return m.Key }},
		{"Status", func(m outbox.Message) string { return string(m.Status) }},
		{"AttemptCount", func(m outbox.Message) string { return strconv.Itoa(m.AttemptCount) }},
		{"MaxAttempts", func(m outbox.Message) string { return scenarios.MaxAttemptsText(m.MaxAttempts) }},
		{"NextAttemptUtc", func(m outbox.Message) string { return report.StampOrDash(m.NextAttemptAt) }},
		{"LockedBy", func(m outbox.Message) string { return report.Dash(m.LockedBy) }},
		{"LockedUntilUtc", func(m outbox.Message) string { return report.StampOrDash(m.LockedUntil) }},
		{"ClaimToken", func(m outbox.Message) string { return strconv.FormatInt(m.ClaimToken, 10) }},
		{"ProcessedAtUtc", func(m outbox.Message) string { return report.StampOrDash(m.ProcessedAt) }},
		{"DeadLetteredAtUtc", func(m outbox.Message) string { return report.StampOrDash(m.DeadLetteredAt) }},
	}
	var head []string
	var keep []col
	for _, c := range cols {
		if c.name == "Id" || c.name == "Key" || d.Has(c.name) {
			head, keep = append(head, c.name), append(keep, c)
		}
	}
	rows := make([][]string, 0, len(msgs))
	var errs []string
	for _, m := range msgs {
		row := make([]string, len(keep))
		for i, c := range keep {
			row[i] = c.cell(m)
		}
		rows = append(rows, row)
		if m.LastError != "" {
			errs = append(errs, fmt.Sprintf("LastError of %d (%s): %s", m.ID, m.Key, m.LastError))
		}
	}
	r.Table(head, rows)
	for _, e := range errs {
		r.Line(e)
	}
}

// timelinePlot draws a day's timeline text as a picture: one lane per key,
// a mark at each of its lines on the scenario clock (✓ a commit or a
// completion, ✗ a failure or a kill, ! a refusal, • anything else). It has
// no terminal text: the timeline's lines are already there. ok is false when
// no line names a key.
func timelinePlot(lines []string) (plot.Figure, bool) {
	start, err := time.Parse("15:04:05.000Z", clock.Stamp(clock.Start))
	if err != nil {
		return plot.Figure{}, false
	}
	var lanes []plot.Lane
	index := map[string]int{}
	var end time.Duration
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 3 || f[1] == "—" || !strings.HasPrefix(f[1], "PAY-") {
			continue
		}
		at, err := time.Parse("15:04:05.000Z", f[0])
		if err != nil {
			continue
		}
		symbol := "•"
		switch {
		case strings.Contains(line, "REFUSED"):
			symbol = "!"
		case strings.Contains(line, "FAILED") || strings.Contains(line, "killed"):
			symbol = "✗"
		case strings.Contains(line, "Processed") || strings.Contains(line, "COMMIT"):
			symbol = "✓"
		}
		i, ok := index[f[1]]
		if !ok {
			i = len(lanes)
			index[f[1]] = i
			lanes = append(lanes, plot.Lane{Label: f[1]})
		}
		lanes[i].Marks = append(lanes[i].Marks, plot.Mark{At: at.Sub(start), Symbol: symbol})
		end = max(end, at.Sub(start))
	}
	if len(lanes) == 0 {
		return plot.Figure{}, false
	}
	fig := plot.Timeline("timeline", "What happened to each payment, on the scenario clock", lanes, clock.Start, end, 60,
		"✓ committed or processed   ✗ failed or killed   ! refused   • another step")
	fig.Text = ""
	return fig, true
}
