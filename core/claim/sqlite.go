package claim

import (
	"context"
	"database/sql"
	"time"

	"outboxlab/core/sqlitedb"
)

// SQLite is the dialect of the lab's SQLite files. Its claim needs no row
// locks: every transaction is BEGIN IMMEDIATE (see sqlitedb), so one claim
// runs at a time and its read and its update cannot interleave with another's.
var SQLite Dialect = sqliteDialect{}

type sqliteDialect struct{}

func (sqliteDialect) Name() string { return "sqlite" }

func (sqliteDialect) Time(t time.Time) any { return sqlitedb.NullTime(t) }

// Bind leaves the statement as it is: SQLite reads ? and :name itself.
func (sqliteDialect) Bind(query string, args ...any) (string, []any) { return query, args }

func (sqliteDialect) ClaimSelect(q *Queue, r Request) (string, []any) { return q.claimSelect(r, "") }

func (sqliteDialect) ClaimRow(q *Queue, returning string, r Request, id int64) (string, []any) {
	return q.claimRow(returning, r, id)
}

func (d sqliteDialect) ClaimBatch(q *Queue, returning string, r Request) (string, []any) {
	sel, _ := d.ClaimSelect(q, r)
	return q.claimBatch(returning, r, sel)
}

func (d sqliteDialect) Settle(q *Queue, o Owner, sets []Set) (string, []any) {
	return q.settle(d, o, sets)
}

func (d sqliteDialect) Update(q *Queue, id int64, sets []Set) (string, []any) {
	return q.update(d, id, sets)
}

func (sqliteDialect) NextDue(q *Queue, now time.Time) (string, []any) { return q.nextDue(now, "MAX") }

// InTx runs fn in one BEGIN IMMEDIATE transaction: it takes the write lock
// before it reads, so no two claims interleave.
func (sqliteDialect) InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	return sqlitedb.InTx(ctx, db, fn)
}

// Tables lists the tables with their CREATE statements as SQLite keeps
// them, in creation order.
func (sqliteDialect) Tables(ctx context.Context, db *sql.DB) ([]Table, error) {
	return sqlitedb.Tables(ctx, db)
}
