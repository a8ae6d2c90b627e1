package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
)

// The naive claim is what a worker does before Day 15: read the oldest
// Pending messages, then mark each one Processing in a separate statement.
// Nothing makes the read and the write one step, so two workers that both
// read before either writes take the same messages; there is no lease and no
// claim token, so a message whose worker dies stays Processing forever.
// These functions exist to reproduce exactly that; the claim is ClaimTx.

// NaiveSelectPending reads the ids of up to limit Pending messages, oldest
// first, in a plain read that locks nothing.
func (s *Store) NaiveSelectPending(ctx context.Context, limit int) ([]int64, error) {
	rows, err := s.Query(ctx, s.DB(),
		`SELECT Id FROM OutboxMessages WHERE Status = 'Pending' ORDER BY CreatedAtUtc, Id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("select pending outbox messages: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("select pending outbox messages: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// NaiveMarkProcessing marks message id Processing for worker whatever its
// state, counting the attempt, and returns what the worker now believes it
// owns. The claim token is left alone: the naive design has none, so the
// Claim it returns carries the row's unchanged token and no lease.
func (s *Store) NaiveMarkProcessing(ctx context.Context, id int64, worker string) (Claim, error) {
	c := Claim{Worker: worker}
	var maxAttempts sql.NullInt64
	if err := s.design.require("mark outbox message processing", "LockedBy", "AttemptCount"); err != nil {
		return Claim{}, err
	}
	err := s.QueryRow(ctx, s.DB(),
		`UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?, AttemptCount = AttemptCount + 1
		  WHERE Id = ?
		RETURNING `+s.claimColumns(), worker, id,
	).Scan(&c.MessageID, &c.Key, &c.Type, &c.Payload, &c.Attempt, &maxAttempts, &c.Token)
	if err != nil {
		return Claim{}, fmt.Errorf("mark outbox message %d processing: %w", id, err)
	}
	c.MaxAttempts = int(maxAttempts.Int64)
	return c, nil
}

// NaiveCompleteTx marks message id Processed without asking who owns it:
// a worker that lost the message to another still completes it.
// It reports whether a row changed. It clears the owner, and the lease and
// backoff gate where the design has them.
func (s *Store) NaiveCompleteTx(ctx context.Context, tx *sql.Tx, id int64, now time.Time) (bool, error) {
	set := `Status = 'Processed', ProcessedAtUtc = $1, LockedBy = NULL`
	for _, c := range []string{"NextAttemptUtc", "LockedUntilUtc"} {
		if s.design.Has(c) {
			set += ", " + c + " = NULL"
		}
	}
	return changed(fmt.Sprintf("complete outbox message %d", id))(tx.ExecContext(ctx,
		`UPDATE OutboxMessages SET `+set+` WHERE Id = $2`, clock.ISO(now), id))
}
