package emission

import (
	"context"
	"database/sql"
	"fmt"

	"outboxlab/core/claim"
)

// querier is a *sql.DB or a *sql.Tx: a store's statements run on either.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// The package's statements are written once, with ? and :name placeholders;
// these bind them for the store's dialect (SQLite keeps them, PostgreSQL
// numbers them $1, $2, ...), the one place the two databases differ here.

func (s *Store) exec(ctx context.Context, q querier, query string, args ...any) (sql.Result, error) {
	query, args = s.Dialect().Bind(query, args...)
	return q.ExecContext(ctx, query, args...)
}

func (s *Store) queryRow(ctx context.Context, q querier, query string, args ...any) *sql.Row {
	query, args = s.Dialect().Bind(query, args...)
	return q.QueryRowContext(ctx, query, args...)
}

// queryAll runs query and reads every row it returns with scan; an error
// says what was being read (what).
func queryAll[T any](ctx context.Context, s *Store, q querier, what string, scan func(claim.Scanner) (T, error), query string, args ...any) ([]T, error) {
	query, args = s.Dialect().Bind(query, args...)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		x, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
