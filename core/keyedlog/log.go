package keyedlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
)

// NewRecord is what a producer appends to the log.
type NewRecord struct {
	Partition     int
	MessageID     string // the producer's id: a redelivery or a redriven copy keeps it
	Key           string // the partitioning key: one entity, one lane
	CorrelationID string
	Type          string
	Sequence      int // 1, 2, 3... within the correlation id
	DependsOn     int // the sequence this record needs applied first; 0: none
	Payload       string
}

// Record is one record of the log as stored.
type Record struct {
	ID            int64
	Partition     int
	Offset        int64
	MessageID     string
	Key           string
	CorrelationID string
	Type          string
	Sequence      int
	DependsOn     int
	Payload       string
	ProducedAt    time.Time
	RedriveOf     int64 // the original record of a redriven copy; 0 otherwise
}

// Place is where a record sits in the log: p0:4 is partition 0, offset 4.
func (r Record) Place() string { return fmt.Sprintf("p%d:%d", r.Partition, r.Offset) }

// CreatePartitions gives the consumer a position (offset 0) in partitions
// 0..n-1. Partitions that already exist are left as they are.
func (s *Store) CreatePartitions(ctx context.Context, n int) error {
	if n < 1 {
		return fmt.Errorf("create partitions: need at least 1, got %d", n)
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		for p := range n {
			if _, err := s.Exec(ctx, tx,
				`INSERT INTO ConsumerPartitions (Id) VALUES (?) ON CONFLICT (Id) DO NOTHING`, p); err != nil {
				return fmt.Errorf("create partition %d: %w", p, err)
			}
		}
		return nil
	})
}

// Append writes r at the end of its partition.
func (s *Store) Append(ctx context.Context, r NewRecord, at time.Time) (Record, error) {
	var out Record
	err := s.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.AppendTx(ctx, tx, r, at, 0)
		return err
	})
	return out, err
}

// AppendTx writes r at the end of its partition inside tx. redriveOf names
// the record r copies (0 for a new message).
func (s *Store) AppendTx(ctx context.Context, tx *sql.Tx, r NewRecord, at time.Time, redriveOf int64) (Record, error) {
	var exists int
	if err := s.QueryRow(ctx, tx, `SELECT COUNT(*) FROM ConsumerPartitions WHERE Id = ?`, r.Partition).Scan(&exists); err != nil {
		return Record{}, fmt.Errorf("append %s: %w", r.MessageID, err)
	}
	if exists == 0 {
		return Record{}, fmt.Errorf("append %s: partition %d does not exist", r.MessageID, r.Partition)
	}
	var offset int64
	if err := s.QueryRow(ctx, tx,
		`SELECT COALESCE(MAX(r.Offset) + 1, 0) FROM LogRecords r WHERE r.Partition = ?`, r.Partition).Scan(&offset); err != nil {
		return Record{}, fmt.Errorf("append %s: %w", r.MessageID, err)
	}
	payload := r.Payload
	if payload == "" {
		payload = "{}"
	}
	var id int64
	err := s.QueryRow(ctx, tx,
		`INSERT INTO LogRecords (Partition, "offset", MessageId, MessageKey, CorrelationId, Type, Sequence, DependsOn, Payload, ProducedAtUtc, RedriveOf)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING Id`,
		r.Partition, offset, r.MessageID, r.Key, r.CorrelationID, r.Type, r.Sequence, nullInt(int64(r.DependsOn)),
		payload, clock.ISO(at), nullInt(redriveOf)).Scan(&id)
	if err != nil {
		return Record{}, fmt.Errorf("append %s: %w", r.MessageID, err)
	}
	return Record{ID: id, Partition: r.Partition, Offset: offset, MessageID: r.MessageID, Key: r.Key,
		CorrelationID: r.CorrelationID, Type: r.Type, Sequence: r.Sequence, DependsOn: r.DependsOn,
		Payload: payload, ProducedAt: at.UTC(), RedriveOf: redriveOf}, nil
}

const recordColumns = `r.Id, r.Partition, r.Offset, r.MessageId, r.MessageKey, r.CorrelationId, r.Type,
	r.Sequence, r.DependsOn, r.Payload, r.ProducedAtUtc, r.RedriveOf`

func scanRecord(row claim.Scanner) (Record, error) { return scanRecordWith(row) }

// scanRecordWith reads recordColumns and then extra.
func scanRecordWith(row claim.Scanner, extra ...any) (Record, error) {
	var (
		r         Record
		dependsOn sql.NullInt64
		redrive   sql.NullInt64
		produced  string
	)
	dest := append([]any{&r.ID, &r.Partition, &r.Offset, &r.MessageID, &r.Key, &r.CorrelationID, &r.Type,
		&r.Sequence, &dependsOn, &r.Payload, &produced, &redrive}, extra...)
	if err := row.Scan(dest...); err != nil {
		return r, err
	}
	r.DependsOn, r.RedriveOf = int(dependsOn.Int64), redrive.Int64
	var err error
	r.ProducedAt, err = parseTime(produced)
	return r, err
}

// Records returns the whole log, partition by partition in offset order.
func (s *Store) Records(ctx context.Context) ([]Record, error) {
	out, err := claim.QueryAll(ctx, s.Store, s.DB(), scanRecord, `SELECT `+recordColumns+` FROM LogRecords r ORDER BY r.Partition, r.Offset`)
	if err != nil {
		return nil, fmt.Errorf("list log records: %w", err)
	}
	return out, nil
}

func (s *Store) recordAt(ctx context.Context, tx *sql.Tx, partition int, offset int64) (Record, bool, error) {
	r, err := scanRecord(s.QueryRow(ctx, tx,
		`SELECT `+recordColumns+` FROM LogRecords r WHERE r.Partition = ? AND r.Offset = ?`, partition, offset))
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("read record p%d:%d: %w", partition, offset, err)
	}
	return r, true, nil
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(clock.ISOLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse time %q: %w", s, err)
	}
	return t, nil
}

func parseNullTime(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return parseTime(s.String)
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}
