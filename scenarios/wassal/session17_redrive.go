package wassal

import (
	"context"
	"database/sql"
	"fmt"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
)

// redrivesSchema is Day 17's remediation record: one row per dead letter per
// redrive, keeping the entry's terminal state as it was before the replay.
const redrivesSchema = `CREATE TABLE IF NOT EXISTS Redrives (
    Id                        INTEGER PRIMARY KEY,
    MessageId                 INTEGER NOT NULL,
    MessageKey                TEXT    NOT NULL,
    Generation                INTEGER NOT NULL CHECK (Generation > 0),
    Batch                     INTEGER NOT NULL,
    Approver                  TEXT    NOT NULL,
    Reason                    TEXT    NOT NULL,
    RequestedAtUtc            TEXT    NOT NULL,
    OriginalAttemptCount      INTEGER NOT NULL,
    OriginalMaxAttempts       INTEGER,
    OriginalLastError         TEXT,
    OriginalDeadLetteredAtUtc TEXT,
    Outcome                   TEXT    NOT NULL DEFAULT 'Replaying'
                              CHECK (Outcome IN ('Replaying', 'Closed', 'DeadLetteredAgain', 'VerificationFailed')),
    VerifiedTransactionId     TEXT,
    ClosedAtUtc               TEXT
) STRICT`

// outcome is a Redrives row's Outcome, one of the codes its CHECK admits.
type outcome string

const (
	outcomeReplaying          outcome = "Replaying"
	outcomeClosed             outcome = "Closed"
	outcomeDeadLetteredAgain  outcome = "DeadLetteredAgain"
	outcomeVerificationFailed outcome = "VerificationFailed"
)

// The audit log's actions of a redrive.
const (
	actionApproved   = "redrive-approved"
	actionReleased   = "redrive-released"
	actionVerified   = "redrive-verified"
	actionUnverified = "redrive-unverified"
	actionFailed     = "redrive-failed"
	actionHalted     = "redrive-halted"
)

// redriveActions are every action a redrive writes to the audit log.
var redriveActions = []string{actionApproved, actionReleased, actionVerified, actionUnverified, actionFailed, actionHalted}

// redriveRow is one row of Redrives.
type redriveRow struct {
	id, messageID             int64
	key                       string
	generation, batch         int
	approver, reason          string
	requestedAt               string
	origAttempts, origMax     int
	origLastError, origDeadAt string
	outcome                   outcome
	verifiedTx, close         string
}

// blindRedrive is what someone does without a redrive procedure: one UPDATE
// puts every dead letter back to Pending with its counters and history wiped,
// and the ordinary worker takes them again.
func (o *session17Options) blindRedrive(ctx context.Context, run *session17Run, store *outbox.Store, clk *clock.ScenarioClock) error {
	res, err := store.Exec(ctx, store.DB(),
		`UPDATE OutboxMessages SET Status = 'Pending', AttemptCount = 0, LastError = NULL, NextAttemptUtc = NULL,
		        DeadLetteredAtUtc = NULL, LockedBy = NULL, LockedUntilUtc = NULL
		  WHERE Status = 'DeadLettered'`)
	if err != nil {
		return fmt.Errorf("reset dead letters: %w", err)
	}
	n, _ := res.RowsAffected()
	now := clk.Now()
	run.lines = append(run.lines,
		eventLine(now, "", "BLIND REDRIVE: UPDATE OutboxMessages SET Status = 'Pending',"),
		eventLine(now, "", "  AttemptCount = 0, LastError = NULL, DeadLetteredAtUtc = NULL"),
		eventLine(now, "", fmt.Sprintf("  WHERE Status = 'DeadLettered' → %s, all at once", report.Plural(n, "row"))),
		eventLine(now, "", "  no approver, no reason, no record"))
	w := &worker.Worker{ID: "worker-1", Store: store, Clock: clk, Handler: confirmVia(run.status(opAttempt)), Policy: o.policy(), Batch: 10}
	return run.stepUntilIdle(ctx, w, o.stepLimit())
}

