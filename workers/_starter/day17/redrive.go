package main

import (
	"context"
	"database/sql"
	"fmt"
)

// Redrive is Day 17's redrive (section 7.3). Today it is a blind one: every
// dead letter back to Pending at once, counters and history wiped, nothing
// recorded, nothing verified. The TODOs make it audited.
type Redrive struct {
	cfg Config
	lab *Lab
	db  *DB
}

// deadLetter is a dead-lettered message as it was before the redrive.
type deadLetter struct {
	id           int64
	key          string
	attemptCount int
	maxAttempts  sql.NullInt64
	lastError    sql.NullString
	deadAt       sql.NullString
}

// Run redrives the dead letters, then says done.
func (r *Redrive) Run(ctx context.Context) error {
	dead, err := r.deadLetters(ctx)
	if err != nil {
		return err
	}
	// TODO(Day 17) #2: before any release, one AuditLog row (AtUtc = now,
	// Actor, Action, Detail) naming the approver, the reason and the
	// MessageKey of every entry.

	// TODO(Day 17) #4: release in batches of at most cfg.RedriveBatch entries,
	// numbered from 1, each batch in one transaction, waitSettled between
	// them (it sleeps cfg.RedriveIntervalMS, then on until the lab's worker
	// has settled the batch); verify each batch before the next, and stop at
	// the first batch with an entry dead-lettered again.
	if err := r.releaseAll(ctx); err != nil {
		return err
	}
	if err := r.waitSettled(ctx, dead); err != nil {
		return err
	}
	// TODO(Day 17) #5: verify: for each entry that came back Processed, ask
	// provider/status (r.lab.Status) and close its Redrives row only when
	// the answer and the payment row agree: Outcome = 'Closed',
	// VerifiedTransactionId = the answer's id (NULL when declined),
	// ClosedAtUtc = now. One that came back DeadLettered:
	// Outcome = 'DeadLetteredAgain'.
	return r.lab.Done()
}

// deadLetters are the messages to redrive, oldest first.
func (r *Redrive) deadLetters(ctx context.Context) ([]deadLetter, error) {
	rows, err := r.db.conn.QueryContext(ctx, `SELECT Id, MessageKey, AttemptCount, MaxAttempts, LastError, DeadLetteredAtUtc
		  FROM OutboxMessages WHERE Status = 'DeadLettered' ORDER BY CreatedAtUtc, Id`)
	if err != nil {
		return nil, fmt.Errorf("read dead letters: %w", err)
	}
	defer rows.Close()
	var out []deadLetter
	for rows.Next() {
		var d deadLetter
		if err := rows.Scan(&d.id, &d.key, &d.attemptCount, &d.maxAttempts, &d.lastError, &d.deadAt); err != nil {
			return nil, fmt.Errorf("read dead letters: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// releaseAll is the blind redrive: one UPDATE, every dead letter at once.
func (r *Redrive) releaseAll(ctx context.Context) error {
	// TODO(Day 17) #3: keep the counters: never reset AttemptCount; set
	// MaxAttempts = AttemptCount + cfg.RedriveAttempts, NextAttemptUtc NULL.
	// And in the same transaction, one Redrives row per entry (MessageId,
	// MessageKey, Generation 1 for a first redrive, Batch, Approver, Reason,
	// RequestedAtUtc = now, and the Original… columns from the dead letter
	// as it was; see --schema of session-17-audited-redrive).
	return r.db.InTx(ctx, func() error {
		_, err := r.db.Exec(ctx, `UPDATE OutboxMessages
			   SET Status = 'Pending', AttemptCount = 0, LastError = NULL, NextAttemptUtc = NULL,
			       DeadLetteredAtUtc = NULL
			 WHERE Status = 'DeadLettered'`)
		if err != nil {
			return fmt.Errorf("release the dead letters: %w", err)
		}
		return nil
	})
}

// waitSettled sleeps the interval, then on until every entry is Processed
// or DeadLettered again: the lab's worker drains them while this one sleeps.
func (r *Redrive) waitSettled(ctx context.Context, entries []deadLetter) error {
	wake := r.lab.Now() + r.cfg.RedriveIntervalMS
	for {
		if err := r.lab.SleepUntil(wake); err != nil {
			return err
		}
		var live int
		var earliest sql.NullString
		for _, d := range entries {
			var status string
			var gate sql.NullString
			err := r.db.conn.QueryRowContext(ctx, `SELECT Status,
				       CASE WHEN Status = 'Pending' THEN NextAttemptUtc ELSE LockedUntilUtc END
				  FROM OutboxMessages WHERE Id = $1`, d.id).Scan(&status, &gate)
			if err != nil {
				return fmt.Errorf("read %s: %w", d.key, err)
			}
			if status == "Pending" || status == "Processing" {
				live++
				if gate.Valid && (!earliest.Valid || gate.String < earliest.String) {
					earliest = gate
				}
			}
		}
		if live == 0 {
			return nil
		}
		wake = r.lab.Now() + r.cfg.RedriveIntervalMS
		if earliest.Valid {
			ms, err := parseTime(earliest.String)
			if err != nil {
				return err
			}
			wake = max(ms+1, r.lab.Now()+1)
		}
	}
}
