package claim

import (
	"strconv"
	"time"

	"outboxlab/core/dialect"
)

// The engine's statements in one database's words: gate.go writes each once,
// with :name and ? placeholders, and d binds it and fills in what differs
// (the claim's row lock, the two-argument maximum, how a list of rows or ids
// is passed). Each returns the statement and its arguments; the text depends
// only on the Queue, the returning and set columns and the values' types,
// never on the values, so that it can be prepared once.

// ClaimSelect reads the ids of up to r.Limit claimable rows in claim order.
func (q *Queue) ClaimSelect(d dialect.Dialect, r Request) (string, []any) {
	query, args := q.claimSelect(r, d.SkipLocked())
	return d.Bind(query, args...)
}

// ClaimRow claims row id if it is still claimable, RETURNING returning.
func (q *Queue) ClaimRow(d dialect.Dialect, returning string, r Request, id int64) (string, []any) {
	query, args := q.claimRow(returning, r, id)
	return d.Bind(query, args...)
}

// ClaimBatch claims up to r.Limit claimable rows in one statement,
// RETURNING returning (in no particular order).
func (q *Queue) ClaimBatch(d dialect.Dialect, returning string, r Request) (string, []any) {
	sel, _ := q.claimSelect(r, d.SkipLocked())
	query, args := q.claimBatch(returning, r, sel)
	return d.Bind(query, args...)
}

// Settle writes sets and releases the claim, only while the row is held by
// o: its id, owner and token, and a held status.
func (q *Queue) Settle(d dialect.Dialect, o Owner, sets []Set) (string, []any) {
	query, args := q.settle(d, o, sets)
	return d.Bind(query, args...)
}

// SettleAll is Settle for every row of a batch in one statement: each row
// gets its own values of columns, only while it is held by its own owner and
// token, RETURNING the id of each row it changed.
func (q *Queue) SettleAll(d dialect.Dialect, columns []string, rows []Settlement) (string, []any) {
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
	table := make([][]any, len(rows))
	for r, row := range rows {
		t := make([]any, 0, len(names))
		t = append(t, row.Owner.ID, row.Owner.Token)
		if !sh.ownerSame {
			t = append(t, row.Owner.Owner)
		}
		for i, same := range sh.same {
			if !same {
				t = append(t, values[r][i])
			}
		}
		table[r] = t
	}
	from, fromArgs := d.Rows(names, table)
	before, after := sh.args(rows, values)
	args := append(append(before, fromArgs...), after...)
	return d.Bind(q.settleAll(columns, sh, from+` AS c`), args...)
}

// ClaimedRows reads back the rows of ids, RETURNING-style columns in claim
// order: a batch claim's rows in the order the claim took them.
func (q *Queue) ClaimedRows(d dialect.Dialect, returning string, ids []int64) (string, []any) {
	in, arg := d.IDs(ids)
	return d.Bind(q.claimed(returning, in), arg)
}

// Update writes sets on row id and releases its claim whoever holds it: the
// unfenced write that BEFORE scenarios reproduce.
func (q *Queue) Update(d dialect.Dialect, id int64, sets []Set) (string, []any) {
	query, args := q.update(d, id, sets)
	return d.Bind(query, args...)
}

// NextDue selects one nullable column, the earliest moment after now at
// which a live row that is not claimable becomes claimable (a due time
// passing or a lease ending), as clock.ISO text. Its subquery is named:
// PostgreSQL before 16 requires it.
func (q *Queue) NextDue(d dialect.Dialect, now time.Time) (string, []any) {
	query, args := q.nextDue(now, d.Greatest())
	return d.Bind(query+` AS due`, args...)
}

// Renew moves the lease of the row o claimed to until, only while o still
// holds it and its lease has not ended at now.
func (q *Queue) Renew(d dialect.Dialect, o Owner, now, until time.Time) (string, []any) {
	query, args := q.renew(d, o, now, until)
	return d.Bind(query, args...)
}
