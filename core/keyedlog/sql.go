package keyedlog

import (
	"context"
	"database/sql"
)

// The package's statements are written once, with ? placeholders, and run
// through the claim store's Exec, QueryRow and QueryAll, which bind them
// for the store's database. A column PostgreSQL reserves (LogRecords.Offset)
// is qualified by its table's alias, or quoted in lower case ("offset")
// where a list of columns takes no alias: both databases read it so.

// ExecTx runs query, written with ? and :name placeholders, in tx, bound for
// the store's database: the business tables' handlers write through it.
func (s *Store) ExecTx(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	return s.Exec(ctx, tx, query, args...)
}
