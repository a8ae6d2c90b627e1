package claim

import (
	"context"
	"database/sql"
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

// SettleAll reads the batch's rows from a VALUES list of placeholders,
// padded with rows of NULLs (which match no row) to the next power of two,
// so that a drain's batches of any size share a few statement texts.
func (d sqliteDialect) SettleAll(q *Queue, columns []string, rows []Settlement) (string, []any) {
	sh, values := shapeOf(d, columns, rows)
	names := []string{`claim_id`, `claim_token`}
	if !sh.ownerSame {
		names = append(names, `claim_owner`)
	}
	for i, same := range sh.same {
		if !same {
			names = append(names, `set_`+strconv.Itoa(i))
		}
	}
	selected := make([]string, len(names))
	for i, n := range names {
		selected[i] = `column` + strconv.Itoa(i+1) + ` AS ` + n
	}
	size := 1
	for size < len(rows) {
		size *= 2
	}
	before, after := sh.args(rows, values)
	args := make([]any, 0, len(before)+size*len(names)+len(after))
	args = append(args, before...)
	tuple := `(` + strings.Repeat(`?, `, len(names)-1) + `?)`
	var from strings.Builder
	from.WriteString(`(SELECT ` + strings.Join(selected, ", ") + ` FROM (VALUES `)
	for r := range size {
		if r > 0 {
			from.WriteString(", ")
		}
		from.WriteString(tuple)
		if r >= len(rows) {
			args = append(args, make([]any, len(names))...)
			continue
		}
		args = append(args, rows[r].Owner.ID, rows[r].Owner.Token)
		if !sh.ownerSame {
			args = append(args, rows[r].Owner.Owner)
		}
		for i, same := range sh.same {
			if !same {
				args = append(args, values[r][i])
			}
		}
	}
	from.WriteString(`)) AS c`)
	return q.settleAll(columns, sh, from.String()), append(args, after...)
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
