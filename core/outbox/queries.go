package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/dialect"
)

// Messages returns every outbox row in creation order (none when the design
// has no outbox); a column the design lacks reads as its zero value.
func (s *Store) Messages(ctx context.Context) ([]Message, error) {
	if !s.design.outbox {
		return nil, nil
	}
	rows, err := s.Query(ctx, s.DB(), `SELECT `+s.design.cols("Id", "MessageKey", "Type", "Payload", "Status",
		"AttemptCount", "MaxAttempts", "NextAttemptUtc", "LastError", "LockedBy", "LockedUntilUtc", "ClaimToken",
		"CreatedAtUtc", "ProcessedAtUtc", "DeadLetteredAtUtc")+` FROM OutboxMessages ORDER BY CreatedAtUtc, Id`)
	if err != nil {
		return nil, fmt.Errorf("list outbox messages: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("list outbox messages: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func scanMessage(rows *sql.Rows) (Message, error) {
	var (
		m                                    Message
		maxAttempts                          sql.NullInt64
		next, lastErr, lockedBy, lockedUntil sql.NullString
		created, processed, deadLettered     sql.NullString
	)
	err := rows.Scan(&m.ID, &m.Key, &m.Type, &m.Payload, &m.Status, &m.AttemptCount, &maxAttempts, &next,
		&lastErr, &lockedBy, &lockedUntil, &m.ClaimToken, &created, &processed, &deadLettered)
	if err != nil {
		return m, err
	}
	m.MaxAttempts = int(maxAttempts.Int64)
	m.LastError = lastErr.String
	m.LockedBy = lockedBy.String
	for _, f := range []struct {
		dst *time.Time
		src sql.NullString
	}{
		{(&m.NextAttemptAt), next},
		{(&m.LockedUntil), lockedUntil},
		{(&m.CreatedAt), created},
		{(&m.ProcessedAt), processed},
		{(&m.DeadLetteredAt), deadLettered},
	} {
		t, err := dialect.ParseNullTime(f.src)
		if err != nil {
			return m, err
		}
		*f.dst = t
	}
	return m, nil
}

// Counts returns how many outbox rows are in each status (absent statuses are 0).
func (s *Store) Counts(ctx context.Context) (map[Status]int, error) {
	if !s.design.outbox {
		return map[Status]int{Pending: 0, Processing: 0, Processed: 0, DeadLettered: 0}, nil
	}
	rows, err := s.Query(ctx, s.DB(), `SELECT Status, COUNT(*) FROM OutboxMessages GROUP BY Status`)
	if err != nil {
		return nil, fmt.Errorf("count outbox messages: %w", err)
	}
	defer rows.Close()
	out := map[Status]int{Pending: 0, Processing: 0, Processed: 0, DeadLettered: 0}
	for rows.Next() {
		var st Status
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("count outbox messages: %w", err)
		}
		out[st] = n
	}
	return out, rows.Err()
}

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	ID        int64
	At        string
	Actor     string
	Action    string
	MessageID int64
	Detail    string
}

// Audit returns the audit log in order; nothing when the design has none.
func (s *Store) Audit(ctx context.Context) ([]AuditEntry, error) {
	if !s.design.audit {
		return nil, nil
	}
	rows, err := s.Query(ctx, s.DB(),
		`SELECT Id, AtUtc, Actor, Action, COALESCE(MessageId, 0), Detail FROM AuditLog ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		if err := rows.Scan(&e.ID, &e.At, &e.Actor, &e.Action, &e.MessageID, &e.Detail); err != nil {
			return nil, fmt.Errorf("read audit log: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
