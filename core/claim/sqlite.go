package claim

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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

// SettleAll passes the batch as one JSON array of rows [id, owner, token,
// value, ...] and reads it with json_each: one statement, one argument,
// whatever the batch's size.
func (d sqliteDialect) SettleAll(q *Queue, columns []string, rows []Settlement) (string, []any) {
	var from strings.Builder
	from.WriteString(`(SELECT value ->> 0 AS claim_id, value ->> 1 AS claim_owner, value ->> 2 AS claim_token`)
	for i := range columns {
		from.WriteString(`, value ->> ` + strconv.Itoa(i+3) + ` AS set_` + strconv.Itoa(i))
	}
	from.WriteString(` FROM json_each(?)) AS c`)
	batch := make([][]any, len(rows))
	for i, r := range rows {
		row := append(make([]any, 0, 3+len(r.Values)), r.Owner.ID, r.Owner.Owner, r.Owner.Token)
		for _, v := range r.Values {
			if t, ok := v.(time.Time); ok {
				v = d.Time(t)
			}
			row = append(row, v)
		}
		batch[i] = row
	}
	text, err := json.Marshal(batch)
	if err != nil {
		panic(fmt.Sprintf("claim: settle a batch: %v", err)) // only strings, integers and NULLs reach here
	}
	return q.settleAll(columns, from.String()), []any{string(text)}
}

// Claimed lists the ids as one JSON array.
func (sqliteDialect) Claimed(q *Queue, returning string, ids []int64) (string, []any) {
	return q.claimed(returning, `SELECT value FROM json_each(?)`), []any{jsonInts(ids)}
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
