package wassal

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
)

// The naive claim is what a worker does before Day 15: read the oldest
// Pending messages, then mark each one Processing in a separate statement.
// Nothing makes the read and the write one step, so two workers that both
// read before either writes take the same messages; there is no lease and no
// claim token, so a message whose worker dies stays Processing forever.
// These functions exist to reproduce exactly that; the claim is the store's
// ClaimTx.

// naiveSelectPending reads the ids of up to limit Pending messages, oldest
// first, in a plain read that locks nothing.
func naiveSelectPending(ctx context.Context, s *outbox.Store, limit int) ([]int64, error) {
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

// naiveMarkProcessing marks message id Processing for worker whatever its
// state, counting the attempt, and returns what the worker now believes it
// owns. The claim token is left alone: the naive design has none, so the
// Claim it returns carries the row's unchanged token and no lease.
func naiveMarkProcessing(ctx context.Context, s *outbox.Store, id int64, worker string) (outbox.Claim, error) {
	d := s.Design()
	if !d.HasOutbox() {
		return outbox.Claim{}, fmt.Errorf("mark outbox message processing: the %s design has no outbox", d.Name())
	}
	for _, col := range []string{"LockedBy", "AttemptCount"} {
		if !d.Has(col) {
			return outbox.Claim{}, fmt.Errorf("mark outbox message processing: the %s outbox has no %s column", d.Name(), col)
		}
	}
	// What the claim returns, a column the design lacks read as zero.
	returning := []string{"Id", "MessageKey", "Type", "Payload", "AttemptCount", "MaxAttempts", "ClaimToken"}
	for i, col := range returning {
		switch {
		case d.Has(col):
		case col == "ClaimToken":
			returning[i] = "0"
		default:
			returning[i] = "NULL"
		}
	}
	c := outbox.Claim{Worker: worker}
	var maxAttempts sql.NullInt64
	err := s.QueryRow(ctx, s.DB(),
		`UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?, AttemptCount = AttemptCount + 1
		  WHERE Id = ?
		RETURNING `+strings.Join(returning, ", "), worker, id,
	).Scan(&c.MessageID, &c.Key, &c.Type, &c.Payload, &c.Attempt, &maxAttempts, &c.Token)
	if err != nil {
		return outbox.Claim{}, fmt.Errorf("mark outbox message %d processing: %w", id, err)
	}
	c.MaxAttempts = int(maxAttempts.Int64)
	return c, nil
}

// naiveCompleteTx marks message id Processed without asking who owns it:
// a worker that lost the message to another still completes it.
// It reports whether a row changed. It clears the owner, and the lease and
// backoff gate where the design has them.
func naiveCompleteTx(ctx context.Context, s *outbox.Store, tx *sql.Tx, id int64, now time.Time) (bool, error) {
	set := `Status = 'Processed', ProcessedAtUtc = ?, LockedBy = NULL`
	for _, c := range []string{"NextAttemptUtc", "LockedUntilUtc"} {
		if s.Design().Has(c) {
			set += ", " + c + " = NULL"
		}
	}
	res, err := s.Exec(ctx, tx, `UPDATE OutboxMessages SET `+set+` WHERE Id = ?`, clock.ISO(now), id)
	if err != nil {
		return false, fmt.Errorf("complete outbox message %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("complete outbox message %d: %w", id, err)
	}
	return n > 0, nil
}
