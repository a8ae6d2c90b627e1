package sched

import (
	"fmt"

	"outboxlab/grade/changelog"
)

// Turn accounting: at every turn boundary the rows a worker changed are read
// from the change log and attributed to its turn, and an open transaction is
// found; owns reads those rows to tell which messages a worker claimed.

// boundary ends the turn of w (or its start) as the lab sees it: the rows
// it changed are read from the change log and attributed to it, and a
// transaction it left open is found.
func (r *Run) boundary(w *Worker) {
	turnIdx := -1
	if r.holder == w {
		turnIdx = len(r.Turns) - 1
	}
	for _, c := range r.read(r.turnEnd(w)) {
		c.Turn = turnIdx
		r.Changes = append(r.Changes, c)
		who := w.ID
		if turnIdx < 0 {
			r.Violate(RuleOwnTurn, "%s row %d changed (%s) outside a turn of %s (before its hello)",
				c.Table, c.RowID, c.Op, w.ID)
			who = "(no turn)"
		}
		r.Log(who, "%s", changelog.Describe(c))
	}
	if w.state == running || w.state == starting {
		if held, what := r.holdsTransaction(w); held {
			r.Violate(RuleNoTx, "%s held %s across a lab call", w.ID, what)
			r.Log(w.ID, "holds %s across a lab call", what)
		}
	}
}

// holdsTransaction reports whether w left a transaction open (the
// dialect's probe: on SQLite a write lock the lab's BEGIN IMMEDIATE cannot
// take at once, on PostgreSQL a session of w idle in transaction).
func (r *Run) holdsTransaction(w *Worker) (bool, string) {
	return r.probe.Holds(r.ctx, w.appName)
}

// IsClaim reports whether an update is a claim: the row moved to
// Processing, or a Processing row got a new owner or token.
func IsClaim(c changelog.Change) bool {
	status, _ := c.NewValue("Status")
	old, _ := c.OldValue("Status")
	return status == "Processing" && (old != "Processing" || c.Changed("ClaimToken") || c.Changed("LockedBy"))
}

// owns reports whether w's current incarnation has claimed message id (for
// key), as the change log shows it: a worker that was stalled may ask about
// a message it lost meanwhile (its record is then refused), never about one
// it never claimed.
func (r *Run) owns(w *Worker, id int64, key string) (string, bool) {
	for _, c := range r.Changes {
		if c.Table != "OutboxMessages" || c.RowID != id || !IsClaim(c) || c.Turn < 0 {
			continue
		}
		if t := r.Turns[c.Turn]; t.Worker == w.ID && t.Inc == w.inc.N {
			if k, _ := c.NewValue("MessageKey"); k != key {
				return fmt.Sprintf("message %d is %s's", id, k), false
			}
			return "", true
		}
	}
	if r.cfg.MayAsk != nil && r.cfg.MayAsk(r.Changes, id) {
		return "", true
	}
	return "it never claimed it", false
}
