package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Worker is one worker process's loop over the outbox: claim, ask the
// provider, record, sleep, done (section 7.1). Day 16 adds: back off or
// dead-letter.
type Worker struct {
	cfg Config
	lab *Lab
	db  *DB
}

// claimed is one message this worker has just claimed.
type claimed struct {
	id          int64
	key         string // the payment's key, PAY-001 …
	attempt     int    // its AttemptCount, this delivery included
	maxAttempts int    // 0: no ceiling
	token       int64  // its ClaimToken under this claim
}

// errClaimLost is a record refused by the owner and token check: another
// worker took the message over after this worker's lease ran out.
var errClaimLost = errors.New("claim lost")

// Run drains the outbox, then says done.
func (w *Worker) Run(ctx context.Context) error {
	for {
		batch, err := w.claim(ctx)
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			wake, live, err := w.nextWake(ctx)
			if err != nil {
				return err
			}
			if !live {
				return w.lab.Done()
			}
			if err := w.lab.SleepUntil(wake + 1); err != nil {
				return err
			}
			continue
		}
		for _, m := range batch {
			// Outside any transaction: the provider call is a lab call.
			status, err := w.lab.Status(m.key, m.id)
			if err != nil {
				return err
			}
			err = w.record(ctx, m, status)
			if errors.Is(err, errClaimLost) {
				continue // the new owner finishes it
			}
			if err != nil {
				return err
			}
		}
	}
}

