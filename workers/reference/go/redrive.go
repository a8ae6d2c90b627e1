package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Redrive is Day 17's audited redrive (section 7.3): approved and recorded,
// released in batches with the counters kept, each entry verified with the
// provider before its Redrives row is closed, halted at the first batch that
// comes back dead-lettered.
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

// Run redrives every dead letter, then says done.
func (r *Redrive) Run(ctx context.Context) error {
	dead, err := r.deadLetters(ctx)
	if err != nil {
		return err
	}
	if err := r.approve(ctx, dead); err != nil {
		return err
	}
	for start, batch := 0, 1; start < len(dead); start, batch = start+r.cfg.RedriveBatch, batch+1 {
		entries := dead[start:min(start+r.cfg.RedriveBatch, len(dead))]
		if err := r.release(ctx, batch, entries); err != nil {
			return err
		}
		// The lab's worker drains what was released while this one sleeps.
		if err := r.waitSettled(ctx, entries); err != nil {
			return err
		}
		failed, err := r.verify(ctx, entries)
		if err != nil {
			return err
		}
		if failed > 0 {
			break // the cause is not fixed: leave the rest parked
		}
	}
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

// approve writes the one audit row of the redrive: who approved it, why, and
// which entries.
func (r *Redrive) approve(ctx context.Context, dead []deadLetter) error {
	keys := make([]string, len(dead))
	for i, d := range dead {
		keys[i] = d.key
	}
	detail := fmt.Sprintf("approver %s; reason: %s; entries: %s; batches of %d, +%d attempts each",
		r.cfg.Approver, r.cfg.Reason, strings.Join(keys, ", "), r.cfg.RedriveBatch, r.cfg.RedriveAttempts)
	return r.db.InTx(ctx, func() error {
		_, err := r.db.Exec(ctx, `INSERT INTO AuditLog (AtUtc, Actor, Action, MessageId, Detail)
			VALUES ($1, $2, 'redrive-approved', NULL, $3)`, timeText(r.lab.Now()), r.cfg.Approver, detail)
		if err != nil {
			return fmt.Errorf("write the audit row: %w", err)
		}
		return nil
	})
}

// release puts one batch back in play in one transaction: a Redrives row
// keeping each entry's original state, then the message Pending with its
// AttemptCount kept and REDRIVE_ATTEMPTS more allowed.
func (r *Redrive) release(ctx context.Context, batch int, entries []deadLetter) error {
	now := timeText(r.lab.Now())
	return r.db.InTx(ctx, func() error {
		for _, d := range entries {
			var generation int
			err := r.db.conn.QueryRowContext(ctx, `SELECT COUNT(*) + 1 FROM Redrives WHERE MessageId = $1`, d.id).Scan(&generation)
			if err != nil {
				return fmt.Errorf("count the redrives of %s: %w", d.key, err)
			}
			_, err = r.db.Exec(ctx, `INSERT INTO Redrives (MessageId, MessageKey, Generation, Batch, Approver, Reason,
				    RequestedAtUtc, OriginalAttemptCount, OriginalMaxAttempts, OriginalLastError, OriginalDeadLetteredAtUtc)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
				d.id, d.key, generation, batch, r.cfg.Approver, r.cfg.Reason, now,
				d.attemptCount, d.maxAttempts, d.lastError, d.deadAt)
			if err != nil {
				return fmt.Errorf("record the redrive of %s: %w", d.key, err)
			}
			n, err := r.db.Exec(ctx, `UPDATE OutboxMessages
				   SET Status = 'Pending', MaxAttempts = AttemptCount + $1, NextAttemptUtc = NULL
				 WHERE Id = $2 AND Status = 'DeadLettered'`, r.cfg.RedriveAttempts, d.id)
			if err != nil {
				return fmt.Errorf("release %s: %w", d.key, err)
			}
			if n != 1 {
				return fmt.Errorf("release %s: it is no longer dead-lettered", d.key)
			}
		}
		return nil
	})
}

// waitSettled sleeps the interval, then on until every entry of the batch is
// Processed or DeadLettered again.
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

// verify asks the provider about each Processed entry and closes its
// Redrives row only when the provider and the payment row agree. It returns
// how many entries did not close.
func (r *Redrive) verify(ctx context.Context, entries []deadLetter) (failed int, err error) {
	for _, d := range entries {
		var status string
		if err := r.db.conn.QueryRowContext(ctx, `SELECT Status FROM OutboxMessages WHERE Id = $1`, d.id).Scan(&status); err != nil {
			return 0, fmt.Errorf("read %s: %w", d.key, err)
		}
		outcome, verifiedTx := "DeadLetteredAgain", sql.NullString{}
		if status == "Processed" {
			s, err := r.lab.Status(d.key, d.id) // a lab call: outside any transaction
			if err != nil {
				return 0, err
			}
			agrees, err := r.agrees(ctx, d.key, s)
			if err != nil {
				return 0, err
			}
			outcome = "VerificationFailed"
			if agrees {
				outcome, verifiedTx = "Closed", sql.NullString{String: s.TransactionID, Valid: s.TransactionID != ""}
			}
		}
		if outcome != "Closed" {
			failed++
		}
		var closedAt sql.NullString
		if outcome == "Closed" {
			closedAt = sql.NullString{String: timeText(r.lab.Now()), Valid: true}
		}
		err := r.db.InTx(ctx, func() error {
			_, err := r.db.Exec(ctx, `UPDATE Redrives SET Outcome = $1, VerifiedTransactionId = $2, ClosedAtUtc = $3
				 WHERE MessageId = $4 AND Outcome = 'Replaying'`, outcome, verifiedTx, closedAt, d.id)
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("close the redrive of %s: %w", d.key, err)
		}
	}
	return failed, nil
}

// agrees reports whether the provider's answer and the payment row tell the
// same story: Paid with the same transaction id, or Declined and Failed.
func (r *Redrive) agrees(ctx context.Context, key string, s Status) (bool, error) {
	var status string
	var txID sql.NullString
	err := r.db.conn.QueryRowContext(ctx, `SELECT Status, ProviderTransactionId FROM Payments WHERE PaymentKey = $1`, key).Scan(&status, &txID)
	if err != nil {
		return false, fmt.Errorf("read payment %s: %w", key, err)
	}
	switch s.Outcome {
	case "Paid":
		return status == "Paid" && txID.String == s.TransactionID, nil
	case "Declined":
		return status == "Failed" && !txID.Valid, nil
	}
	return false, nil
}
