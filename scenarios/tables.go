package scenarios

import (
	"strconv"
	"strings"

	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// What several families print the same way: the tables a run created and
// the OutboxMessages table of the core store.

// SchemaSection writes the section that shows the tables a run created.
// Its title is marked as describing the database: the DDL is SQLite's on
// SQLite and PostgreSQL's on PostgreSQL, and compare skips it.
func SchemaSection(r *report.Report, tables []dialect.Table) {
	r.Section("Schema " + report.DatabaseMarker)
	WriteSchema(r, tables)
}

// WriteSchema prints the tables a run created, as the database reports them;
// the lab's own LabInfo table is left out.
func WriteSchema(r *report.Report, tables []dialect.Table) {
	for _, t := range tables {
		if strings.EqualFold(t.Name, "LabInfo") { // PostgreSQL folds it to labinfo
			continue
		}
		r.Line(t.SQL + ";")
	}
}

// WriteOutboxLedger prints the OutboxMessages table.
func WriteOutboxLedger(r *report.Report, msgs []outbox.Message) {
	rows := make([][]string, 0, len(msgs))
	for _, m := range msgs {
		rows = append(rows, []string{strconv.FormatInt(m.ID, 10), m.Key, string(m.Status),
			strconv.Itoa(m.AttemptCount), MaxAttemptsText(m.MaxAttempts), report.StampOrDash(m.NextAttemptAt),
			report.Dash(m.LockedBy), report.StampOrDash(m.LockedUntil), strconv.FormatInt(m.ClaimToken, 10),
			report.StampOrDash(m.ProcessedAt), report.StampOrDash(m.DeadLetteredAt), report.Dash(m.LastError)})
	}
	r.Table([]string{"Id", "Key", "Status", "AttemptCount", "MaxAttempts", "NextAttemptUtc", "LockedBy",
		"LockedUntilUtc", "ClaimToken", "ProcessedAtUtc", "DeadLetteredAtUtc", "LastError"}, rows)
}

// MaxAttemptsText is a message's attempt limit as the ledgers print it:
// "none" for no limit.
func MaxAttemptsText(n int) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(n)
}
