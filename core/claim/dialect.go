package claim

import (
	"context"
	"database/sql"
	"time"
)

// Dialect writes the engine's statements for one database: the one place
// where SQLite and PostgreSQL differ (placeholders, how the claim keeps two
// claimers apart, how times are stored). Each method returns the statement
// and its arguments; the text depends only on the Queue, the returning
// columns and the set columns, never on the values, so that it can be
// prepared once and run with fresh arguments.
//
// The gate itself (what is claimable, held, due) is written once, in
// gate.go, for both implementations: SQLite (sqlite.go) and PostgreSQL
// (postgres.go: $n placeholders, a ClaimSelect that ends in FOR UPDATE SKIP
// LOCKED and a ClaimBatch whose subquery does, GREATEST where SQLite has the
// scalar MAX, a plain READ COMMITTED transaction where SQLite takes BEGIN
// IMMEDIATE). The engine (engine.go), the Queues and the families' rules
// stay as they are.
type Dialect interface {
	// Name names the database: "sqlite" or "postgres".
	Name() string
	// Time is t as the database stores a time; the zero time is NULL. Both
	// dialects store clock.ISO text (fixed width, so text order is time order).
	Time(t time.Time) any
	// Bind makes a statement written with ? and :name placeholders (and args
	// holding sql.Named values for the names) runnable on the database: on
	// PostgreSQL both become $n. A family writes its own queries once and
	// binds them here.
	Bind(query string, args ...any) (string, []any)
	// InTx runs fn in one transaction of db, committing when fn returns nil.
	InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error
	// Tables lists db's tables with their CREATE statements.
	Tables(ctx context.Context, db *sql.DB) ([]Table, error)
	// ClaimSelect reads the ids of up to r.Limit claimable rows in claim order.
	ClaimSelect(q *Queue, r Request) (string, []any)
	// ClaimRow claims row id if it is still claimable, RETURNING returning.
	ClaimRow(q *Queue, returning string, r Request, id int64) (string, []any)
	// ClaimBatch claims up to r.Limit claimable rows in one statement,
	// RETURNING returning (in no particular order).
	ClaimBatch(q *Queue, returning string, r Request) (string, []any)
	// Settle writes sets and releases the claim, only while the row is
	// held by o: its id, owner and token, and a held status.
	Settle(q *Queue, o Owner, sets []Set) (string, []any)
	// SettleAll is Settle for every row of a batch in one statement: each
	// row gets its own values of columns, only while it is held by its own
	// owner and token, RETURNING the id of each row it changed. The text
	// depends on the Queue, the columns and (on PostgreSQL) the values'
	// types, never on the values or their number.
	SettleAll(q *Queue, columns []string, rows []Settlement) (string, []any)
	// Claimed reads back the rows of ids, RETURNING-style columns in
	// claim order: a batch claim's rows in the order the claim took them.
	Claimed(q *Queue, returning string, ids []int64) (string, []any)
	// Update writes sets on row id and releases its claim whoever holds
	// it: the unfenced write that BEFORE scenarios reproduce.
	Update(q *Queue, id int64, sets []Set) (string, []any)
	// NextDue selects one nullable column, the earliest moment after now at
	// which a live row that is not claimable becomes claimable (a due time
	// passing or a lease ending), as clock.ISO text.
	NextDue(q *Queue, now time.Time) (string, []any)
}
