package grade

import (
	"fmt"
	"strconv"

	"outboxlab/core/sqlitedb"
)

// Turn accounting: at every turn boundary the rows a worker changed are read
// from the change log and attributed to its turn, and an open transaction is
// found; owns reads those rows to tell which messages a worker claimed.

// boundary ends the turn of s (or its start) as the lab sees it: the rows
// it changed are read from the change log and attributed to it, and a
// transaction it left open is found.
func (r *run) boundary(s *slot) {
	turnIdx := -1
	if r.holder == s {
		turnIdx = len(r.turns) - 1
	}
	news, err := readChanges(r.ctx, r.db, r.lastSeq)
	if err != nil {
		r.violate(ruleSchema, "the change log cannot be read: %v", oneLine(err))
	}
	for _, c := range news {
		c.Turn = turnIdx
		r.lastSeq = c.Seq
		r.changes = append(r.changes, c)
		who := s.id
		if turnIdx < 0 {
			r.violate(ruleOwnTurn, "%s row %d changed (%s) outside a turn of %s (before its hello)",
				c.Table, c.RowID, c.Op, s.id)
			who = "(no turn)"
		}
		r.log(who, "%s", describeChange(c))
	}
	if s.state == running || s.state == starting {
		if held, what := r.holdsTransaction(s); held {
			r.violate(ruleNoTx, "%s held %s across a lab call", s.id, what)
			r.log(s.id, "holds %s across a lab call", what)
		}
	}
}

// holdsTransaction reports whether s left a transaction open: on SQLite a
// write lock the lab's BEGIN IMMEDIATE cannot take at once, on PostgreSQL a
// session of s idle in transaction.
func (r *run) holdsTransaction(s *slot) (bool, string) {
	if r.pg {
		var n int
		err := r.db.QueryRowContext(r.ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND state LIKE 'idle in transaction%'`, s.appName).Scan(&n)
		return err == nil && n > 0, "an open transaction (idle in transaction)"
	}
	tx, err := r.probe.BeginTx(r.ctx, nil)
	if err != nil {
		return sqlitedb.IsBusy(err), "the database's write lock"
	}
	tx.Rollback()
	return false, ""
}

// owns reports whether s's current incarnation has claimed message id (for
// key), as the change log shows it: a worker that was stalled may ask about a
// message it lost meanwhile (its record is then refused), never about one it
// never claimed.
func (r *run) owns(s *slot, id int64, key string) (string, bool) {
	for _, c := range r.changes {
		if c.Table != "OutboxMessages" || c.RowID != id || !isClaim(c) || c.Turn < 0 {
			continue
		}
		if t := r.turns[c.Turn]; t.worker == s.id && t.inc == s.inc.n {
			if k, _ := c.value("MessageKey"); k != key {
				return fmt.Sprintf("message %d is %s's", id, k), false
			}
			return "", true
		}
	}
	if r.role() == "redrive" && r.redriven(id) {
		return "", true // the redrive verifies the entries it released
	}
	return "it never claimed it", false
}

// redriven reports whether a Redrives row for message id was written.
func (r *run) redriven(id int64) bool {
	for _, c := range r.changes {
		if c.Table == "Redrives" && c.Op == "INSERT" && c.New["messageid"] == strconv.FormatInt(id, 10) {
			return true
		}
	}
	return false
}
