package main

import (
	"context"
	"errors"
	"fmt"
)

// Worker is one worker process's loop over the outbox: claim, ask the
// provider, record, sleep, done (section 7.2). Two or three of them run at
// once: Day 15 makes sure that a message has one owner at a time.
type Worker struct {
	cfg Config
	lab *Lab
	db  *DB
}

// claimed is one message this worker has just claimed.
type claimed struct {
	id    int64
	key   string // the payment's key, PAY-001 …
	token int64  // its ClaimToken under this claim
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
// first, and counts the attempt (AttemptCount + 1) at claim time.
func (w *Worker) claim(ctx context.Context) ([]claimed, error) {
	now := timeText(w.lab.Now())
	var batch []claimed
	err := w.db.InTx(ctx, func() error {
		batch = nil
		// TODO(Day 15) #1: a Processing message whose lease has run out
		// (LockedUntilUtc < $1) is claimable too: its worker died or stalled.
		rows, err := w.db.conn.QueryContext(ctx, `SELECT Id, MessageKey, ClaimToken
			  FROM OutboxMessages
			 WHERE Status = 'Pending' AND $1 <> ''
			 ORDER BY CreatedAtUtc, Id
			 LIMIT $2`+w.db.forUpdate(), now, w.cfg.BatchSize)
		if err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		var found []claimed
		for rows.Next() {
			var m claimed
			if err := rows.Scan(&m.id, &m.key, &m.token); err != nil {
				rows.Close()
				return fmt.Errorf("claim: %w", err)
			}
			found = append(found, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		for _, m := range found {
			lease := timeText(w.lab.Now() + w.cfg.LeaseMS)
			// TODO(Day 15) #2: the fencing token: ClaimToken = ClaimToken + 1
			// in this UPDATE, and m.token++, so that a record can tell this
			// claim from the next one.
			_, err := w.db.Exec(ctx, `UPDATE OutboxMessages
				   SET Status = 'Processing', LockedBy = $1, LockedUntilUtc = $2,
				       AttemptCount = AttemptCount + 1
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

// record writes what the provider said, in one transaction: the payment Paid
// with the provider's transaction id (or Failed when declined), the message
// Processed.
func (w *Worker) record(ctx context.Context, m claimed, s Status) error {
	if s.Failure != "" {
		return fmt.Errorf("payment %s: %s (Day 15's provider never fails a status check)", m.key, s.Failure)
	}
	now := timeText(w.lab.Now())
	return w.db.InTx(ctx, func() error {
		// TODO(Day 15) #3: only if the message is still yours under this claim:
		// add AND Status = 'Processing' AND LockedBy = $3 AND ClaimToken = $4
		// (w.cfg.WorkerID, m.token); when no row changed, return errClaimLost
		// and touch nothing else: a stalled worker's late answer must change
		// nothing.
		_, err := w.db.Exec(ctx, `UPDATE OutboxMessages
			   SET Status = 'Processed', ProcessedAtUtc = $2, LockedBy = NULL, LockedUntilUtc = NULL
			 WHERE Id = $1`, m.id, now)
		if err != nil {
			return fmt.Errorf("complete message %d: %w", m.id, err)
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
	})
}

// nextWake is when something may next be claimable; live is false when no
// message is left to claim.
func (w *Worker) nextWake(ctx context.Context) (wakeMS int64, live bool, err error) {
	// TODO(Day 15) #4: a Processing message is live too (another worker owns
	// it, or its worker died): wake when its lease runs out, at
	// LockedUntilUtc (the loop adds 1 ms), and claim it then.
	var count int
	err = w.db.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM OutboxMessages WHERE Status = 'Pending'`).Scan(&count)
	if err != nil {
		return 0, false, fmt.Errorf("find the next wake time: %w", err)
	}
	return w.lab.Now(), count > 0, nil
}
