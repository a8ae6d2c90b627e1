package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Worker is one worker process's loop over the outbox: claim, ask the
// provider, record, back off or dead-letter, sleep, done (section 7.1).
type Worker struct {
	cfg Config
	lab *Lab
	db  *DB

	vandalised bool // garbage-rows, drops-table: done once
}

// claimed is one message this worker has just claimed.
type claimed struct {
	id          int64
	key         string // the payment's key, PAY-001 …
	attempt     int    // its AttemptCount, this delivery included
	maxAttempts int    // 0: no ceiling
	token       int64  // its ClaimToken under this claim
	claimedAt   int64  // the claim's now, epoch ms (backoff-from-claim's)
	nullMax     bool   // the row's MaxAttempts is NULL (null-max-as-zero's)
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
		if !w.vandalised && (bug("garbage-rows") || bug("drops-table") || bug("drops-change-log")) {
			w.vandalised = true
			if err := w.vandalise(ctx); err != nil {
				return err
			}
		}
		for _, m := range batch {
			// Outside any transaction: the provider call is a lab call.
			status, err := w.status(ctx, m)
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
		if bug("done-with-work-left") {
			return w.lab.Done()
		}
	}
}

// claim takes up to BatchSize claimable messages in one transaction, oldest
// first: Pending, or Processing with an expired lease, and past their backoff
// gate. The attempt is counted here, at delivery, so a worker that dies in
// the handler has still counted it. A message whose count has already reached
// its MaxAttempts is dead-lettered instead of delivered again (poison-counter).
func (w *Worker) claim(ctx context.Context) ([]claimed, error) {
	nowMS := w.lab.Now()
	now := timeText(nowMS)
	var batch, selected []claimed
	err := w.db.InTx(ctx, func() error {
		batch = nil
		rows, err := w.db.conn.QueryContext(ctx, `SELECT Id, MessageKey, AttemptCount, MaxAttempts, ClaimToken
			  FROM OutboxMessages
			 WHERE `+claimableSQL(nowMS)+`
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
			if maxAttempts.Valid && !bug("max-from-env") {
				m.maxAttempts = int(maxAttempts.Int64)
			}
			m.nullMax = !maxAttempts.Valid && bug("null-max-as-zero")
			m.claimedAt = w.lab.Now()
			found = append(found, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		if bug("select-then-update") {
			selected = found
			return nil // the UPDATE comes after a lab call, below
		}
		for _, m := range found {
			spent := m.maxAttempts > 0 && m.attempt >= m.maxAttempts
			if bug("attempt-off-by-one") {
				spent = m.maxAttempts > 0 && m.attempt > m.maxAttempts
			}
			if bug("no-max-attempts") || bug("count-on-catch") || bug("no-dead-letter-at-claim") {
				spent = false
			}
			if spent {
				if err := w.deadLetterAtClaim(ctx, m, now); err != nil {
					return err
				}
				continue
			}
			m, err := w.take(ctx, m)
			if err != nil {
				return err
			}
			batch = append(batch, m)
		}
		return nil
	})
	if err == nil && bug("select-then-update") {
		return w.updateAfterSelect(ctx, selected)
	}
	return batch, err
}

// updateAfterSelect is select-then-update's second half: a lab call (the
// other workers run and select the same rows), then an UPDATE by Id that
// does not look at what the row has become.
func (w *Worker) updateAfterSelect(ctx context.Context, selected []claimed) ([]claimed, error) {
	if len(selected) == 0 {
		return nil, nil
	}
	if err := w.lab.ClockNow(); err != nil {
		return nil, err
	}
	var batch []claimed
	err := w.db.InTx(ctx, func() error {
		for _, m := range selected {
			m, err := w.take(ctx, m)
			if err != nil {
				return err
			}
			batch = append(batch, m)
		}
		return nil
	})
	return batch, err
}

// take claims one message it has selected.
func (w *Worker) take(ctx context.Context, m claimed) (claimed, error) {
	count := ", AttemptCount = AttemptCount + 1"
	if bug("count-on-catch") {
		count = "" // counted in the catch: retryLater and deadLetter
	} else {
		m.attempt++
	}
	m.token++
	lease := timeText(w.lab.Now() + w.cfg.LeaseMS)
	_, err := w.db.Exec(ctx, `UPDATE OutboxMessages
		   SET Status = 'Processing', LockedBy = $1, LockedUntilUtc = $2,
		       ClaimToken = ClaimToken + 1`+count+`
		 WHERE Id = $3`, w.cfg.WorkerID, lease, m.id)
	if err != nil {
		return m, fmt.Errorf("claim message %d: %w", m.id, err)
	}
	return m, nil
}

// deadLetterAtClaim parks a message that was delivered MaxAttempts times
// without ever being recorded: each delivery killed its worker.
func (w *Worker) deadLetterAtClaim(ctx context.Context, m claimed, now string) error {
	lastError := fmt.Sprintf("delivered %d times (MaxAttempts %d) and never completed: "+
		"the handler died on every delivery", m.attempt, m.maxAttempts)
	_, err := w.db.Exec(ctx, `UPDATE OutboxMessages
		   SET Status = 'DeadLettered', DeadLetteredAtUtc = $1, LastError = $2,
		       LockedBy = NULL, LockedUntilUtc = NULL
		 WHERE Id = $3`, now, lastError, m.id)
	if err != nil {
		return fmt.Errorf("dead-letter message %d at claim: %w", m.id, err)
	}
	return nil
}

// record writes what the provider said, in one transaction, only if the
// message is still this worker's under this claim.
func (w *Worker) record(ctx context.Context, m claimed, s Status) error {
	now := timeText(w.lab.Now())
	if bug("count-on-catch") && s.Failure != "" {
		m.attempt++ // the catch block's count
	}
	return w.db.InTx(ctx, func() error {
		retry := m.maxAttempts == 0 || m.attempt < m.maxAttempts
		switch {
		case bug("attempt-off-by-one"):
			retry = m.maxAttempts == 0 || m.attempt <= m.maxAttempts
		case m.nullMax:
			retry = m.attempt < 0 // NULL read as 0: attempt >= 0 always
		}
		switch {
		case s.Failure == "":
			return w.complete(ctx, m, s, now)
		case retry || bug("no-max-attempts"):
			return w.retryLater(ctx, m, s.Failure, now)
		default:
			return w.deadLetter(ctx, m, s.Failure, now)
		}
	})
}

// ignored4 reads $4 without using it (PostgreSQL wants every parameter typed).
const ignored4 = `, LastError = CASE WHEN CAST($4 AS TEXT) IS NULL THEN NULL ELSE LastError END`

// ownerCheck is the fence every record passes: the row is still Processing,
// locked by this worker, under the token of this claim.
const ownerCheck = ` WHERE Id = $1 AND Status = 'Processing' AND LockedBy = $2 AND ClaimToken = $3`

// noOwnerCheck is no-owner-check's fence: the row's id only ($2 and $3 are
// read but do not decide).
const noOwnerCheck = ` WHERE Id = $1 AND CAST($2 AS TEXT) IS NOT NULL AND CAST($3 AS INTEGER) IS NOT NULL`

// fence is the WHERE of a record.
func fence() string {
	if bug("no-owner-check") {
		return noOwnerCheck
	}
	return ownerCheck
}

// complete records an answered status check: the payment Paid with the
// provider's transaction id (or Failed when declined), the message Processed.
func (w *Worker) complete(ctx context.Context, m claimed, s Status, now string) error {
	processedAt := `ProcessedAtUtc = $4`
	if bug("processed-no-processed-at") {
		processedAt = `ProcessedAtUtc = ProcessedAtUtc` + ignored4
	}
	n, err := w.db.Exec(ctx, `UPDATE OutboxMessages
		   SET Status = 'Processed', `+processedAt+`, LockedBy = NULL, LockedUntilUtc = NULL`+fence(),
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
	updatedAt := `UpdatedAtUtc = $3`
	if bug("payment-no-updated-at") {
		updatedAt = `UpdatedAtUtc = CASE WHEN CAST($3 AS TEXT) IS NULL THEN NULL ELSE UpdatedAtUtc END`
	}
	_, err = w.db.Exec(ctx, `UPDATE Payments
		   SET Status = $1, ProviderTransactionId = $2, `+updatedAt+`
		 WHERE PaymentKey = $4`, status, txID, now, m.key)
	if err != nil {
		return fmt.Errorf("record payment %s: %w", m.key, err)
	}
	return nil
}

// retryLater puts a failed message back, not claimable before its backoff ends.
func (w *Worker) retryLater(ctx context.Context, m claimed, lastError, now string) error {
	from := w.lab.Now()
	if bug("backoff-from-claim") {
		from = m.claimedAt
	}
	next := timeText(from + w.cfg.Backoff(m.attempt))
	n, err := w.db.Exec(ctx, `UPDATE OutboxMessages
		   SET Status = 'Pending', NextAttemptUtc = $4, LastError = `+lastErrorSet()+`,
		       LockedBy = NULL, LockedUntilUtc = NULL`+caught()+fence(),
		m.id, w.cfg.WorkerID, m.token, next, lastError)
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
	if bug("dead-letter-deletes") {
		_, err := w.db.Exec(ctx, `DELETE FROM OutboxMessages WHERE Id = $1`, m.id)
		return err
	}
	var lastErrorText any = lastError
	if bug("dead-letter-no-last-error") {
		lastErrorText = nil
	}
	n, err := w.db.Exec(ctx, `UPDATE OutboxMessages
		   SET Status = 'DeadLettered', DeadLetteredAtUtc = $4, LastError = `+lastErrorSet()+`,
		       LockedBy = NULL, LockedUntilUtc = NULL`+caught()+fence(),
		m.id, w.cfg.WorkerID, m.token, now, lastErrorText)
	if err != nil {
		return fmt.Errorf("dead-letter message %d: %w", m.id, err)
	}
	if n == 0 {
		return errClaimLost
	}
	if bug("dead-letter-fakes-outcome") || bug("invents-transaction-id") {
		status, txID := "Failed", any(nil)
		if bug("invents-transaction-id") {
			status, txID = "Paid", "PRV-TX-"+m.key
		}
		_, err := w.db.Exec(ctx, `UPDATE Payments SET Status = $1, ProviderTransactionId = $2, UpdatedAtUtc = $3
			 WHERE PaymentKey = $4`, status, txID, now, m.key)
		return err
	}
	return nil
}

// lastErrorSet is what a failure writes to LastError: $5, or the first
// failure's text for keeps-first-error.
func lastErrorSet() string {
	if bug("keeps-first-error") {
		return `COALESCE(LastError, $5)`
	}
	return `$5`
}

// caught is count-on-catch's count, taken when an attempt fails.
func caught() string {
	if bug("count-on-catch") {
		return ", AttemptCount = AttemptCount + 1"
	}
	return ""
}

// nextWake is when something may next be claimable: the earliest backoff
// gate of a Pending row or lease end of a Processing one. live is false when
// no Pending or Processing row is left.
func (w *Worker) nextWake(ctx context.Context) (wakeMS int64, live bool, err error) {
	var count int
	var earliest sql.NullString
	liveRows := `Status IN ('Pending', 'Processing')`
	if bug("no-lease-expiry") {
		liveRows = `Status = 'Pending'` // a Processing row is someone else's, for ever
	}
	err = w.db.conn.QueryRowContext(ctx, `SELECT COUNT(*),
		       MIN(CASE WHEN Status = 'Pending' THEN NextAttemptUtc ELSE LockedUntilUtc END)
		  FROM OutboxMessages
		 WHERE `+liveRows).Scan(&count, &earliest)
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
