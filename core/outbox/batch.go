package outbox

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/dialect"
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
	got := make([]claimed, 0, min(max(limit, 1), 1024))
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
// transaction, owner-checked exactly like CompleteTx, in one statement for
// the whole batch. It reports, claim by claim, whether the transition
// applied. A claim no longer owned is left untouched and counted as refused
// (see Store.Refused); it does not undo the others.
func (b *Batcher) CompleteBatchTx(ctx context.Context, tx *sql.Tx, claims []Claim, now time.Time) ([]bool, error) {
	values := []any{string(Processed), now}
	if b.store.queue.Due != "" {
		values = append(values, nil)
	}
	owners := make([]claim.Owner, len(claims))
	for i, c := range claims {
		owners[i] = c.owner()
	}
	done, err := b.batch.SettleAllTx(ctx, tx, owners, values...)
	if err != nil {
		return nil, fmt.Errorf("complete %d outbox messages: %w", len(claims), err)
	}
	return done, nil
}

// Failure is one failed attempt of a batch: its claim, the moment that goes
// with the transition (a retry's next attempt, zero for at once; a dead
// letter's time) and the error that made it fail.
type Failure struct {
	Claim Claim
	At    time.Time
	Error string
}

// RetryAllTx is RetryTx for every failure of a batch in one statement: each
// message back to Pending, due again at its At, with its error. It reports,
// failure by failure, whether the transition applied (a refused one is
// counted, see Store.Refused).
func (s *Store) RetryAllTx(ctx context.Context, tx *sql.Tx, fs []Failure) ([]bool, error) {
	if !s.leased() {
		return s.eachTx(fs, func(f Failure) error { return s.RetryTx(ctx, tx, f.Claim, f.At, f.Error) })
	}
	columns := []string{"Status"}
	if s.design.Has("LastError") {
		columns = append(columns, "LastError")
	}
	if s.queue.Due != "" {
		columns = append(columns, s.queue.Due)
	}
	rows := make([]claim.Settlement, len(fs))
	for i, f := range fs {
		v := []any{string(Pending)}
		if s.design.Has("LastError") {
			v = append(v, dialect.NullString(f.Error))
		}
		if s.queue.Due != "" {
			v = append(v, f.At)
		}
		rows[i] = claim.Settlement{Owner: f.Claim.owner(), Values: v}
	}
	done, err := s.SettleAllTx(ctx, tx, s.queue, columns, rows)
	if err != nil {
		return nil, fmt.Errorf("retry %d outbox messages: %w", len(fs), err)
	}
	return done, nil
}

// DeadLetterAllTx is DeadLetterTx for every failure of a batch: one
// statement parks them all, and where the design has an audit log one
// statement records the ones it parked, in the order given.
func (s *Store) DeadLetterAllTx(ctx context.Context, tx *sql.Tx, fs []Failure) ([]bool, error) {
	if err := s.design.require("dead-letter outbox message", "DeadLetteredAtUtc", "LastError"); err != nil {
		return nil, err
	}
	if !s.leased() {
		return s.eachTx(fs, func(f Failure) error { return s.DeadLetterTx(ctx, tx, f.Claim, f.At, f.Error) })
	}
	columns := []string{"Status", "DeadLetteredAtUtc", "LastError"}
	if s.queue.Due != "" {
		columns = append(columns, s.queue.Due)
	}
	rows := make([]claim.Settlement, len(fs))
	for i, f := range fs {
		v := []any{string(DeadLettered), f.At, dialect.NullString(f.Error)}
		if s.queue.Due != "" {
			v = append(v, nil)
		}
		rows[i] = claim.Settlement{Owner: f.Claim.owner(), Values: v}
	}
	done, err := s.SettleAllTx(ctx, tx, s.queue, columns, rows)
	if err != nil {
		return nil, fmt.Errorf("dead-letter %d outbox messages: %w", len(fs), err)
	}
	if !s.design.audit {
		return done, nil
	}
	var entries []auditEntry
	for i, f := range fs {
		if done[i] {
			entries = append(entries, auditEntry{f.At, f.Claim.Worker, "dead-lettered", f.Claim.MessageID,
				fmt.Sprintf("%s after attempt %d: %s", f.Claim.Key, f.Claim.Attempt, f.Error)})
		}
	}
	return done, auditAllTx(ctx, tx, entries)
}

// eachTx runs one transition per failure, for a design the batch statements
// do not cover (no lease: Day 14), turning ErrNotOwner into false.
func (s *Store) eachTx(fs []Failure, transition func(Failure) error) ([]bool, error) {
	done := make([]bool, len(fs))
	for i, f := range fs {
		err := transition(f)
		if err != nil && !errors.Is(err, ErrNotOwner) {
			return nil, err
		}
		done[i] = err == nil
	}
	return done, nil
}

// NotOwned is the error a refused transition stands for in a timeline.
func NotOwned(what string, c Claim) error {
	return fmt.Errorf("%s outbox message %d (worker %s, token %d): %w", what, c.MessageID, c.Worker, c.Token, ErrNotOwner)
}
