// Package sqlitedb opens the lab's SQLite files the one way every store uses:
// WAL, a busy timeout, BEGIN IMMEDIATE for every transaction, and a LabInfo
// marker that tells inspect a lab database from any other file.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// SchemaVersion is written to LabInfo by Open. A family with a schema of its
// own records its own version with OpenVersioned.
const SchemaVersion = "outboxlab/1"

// labInfo marks a database as the lab's.
const labInfo = `CREATE TABLE IF NOT EXISTS LabInfo (
    Key   TEXT PRIMARY KEY,
    Value TEXT NOT NULL
) STRICT;`

// Open opens (creating if needed) the database file at path, applies schema
// (idempotent DDL, may be empty) and marks the file as a lab database of
// version SchemaVersion. Every transaction begun on the returned handle is
// BEGIN IMMEDIATE.
func Open(ctx context.Context, path, schema string) (*sql.DB, error) {
	return OpenVersioned(ctx, path, SchemaVersion, schema)
}

// OpenVersioned is Open for a family with a schema of its own: it applies
// each of schemas in order and records version in LabInfo unless the file
// already has one. version must start with "outboxlab" for IsLab (and
// inspect) to know the file.
func OpenVersioned(ctx context.Context, path, version string, schemas ...string) (*sql.DB, error) {
	db, err := OpenNoInit(path)
	if err != nil {
		return nil, err
	}
	for _, ddl := range append([]string{labInfo}, schemas...) {
		if strings.TrimSpace(ddl) == "" {
			continue
		}
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			db.Close()
			return nil, fmt.Errorf("create schema in %s: %w", path, err)
		}
	}
	_, err = db.ExecContext(ctx,
		`INSERT INTO LabInfo (Key, Value) VALUES ('schema', ?) ON CONFLICT (Key) DO NOTHING`, version)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("record schema version: %w", err)
	}
	return db, nil
}

// OpenNoInit opens path with the lab's settings without touching the schema.
func OpenNoInit(path string) (*sql.DB, error) {
	if path == "" {
		return nil, fmt.Errorf("open database: empty path")
	}
	// A writer waits for SQLite's one write lock rather than failing: up to
	// 30 s, since eight racing writers on a loaded machine (tests under the
	// race detector beside a PostgreSQL server) were seen to queue past 10 s.
	dsn := "file:" + EscapePath(path) + "?_txlock=immediate" +
		"&_pragma=busy_timeout(30000)" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)" +
		"&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return db, nil
}

// IsLab reports whether db carries a LabInfo marker written by any lab store
// (every family's schema version starts with "outboxlab").
func IsLab(ctx context.Context, db *sql.DB) bool {
	version, err := LabVersion(ctx, db)
	return err == nil && strings.HasPrefix(version, "outboxlab")
}

// RowQuerier is a *sql.DB, *sql.Conn or *sql.Tx.
type RowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// LabVersion returns the schema version recorded in q's LabInfo table, or ""
// when there is no such table or no version in it. An error is SQLite's
// (a lock held elsewhere: see IsBusy).
func LabVersion(ctx context.Context, q RowQuerier) (string, error) {
	var tables int
	err := q.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'LabInfo'`).Scan(&tables)
	if err != nil || tables == 0 {
		return "", err
	}
	var version string
	err = q.QueryRowContext(ctx, `SELECT Value FROM LabInfo WHERE Key = 'schema'`).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return version, err
}

// InTx runs fn in one BEGIN IMMEDIATE transaction, committing when fn returns nil.
func InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
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

// EscapePath makes a file path safe inside a "file:" URI: '?' and '#' would
// otherwise end the path, and '%' would start an escape.
func EscapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
}

// Table is one table of a lab database.
type Table struct {
	Name string
	SQL  string
}

// Tables lists db's tables with their CREATE statements, as SQLite itself
// reports them, in creation order.
func Tables(ctx context.Context, db *sql.DB) ([]Table, error) {
	rows, err := db.QueryContext(ctx,
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
