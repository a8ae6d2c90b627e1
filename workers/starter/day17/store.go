package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"
)

// DB is the worker's one connection to the lab's database, and the little
// that differs between SQLite and PostgreSQL. Queries use $1, $2 placeholders,
// which both accept.
type DB struct {
	conn     *sql.Conn
	postgres bool
}

// openDB opens the database the lab gave us (never another one) on a single
// connection, so that BEGIN, the statements and COMMIT all run on it.
func openDB(ctx context.Context, kind, location string, busyTimeoutMS int) (*DB, error) {
	driver := map[string]string{"sqlite": "sqlite", "postgres": "pgx"}[kind]
	if driver == "" {
		return nil, fmt.Errorf("OUTBOXLAB_DB_KIND %q: want sqlite or postgres", kind)
	}
	pool, err := sql.Open(driver, location)
	if err != nil {
		return nil, fmt.Errorf("open the database: %w", err)
	}
	pool.SetMaxOpenConns(1)
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	db := &DB{conn: conn, postgres: kind == "postgres"}
	if !db.postgres {
		// Do not change journal_mode: the lab chose it.
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeoutMS)); err != nil {
			return nil, fmt.Errorf("set the busy timeout: %w", err)
		}
	}
	return db, nil
}

// InTx runs fn in one transaction and commits it, or rolls it back if fn
// fails. On SQLite the transaction takes the write lock at once (BEGIN
// IMMEDIATE); on PostgreSQL the claim's SELECT … FOR UPDATE SKIP LOCKED takes
// its rows. Never call the lab inside fn: no transaction stays open across a
// lab call.
func (db *DB) InTx(ctx context.Context, fn func() error) error {
	begin := "BEGIN IMMEDIATE"
	if db.postgres {
		begin = "BEGIN"
	}
	if _, err := db.conn.ExecContext(ctx, begin); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(); err != nil {
		if _, rbErr := db.conn.ExecContext(ctx, "ROLLBACK"); rbErr != nil {
			return fmt.Errorf("%w (and roll back: %v)", err, rbErr)
		}
		return err
	}
	if _, err := db.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// forUpdate is what the claim's SELECT ends with: on PostgreSQL it locks the
// rows it returns and skips those another claim holds; SQLite's BEGIN
// IMMEDIATE already holds the whole database.
func (db *DB) forUpdate() string {
	if db.postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// Exec runs one statement and says how many rows it changed.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := db.conn.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// timeText is a time as the database stores it and the claims compare it:
// 2026-01-16T09:00:00.201Z, 24 characters, UTC, milliseconds and a Z.
func timeText(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// parseTime reads a time the database stores back into epoch milliseconds.
func parseTime(text string) (int64, error) {
	t, err := time.Parse("2006-01-02T15:04:05.000Z", text)
	if err != nil {
		return 0, fmt.Errorf("time %q is not in the lab's form: %w", text, err)
	}
	return t.UnixMilli(), nil
}
