package sched

import (
	"fmt"

	"outboxlab/core/clock"
	"outboxlab/grade/changelog"
)

// The lab's hold on its record: every read of the change log goes through
// the guard (changelog.Guard), on the lab's own connection, which holds the
// log rows written since its last read against the Day's tables as they
// stand. It reads at every turn's end (a lab call, an exit, a kill), after
// each step of the lab's own worker, and once more after the workers
// ended; as a turn begins it asks whether anything was written since.

// watch takes the lab's first look, before any worker runs; a run that
// continues another keeps that one's guard.
func (r *Run) watch() error {
	if r.guard != nil {
		return nil
	}
	g, err := changelog.NewGuard(r.ctx, r.cfg.DB, r.cfg.Database.Dialect(), r.cfg.Logged)
	if err != nil {
		return err
	}
	r.guard, r.lastSeq = g, g.LastSeq()
	return nil
}

// read reads the row changes since the last read. A log that does not hold
// the rows faithfully breaks RuleRecord, a schema that is not the lab's
// RuleSchema; when says when the lab looked.
func (r *Run) read(when string) []changelog.Change {
	look, err := r.guard.Next(r.ctx)
	if err != nil {
		r.Violate(RuleSchema, "%s the change log cannot be read: %v", when, changelog.OneLine(err))
		return nil
	}
	if look.Schema != "" {
		r.Violate(RuleSchema, "%s %s", when, look.Schema)
	}
	for _, p := range look.Problems {
		r.Violate(RuleRecord, "%s: %s", when, p)
	}
	for _, c := range look.News {
		r.lastSeq = max(r.lastSeq, c.Seq)
	}
	return look.News
}

// turnEnd says when the turn (or start) of w ended, for a problem found then.
func (r *Run) turnEnd(w *Worker) string {
	if r.holder != w {
		return fmt.Sprintf("before %s's hello", w.ID)
	}
	return fmt.Sprintf("at the end of %s's turn at %s", w.ID, clock.DayStamp(r.cfg.Clock.Now()))
}

// between is the lab's look as a turn begins: a row changed since the last
// turn ended was changed in no worker's turn.
func (r *Run) between() {
	if r.guard.Quiet(r.ctx) {
		return
	}
	for _, c := range r.read("between two turns at " + clock.DayStamp(r.cfg.Clock.Now())) {
		c.Turn = -1
		r.Changes = append(r.Changes, c)
		r.Violate(RuleOwnTurn, "%s row %d changed (%s) between two turns, in no worker's turn", c.Table, c.RowID, c.Op)
		r.Log("(no turn)", "%s", changelog.Describe(c))
	}
}

// unwatch reads the log once more after the workers ended: a row changed
// since breaks RuleOwnTurn, a log row the lab read and that changed since
// RuleRecord; the guard's connection is then given back.
func (r *Run) unwatch() {
	for _, c := range r.read("after the workers ended") {
		c.Turn = -1
		r.Changes = append(r.Changes, c)
		r.Violate(RuleOwnTurn, "%s row %d changed (%s) after the workers ended", c.Table, c.RowID, c.Op)
	}
	problems, err := r.guard.Rewritten(r.ctx)
	if err != nil {
		r.Violate(RuleSchema, "the change log cannot be read: %v", changelog.OneLine(err))
	}
	for _, p := range problems {
		r.Violate(RuleRecord, "%s", p)
	}
	r.guard.Close()
}
