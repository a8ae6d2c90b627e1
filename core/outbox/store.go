// Package outbox is the store behind every scenario: payments, outbox
// messages with claim, lease, backoff and dead-letter transitions, and an
// audit log, on SQLite or PostgreSQL (see claim.Open).
//
// Its statements number their placeholders ($1, $2, ...): PostgreSQL reads
// them, and so does the SQLite driver (modernc binds $N to argument N; see
// claim's TestDollarPlaceholdersOnSQLite). That lets the ...Tx functions,
// which get a transaction and no store, run on either database.
package outbox

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

//go:embed schema.sql
var Schema string

// Store is an outbox on one database, on the claim engine: the store
// (DB, Path, InTx, Tables, Refused, Close) is the engine's, the outbox table
// and its transitions are this package's.
type Store struct {
	*claim.Store
	queue  *claim.Queue
	design Design
}

// Open opens (creating if needed) the database (a SQLite file or a
// PostgreSQL run schema: see claim.Open) and applies the full schema (Full;
// a store of fewer tables opens with its Design: a course Day's is wassal.Day(n).Open).
func Open(ctx context.Context, db dialect.Database) (*Store, error) {
	return Full.Open(ctx, db)
}

// OpenExisting opens a database that must already be a lab database, seeing
// it with the full schema (Full). It never creates the file or the schema.
func OpenExisting(ctx context.Context, db dialect.Database) (*Store, error) {
	return Full.OpenExisting(ctx, db)
}

// Design returns the design the store was opened with.
func (s *Store) Design() Design { return s.design }

// Messages is the outbox table as the claim engine sees it: Pending and
// Processing rows are live, a claim moves a row to Processing, counts the
// attempt and honours the backoff gate NextAttemptUtc.
var Messages = &claim.Queue{
	Table: "OutboxMessages", Live: []string{"Pending", "Processing"}, Claimed: "Processing",
	Owner: "LockedBy", LeaseUntil: "LockedUntilUtc", Token: "ClaimToken",
	Attempts: "AttemptCount", Due: "NextAttemptUtc", Order: "CreatedAtUtc, Id",
}

// WithoutBackoff returns a view of s whose claims ignore NextAttemptUtc and
// whose transitions leave it alone: the claim of a course Day that has not
// introduced backoff yet (Days 14-15, the Day 16 BEFORE).
func (s *Store) WithoutBackoff() *Store {
	q := *s.queue
	q.Due = ""
	return &Store{Store: s.Store, queue: &q, design: s.design}
}

// Table is one table of the schema.
type Table = claim.Table

// AuditTx appends one line to the audit log.
func AuditTx(ctx context.Context, tx *sql.Tx, at time.Time, actor, action string, messageID int64, detail string) error {
	var id any
	if messageID > 0 {
		id = messageID
	}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO AuditLog (AtUtc, Actor, Action, MessageId, Detail) VALUES ($1, $2, $3, $4, $5)`,
		clock.ISO(at), actor, action, id, detail)
	if err != nil {
		return fmt.Errorf("append audit entry: %w", err)
	}
	return nil
}

// auditEntry is one line to append to the audit log.
type auditEntry struct {
	at            time.Time
	actor, action string
	messageID     int64
	detail        string
}

// auditAllTx appends entries to the audit log in order, in one statement
// per thousand.
func auditAllTx(ctx context.Context, tx *sql.Tx, entries []auditEntry) error {
	const chunk = 1000
	for from := 0; from < len(entries); from += chunk {
		var q strings.Builder
		q.WriteString(`INSERT INTO AuditLog (AtUtc, Actor, Action, MessageId, Detail) VALUES `)
		var args []any
		for i, e := range entries[from:min(len(entries), from+chunk)] {
			if i > 0 {
				q.WriteString(", ")
			}
			n := len(args)
			fmt.Fprintf(&q, "($%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5)
			var id any
			if e.messageID > 0 {
				id = e.messageID
			}
			args = append(args, clock.ISO(e.at), e.actor, e.action, id, e.detail)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("append %d audit entries: %w", len(entries), err)
		}
	}
	return nil
}

// changed turns an UPDATE's result into whether it changed a row, wrapping
// an error with what was being done: changed(what)(tx.ExecContext(...)).
func changed(what string) func(sql.Result, error) (bool, error) {
	return func(res sql.Result, err error) (bool, error) {
		if err != nil {
			return false, fmt.Errorf("%s: %w", what, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("%s: %w", what, err)
		}
		return n > 0, nil
	}
}

// ErrNotOwner is returned by a transition whose caller no longer owns the claim:
// the lease was taken over, or the message already reached another state.
var ErrNotOwner = claim.ErrNotOwner
