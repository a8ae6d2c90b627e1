package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/dblocation"
	"outboxlab/core/sqlitedb"
)

// SQLite is the dialect of the lab's SQLite files (see sqlitedb). Its claim
// needs no row locks: every transaction is BEGIN IMMEDIATE, so one claim
// runs at a time and its read and its update cannot interleave with another's.
var SQLite Dialect = sqliteDialect{}

type sqliteDialect struct{}

func (sqliteDialect) Name() string { return "sqlite" }

// Open opens the file at loc (a path) with the lab's settings.
func (sqliteDialect) Open(ctx context.Context, loc dblocation.Location, version string, schemas ...string) (*sql.DB, error) {
	for _, s := range schemas {
		noteSpellings(s)
	}
	return sqlitedb.OpenVersioned(ctx, loc.Path(), version, schemas...)
}

// OpenExisting opens the file at loc, which must be a regular lab file.
func (sqliteDialect) OpenExisting(ctx context.Context, loc dblocation.Location) (*sql.DB, error) {
	path := loc.Path()
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("open database: %s is a directory", path)
	}
	db, err := sqlitedb.OpenNoInit(path)
	if err != nil {
		return nil, err
	}
	if !sqlitedb.IsLab(ctx, db) {
		db.Close()
		return nil, fmt.Errorf("%s is not an outboxlab database", path)
	}
	return db, nil
}

// DDL is the schema as written: the lab writes its schemas in SQLite's words.
func (sqliteDialect) DDL(sqlite string) (string, error) { noteSpellings(sqlite); return sqlite, nil }

// InTx runs fn in one BEGIN IMMEDIATE transaction: it takes the write lock
// before it reads, so no two claims interleave.
func (sqliteDialect) InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	return inTx(ctx, db, fn)
}

func (sqliteDialect) SerialWriters() bool { return true }

// LockKey has nothing to do: every transaction already holds the write lock.
func (sqliteDialect) LockKey(context.Context, *sql.Tx, string) error { return nil }

// Bind leaves the statement as it is: SQLite reads ? and :name itself.
func (sqliteDialect) Bind(query string, args ...any) (string, []any) { return query, args }

func (sqliteDialect) Time(t time.Time) any { return NullTime(t) }

func (sqliteDialect) SkipLocked() string { return "" }

// Greatest is SQLite's scalar (two-argument) MAX.
func (sqliteDialect) Greatest() string { return "MAX" }

// IDs lists the ids as one JSON array.
func (sqliteDialect) IDs(ids []int64) (string, any) {
	return `SELECT value FROM json_each(?)`, jsonInts(ids)
}

func jsonInts(ids []int64) string {
	b := []byte{'['}
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// Rows reads the rows from a VALUES list of placeholders, padded with rows
// of NULLs to the next power of two, so that a drain's batches of any size
// share a few statement texts. A caller matches the padding rows to nothing
// (a NULL id matches no row).
func (sqliteDialect) Rows(names []string, rows [][]any) (string, []any) {
	selected := make([]string, len(names))
	for i, n := range names {
		selected[i] = `column` + strconv.Itoa(i+1) + ` AS ` + n
	}
	size := 1
	for size < len(rows) {
		size *= 2
	}
	args := make([]any, 0, size*len(names))
	tuple := `(` + strings.Repeat(`?, `, len(names)-1) + `?)`
	var from strings.Builder
	from.WriteString(`(SELECT ` + strings.Join(selected, ", ") + ` FROM (VALUES `)
	for r := range size {
		if r > 0 {
			from.WriteString(", ")
		}
		from.WriteString(tuple)
		if r < len(rows) {
			args = append(args, rows[r]...)
		} else {
			args = append(args, make([]any, len(names))...)
		}
	}
	from.WriteString(`))`)
	return from.String(), args
}

// Tables lists the tables with their CREATE statements as SQLite keeps
// them, in creation order.
func (sqliteDialect) Tables(ctx context.Context, db *sql.DB) ([]Table, error) {
	tables, err := sqlitedb.Tables(ctx, db)
	out := make([]Table, len(tables))
	for i, t := range tables {
		out[i] = Table{Name: t.Name, SQL: t.SQL}
	}
	return out, err
}

// ColumnDefault reads SQLite's table_info.
func (sqliteDialect) ColumnDefault(ctx context.Context, q Querier, table, column string) (string, error) {
	var def sql.NullString
	err := q.QueryRowContext(ctx, `SELECT dflt_value FROM pragma_table_info(?) WHERE name = ?`, table, column).Scan(&def)
	return def.String, err
}

// OpenReader opens the file query-only, without the store's settings
// (BEGIN IMMEDIATE): a reader takes no write lock.
func (sqliteDialect) OpenReader(_ context.Context, loc dblocation.Location) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+sqlitedb.EscapePath(loc.Path())+
		"?_pragma=busy_timeout(30000)&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// PrimaryKey reads SQLite's table_info.
func (sqliteDialect) PrimaryKey(ctx context.Context, q Querier, table string) ([]string, error) {
	return names(ctx, q, `SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, table)
}

// Commits reads SQLite's data_version, which counts the commits of other
// connections, and schema_version, which counts the schema's changes.
func (sqliteDialect) Commits(ctx context.Context, q Querier) (data, schema int64, counted bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT d.data_version, s.schema_version
		FROM pragma_data_version() d, pragma_schema_version() s`).Scan(&data, &schema)
	return data, schema, err == nil, err
}
