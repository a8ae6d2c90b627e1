package retry

import (
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// writeSchema prints the tables a run created, as SQLite reports them.
func writeSchema(r *report.Report, tables []outbox.Table) {
	for _, t := range tables {
		if t.Name == "LabInfo" {
			continue
		}
		r.Line(t.SQL + ";")
	}
}

// writeOutboxLedger prints the OutboxMessages rows a run left behind.
func writeOutboxLedger(r *report.Report, msgs []outbox.Message) {
	rows := make([][]string, 0, len(msgs))
	for _, m := range msgs {
		rows = append(rows, []string{strconv.FormatInt(m.ID, 10), m.Key, string(m.Status),
			strconv.Itoa(m.AttemptCount), maxAttemptsText(m.MaxAttempts), stampOrDash(m.NextAttemptAt),
			dash(m.LockedBy), stampOrDash(m.LockedUntil), strconv.FormatInt(m.ClaimToken, 10),
			stampOrDash(m.ProcessedAt), stampOrDash(m.DeadLetteredAt), dash(m.LastError)})
	}
	r.Table([]string{"Id", "Key", "Status", "AttemptCount", "MaxAttempts", "NextAttemptUtc", "LockedBy",
		"LockedUntilUtc", "ClaimToken", "ProcessedAtUtc", "DeadLetteredAtUtc", "LastError"}, rows)
}

func maxAttemptsText(n int) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(n)
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func stampOrDash(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return clock.Stamp(t)
}
