// Package emission is the governance outbox: entries on SQLite or PostgreSQL, a plain store
// drain and a claim/lease drain sharing one threshold policy, and the host's alerts.
package emission

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

//go:embed schema.sql
var Schema string

// SchemaVersion is recorded in LabInfo so a governance database can be told apart.
const SchemaVersion = "outboxlab/governance-1"

// Store is a governance outbox in one database, on the claim engine: the
// store (DB, InTx, Tables, Refused, Close) and the claim are the engine's;
// the entries, the threshold policy and the logs are this package's.
type Store struct {
	*claim.Store
}

// Open opens (creating if needed) db (a SQLite file, or a PostgreSQL run
// schema: see claim.Open) and applies the schema. Two Stores may be open on
// the same database, as two workers would be.
func Open(ctx context.Context, db dialect.Database) (*Store, error) {
	cs, err := claim.Open(ctx, db, SchemaVersion, Schema)
	if err != nil {
		return nil, err
	}
	return &Store{cs}, nil
}

// Entries is the governance outbox as the claim engine sees it: Pending,
// Deferred, Failed and RetryableFailure entries are live; a claim leaves the status alone
// (ClaimOwner says who holds the entry) and counts no attempt, since the
// threshold policy counts failed attempts (RetryCount), not claims.
var Entries = &claim.Queue{
	Table: "GovernanceOutboxEntries", Live: []string{string(Pending), string(Deferred), string(Failed), string(RetryableFailure)},
	Owner: "ClaimOwner", LeaseUntil: "ClaimLeaseUntilUtc", Token: "ClaimToken",
	Due: "NextRetryAtUtc", Order: "CreatedAtUtc, Id",
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
func (s *Store) InsertTx(ctx context.Context, tx *sql.Tx, e NewEntry) (id int64, err error) {
	cols := `EntryKey, EventType, CorrelationId, DecisionReceiptId, Provider, Region, Tenant, Workload,
	         Payload, RetryCount, CreatedAtUtc, UpdatedAtUtc`
	args := []any{e.Key, e.EventType, e.CorrelationID, e.DecisionReceiptID, e.Provider, e.Region, e.Tenant,
		e.Workload, e.Payload, e.RetryCount, clock.ISO(e.CreatedAt), clock.ISO(e.CreatedAt)}
	marks := "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
	if e.MaxRetryCount != 0 {
		cols, marks, args = cols+", MaxRetryCount", marks+", ?", append(args, e.MaxRetryCount)
	}
	err = s.QueryRow(ctx, tx, `INSERT INTO GovernanceOutboxEntries (`+cols+`) VALUES (`+marks+`) RETURNING Id`, args...).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert governance entry %s: %w", e.Key, err)
	}
	return id, nil
}

// Insert writes an entry in a transaction of its own.
func (s *Store) Insert(ctx context.Context, e NewEntry) (id int64, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		id, err = s.InsertTx(ctx, tx, e)
		return err
	})
	return id, err
}

// Table is one table of the schema.
type Table = claim.Table

// ColumnDefault returns the declared default of a GovernanceOutboxEntries
// column, as the database's catalog reports it ("" when there is none).
func (s *Store) ColumnDefault(ctx context.Context, column string) (string, error) {
	def, err := s.Dialect().ColumnDefault(ctx, s.DB(), "GovernanceOutboxEntries", column)
	if err != nil {
		return "", fmt.Errorf("read default of column %s: %w", column, err)
	}
	return def, nil
}
