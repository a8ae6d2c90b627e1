package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/sqlitedb"
)

// Status is an outbox message's state.
type Status string

// The outbox states. Processed and DeadLettered are terminal.
const (
	Pending      Status = "Pending"
	Processing   Status = "Processing"
	Processed    Status = "Processed"
	DeadLettered Status = "DeadLettered"
)

// NewMessage is what a producer writes to the outbox.
type NewMessage struct {
	Key         string // business key, e.g. PAY-003
	Type        string
	Payload     string // JSON; "{}" when empty
	MaxAttempts int    // 0: no ceiling
	CreatedAt   time.Time
}

// Message is one outbox row as stored.
type Message struct {
	ID             int64
	Key            string
	Type           string
	Payload        string
	Status         Status
	AttemptCount   int
	MaxAttempts    int // 0: no ceiling
	NextAttemptAt  time.Time
	LastError      string
	LockedBy       string
	LockedUntil    time.Time
	ClaimToken     int64
	CreatedAt      time.Time
	ProcessedAt    time.Time
	DeadLetteredAt time.Time
}

// Claim is a worker's ownership of one message for one attempt. Transitions
// apply only while the row still carries this claim's worker and token.
type Claim struct {
	MessageID   int64
	Key         string
	Type        string
	Payload     string
	Worker      string
	Token       int64
	Attempt     int // AttemptCount after the claim incremented it
	MaxAttempts int // 0: no ceiling
	LeaseUntil  time.Time
}

