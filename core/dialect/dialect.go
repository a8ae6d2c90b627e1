// Package dialect is the one place where the lab's databases differ: it
// tells a location's database, opens it, runs its transactions, binds
// placeholders, stores times, translates the lab's schemas and reads the
// catalog, for SQLite (a file, through sqlitedb) and PostgreSQL (a run
// schema on a server, through pgdb). Every store above it (the claim engine
// and each family on it) writes its SQL once, in SQLite's words with ? and
// :name placeholders, and asks its Dialect for the rest. A third database is
// a third Dialect here, as River adds one driver package per database
// (riverdriver's riverpgxv5 and riversqlite).
package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/dblocation"
	"outboxlab/core/sqlitedb"
)

// Dialect is one database's way of doing what the lab's stores do. The
// statements it writes depend only on their shape (names, column types),
// never on the values, so that they can be prepared once and run with fresh
// arguments.
type Dialect interface {
	// Name names the database: "sqlite" or "postgres".
	Name() string

	// Open opens (creating if needed) the database at loc, applies each of
	// schemas (SQLite DDL, see DDL) in order and records version in LabInfo
	// unless the database already has one (see Database.Open).
	Open(ctx context.Context, loc dblocation.Location, version string, schemas ...string) (*sql.DB, error)
	// OpenExisting opens a database at loc that must already be a lab
	// database (LabInfo with an "outboxlab" version); it creates nothing.
	OpenExisting(ctx context.Context, loc dblocation.Location) (*sql.DB, error)
	// OpenReader opens one connection to the database at loc that only
	// reads and takes no lock a writer waits for.
	OpenReader(ctx context.Context, loc dblocation.Location) (*sql.DB, error)
	// DDL is sqlite, the lab's schema text in SQLite's words, in this
	// database's words.
	DDL(sqlite string) (string, error)

	// InTx runs fn in one transaction of db, committing when fn returns nil.
	InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error
	// SerialWriters reports whether every transaction takes the database's
	// one write lock before it reads (SQLite's BEGIN IMMEDIATE), so writers
	// take turns; false where row locks keep them apart and both may write.
	SerialWriters() bool
	// LockKey makes the transactions of tx's database that lock the same
	// key take turns until tx ends: nothing to do where writers already do.
	LockKey(ctx context.Context, tx *sql.Tx, key string) error

	// Bind makes a statement written with ? and :name placeholders (and args
	// holding sql.Named values for the names) runnable on the database.
	Bind(query string, args ...any) (string, []any)
	// Time is t as the database stores a time; the zero time is NULL.
	Time(t time.Time) any
	// SkipLocked ends a SELECT that locks the rows it returns, passing over
	// rows another transaction has locked ("" where the transaction itself
	// keeps claimers apart).
	SkipLocked() string
	// Greatest is the database's two-argument maximum function.
	Greatest() string
	// IDs is a subquery that selects each of ids, passed as one argument.
	IDs(ids []int64) (query string, arg any)
	// Rows is a derived table (to be named with AS) with one row per element
	// of rows and the columns names, rows[r][i] being row r's value of
	// names[i] (NULL, text or an integer), and its arguments (? placeholders).
	Rows(names []string, rows [][]any) (query string, args []any)

	// NameSessions is loc with the sessions opened on it named name, and the
	// name they carry; loc and "" where the database names no sessions.
	NameSessions(loc dblocation.Location, name string) (dblocation.Location, string, error)
	// SessionName is the name of the sessions opened on loc ("" for none).
	SessionName(loc dblocation.Location) string
	// EndSessions ends the sessions named name on db's server and waits
	// until they are gone.
	EndSessions(ctx context.Context, db *sql.DB, name string) error
	// OpenTxProbe opens what finds a session holding a transaction open on
	// the database at loc (pool: a pool open on it that the caller keeps).
	OpenTxProbe(ctx context.Context, loc dblocation.Location, pool *sql.DB) (TxProbe, error)

	// Tables lists db's tables with their CREATE statements, in creation order.
	Tables(ctx context.Context, db *sql.DB) ([]Table, error)
	// ColumnDefault is the declared default of table's column as the catalog
	// reports it ("" when there is none).
	ColumnDefault(ctx context.Context, q Querier, table, column string) (string, error)
	// TableNames lists the tables in creation order, LabInfo included, as
	// the database names them (PostgreSQL folds unquoted names to lower case).
	TableNames(ctx context.Context, q Querier) ([]string, error)
	// LabVersion is the version recorded in LabInfo, "" without one.
	LabVersion(ctx context.Context, q Querier) (string, error)
	// Schema is the statements that created the tables and indexes besides
	// LabInfo, as the database keeps them; nil where it keeps none.
	Schema(ctx context.Context, q Querier) ([]string, error)
	// PrimaryKey lists the columns of table's primary key, in key order.
	PrimaryKey(ctx context.Context, q Querier, table string) ([]string, error)
	// Commits reads numbers that change when another connection commits
	// (data) or the schema changes (schema), on the connection q reads
	// through; counted false where the database keeps no such count (a
	// reader reads everything again).
	Commits(ctx context.Context, q Querier) (data, schema int64, counted bool, err error)
	// InsertionOrder is an ORDER BY that reads a lab table's rows in the
	// order they were written, "" where a plain scan does.
	InsertionOrder() string
	// QueryOnly makes tx refuse to write, where beginning it read-only does
	// not already.
	QueryOnly(ctx context.Context, tx *sql.Tx) error

	// What the grader's change log (grade/changelog) asks of the database:
	// the log and its triggers, its reads of the rows and the schema.

	// ChangeLogDDL are the statements that create LabChangeLog and the
	// triggers that write every insert, update and delete on tables into
	// it, each row as JSON with its columns' names in lower case.
	ChangeLogDDL(ctx context.Context, q Querier, tables []string) ([]string, error)
	// RowsAsJSON is a SELECT of table's rows, ordered by Id, as (Id, the
	// row as JSON text the way the triggers write it).
	RowsAsJSON(ctx context.Context, q Querier, table string) (string, error)
	// ShapeQuery selects the schema's columns, indexes, triggers and
	// functions as one text line each, whose sorted lines compare two reads.
	ShapeQuery() string
	// StructureQuery selects the schema's objects as one line each, starting
	// with kind and name, such that an object dropped and made again the
	// same reads differently where the catalog tells them apart.
	StructureQuery() string
	// SnapshotTx begins a read-only transaction that reads one snapshot and
	// waits for no writer.
	SnapshotTx() *sql.TxOptions
	// GaplessKeys reports whether an autoincrement key never skips a
	// number (SQLite's); a sequence may skip one a rolled-back insert took.
	GaplessKeys() bool
}

// SchemaVersion is the version a store without a schema version of its own
// records in LabInfo, on every database.
const SchemaVersion = sqlitedb.SchemaVersion

// Querier is a *sql.DB or a *sql.Tx: a statement runs on either.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Table is one table of a lab database, with its CREATE statement.
type Table struct {
	Name string
	SQL  string
}

// inTx runs fn in one transaction begun with db's defaults: on the lab's
// SQLite handles BEGIN IMMEDIATE (sqlitedb sets it), on PostgreSQL READ
// COMMITTED.
func inTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
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
