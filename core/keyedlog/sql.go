package keyedlog

import (
	"context"
	"database/sql"

	"outboxlab/core/claim"
)

// querier is a *sql.DB or a *sql.Tx: the store's statements run on either.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// The package's statements are written once, with ? placeholders, and bound
// here for the store's dialect: SQLite keeps them, PostgreSQL numbers them.
// A column PostgreSQL reserves (LogRecords.Offset) is qualified by its
// table's alias, or quoted in lower case ("offset") where a list of columns
// takes no alias: both databases read it so.

func (s *Store) exec(ctx context.Context, q querier, query string, args ...any) (sql.Result, error) {
	query, args = s.Dialect().Bind(query, args...)
	return q.ExecContext(ctx, query, args...)
}

func (s *Store) queryRow(ctx context.Context, q querier, query string, args ...any) *sql.Row {
	query, args = s.Dialect().Bind(query, args...)
	return q.QueryRowContext(ctx, query, args...)
}

// queryAll runs query and reads every row it returns with scan.
func queryAll[T any](ctx context.Context, s *Store, q querier, scan func(claim.Scanner) (T, error), query string, args ...any) ([]T, error) {
	query, args = s.Dialect().Bind(query, args...)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		x, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// ExecTx runs query, written with ? and :name placeholders, in tx, bound for
// the store's database: the business tables' handlers write through it.
func (s *Store) ExecTx(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	return s.exec(ctx, tx, query, args...)
}
