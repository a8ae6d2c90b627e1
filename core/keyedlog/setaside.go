package keyedlog

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
)

// The queues a record can be set aside in.
const (
	QueueDeadLetter = "dead-letter"
	QueueParking    = "parking"
)

// SetAside is one row of DeadLetters or ParkedMessages with its record.
type SetAside struct {
	ID         int64
	Queue      string // QueueDeadLetter or QueueParking
	Record     Record
	Attempts   int    // dead letters: attempts used
	Reason     string // dead letters: the last error; parked: why it was held back
	At         time.Time
	RedrivenAt time.Time // dead letters: copied to the end of the log (zero: never)
	ReplayedAt time.Time // replayed by correlation id (zero: never)
}

func (s *Store) deadLetterTx(ctx context.Context, tx *sql.Tx, rec Record, attempts int, lastErr string, at time.Time) error {
	_, err := s.Exec(ctx, tx,
		`INSERT INTO DeadLetters (LogRecordId, Attempts, LastError, DeadLetteredAtUtc) VALUES (?, ?, ?, ?)`,
		rec.ID, attempts, lastErr, clock.ISO(at))
	if err != nil {
		return fmt.Errorf("dead-letter %s: %w", rec.Place(), err)
	}
	return nil
}

func (s *Store) parkTx(ctx context.Context, tx *sql.Tx, rec Record, reason string, at time.Time) error {
	_, err := s.Exec(ctx, tx,
		`INSERT INTO ParkedMessages (LogRecordId, Reason, ParkedAtUtc) VALUES (?, ?, ?)`, rec.ID, reason, clock.ISO(at))
	if err != nil {
		return fmt.Errorf("park %s: %w", rec.Place(), err)
	}
	return nil
}

// DeadLetters returns the dead-letter queue in the order records entered it.
func (s *Store) DeadLetters(ctx context.Context) ([]SetAside, error) {
	return s.listSetAside(ctx, s.DB(), QueueDeadLetter, "")
}

// Parked returns the parking queue in the order records entered it.
func (s *Store) Parked(ctx context.Context) ([]SetAside, error) {
	return s.listSetAside(ctx, s.DB(), QueueParking, "")
}

// listSetAside lists one queue, for one correlation id or (when empty) for all.
func (s *Store) listSetAside(ctx context.Context, q claim.Querier, queue, correlationID string) ([]SetAside, error) {
	query := `SELECT ` + recordColumns + `, d.Id, d.Attempts, d.LastError, d.DeadLetteredAtUtc, d.RedrivenAtUtc, d.ReplayedAtUtc
		   FROM DeadLetters d JOIN LogRecords r ON r.Id = d.LogRecordId`
	if queue == QueueParking {
		query = `SELECT ` + recordColumns + `, d.Id, 0, d.Reason, d.ParkedAtUtc, NULL, d.ReplayedAtUtc
		   FROM ParkedMessages d JOIN LogRecords r ON r.Id = d.LogRecordId`
	}
	var args []any
	if correlationID != "" {
		query += ` WHERE r.CorrelationId = ?`
		args = append(args, correlationID)
	}
	out, err := claim.QueryAll(ctx, s.Store, q, func(row claim.Scanner) (SetAside, error) {
		a := SetAside{Queue: queue}
		var at string
		var redriven, replayed sql.NullString
		var err error
		a.Record, err = scanRecordWith(row, &a.ID, &a.Attempts, &a.Reason, &at, &redriven, &replayed)
		if err != nil {
			return a, err
		}
		for _, f := range []struct {
			dst *time.Time
			src sql.NullString
		}{{&a.At, sql.NullString{String: at, Valid: true}}, {&a.RedrivenAt, redriven}, {&a.ReplayedAt, replayed}} {
			if *f.dst, err = parseNullTime(f.src); err != nil {
				return a, err
			}
		}
		return a, nil
	}, query+` ORDER BY d.Id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s queue: %w", queue, err)
	}
	return out, nil
}

// The scopes of a hold.
const (
	ScopeCorrelation = "correlation"
	ScopeKey         = "key"
	ScopePartition   = "partition"
)

// Hold is one row of Holds: something the consumer holds back.
type Hold struct {
	ID          int64
	Scope       string
	Value       string
	LogRecordID int64 // the record whose failure started the hold
	Reason      string
	HeldAt      time.Time
	ReleasedAt  time.Time // zero while the hold is live
}

func (s *Store) holdTx(ctx context.Context, tx *sql.Tx, scope, value string, rec Record, reason string, at time.Time) error {
	if _, live, err := s.liveHoldTx(ctx, tx, scope, value); err != nil || live {
		return err
	}
	_, err := s.Exec(ctx, tx,
		`INSERT INTO Holds (Scope, Value, LogRecordId, Reason, HeldAtUtc) VALUES (?, ?, ?, ?, ?)`,
		scope, value, rec.ID, reason, clock.ISO(at))
	if err != nil {
		return fmt.Errorf("hold %s %s: %w", scope, value, err)
	}
	return nil
}

func (s *Store) liveHoldTx(ctx context.Context, tx *sql.Tx, scope, value string) (Hold, bool, error) {
	holds, err := s.listHolds(ctx, tx, `WHERE Scope = ? AND Value = ? AND ReleasedAtUtc IS NULL`, scope, value)
	if err != nil || len(holds) == 0 {
		return Hold{}, false, err
	}
	return holds[0], true, nil
}

func (s *Store) releaseTx(ctx context.Context, tx *sql.Tx, scope, value string, at time.Time) (bool, error) {
	res, err := s.Exec(ctx, tx,
		`UPDATE Holds SET ReleasedAtUtc = ? WHERE Scope = ? AND Value = ? AND ReleasedAtUtc IS NULL`, clock.ISO(at), scope, value)
	if err != nil {
		return false, fmt.Errorf("release %s %s: %w", scope, value, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Holds returns every hold, live or released, in the order they were made.
func (s *Store) Holds(ctx context.Context) ([]Hold, error) {
	return s.listHolds(ctx, s.DB(), "")
}

func (s *Store) listHolds(ctx context.Context, q claim.Querier, where string, args ...any) ([]Hold, error) {
	out, err := claim.QueryAll(ctx, s.Store, q, func(row claim.Scanner) (Hold, error) {
		var h Hold
		var held string
		var released sql.NullString
		if err := row.Scan(&h.ID, &h.Scope, &h.Value, &h.LogRecordID, &h.Reason, &held, &released); err != nil {
			return h, err
		}
		var err error
		if h.HeldAt, err = parseTime(held); err != nil {
			return h, err
		}
		h.ReleasedAt, err = parseNullTime(released)
		return h, err
	}, `SELECT Id, Scope, Value, LogRecordId, Reason, HeldAtUtc, ReleasedAtUtc FROM Holds `+where+` ORDER BY Id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list holds: %w", err)
	}
	return out, nil
}
