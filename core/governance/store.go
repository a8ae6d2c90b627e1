// Package governance is the governance outbox: entries on SQLite, a plain store
// drain and a claim/lease drain sharing one threshold policy, and the host's alerts.
package governance

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"sync/atomic"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/sqlitedb"
)

//go:embed schema.sql
var Schema string

// SchemaVersion is recorded in LabInfo so a governance database can be told apart.
const SchemaVersion = "outboxlab/governance-1"

// Store is a governance outbox on one SQLite file. Every transaction it
// begins is BEGIN IMMEDIATE, so a transaction takes the write lock before it reads.
type Store struct {
	db      *sql.DB
	path    string
	refused atomic.Int64
}

// Open opens (creating if needed) the database file at path and applies the
// schema. Two Stores may be open on the same file, as two workers would be.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sqlitedb.OpenVersioned(ctx, path, SchemaVersion, Schema)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, path: path}, nil
}

// DB returns the underlying handle, for scenario queries.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Refused reports how many claim-checked transitions this Store refused
// because the writer no longer owned the claim.
func (s *Store) Refused() int64 { return s.refused.Load() }

// InTx runs fn in one BEGIN IMMEDIATE transaction, committing when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return sqlitedb.InTx(ctx, s.db, fn)
}

// NewEntry is what a producer writes to the governance outbox.
type NewEntry struct {
	Key               string // human label, e.g. GOV-001
	EventType         string
	CorrelationID     string
	DecisionReceiptID string
	Provider          string
	Region            string
	Tenant            string
	Workload          string
	Payload           string
	// MaxRetryCount is the legacy per-entry column; 0 leaves the column's default (5).
	MaxRetryCount int
	// RetryCount is the failed-attempt history the entry already carries (usually 0).
	RetryCount int
	CreatedAt  time.Time
}

// InsertTx writes an entry in the caller's transaction and returns its Id.
func InsertTx(ctx context.Context, tx *sql.Tx, e NewEntry) (int64, error) {
	cols := `EntryKey, EventType, CorrelationId, DecisionReceiptId, Provider, Region, Tenant, Workload,
	         Payload, RetryCount, CreatedAtUtc, UpdatedAtUtc`
	args := []any{e.Key, e.EventType, e.CorrelationID, e.DecisionReceiptID, e.Provider, e.Region, e.Tenant,
		e.Workload, e.Payload, e.RetryCount, clock.ISO(e.CreatedAt), clock.ISO(e.CreatedAt)}
	marks := "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
	if e.MaxRetryCount != 0 {
		cols, marks, args = cols+", MaxRetryCount", marks+", ?", append(args, e.MaxRetryCount)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO GovernanceOutboxEntries (`+cols+`) VALUES (`+marks+`)`, args...)
	if err != nil {
		return 0, fmt.Errorf("insert governance entry %s: %w", e.Key, err)
	}
	return res.LastInsertId()
}

// Insert writes an entry in a transaction of its own.
func (s *Store) Insert(ctx context.Context, e NewEntry) (id int64, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		id, err = InsertTx(ctx, tx, e)
		return err
	})
	return id, err
}

// Table is one table of the schema.
type Table = sqlitedb.Table

// Tables lists the schema's tables with their CREATE statements, as SQLite reports them.
func (s *Store) Tables(ctx context.Context) ([]Table, error) {
	return sqlitedb.Tables(ctx, s.db)
}

// ColumnDefault returns the declared default of a GovernanceOutboxEntries
// column, as SQLite reports it ("" when there is none).
func (s *Store) ColumnDefault(ctx context.Context, column string) (string, error) {
	var def sql.NullString
	err := s.db.QueryRowContext(ctx,
		`SELECT dflt_value FROM pragma_table_info('GovernanceOutboxEntries') WHERE name = ?`, column).Scan(&def)
	if err != nil {
		return "", fmt.Errorf("read default of column %s: %w", column, err)
	}
	return def.String, nil
}
