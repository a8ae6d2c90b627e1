package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Postgres is the dialect of a run schema on PostgreSQL (see pgdb): $n
// placeholders, a claim whose read ends in FOR UPDATE SKIP LOCKED, so two
// claimers in READ COMMITTED transactions never take the same row and never
// wait on each other's, and GREATEST where SQLite has the scalar MAX. Times
// are clock.ISO text, as on SQLite: every text column is COLLATE "C" (Open
// refuses a schema where one is not), so comparisons, MIN, GREATEST and
// ORDER BY go by bytes as they do on SQLite. Nothing reads the server's
// clock: now is always an argument.
var Postgres Dialect = postgresDialect{}

type postgresDialect struct{}

func (postgresDialect) Name() string { return "postgres" }

// DDL translates the lab's SQLite DDL (see PostgresDDL).
func (postgresDialect) DDL(sqlite string) (string, error) {
	noteSpellings(sqlite)
	return PostgresDDL(sqlite)
}

// InTx runs fn in one READ COMMITTED transaction (the server's default). The
// claim's row locks, not the transaction, keep claimers apart.
func (postgresDialect) InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	return inTx(ctx, db, fn)
}

func (postgresDialect) SerialWriters() bool { return false }

// LockKey takes a transaction-level advisory lock on the key's hash: two READ
// COMMITTED transactions of one key take turns, as every transaction does on
// SQLite.
func (postgresDialect) LockKey(ctx context.Context, tx *sql.Tx, key string) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, key)
	return err
}

func (postgresDialect) Time(t time.Time) any { return NullTime(t) }

// SkipLocked locks the rows the read returns, passing over rows another
// claim has locked.
func (postgresDialect) SkipLocked() string { return ` FOR UPDATE SKIP LOCKED` }

func (postgresDialect) Greatest() string { return "GREATEST" }

// IDs passes the ids as one bigint[].
func (postgresDialect) IDs(ids []int64) (string, any) { return `SELECT unnest(?::bigint[])`, ids }

// Rows passes the rows as one array per column and reads them with unnest:
// one statement whatever their number. A column whose values are all
// integers (or NULL) is a bigint[], any other a text[], read COLLATE "C",
// the collation of every text column of the schema.
func (postgresDialect) Rows(names []string, rows [][]any) (string, []any) {
	args := make([]any, len(names))
	arrays, selected := make([]string, len(names)), make([]string, len(names))
	for i, n := range names {
		array, cast := pgArray(rows, i)
		args[i], arrays[i], selected[i] = array, `?::`+cast, n
		if cast == "text[]" {
			selected[i] = n + ` COLLATE "C" AS ` + n
		}
	}
	return `(SELECT ` + strings.Join(selected, ", ") + ` FROM unnest(` + strings.Join(arrays, ", ") + `) AS u(` +
		strings.Join(names, ", ") + `))`, args
}

// pgArray is column i of values as a PostgreSQL array and its type.
func pgArray(values [][]any, i int) (any, string) {
	ints := true
	for _, row := range values {
		switch row[i].(type) {
		case nil, int, int64:
		default:
			ints = false
		}
	}
	if ints {
		out := make([]*int64, len(values))
		for j, row := range values {
			switch v := row[i].(type) {
			case int:
				n := int64(v)
				out[j] = &n
			case int64:
				out[j] = &v
			}
		}
		return out, "bigint[]"
	}
	out := make([]*string, len(values))
	for j, row := range values {
		switch v := row[i].(type) {
		case nil:
		case string:
			out[j] = &v
		default:
			panic(fmt.Sprintf("dialect: rows: column value %T is neither text nor an integer", v))
		}
	}
	return out, "text[]"
}

// ColumnDefault reads information_schema, which has the names of a
// translated schema folded to lower case.
func (postgresDialect) ColumnDefault(ctx context.Context, q Querier, table, column string) (string, error) {
	var def sql.NullString
	err := q.QueryRowContext(ctx, `SELECT column_default FROM information_schema.columns
	          WHERE table_schema = current_schema() AND table_name = lower($1) AND column_name = lower($2)`,
		table, column).Scan(&def)
	return def.String, err
}

// PrimaryKey reads the catalog's primary index of table in the run schema.
func (postgresDialect) PrimaryKey(ctx context.Context, q Querier, table string) ([]string, error) {
	return names(ctx, q, `
		SELECT a.attname FROM pg_index i
		  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
		 WHERE i.indrelid = (quote_ident(current_schema()) || '.' || quote_ident($1))::regclass
		   AND i.indisprimary
		 ORDER BY array_position(i.indkey::int2[], a.attnum)`, table)
}

// Commits counts nothing: the server keeps no count of commits a session can read.
func (postgresDialect) Commits(context.Context, Querier) (data, schema int64, counted bool, err error) {
	return 0, 0, false, nil
}
