package emission

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// outcome is what became of a transition a drain tried to persist: the
// log's Outcome column.
type outcome string

const (
	applied outcome = "applied"
	refused outcome = "refused" // the writer no longer owned the claim
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

func (s *Store) logTransitionTx(ctx context.Context, tx *sql.Tx, id int64, actor string, token int64, from Status, t Transition, o outcome) error {
	_, err := s.Exec(ctx, tx,
		`INSERT INTO GovernanceOutboxTransitions (AtUtc, EntryId, Actor, ClaimToken, FromStatus, ToStatus, RetryCount, ReasonCode, Outcome)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		clock.ISO(t.At), id, actor, token, string(from), string(t.To), t.RetryCount, dialect.NullString(t.ReasonCode), string(o))
	if err != nil {
		return fmt.Errorf("log transition of governance entry %d: %w", id, err)
	}
	return nil
}

// Transitions returns the transition log in order.
func (s *Store) Transitions(ctx context.Context) ([]LogEntry, error) {
	return queryAll(ctx, s, s.DB(), "read transition log", scanLogEntry,
		`SELECT Id, AtUtc, EntryId, Actor, ClaimToken, FromStatus, ToStatus, RetryCount, COALESCE(ReasonCode, ''), Outcome
		   FROM GovernanceOutboxTransitions ORDER BY Id`)
}

func scanLogEntry(sc scanner) (LogEntry, error) {
	var (
		l   LogEntry
		at  string
		how outcome
	)
	if err := sc.Scan(&l.ID, &at, &l.EntryID, &l.Actor, &l.ClaimToken, &l.From, &l.To, &l.RetryCount, &l.ReasonCode, &how); err != nil {
		return l, err
	}
	var err error
	if l.At, err = time.Parse(clock.ISOLayout, at); err != nil {
		return l, err
	}
	l.Applied = how == applied
	return l, nil
}

// RefusedTransitions counts the refusals the transition log holds: durable,
// whichever Store handle refused them.
func (s *Store) RefusedTransitions(ctx context.Context) (int, error) {
	var n int
	err := s.QueryRow(ctx, s.DB(), `SELECT COUNT(*) FROM GovernanceOutboxTransitions WHERE Outcome = ?`, string(refused)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count refused transitions: %w", err)
	}
	return n, nil
}
