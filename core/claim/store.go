// Package claim is the one claim engine under every outbox family: the due
// gate, the lease and fencing token taken at claim time, owner-checked
// transitions, and the idle-then-advance step. Families describe their table
// (Queue) and keep their own rules on top. The engine's SQL is written once
// (gate.go); what differs between databases is the store's dialect's (see
// core/dialect).
package claim

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"outboxlab/core/dialect"
)

// ErrNotOwner is returned by a transition whose caller no longer owns the
// claim: the lease was taken over, or the row already reached another state.
var ErrNotOwner = errors.New("claim no longer owned")

// DefaultLease is the lease a claim takes when its caller names none.
const DefaultLease = 30 * time.Second

// Store is one database with the engine's transactions and its refusal
// count. Every family's store embeds one and adds its own tables.
type Store struct {
	db       *sql.DB
	database dialect.Database
	dialect  dialect.Dialect
	refused  atomic.Int64
	stmts    statements // the engine's statements, prepared once per connection
}

// Open opens (creating if needed) database, applies each of schemas (SQLite
// DDL, translated by its dialect) in order and records version in LabInfo.
// Two Stores may be open on the same database, as two workers would be.
func Open(ctx context.Context, database dialect.Database, version string, schemas ...string) (*Store, error) {
	db, err := database.Open(ctx, version, schemas...)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, database: database, dialect: database.Dialect()}, nil
}

// OpenExisting opens a database that must already be a lab database: a
// SQLite file, or a PostgreSQL schema holding LabInfo. It never creates a
// file, a schema or a table.
func OpenExisting(ctx context.Context, database dialect.Database) (*Store, error) {
	db, err := database.OpenExisting(ctx)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, database: database, dialect: database.Dialect()}, nil
}

// OpenDB is a Store on db, a pool of d's database that its caller opened
// (and prepared: see dialect.OpenPostgres) itself. The Store takes db over:
// Close closes it.
func OpenDB(db *sql.DB, d dialect.Dialect) *Store { return &Store{db: db, dialect: d} }

// DB returns the underlying handle, for a family's own queries.
func (s *Store) DB() *sql.DB { return s.db }

// Database returns the database the store was opened on, to open another
// store on it (a second worker) or to hand it to a child process.
func (s *Store) Database() dialect.Database { return s.database }

// Dialect returns the store's database's dialect, for a family's own statements.
func (s *Store) Dialect() dialect.Dialect { return s.dialect }

// Close closes the store's prepared statements and the database.
func (s *Store) Close() error { return errors.Join(s.stmts.close(), s.db.Close()) }

// Refused reports how many owner-checked transitions this store refused
// because the caller no longer owned the claim.
func (s *Store) Refused() int64 { return s.refused.Load() }

// LoneWrites reports whether one statement that writes may run on the
// store's pool, outside any transaction, as a transaction of its own. Where
// row locks keep writers apart (PostgreSQL) it may, and saves the round
// trips of BEGIN and COMMIT. Where writers take turns by taking the write
// lock as their transaction begins (SQLite's BEGIN IMMEDIATE, see
// dialect.SerialWriters), a statement outside a transaction would take it
// only when it first writes, after its read: it runs in InTx.
func (s *Store) LoneWrites() bool { return !s.dialect.SerialWriters() }

// InTx runs fn in one transaction, committing when fn returns nil. On
// SQLite every transaction is BEGIN IMMEDIATE: it takes the write lock
// before it reads, so no two claims interleave.
// On PostgreSQL it is READ COMMITTED and the claim's FOR UPDATE SKIP LOCKED
// keeps claimers apart instead.
// Before it begins, it prepares the engine's statements that the last
// transactions met for the first time (see statements).
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.stmts.prepareAll(ctx, s.db); err != nil {
		return fmt.Errorf("prepare statements: %w", err)
	}
	return s.dialect.InTx(ctx, s.db, fn)
}

// Table is one table of a lab database, with its CREATE statement.
type Table = dialect.Table

// Tables lists the database's tables with their CREATE statements, in
// creation order: on SQLite as the database keeps them, on PostgreSQL
// rebuilt from the catalog (see dialect.Dialect.Tables).
func (s *Store) Tables(ctx context.Context) ([]Table, error) {
	return s.dialect.Tables(ctx, s.db)
}