// claim takes up to BatchSize claimable messages in one transaction, oldest
// first: Pending, or Processing with an expired lease.
func (w *Worker) claim(ctx context.Context) ([]claimed, error) {
	now := timeText(w.lab.Now())
	var batch []claimed
	err := w.db.InTx(ctx, func() error {
		batch = nil
		// TODO(Day 16) #2: the backoff gate: claim only rows whose
		// NextAttemptUtc IS NULL OR NextAttemptUtc <= $1 (now).
		rows, err := w.db.conn.QueryContext(ctx, `SELECT Id, MessageKey, AttemptCount, MaxAttempts, ClaimToken
			  FROM OutboxMessages
			 WHERE (Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc < $1))
			 ORDER BY CreatedAtUtc, Id
			 LIMIT $2`+w.db.forUpdate(), now, w.cfg.BatchSize)
		if err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		var found []claimed
		for rows.Next() {
			var m claimed
			var maxAttempts sql.NullInt64
			if err := rows.Scan(&m.id, &m.key, &m.attempt, &maxAttempts, &m.token); err != nil {
				rows.Close()
				return fmt.Errorf("claim: %w", err)
			}
			m.maxAttempts = w.cfg.MaxAttempts
			if maxAttempts.Valid {
				m.maxAttempts = int(maxAttempts.Int64)
			}
			found = append(found, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		for _, m := range found {
			// TODO(Day 16) #4: a message whose AttemptCount has already
			// reached its MaxAttempts (its last delivery died with its
			// worker, and was counted) is dead-lettered here instead of
			// delivered again: w.deadLetterAtClaim(ctx, m, now), and continue.
			m.token++
			lease := timeText(w.lab.Now() + w.cfg.LeaseMS)
			// TODO(Day 16) #1: count the attempt here, at claim time:
			// AttemptCount = AttemptCount + 1 in this UPDATE, and m.attempt++,
			// so that m.attempt is this delivery's number when you record it.
			_, err := w.db.Exec(ctx, `UPDATE OutboxMessages
				   SET Status = 'Processing', LockedBy = $1, LockedUntilUtc = $2,
				       ClaimToken = ClaimToken + 1
				 WHERE Id = $3`, w.cfg.WorkerID, lease, m.id)
			if err != nil {
				return fmt.Errorf("claim message %d: %w", m.id, err)
			}
			batch = append(batch, m)
		}
		return nil
	})
	return batch, err
}

// record writes what the provider said, in one transaction, only if the
// message is still this worker's under this claim.
func (w *Worker) record(ctx context.Context, m claimed, s Status) error {
	now := timeText(w.lab.Now())
	return w.db.InTx(ctx, func() error {
		if s.Failure == "" {
			return w.complete(ctx, m, s, now)
		}
		// TODO(Day 16) #4: a failed attempt with attempts left (m.attempt <
		// m.maxAttempts, or no ceiling when m.maxAttempts is 0) waits its
		// backoff; the last one dead-letters: return w.deadLetter(...).
		return w.retryLater(ctx, m, s.Failure, now)
	})
}

// ownerCheck is the fence every record passes: the row is still Processing,
// locked by this worker, under the token of this claim.
const ownerCheck = ` WHERE Id = $1 AND Status = 'Processing' AND LockedBy = $2 AND ClaimToken = $3`

// complete records an answered status check: the payment Paid with the
// provider's transaction id (or Failed when declined), the message Processed.
func (w *Worker) complete(ctx context.Context, m claimed, s Status, now string) error {
	n, err := w.db.Exec(ctx, `UPDATE OutboxMessages
		   SET Status = 'Processed', ProcessedAtUtc = $4, LockedBy = NULL, LockedUntilUtc = NULL`+ownerCheck,
		m.id, w.cfg.WorkerID, m.token, now)
	if err != nil {
		return fmt.Errorf("complete message %d: %w", m.id, err)
	}
	if n == 0 {
		return errClaimLost
	}
	var status string
	var txID any // NULL unless the provider issued one
	switch s.Outcome {
	case "Paid":
		status, txID = "Paid", s.TransactionID
	case "Declined":
		status = "Failed"
	default:
		return fmt.Errorf("payment %s: the provider answered %q", m.key, s.Outcome)
	}
	_, err = w.db.Exec(ctx, `UPDATE Payments
		   SET Status = $1, ProviderTransactionId = $2, UpdatedAtUtc = $3
		 WHERE PaymentKey = $4`, status, txID, now, m.key)
	if err != nil {
		return fmt.Errorf("record payment %s: %w", m.key, err)
	}
	return nil
}

// retryLater puts a failed message back. Today it may be claimed again at
// once, forever: the poison message is retried until the lab stops the run.
func (w *Worker) retryLater(ctx context.Context, m claimed, lastError, now string) error {
	// TODO(Day 16) #3: not claimable before its backoff ends:
	// NextAttemptUtc = timeText(w.lab.Now() + w.cfg.Backoff(m.attempt)).
	n, err := w.db.Exec(ctx, `UPDATE OutboxMessages
		   SET Status = 'Pending', LastError = $4,
		       LockedBy = NULL, LockedUntilUtc = NULL`+ownerCheck,
		m.id, w.cfg.WorkerID, m.token, lastError)
	if err != nil {
		return fmt.Errorf("retry message %d later: %w", m.id, err)
	}
	if n == 0 {
		return errClaimLost
	}
	return nil
}

// deadLetter parks a message whose last allowed attempt failed. The payment
// stays PendingConfirmation: a dead letter stops the retries, it invents no
// outcome. The row is kept, with the error that put it there.
func (w *Worker) deadLetter(ctx context.Context, m claimed, lastError, now string) error {
	// TODO(Day 16) #4: one UPDATE behind ownerCheck: Status = 'DeadLettered',
	// DeadLetteredAtUtc = now, LastError = lastError, LockedBy and
	// LockedUntilUtc NULL; when no row changed, return errClaimLost (see
	// retryLater). Never delete the row, never touch the payment.
	return fmt.Errorf("dead-letter message %d: not written yet (see TODO(Day 16) #4)", m.id)
}

// deadLetterAtClaim parks, in the claim's transaction, a message that was
// delivered MaxAttempts times and whose last delivery never recorded an
// answer (its worker died).
func (w *Worker) deadLetterAtClaim(ctx context.Context, m claimed, now string) error {
	// TODO(Day 16) #4: one UPDATE of message m.id: Status = 'DeadLettered',
	// DeadLetteredAtUtc = now, a LastError naming the deliveries (m.attempt
	// of m.maxAttempts), LockedBy and LockedUntilUtc NULL. The payment stays
	// as it is.
	return fmt.Errorf("dead-letter message %d at claim: not written yet (see TODO(Day 16) #4)", m.id)
}

// nextWake is when something may next be claimable: the earliest backoff
// gate of a Pending row or lease end of a Processing one. live is false when
// no Pending or Processing row is left.
func (w *Worker) nextWake(ctx context.Context) (wakeMS int64, live bool, err error) {
	var count int
	var earliest sql.NullString
	err = w.db.conn.QueryRowContext(ctx, `SELECT COUNT(*),
		       MIN(CASE WHEN Status = 'Pending' THEN NextAttemptUtc ELSE LockedUntilUtc END)
		  FROM OutboxMessages
		 WHERE Status IN ('Pending', 'Processing')`).Scan(&count, &earliest)
	if err != nil {
		return 0, false, fmt.Errorf("find the next wake time: %w", err)
	}
	if count == 0 {
		return 0, false, nil
	}
	if !earliest.Valid {
		return w.lab.Now(), true, nil
	}
	wakeMS, err = parseTime(earliest.String)
	return wakeMS, true, err
}
