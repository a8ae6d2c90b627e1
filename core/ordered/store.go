// Package ordered is a keyed, partitioned message log on SQLite and a consumer
// that contains a failed record: dead letters, parking, poisoned correlation
// ids, key blocking, partition pause, dependsOn checks and replay by correlation id.
package ordered

import (
	"context"
	"database/sql"
	_ "embed"

	"outboxlab/core/sqlitedb"
)

//go:embed schema.sql
var Schema string

// SchemaVersion is recorded in LabInfo so that inspect can tell a lab database
// from any other SQLite file.
const SchemaVersion = "outboxlab/ordered-1"

// Store is the log and the consumer's tables on one SQLite file. Every
// transaction it begins is BEGIN IMMEDIATE: it takes the write lock before it reads.
type Store struct {
	db   *sql.DB
	path string
}

// Open opens (creating if needed) the database file at path, applies Schema
// and then each of the business schemas, so that the business tables live in
// the same file and share the consumer's transactions.
func Open(ctx context.Context, path string, business ...string) (*Store, error) {
	db, err := sqlitedb.OpenVersioned(ctx, path, SchemaVersion, append([]string{Schema}, business...)...)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, path: path}, nil
}

// DB returns the underlying handle, for business queries.
func (s *Store) DB() *sql.DB { return s.db }

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// InTx runs fn in one BEGIN IMMEDIATE transaction, committing when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return sqlitedb.InTx(ctx, s.db, fn)
}

// Table is one table of the schema.
type Table = sqlitedb.Table

// Tables lists the schema's tables with their CREATE statements, as SQLite
// itself reports them, in creation order.
func (s *Store) Tables(ctx context.Context) ([]Table, error) {
	return sqlitedb.Tables(ctx, s.db)
}
