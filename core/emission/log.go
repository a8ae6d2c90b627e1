package emission

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/sqlitedb"
)

// LogEntry is one row of the transition log: a transition a drain tried to
// persist, and whether it was applied or refused.
type LogEntry struct {
	ID         int64
	At         time.Time
	EntryID    int64
	Actor      string
	ClaimToken int64 // 0: written by Id alone
	From       Status
	To         Status
	RetryCount int
	ReasonCode string
	Applied    bool
}

func logTransitionTx(ctx context.Context, tx *sql.Tx, id int64, actor string, token int64, from Status, t Transition, outcome string) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO GovernanceOutboxTransitions (AtUtc, EntryId, Actor, ClaimToken, FromStatus, ToStatus, RetryCount, ReasonCode, Outcome)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		clock.ISO(t.At), id, actor, token, string(from), string(t.To), t.RetryCount, sqlitedb.NullString(t.ReasonCode), outcome)
	if err != nil {
		return fmt.Errorf("log transition of governance entry %d: %w", id, err)
	}
	return nil
}

// Transitions returns the transition log in order.
func (s *Store) Transitions(ctx context.Context) ([]LogEntry, error) {
	rows, err := s.DB().QueryContext(ctx,
		`SELECT Id, AtUtc, EntryId, Actor, ClaimToken, FromStatus, ToStatus, RetryCount, COALESCE(ReasonCode, ''), Outcome
		   FROM GovernanceOutboxTransitions ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("read transition log: %w", err)
	}
	defer rows.Close()
	var out []LogEntry
	for rows.Next() {
		var (
			l       LogEntry
			at, how string
		)
		if err := rows.Scan(&l.ID, &at, &l.EntryID, &l.Actor, &l.ClaimToken, &l.From, &l.To, &l.RetryCount, &l.ReasonCode, &how); err != nil {
			return nil, fmt.Errorf("read transition log: %w", err)
		}
		if l.At, err = time.Parse(clock.ISOLayout, at); err != nil {
			return nil, fmt.Errorf("read transition log: %w", err)
		}
		l.Applied = how == "applied"
		out = append(out, l)
	}
	return out, rows.Err()
}

// RefusedTransitions counts the refusals the transition log holds: durable,
// whichever Store handle refused them.
func (s *Store) RefusedTransitions(ctx context.Context) (int, error) {
	var n int
	err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM GovernanceOutboxTransitions WHERE Outcome = 'refused'`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count refused transitions: %w", err)
	}
	return n, nil
}
