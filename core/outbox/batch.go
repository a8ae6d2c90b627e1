package outbox

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"outboxlab/core/clock"
)

// claimSelect is the claim's read: the claimable rows, oldest first. It is
// the statement ClaimTx runs, and the subquery of Batcher's claim, so that
// both walk the partial index IX_OutboxMessages_Claimable in order.
const claimSelect = `SELECT Id FROM OutboxMessages WHERE ` + claimable + ` ORDER BY CreatedAtUtc, Id LIMIT :limit`

// batchClaim claims up to :limit rows in one statement. The subquery reads
// and the update writes inside one statement of one BEGIN IMMEDIATE
// transaction, so the gate it applies is exactly ClaimTx's.
const batchClaim = `UPDATE OutboxMessages
    SET Status = 'Processing', LockedBy = :worker, LockedUntilUtc = :lease,
        AttemptCount = AttemptCount + 1, ClaimToken = ClaimToken + 1
  WHERE Id IN (` + claimSelect + `)
RETURNING Id, MessageKey, Type, Payload, AttemptCount, MaxAttempts, ClaimToken, CreatedAtUtc`

// batchComplete is CompleteTx's transition with the same owner check.
const batchComplete = `UPDATE OutboxMessages
    SET Status = 'Processed', ProcessedAtUtc = :now, NextAttemptUtc = NULL, LockedBy = NULL, LockedUntilUtc = NULL
  WHERE ` + owned

// Batcher is a Store's fast path for draining: the claim and the completion
// are statements prepared once per connection, a claim takes up to limit
// messages in one UPDATE ... RETURNING, and CompleteBatchTx completes many
// owned claims in one transaction. The gates are the same as ClaimTx's and
// CompleteTx's: AttemptCount and ClaimToken move at claim time, and every
// completion is owner-checked. A Batcher is safe for use by several goroutines.
type Batcher struct {
	store    *Store
	claim    *sql.Stmt
	complete *sql.Stmt
}

// NewBatcher prepares the fast path's statements on s. Close it before s.
func (s *Store) NewBatcher(ctx context.Context) (*Batcher, error) {
	claim, err := s.db.PrepareContext(ctx, batchClaim)
	if err != nil {
		return nil, fmt.Errorf("prepare batch claim: %w", err)
	}
	complete, err := s.db.PrepareContext(ctx, batchComplete)
	if err != nil {
		claim.Close()
		return nil, fmt.Errorf("prepare batch completion: %w", err)
	}
	return &Batcher{store: s, claim: claim, complete: complete}, nil
}

// Close releases the prepared statements.
func (b *Batcher) Close() error {
	return errors.Join(b.claim.Close(), b.complete.Close())
}

// Store returns the store the batcher works on.
func (b *Batcher) Store() *Store { return b.store }

// ClaimTx claims up to limit claimable messages, oldest first, for worker,
// in one statement: each claimed row gets AttemptCount+1, ClaimToken+1 and a
// lease until now+lease, as in ClaimTx. Call it in a BEGIN IMMEDIATE transaction.
func (b *Batcher) ClaimTx(ctx context.Context, tx *sql.Tx, worker string, now time.Time, lease time.Duration, limit int) ([]Claim, error) {
	leaseUntil := now.Add(lease)
	rows, err := tx.StmtContext(ctx, b.claim).QueryContext(ctx,
		sql.Named("worker", worker), sql.Named("lease", clock.ISO(leaseUntil)),
		sql.Named("now", clock.ISO(now)), sql.Named("limit", limit))
	if err != nil {
		return nil, fmt.Errorf("claim outbox messages: %w", err)
	}
	defer rows.Close()
	type claimed struct {
		Claim
		created string
	}
	var got []claimed
	for rows.Next() {
		c := claimed{Claim: Claim{Worker: worker, LeaseUntil: leaseUntil}}
		var maxAttempts sql.NullInt64
		if err := rows.Scan(&c.MessageID, &c.Key, &c.Type, &c.Payload, &c.Attempt, &maxAttempts, &c.Token, &c.created); err != nil {
			return nil, fmt.Errorf("claim outbox messages: %w", err)
		}
		c.MaxAttempts = int(maxAttempts.Int64)
		got = append(got, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim outbox messages: %w", err)
	}
	// RETURNING gives no order; hand the claims out oldest first, as ClaimTx does.
	slices.SortFunc(got, func(x, y claimed) int {
		return cmp.Or(cmp.Compare(x.created, y.created), cmp.Compare(x.MessageID, y.MessageID))
	})
	claims := make([]Claim, len(got))
	for i, c := range got {
		claims[i] = c.Claim
	}
	return claims, nil
}

// Claim is ClaimTx in a transaction of its own.
func (b *Batcher) Claim(ctx context.Context, worker string, now time.Time, lease time.Duration, limit int) (claims []Claim, err error) {
	err = b.store.InTx(ctx, func(tx *sql.Tx) error {
		claims, err = b.ClaimTx(ctx, tx, worker, now, lease, limit)
		return err
	})
	return claims, err
}

// CompleteBatchTx marks each claimed message Processed in the caller's
// transaction, owner-checked exactly like CompleteTx. It reports, claim by
// claim, whether the transition applied. A claim no longer owned is left
// untouched and counted as refused (see Store.Refused); it does not undo
// the others, since its update changed nothing.
func (b *Batcher) CompleteBatchTx(ctx context.Context, tx *sql.Tx, claims []Claim, now time.Time) ([]bool, error) {
	stmt := tx.StmtContext(ctx, b.complete)
	nowText := sql.Named("now", clock.ISO(now))
	done := make([]bool, len(claims))
	for i, c := range claims {
		res, err := stmt.ExecContext(ctx, append(ownerArgs(c), nowText)...)
		if err != nil {
			return nil, fmt.Errorf("complete outbox message %d: %w", c.MessageID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("complete outbox message %d: %w", c.MessageID, err)
		}
		if n == 0 {
			b.store.refused.Add(1)
			continue
		}
		done[i] = true
	}
	return done, nil
}

// NotOwned is the error a refused completion stands for in a timeline.
func NotOwned(what string, c Claim) error {
	return fmt.Errorf("%s outbox message %d (worker %s, token %d): %w", what, c.MessageID, c.Worker, c.Token, ErrNotOwner)
}
