package claim

import (
	"database/sql"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/sqlitedb"
)

// SQLite is the dialect of the lab's SQLite files. Its claim needs no row
// locks: every transaction is BEGIN IMMEDIATE (see sqlitedb), so one claim
// runs at a time and its read and its update cannot interleave with another's.
var SQLite Dialect = sqliteDialect{}

type sqliteDialect struct{}

func (sqliteDialect) Name() string { return "sqlite" }

func (sqliteDialect) Time(t time.Time) any { return sqlitedb.NullTime(t) }

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
func (sqliteDialect) claimable(q *Queue) string {
	gate := `Status IN (` + q.liveList() + `) AND ` + q.free()
	if q.Due != "" {
		gate += ` AND (` + q.Due + ` IS NULL OR ` + q.Due + ` <= :now)`
	}
	return gate
}

func (d sqliteDialect) ClaimSelect(q *Queue, r Request) (string, []any) {
	return `SELECT Id FROM ` + q.Table + ` WHERE ` + d.claimable(q) + ` ORDER BY ` + q.Order + ` LIMIT :limit`,
		[]any{sql.Named("now", clock.ISO(r.Now)), sql.Named("limit", r.limit())}
}

// claimSet is what a claim writes: the owner, the lease, the claimed status,
// the attempt and the fencing token.
func (sqliteDialect) claimSet(q *Queue) string {
	set := []string{q.Owner + ` = :owner`, q.LeaseUntil + ` = :lease`}
	if q.Claimed != "" {
		set = append([]string{`Status = '` + q.Claimed + `'`}, set...)
	}
	if q.Attempts != "" {
		set = append(set, q.Attempts+` = `+q.Attempts+` + 1`)
	}
	return strings.Join(append(set, q.Token+` = `+q.Token+` + 1`), ", ")
}

func (d sqliteDialect) ClaimRow(q *Queue, returning string, r Request, id int64) (string, []any) {
	return `UPDATE ` + q.Table + ` SET ` + d.claimSet(q) + ` WHERE Id = :id AND ` + d.claimable(q) + ` RETURNING ` + returning,
		[]any{sql.Named("owner", r.Owner), sql.Named("lease", clock.ISO(r.LeaseUntil())),
			sql.Named("id", id), sql.Named("now", clock.ISO(r.Now))}
}

func (d sqliteDialect) ClaimBatch(q *Queue, returning string, r Request) (string, []any) {
	sel, _ := d.ClaimSelect(q, r)
	return `UPDATE ` + q.Table + ` SET ` + d.claimSet(q) + ` WHERE Id IN (` + sel + `) RETURNING ` + returning,
		[]any{sql.Named("owner", r.Owner), sql.Named("lease", clock.ISO(r.LeaseUntil())),
			sql.Named("now", clock.ISO(r.Now)), sql.Named("limit", r.limit())}
}

func (d sqliteDialect) sets(q *Queue, sets []Set) (string, []any) {
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

func (d sqliteDialect) Settle(q *Queue, o Owner, sets []Set) (string, []any) {
	set, args := d.sets(q, append(sets, Set{q.Owner, nil}, Set{q.LeaseUntil, nil}))
	return `UPDATE ` + q.Table + ` SET ` + set + ` WHERE Id = ? AND ` + q.Owner + ` = ? AND ` + q.Token + ` = ? AND ` + q.held(),
		append(args, o.ID, o.Owner, o.Token)
}

func (d sqliteDialect) Update(q *Queue, id int64, sets []Set) (string, []any) {
	set, args := d.sets(q, append(sets, Set{q.Owner, nil}, Set{q.LeaseUntil, nil}))
	return `UPDATE ` + q.Table + ` SET ` + set + ` WHERE Id = ?`, append(args, id)
}

func (sqliteDialect) NextDue(q *Queue, now time.Time) (string, []any) {
	leaseEnd, due := q.LeaseUntil, ""
	if q.Due != "" {
		leaseEnd = `MAX(` + q.LeaseUntil + `, COALESCE(` + q.Due + `, ''))`
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