// EnqueueTx writes a message in the caller's transaction, so that it commits
// or rolls back together with the business row it describes.
func EnqueueTx(ctx context.Context, tx *sql.Tx, m NewMessage) (int64, error) {
	payload := m.Payload
	if payload == "" {
		payload = "{}"
	}
	var maxAttempts any
	if m.MaxAttempts > 0 {
		maxAttempts = m.MaxAttempts
	}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO OutboxMessages (MessageKey, Type, Payload, MaxAttempts, CreatedAtUtc) VALUES (?, ?, ?, ?, ?)`,
		m.Key, m.Type, payload, maxAttempts, clock.ISO(m.CreatedAt))
	if err != nil {
		return 0, fmt.Errorf("enqueue outbox message %s: %w", m.Key, err)
	}
	return res.LastInsertId()
}

// Enqueue writes a message in a transaction of its own.
func (s *Store) Enqueue(ctx context.Context, m NewMessage) (id int64, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		id, err = EnqueueTx(ctx, tx, m)
		return err
	})
	return id, err
}

// claimable is the claim's gate: live, not leased by anyone (or the lease has
// expired), and past its backoff.
const claimable = `Status IN ('Pending', 'Processing')
   AND (Status = 'Pending' OR LockedUntilUtc < :now)
   AND (NextAttemptUtc IS NULL OR NextAttemptUtc <= :now)`

// ClaimTx claims up to limit claimable messages, oldest first, for worker.
// Each claim is a conditional update that increments AttemptCount and
// ClaimToken and leases the row until now+lease. Call it in a BEGIN IMMEDIATE
// transaction (every Store transaction is one) so no two claims interleave.
func ClaimTx(ctx context.Context, tx *sql.Tx, worker string, now time.Time, lease time.Duration, limit int) ([]Claim, error) {
	nowText := sql.Named("now", clock.ISO(now))
	rows, err := tx.QueryContext(ctx,
		`SELECT Id FROM OutboxMessages WHERE `+claimable+` ORDER BY CreatedAtUtc, Id LIMIT :limit`,
		nowText, sql.Named("limit", limit))
	if err != nil {
		return nil, fmt.Errorf("claim outbox message: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("claim outbox message: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim outbox message: %w", err)
	}

	leaseUntil := now.Add(lease)
	claims := make([]Claim, 0, len(ids))
	for _, id := range ids {
		c := Claim{Worker: worker, LeaseUntil: leaseUntil}
		var maxAttempts sql.NullInt64
		err := tx.QueryRowContext(ctx,
			`UPDATE OutboxMessages
			    SET Status = 'Processing', LockedBy = :worker, LockedUntilUtc = :lease,
			        AttemptCount = AttemptCount + 1, ClaimToken = ClaimToken + 1
			  WHERE Id = :id AND `+claimable+`
			RETURNING Id, MessageKey, Type, Payload, AttemptCount, MaxAttempts, ClaimToken`,
			sql.Named("worker", worker), sql.Named("lease", clock.ISO(leaseUntil)),
			sql.Named("id", id), nowText,
		).Scan(&c.MessageID, &c.Key, &c.Type, &c.Payload, &c.Attempt, &maxAttempts, &c.Token)
		if err == sql.ErrNoRows {
			continue // taken between the read and the update; cannot happen under BEGIN IMMEDIATE
		}
		if err != nil {
			return nil, fmt.Errorf("claim outbox message %d: %w", id, err)
		}
		c.MaxAttempts = int(maxAttempts.Int64)
		claims = append(claims, c)
	}
	return claims, nil
}

// Claim claims up to limit messages in a transaction of its own.
func (s *Store) Claim(ctx context.Context, worker string, now time.Time, lease time.Duration, limit int) (claims []Claim, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		claims, err = ClaimTx(ctx, tx, worker, now, lease, limit)
		return err
	})
	return claims, err
}

// owned is the condition every transition after a claim carries.
const owned = `Id = :id AND Status = 'Processing' AND LockedBy = :worker AND ClaimToken = :token`

func ownerArgs(c Claim) []any {
	return []any{sql.Named("id", c.MessageID), sql.Named("worker", c.Worker), sql.Named("token", c.Token)}
}

// transition runs an owner-checked update and turns "no row matched" into ErrNotOwner.
func (s *Store) transition(ctx context.Context, tx *sql.Tx, what string, c Claim, set string, args ...any) error {
	res, err := tx.ExecContext(ctx, `UPDATE OutboxMessages SET `+set+` WHERE `+owned, append(args, ownerArgs(c)...)...)
	if err != nil {
		return fmt.Errorf("%s outbox message %d: %w", what, c.MessageID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s outbox message %d: %w", what, c.MessageID, err)
	}
	if n == 0 {
		s.refused.Add(1)
		return fmt.Errorf("%s outbox message %d (worker %s, token %d): %w", what, c.MessageID, c.Worker, c.Token, ErrNotOwner)
	}
	return nil
}

// CompleteTx marks a claimed message Processed.
func (s *Store) CompleteTx(ctx context.Context, tx *sql.Tx, c Claim, now time.Time) error {
	return s.transition(ctx, tx, "complete", c,
		`Status = 'Processed', ProcessedAtUtc = :now, NextAttemptUtc = NULL, LockedBy = NULL, LockedUntilUtc = NULL`,
		sql.Named("now", clock.ISO(now)))
}

// RetryTx puts a claimed message back to Pending, claimable again at next
// (immediately when next is zero), with the error that made it fail.
func (s *Store) RetryTx(ctx context.Context, tx *sql.Tx, c Claim, next time.Time, lastError string) error {
	return s.transition(ctx, tx, "retry", c,
		`Status = 'Pending', NextAttemptUtc = :next, LastError = :err, LockedBy = NULL, LockedUntilUtc = NULL`,
		sql.Named("next", sqlitedb.NullTime(next)), sql.Named("err", sqlitedb.NullString(lastError)))
}

// DeadLetterTx parks a claimed message: terminal, out of the claim's way, its
// error kept, no next attempt and no owner left on it. The transition is
// written to the audit log in the same transaction.
func (s *Store) DeadLetterTx(ctx context.Context, tx *sql.Tx, c Claim, now time.Time, lastError string) error {
	err := s.transition(ctx, tx, "dead-letter", c,
		`Status = 'DeadLettered', DeadLetteredAtUtc = :now, LastError = :err,
		 NextAttemptUtc = NULL, LockedBy = NULL, LockedUntilUtc = NULL`,
		sql.Named("now", clock.ISO(now)), sql.Named("err", sqlitedb.NullString(lastError)))
	if err != nil {
		return err
	}
	return AuditTx(ctx, tx, now, c.Worker, "dead-lettered", c.MessageID,
		fmt.Sprintf("%s after attempt %d: %s", c.Key, c.Attempt, lastError))
}

// Complete is CompleteTx in a transaction of its own.
func (s *Store) Complete(ctx context.Context, c Claim, now time.Time) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return s.CompleteTx(ctx, tx, c, now) })
}

// Retry is RetryTx in a transaction of its own.
func (s *Store) Retry(ctx context.Context, c Claim, next time.Time, lastError string) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return s.RetryTx(ctx, tx, c, next, lastError) })
}

// DeadLetter is DeadLetterTx in a transaction of its own.
func (s *Store) DeadLetter(ctx context.Context, c Claim, now time.Time, lastError string) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return s.DeadLetterTx(ctx, tx, c, now, lastError) })
}

// NextWakeup returns the earliest moment after now at which something that is
// not claimable now becomes claimable: a backoff ending or a lease expiring.
// ok is false when no live message is waiting on either.
func (s *Store) NextWakeup(ctx context.Context, now time.Time) (at time.Time, ok bool, err error) {
	var next sql.NullString
	err = s.db.QueryRowContext(ctx,
		`SELECT MIN(t) FROM (
		   SELECT NextAttemptUtc AS t FROM OutboxMessages
		    WHERE Status = 'Pending' AND NextAttemptUtc > :now
		   UNION ALL
		   SELECT MAX(LockedUntilUtc, COALESCE(NextAttemptUtc, '')) FROM OutboxMessages
		    WHERE Status = 'Processing' AND LockedUntilUtc >= :now)`,
		sql.Named("now", clock.ISO(now))).Scan(&next)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("find next wake-up: %w", err)
	}
	at, err = sqlitedb.ParseNullTime(next)
	return at, next.Valid, err
}
