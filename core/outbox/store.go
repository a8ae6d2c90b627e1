// Package outbox is the SQLite store behind every scenario: payments, outbox
// messages with claim, lease, backoff and dead-letter transitions, and an audit log.
package outbox

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/sqlitedb"
)

//go:embed schema.sql
var Schema string

// Store is an outbox on one SQLite file. Every transaction it begins is
// BEGIN IMMEDIATE, so a transaction takes the write lock before it reads.
type Store struct {
	db      *sql.DB
	path    string
	refused atomic.Int64
}

// Open opens (creating if needed) the database file at path and applies the schema.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sqlitedb.Open(ctx, path, Schema)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, path: path}, nil
}

// OpenExisting opens a database that must already be a lab database.
// It never creates the file or the schema.
func OpenExisting(ctx context.Context, path string) (*Store, error) {
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
	return &Store{db: db, path: path}, nil
}

// DB returns the underlying handle, for scenario queries and business tables.
func (s *Store) DB() *sql.DB { return s.db }

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Refused reports how many owner-checked transitions this store refused
// because the caller no longer owned the claim.
func (s *Store) Refused() int64 { return s.refused.Load() }

// InTx runs fn in one BEGIN IMMEDIATE transaction, committing when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return sqlitedb.InTx(ctx, s.db, fn)
}

// Tables lists the schema's tables with their CREATE statements, as SQLite
// itself reports them.
func (s *Store) Tables(ctx context.Context) ([]Table, error) {
	return sqlitedb.Tables(ctx, s.db)
}

// Table is one table of the schema.
type Table = sqlitedb.Table

// AuditTx appends one line to the audit log.
func AuditTx(ctx context.Context, tx *sql.Tx, at time.Time, actor, action string, messageID int64, detail string) error {
	var id any
	if messageID > 0 {
		id = messageID
	}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO AuditLog (AtUtc, Actor, Action, MessageId, Detail) VALUES (?, ?, ?, ?, ?)`,
		clock.ISO(at), actor, action, id, detail)
	if err != nil {
		return fmt.Errorf("append audit entry: %w", err)
	}
	return nil
}

// ErrNotOwner is returned by a transition whose caller no longer owns the claim:
// the lease was taken over, or the message already reached another state.
var ErrNotOwner = errors.New("claim no longer owned")
