package claim

import (
	"context"
	"database/sql"

	"outboxlab/core/dialect"
)

// Querier is a *sql.DB or a *sql.Tx: a family's statements run on either.
type Querier = dialect.Querier

// A family writes its statements once, with ? and :name placeholders (see
// dialect.Dialect.Bind); Exec, QueryRow, Query and QueryAll bind them for the
// store's database and run them on q, the store's handle or one of its
// transactions.

// Exec runs query on q, bound for the store's database.
func (s *Store) Exec(ctx context.Context, q Querier, query string, args ...any) (sql.Result, error) {
	query, args = s.dialect.Bind(query, args...)
	return q.ExecContext(ctx, query, args...)
}

// QueryRow runs query on q, bound for the store's database.
func (s *Store) QueryRow(ctx context.Context, q Querier, query string, args ...any) *sql.Row {
	query, args = s.dialect.Bind(query, args...)
	return q.QueryRowContext(ctx, query, args...)
}

// Query runs query on q, bound for the store's database.
func (s *Store) Query(ctx context.Context, q Querier, query string, args ...any) (*sql.Rows, error) {
	query, args = s.dialect.Bind(query, args...)
	return q.QueryContext(ctx, query, args...)
}

// QueryAll runs query on q, bound for s's database, and reads every row it
// returns with scan.
func QueryAll[T any](ctx context.Context, s *Store, q Querier, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := s.Query(ctx, q, query, args...)
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

// CreateTable creates a family's own tables, given as SQLite DDL, in the
// store's database (in its words: see dialect.Dialect.DDL).
func (s *Store) CreateTable(ctx context.Context, ddl string) error {
	ddl, err := s.dialect.DDL(ddl)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, ddl)
	return err
}
