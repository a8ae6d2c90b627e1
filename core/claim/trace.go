package claim

import (
	"context"
	"database/sql"
	"slices"
	"sync"

	"outboxlab/core/dialect"
)

// Trace records the statements the engine runs, in the order it runs them,
// with their parameters and the rows each affected: what --show-sql prints.
// A run asks for one by putting it in the context its stores are called
// with (WithTrace); without one, the engine records nothing. A Trace is safe
// for use by several goroutines.
type Trace struct {
	mu      sync.Mutex
	entries []Traced
}

// Traced is one statement the engine ran.
type Traced struct {
	Kind  string // what it did: claim, read back, complete, retry, dead-letter, settle, update, next due
	Query string // the statement as the database received it (its dialect's placeholders)
	Args  []any  // its parameters, in order (sql.NamedArg for a named one)
	Rows  int64  // the rows it affected or returned
	// Database is the database it ran on (a pair drives each design on a
	// database of its own): compare it, never print its location (it may
	// hold a password).
	Database dialect.Database
}

type traceKey struct{}

// WithTrace returns ctx carrying t: the engine's statements run with it are
// recorded there.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// Entries returns what was recorded so far, in order.
func (t *Trace) Entries() []Traced {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.entries)
}

// record adds one statement s ran to ctx's trace, if it carries one.
func (s *Store) record(ctx context.Context, kind, query string, args []any, rows int64) {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries = append(t.entries, Traced{Kind: kind, Query: query, Args: slices.Clone(args), Rows: rows, Database: s.database})
}

// queryEach runs query on on (on its prepared statement, see stmtQuery),
// calls scan on each row it returns and records it as kind.
func (s *Store) queryEach(ctx context.Context, on Querier, kind, query string, args []any, scan func(Scanner) error) error {
	var n int64
	err := scanEach(s.stmtQuery(ctx, on, query, args...))(func(sc Scanner) error {
		n++
		return scan(sc)
	})
	if err == nil {
		s.record(ctx, kind, query, args, n)
	}
	return err
}

// exec runs query on on (see stmtExec) and records it as kind with the rows
// it affected.
func (s *Store) exec(ctx context.Context, on Querier, kind, query string, args []any) (sql.Result, error) {
	res, err := s.stmtExec(ctx, on, query, args...)
	if err == nil {
		if n, nerr := res.RowsAffected(); nerr == nil {
			s.record(ctx, kind, query, args, n)
		}
	}
	return res, err
}

// settleKind names a transition by the status it writes: a completion, a
// retry (back to a live status with a due time), a dead-letter.
func settleKind(sets []Set) string {
	for _, set := range sets {
		if set.Column != "Status" {
			continue
		}
		switch v, _ := set.Value.(string); v {
		case "Processed", "Delivered", "Completed", "Done":
			return "complete"
		case "DeadLettered", "DeadLetter":
			return "dead-letter"
		case "Pending", "Failed", "Retry":
			return "retry"
		}
	}
	return "settle"
}

// settleValuesKind is settleKind for a batch's columns and values.
func settleValuesKind(columns []string, values []any) string {
	sets := make([]Set, 0, len(columns))
	for i, c := range columns {
		if i < len(values) {
			sets = append(sets, Set{c, values[i]})
		}
	}
	return settleKind(sets)
}
