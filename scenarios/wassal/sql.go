package wassal

import (
	"context"
	"database/sql"

	"outboxlab/core/claim"
	"outboxlab/core/outbox"
)

// The days' own SQL is written once, in SQLite's words with ? placeholders,
// and runs on either database: the statements are bound by the store's
// dialect ($n on PostgreSQL), a day's own tables translated by
// claim.PostgresDDL.

// querier is a database handle or a transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// createTable creates a day's own table, given as SQLite DDL, in store's database.
func createTable(ctx context.Context, store *outbox.Store, ddl string) error {
	if store.Dialect() == claim.Postgres {
		var err error
		if ddl, err = claim.PostgresDDL(ddl); err != nil {
			return err
		}
	}
	_, err := store.DB().ExecContext(ctx, ddl)
	return err
}

func execSQL(ctx context.Context, d claim.Dialect, q querier, query string, args ...any) (sql.Result, error) {
	query, args = d.Bind(query, args...)
	return q.ExecContext(ctx, query, args...)
}

func queryRowSQL(ctx context.Context, d claim.Dialect, q querier, query string, args ...any) *sql.Row {
	query, args = d.Bind(query, args...)
	return q.QueryRowContext(ctx, query, args...)
}

func querySQL(ctx context.Context, d claim.Dialect, q querier, query string, args ...any) (*sql.Rows, error) {
	query, args = d.Bind(query, args...)
	return q.QueryContext(ctx, query, args...)
}

// onPostgres reports whether store's database is a PostgreSQL schema.
func onPostgres(store *outbox.Store) bool { return store.Dialect() == claim.Postgres }
