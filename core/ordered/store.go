// Package ordered is a keyed, partitioned message log on SQLite and a consumer
// that contains a failed record: dead letters, parking, poisoned correlation
// ids, key blocking, partition pause, dependsOn checks and replay by correlation id.
package ordered

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
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
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open database: unusable path %q", path)
	}
	dsn := "file:" + path + "?_txlock=immediate" +
		"&_pragma=busy_timeout(10000)" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)" +
		"&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	for _, schema := range append([]string{Schema}, business...) {
		if _, err := db.ExecContext(ctx, schema); err != nil {
			db.Close()
			return nil, fmt.Errorf("create schema in %s: %w", path, err)
		}
	}
	_, err = db.ExecContext(ctx,
		`INSERT INTO LabInfo (Key, Value) VALUES ('schema', ?) ON CONFLICT (Key) DO NOTHING`, SchemaVersion)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("record schema version: %w", err)
	}
	return s, nil
}

// DB returns the underlying handle, for business queries.
func (s *Store) DB() *sql.DB { return s.db }

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// InTx runs fn in one BEGIN IMMEDIATE transaction, committing when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// Table is one table of the schema.
type Table struct {
	Name string
	SQL  string
}

// Tables lists the schema's tables with their CREATE statements, as SQLite
// itself reports them, in creation order.
func (s *Store) Tables(ctx context.Context) ([]Table, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	defer rows.Close()
	var out []Table
	for rows.Next() {
		var t Table
		if err := rows.Scan(&t.Name, &t.SQL); err != nil {
			return nil, fmt.Errorf("read schema: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
