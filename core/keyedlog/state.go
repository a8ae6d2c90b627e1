package keyedlog

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
)

// Partition is the consumer's state in one partition.
type Partition struct {
	Partition    int
	NextOffset   int64
	HeadAttempts int       // attempts of the record at NextOffset, counted at each claim
	NextAttempt  time.Time // the head record is not due before this (zero: due)
	LastError    string
	Paused       time.Time // zero unless the partition is paused
	Waiting      int       // records at or after NextOffset
	Owner        string    // the consumer holding a claim on it ("" when none)
	LeaseUntil   time.Time // the end of that claim's lease
}

// Partitions returns the consumer's state in every partition, in order.
func (s *Store) Partitions(ctx context.Context) ([]Partition, error) {
	out, err := claim.QueryAll(ctx, s.Store, s.DB(), scanPartition,
		`SELECT p.Id, p.NextOffset, p.HeadAttempts, p.NextAttemptUtc, p.LastError, p.PausedAtUtc,
		        (SELECT COUNT(*) FROM LogRecords r WHERE r.Partition = p.Id AND r.Offset >= p.NextOffset),
		        p.ConsumerId, p.LeaseUntilUtc
		   FROM ConsumerPartitions p ORDER BY p.Id`)
	if err != nil {
		return nil, fmt.Errorf("read partitions: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read partitions: the log has no partitions")
	}
	return out, nil
}

func scanPartition(row claim.Scanner) (Partition, error) {
	var p Partition
	var next, lastErr, paused, owner, lease sql.NullString
	if err := row.Scan(&p.Partition, &p.NextOffset, &p.HeadAttempts, &next, &lastErr, &paused, &p.Waiting, &owner, &lease); err != nil {
		return p, err
	}
	p.LastError, p.Owner = lastErr.String, owner.String
	var err error
	for _, t := range []struct {
		dst *time.Time
		src sql.NullString
	}{{&p.NextAttempt, next}, {&p.Paused, paused}, {&p.LeaseUntil, lease}} {
		if *t.dst, err = parseNullTime(t.src); err != nil {
			return p, err
		}
	}
	return p, nil
}

// Waiting returns the records the consumer has not reached yet, partition by
// partition in offset order: the ones a paused partition holds back.
func (s *Store) Waiting(ctx context.Context) ([]Record, error) {
	out, err := claim.QueryAll(ctx, s.Store, s.DB(), scanRecord, `SELECT `+recordColumns+`
		   FROM LogRecords r JOIN ConsumerPartitions p ON p.Id = r.Partition
		  WHERE r.Offset >= p.NextOffset ORDER BY r.Partition, r.Offset`)
	if err != nil {
		return nil, fmt.Errorf("list waiting records: %w", err)
	}
	return out, nil
}

// Application is one row of AppliedMessages.
type Application struct {
	MessageID     string
	CorrelationID string
	Sequence      int
	LogRecordID   int64
	Via           string
	At            time.Time
}

// Applications returns what the consumer applied, in the order it applied it.
func (s *Store) Applications(ctx context.Context) ([]Application, error) {
	out, err := claim.QueryAll(ctx, s.Store, s.DB(), func(row claim.Scanner) (Application, error) {
		var a Application
		var at string
		if err := row.Scan(&a.MessageID, &a.CorrelationID, &a.Sequence, &a.LogRecordID, &a.Via, &at); err != nil {
			return a, err
		}
		var err error
		a.At, err = parseTime(at)
		return a, err
	}, `SELECT MessageId, CorrelationId, Sequence, LogRecordId, Via, AppliedAtUtc FROM AppliedMessages ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("list applied messages: %w", err)
	}
	return out, nil
}

// recordAppliedTx notes rec as applied. A record applied again (a consumer
// that is not idempotent) keeps its first row.
func (s *Store) recordAppliedTx(ctx context.Context, tx *sql.Tx, rec Record, via string, at time.Time) error {
	_, err := s.Exec(ctx, tx,
		`INSERT INTO AppliedMessages (MessageId, CorrelationId, Sequence, LogRecordId, Via, AppliedAtUtc)
		 VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		rec.MessageID, rec.CorrelationID, rec.Sequence, rec.ID, via, clock.ISO(at))
	if err != nil {
		return fmt.Errorf("record %s as applied: %w", rec.MessageID, err)
	}
	return nil
}

func (s *Store) isApplied(ctx context.Context, tx *sql.Tx, messageID string) (bool, error) {
	var n int
	err := s.QueryRow(ctx, tx, `SELECT COUNT(*) FROM AppliedMessages WHERE MessageId = ?`, messageID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up applied message %s: %w", messageID, err)
	}
	return n > 0, nil
}

func (s *Store) isSequenceApplied(ctx context.Context, tx *sql.Tx, correlationID string, seq int) (bool, error) {
	var n int
	err := s.QueryRow(ctx, tx,
		`SELECT COUNT(*) FROM AppliedMessages WHERE CorrelationId = ? AND Sequence = ?`, correlationID, seq).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up sequence %d of %s: %w", seq, correlationID, err)
	}
	return n > 0, nil
}
