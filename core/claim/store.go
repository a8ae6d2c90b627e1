// Package claim is the one claim engine under every outbox family: the due
// gate, the lease and fencing token taken at claim time, owner-checked
// transitions, and the idle-then-advance step. Families describe their table
// (Table) and keep their own rules on top.
package claim

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/core/sqlitedb"
)

// ErrNotOwner is returned by a transition whose caller no longer owns the
// claim: the lease was taken over, or the row already reached another state.
var ErrNotOwner = errors.New("claim no longer owned")

// DefaultLease is the lease a claim takes when its caller names none.
const DefaultLease = 30 * time.Second

// Store is one database with the engine's transactions and its refusal
// count. Every family's store embeds one and adds its own tables.
type Store struct {
	db      *sql.DB
	path    string
	dialect Dialect
	refused atomic.Int64
	stmts   statements // the engine's statements, prepared once per connection
}

// Open opens (creating if needed) the database at location, applies each of
// schemas (SQLite DDL) in order and records version in LabInfo. A location
// is a SQLite file path (see sqlitedb.OpenVersioned) or a PostgreSQL URL
// (pgdb.IsURL) naming a run schema, whose DDL is translated by PostgresDDL.
// Two Stores may be open on the same database, as two workers would be.
func Open(ctx context.Context, location, version string, schemas ...string) (*Store, error) {
	if pgdb.IsURL(location) {
		return openURL(ctx, location, version, schemas)
	}
	path := location
	db, err := sqlitedb.OpenVersioned(ctx, path, version, schemas...)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, path: path, dialect: SQLite}, nil
}

// OpenExisting opens a database that must already be a lab database: a
// SQLite file, or a PostgreSQL schema (location a URL) holding LabInfo. It
// never creates a file, a schema or a table.
func OpenExisting(ctx context.Context, location string) (*Store, error) {
	if pgdb.IsURL(location) {
		return openExistingURL(ctx, location)
	}
	path := location
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("open database: %s is a directory", path)
	}
	db, err := sqlitedb.OpenNoInit(path)
	if err != nil {
		return nil, err
	}
	if !sqlitedb.IsLab(ctx, db) {
		db.Close()
		return nil, fmt.Errorf("%s is not an outboxlab database", path)
	}
	return &Store{db: db, path: path, dialect: SQLite}, nil
}

// DB returns the underlying handle, for a family's own queries.
func (s *Store) DB() *sql.DB { return s.db }

// Path returns the location the store was opened with: a SQLite file's
// path, or a PostgreSQL URL, which may hold a password: never print it
// (pgdb.Redact), hand it on as a location.
func (s *Store) Path() string { return s.path }

// Dialect returns the dialect the store's statements are written in.
func (s *Store) Dialect() Dialect { return s.dialect }

// Close closes the store's prepared statements and the database.
func (s *Store) Close() error { return errors.Join(s.stmts.close(), s.db.Close()) }

// Refused reports how many owner-checked transitions this store refused
// because the caller no longer owned the claim.
func (s *Store) Refused() int64 { return s.refused.Load() }

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
type Table = sqlitedb.Table

// Tables lists the database's tables with their CREATE statements, in
// creation order: on SQLite as the database keeps them, on PostgreSQL
// rebuilt from the catalog (see the PostgreSQL dialect).
func (s *Store) Tables(ctx context.Context) ([]Table, error) {
	return s.dialect.Tables(ctx, s.db)
}
