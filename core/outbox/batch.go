package outbox

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"outboxlab/core/claim"
)

// Batcher is a Store's fast path for draining, on claim.Batch: the claim
// and the completion are statements prepared once per connection, a claim
// takes up to limit messages in one UPDATE ... RETURNING, and CompleteBatchTx
// completes many owned claims in one transaction. The gates are the same as
// ClaimTx's and CompleteTx's: AttemptCount and ClaimToken move at claim time,
// and every completion is owner-checked. A Batcher is safe for use by several goroutines.
type Batcher struct {
	store *Store
	batch *claim.Batch
}

// NewBatcher prepares the fast path's statements on s. Close it before s.
func (s *Store) NewBatcher(ctx context.Context) (*Batcher, error) {
	settle := []string{"Status", "ProcessedAtUtc"}
	if s.queue.Due != "" {
		settle = append(settle, s.queue.Due)
	}
	if err := s.design.require("prepare batch claim", "LockedUntilUtc", "ClaimToken"); err != nil {
		return nil, err
	}
	b, err := s.PrepareBatch(ctx, s.queue, s.claimColumns()+", CreatedAtUtc", settle...)
	if err != nil {
		return nil, fmt.Errorf("prepare batch claim: %w", err)
	}
	return &Batcher{store: s, batch: b}, nil
}

// Close releases the prepared statements.
func (b *Batcher) Close() error { return b.batch.Close() }

// Store returns the store the batcher works on.
func (b *Batcher) Store() *Store { return b.store }

// ClaimTx claims up to limit claimable messages, oldest first, for worker,
// in one statement: each claimed row gets AttemptCount+1, ClaimToken+1 and a
// lease until now+lease, as in ClaimTx. Call it in a transaction of the store.
func (b *Batcher) ClaimTx(ctx context.Context, tx *sql.Tx, worker string, now time.Time, lease time.Duration, limit int) ([]Claim, error) {
	r := claim.Request{Owner: worker, Now: now, Lease: lease, Limit: limit}
	type claimed struct {
		Claim
		created string
	}
	var got []claimed
	err := b.batch.ClaimTx(ctx, tx, r, func(sc claim.Scanner) error {
		c := claimed{Claim: Claim{Worker: worker, LeaseUntil: r.LeaseUntil()}}
		if err := scanClaim(sc, &c.Claim, &c.created); err != nil {
			return err
		}
		got = append(got, c)
		return nil
	})
	if err != nil {
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
	values := []any{string(Processed), now}
	if b.store.queue.Due != "" {
		values = append(values, nil)
	}
	done := make([]bool, len(claims))
	for i, c := range claims {
		ok, err := b.batch.SettleTx(ctx, tx, c.owner(), values...)
		if err != nil {
			return nil, fmt.Errorf("complete outbox message %d: %w", c.MessageID, err)
		}
		done[i] = ok
	}
	return done, nil
}

// NotOwned is the error a refused transition stands for in a timeline.
func NotOwned(what string, c Claim) error {
	return fmt.Errorf("%s outbox message %d (worker %s, token %d): %w", what, c.MessageID, c.Worker, c.Token, ErrNotOwner)
}
