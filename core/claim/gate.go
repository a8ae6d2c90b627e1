package claim

import (
	"database/sql"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// The gate is written once for every dialect, with :name placeholders (and ?
// for the columns a transition sets); a dialect binds them its own way. What
// differs between databases (the claim's lock, MAX or GREATEST) is passed in.

// free says a live row is not held, or its lease has ended. A queue whose
// claim sets a status knows a held row by that status; one whose claim leaves
// the status alone knows it by the owner column.
func (q *Queue) free() string {
	if q.Claimed != "" {
		return `(Status <> '` + q.Claimed + `' OR ` + q.LeaseUntil + ` < :now)`
	}
	return `(` + q.Owner + ` IS NULL OR ` + q.LeaseUntil + ` < :now)`
}

// held is what every transition after a claim checks besides owner and token.
func (q *Queue) held() string {
	if q.Claimed != "" {
		return `Status = '` + q.Claimed + `'`
	}
	return `Status IN (` + q.liveList() + `) AND ` + q.Owner + ` IS NOT NULL`
}

// claimable is the claim's gate: live, free and, when the queue has a
// backoff gate, due.
func (q *Queue) claimable() string {
	gate := `Status IN (` + q.liveList() + `) AND ` + q.free()
	if q.Due != "" {
		gate += ` AND (` + q.Due + ` IS NULL OR ` + q.Due + ` <= :now)`
	}
	return gate
}

// claimSet is what a claim writes: the owner, the lease, the claimed status,
// the attempt and the fencing token.
func (q *Queue) claimSet() string {
	set := []string{q.Owner + ` = :owner`, q.LeaseUntil + ` = :lease`}
	if q.Claimed != "" {
		set = append([]string{`Status = '` + q.Claimed + `'`}, set...)
	}
	if q.Attempts != "" {
		set = append(set, q.Attempts+` = `+q.Attempts+` + 1`)
	}
	return strings.Join(append(set, q.Token+` = `+q.Token+` + 1`), ", ")
}

// claimSelect reads the ids of up to :limit claimable rows in claim order;
// lock ends the statement (a row lock, or nothing where the transaction
// itself keeps claimers apart).
func (q *Queue) claimSelect(r Request, lock string) (string, []any) {
	return `SELECT Id FROM ` + q.Table + ` WHERE ` + q.claimable() + ` ORDER BY ` + q.Order + ` LIMIT :limit` + lock,
		[]any{sql.Named("now", clock.ISO(r.Now)), sql.Named("limit", r.limit())}
}

func (q *Queue) claimRow(returning string, r Request, id int64) (string, []any) {
	return `UPDATE ` + q.Table + ` SET ` + q.claimSet() + ` WHERE Id = :id AND ` + q.claimable() + ` RETURNING ` + returning,
		[]any{sql.Named("owner", r.Owner), sql.Named("lease", clock.ISO(r.LeaseUntil())),
			sql.Named("id", id), sql.Named("now", clock.ISO(r.Now))}
}

// claimBatch claims the rows sel (a claimSelect) reads in one statement.
func (q *Queue) claimBatch(returning string, r Request, sel string) (string, []any) {
	return `UPDATE ` + q.Table + ` SET ` + q.claimSet() + ` WHERE Id IN (` + sel + `) RETURNING ` + returning,
		[]any{sql.Named("owner", r.Owner), sql.Named("lease", clock.ISO(r.LeaseUntil())),
			sql.Named("now", clock.ISO(r.Now)), sql.Named("limit", r.limit())}
}

// sets writes each column = ?, times as d stores them.
func (q *Queue) sets(d dialect.Dialect, sets []Set) (string, []any) {
	cols := make([]string, 0, len(sets)+2)
	args := make([]any, 0, len(sets)+3)
	for _, s := range sets {
		cols = append(cols, s.Column+` = ?`)
		if t, ok := s.Value.(time.Time); ok {
			args = append(args, d.Time(t))
		} else {
			args = append(args, s.Value)
		}
	}
	return strings.Join(cols, ", "), args
}

func (q *Queue) settle(d dialect.Dialect, o Owner, sets []Set) (string, []any) {
	set, args := q.sets(d, append(sets, Set{q.Owner, nil}, Set{q.LeaseUntil, nil}))
	return `UPDATE ` + q.Table + ` SET ` + set + ` WHERE Id = ? AND ` + q.Owner + ` = ? AND ` + q.Token + ` = ? AND ` + q.held(),
		append(args, o.ID, o.Owner, o.Token)
}

// claimed reads back, in claim order, the rows of a batch claim: in
// selects their ids (a dialect's list of one argument).
func (q *Queue) claimed(returning, in string) string {
	return `SELECT ` + returning + ` FROM ` + q.Table + ` WHERE Id IN (` + in + `) ORDER BY ` + q.Order
}

// settleAll is settle for every row of a batch in one statement. A value
// that is the same for every row (the owner, a column's value) is one
// placeholder, bound once; one that differs row by row is read from from, a
// derived table c with one row per claim: claim_id and claim_token, the
// claim the row must still carry, then claim_owner unless the owner is the
// same for all, and set_i for each column i whose values differ. It returns
// the ids it changed. The placeholders of the set values come first, then
// from's, then the owner's.
func (q *Queue) settleAll(columns []string, sh settleShape, from string) string {
	set := make([]string, 0, len(columns)+2)
	for i, c := range columns {
		if sh.same[i] {
			set = append(set, c+` = ?`)
		} else {
			set = append(set, c+` = c.set_`+strconv.Itoa(i))
		}
	}
	set = append(set, q.Owner+` = NULL`, q.LeaseUntil+` = NULL`)
	owner := `c.claim_owner`
	if sh.ownerSame {
		owner = `?`
	}
	return `UPDATE ` + q.Table + ` AS t SET ` + strings.Join(set, ", ") + ` FROM ` + from +
		` WHERE t.Id = c.claim_id AND t.` + q.Owner + ` = ` + owner + ` AND t.` + q.Token + ` = c.claim_token AND ` +
		q.held() + ` RETURNING Id`
}

// settleShape says which parts of a batch's settlement are one value for
// every row.
type settleShape struct {
	ownerSame bool
	same      []bool // per column
}

// shapeOf finds rows' shape, with each value as d stores it: values[r][i]
// is row r's value of column i (a time.Time made the dialect's).
func shapeOf(d dialect.Dialect, columns []string, rows []Settlement) (sh settleShape, values [][]any) {
	sh = settleShape{ownerSame: true, same: make([]bool, len(columns))}
	values = make([][]any, len(rows))
	flat := make([]any, len(rows)*len(columns))
	// A batch's rows mostly share their times: each distinct one is
	// converted once.
	var lastTime time.Time
	var lastStored any
	for r, row := range rows {
		values[r] = flat[r*len(columns) : (r+1)*len(columns)]
		for i, v := range row.Values {
			if t, ok := v.(time.Time); ok {
				if r == 0 && i == 0 || !t.Equal(lastTime) {
					lastTime, lastStored = t, d.Time(t)
				}
				v = lastStored
			}
			values[r][i] = v
		}
		if row.Owner.Owner != rows[0].Owner.Owner {
			sh.ownerSame = false
		}
	}
	for i := range columns {
		sh.same[i] = true
		for r := range rows {
			if !sameValue(values[r][i], values[0][i]) {
				sh.same[i] = false
				break
			}
		}
	}
	return sh, values
}

// sameValue compares two stored values: NULL, text or integers.
func sameValue(a, b any) bool {
	switch a.(type) {
	case nil, string, int, int64:
		return a == b
	}
	return false
}

// sameArgs are the arguments that settleAll's statement binds before from's
// (the same values of columns) and after (the owner, when it is the same).
func (sh settleShape) args(rows []Settlement, values [][]any) (before, after []any) {
	for i, same := range sh.same {
		if same {
			before = append(before, values[0][i])
		}
	}
	if sh.ownerSame {
		after = []any{rows[0].Owner.Owner}
	}
	return before, after
}

func (q *Queue) update(d dialect.Dialect, id int64, sets []Set) (string, []any) {
	set, args := q.sets(d, append(sets, Set{q.Owner, nil}, Set{q.LeaseUntil, nil}))
	return `UPDATE ` + q.Table + ` SET ` + set + ` WHERE Id = ?`, append(args, id)
}

// nextDue is the earliest due time or lease end after now; greatest is the
// database's two-argument maximum (SQLite's scalar MAX, PostgreSQL's GREATEST).
func (q *Queue) nextDue(now time.Time, greatest string) (string, []any) {
	leaseEnd, due := q.LeaseUntil, ""
	if q.Due != "" {
		leaseEnd = greatest + `(` + q.LeaseUntil + `, COALESCE(` + q.Due + `, ''))`
		due = `SELECT ` + q.Due + ` AS t FROM ` + q.Table + `
		    WHERE Status IN (` + q.liveList() + `) AND ` + q.free() + ` AND ` + q.Due + ` > :now
		   UNION ALL
		   `
	}
	return `SELECT MIN(t) FROM (
		   ` + due + `SELECT ` + leaseEnd + ` AS t FROM ` + q.Table + `
		    WHERE ` + q.held() + ` AND ` + q.LeaseUntil + ` >= :now)`,
		[]any{sql.Named("now", clock.ISO(now))}
}

// renew moves the lease of the row o claimed to until, keeping the claim:
// only while the row is still held by o's owner and token and its lease has
// not ended at now (a lease that ended may already be another's to take, so
// a late renewal is refused, never a revival).
func (q *Queue) renew(d dialect.Dialect, o Owner, now, until time.Time) (string, []any) {
	return `UPDATE ` + q.Table + ` SET ` + q.LeaseUntil + ` = ? WHERE Id = ? AND ` + q.Owner + ` = ? AND ` + q.Token + ` = ? AND ` +
			q.held() + ` AND ` + q.LeaseUntil + ` >= ?`,
		[]any{d.Time(until), o.ID, o.Owner, o.Token, clock.ISO(now)}
}