// auditedRedrive authorises and records the redrive, then releases the dead
// letters batch by batch, replays each batch under new claims, verifies every
// replayed entry with the provider before closing it, and halts at the first
// batch that dead-letters again.
func (o *session17Options) auditedRedrive(ctx context.Context, run *session17Run, store *outbox.Store, clk *clock.ScenarioClock) error {
	now := clk.Now()
	err := store.InTx(ctx, func(tx *sql.Tx) error {
		return outbox.AuditTx(ctx, tx, now, o.Approver, actionApproved, 0, fmt.Sprintf(
			"generation 1 of %s; reason: %s; batches of %d, %s each", keysText(run.deadKeys), o.Reason, o.Batch, report.Plural(o.RedriveAttempts, "more attempt")))
	})
	if err != nil {
		return err
	}
	run.lines = append(run.lines,
		eventLine(now, "", fmt.Sprintf("AUDITED REDRIVE approved by %s: %s, batches of %d", o.Approver, report.Plural(len(run.deadKeys), "dead letter"), o.Batch)),
		eventLine(now, "", fmt.Sprintf("  reason %q; audit record written", o.Reason)))
	w := &worker.Worker{ID: "redrive-1", Store: store, Clock: clk, Handler: confirmVia(run.status(opAttempt)), Policy: o.policy(), Batch: o.Batch}
	for start := 0; start < len(run.deadKeys); start += o.Batch {
		if start > 0 {
			clk.Advance(o.BatchInterval)
		}
		keys := run.deadKeys[start:min(start+o.Batch, len(run.deadKeys))]
		run.batches = append(run.batches, keys)
		if err := o.release(ctx, run, store, clk, len(run.batches), keys); err != nil {
			return err
		}
		if err := run.stepUntilIdle(ctx, w, o.stepLimit()); err != nil {
			return err
		}
		failed, err := o.verify(ctx, run, store, clk, keys)
		if err != nil {
			return err
		}
		if failed > 0 {
			run.notRelease = run.deadKeys[start+len(keys):]
			return o.halt(ctx, run, store, clk, len(run.batches), failed, len(keys))
		}
	}
	return nil
}

// release puts one batch back in play: a Redrives row keeping each entry's
// terminal state, Pending with its AttemptCount kept and MaxAttempts raised,
// and an audit line each, in one transaction.
func (o *session17Options) release(ctx context.Context, run *session17Run, store *outbox.Store, clk *clock.ScenarioClock, batch int, keys []string) error {
	now := clk.Now()
	return store.InTx(ctx, func(tx *sql.Tx) error {
		for _, k := range keys {
			m := run.before[k]
			var gen int
			if err := store.QueryRow(ctx, tx, `SELECT COUNT(*) + 1 FROM Redrives WHERE MessageId = ?`, m.ID).Scan(&gen); err != nil {
				return fmt.Errorf("count redrives of %s: %w", k, err)
			}
			_, err := store.Exec(ctx, tx, `INSERT INTO Redrives (MessageId, MessageKey, Generation, Batch, Approver, Reason, RequestedAtUtc,
				OriginalAttemptCount, OriginalMaxAttempts, OriginalLastError, OriginalDeadLetteredAtUtc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				m.ID, k, gen, batch, o.Approver, o.Reason, clock.ISO(now), m.AttemptCount, m.MaxAttempts, m.LastError, clock.ISO(m.DeadLetteredAt))
			if err != nil {
				return fmt.Errorf("record the redrive of %s: %w", k, err)
			}
			count := m.AttemptCount
			if !o.KeepCounters {
				count = 0 // --keep-counters=false: the counter reset, as the blind UPDATE does
			}
			res, err := store.Exec(ctx, tx, `UPDATE OutboxMessages SET Status = 'Pending', AttemptCount = ?, MaxAttempts = ?, NextAttemptUtc = NULL
				WHERE Id = ? AND Status = 'DeadLettered'`, count, count+o.RedriveAttempts, m.ID)
			if err != nil {
				return fmt.Errorf("release %s: %w", k, err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return fmt.Errorf("release %s: it is no longer dead-lettered", k)
			}
			counter := fmt.Sprintf("AttemptCount %d kept", m.AttemptCount)
			if !o.KeepCounters {
				counter = fmt.Sprintf("AttemptCount %d → 0 RESET", m.AttemptCount)
			}
			detail := fmt.Sprintf("%s generation %d, batch %d: %s, MaxAttempts %d → %d; original error and dead-letter time kept in Redrives",
				k, gen, batch, counter, m.MaxAttempts, count+o.RedriveAttempts)
			if err := outbox.AuditTx(ctx, tx, now, o.Approver, actionReleased, m.ID, detail); err != nil {
				return err
			}
			run.lines = append(run.lines, eventLine(now, k, fmt.Sprintf("released (generation %d, batch %d): %s, MaxAttempts %d → %d",
				gen, batch, counter, m.MaxAttempts, count+o.RedriveAttempts)))
		}
		return nil
	})
}

// RedrivesSchema is Day 17's Redrives table as SQLite DDL: grade creates it
// for a student's redrive.
func RedrivesSchema() string { return redrivesSchema }
