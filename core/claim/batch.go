package claim

import (
	"context"
	"database/sql"
	"errors"
)

// Batch is the drain's fast path on one queue: a claim of many rows in one
// statement and an owner-checked transition, both prepared once. The gates
// are ClaimTx's and SettleTx's. A Batch is safe for use by several goroutines.
type Batch struct {
	store     *Store
	queue     *Queue
	returning string
	settleSet []string
	claim     *sql.Stmt
	settle    *sql.Stmt
}

// PrepareBatch prepares the claim of q (RETURNING returning) and a
// transition that writes the columns settle, in that order. Close it before s.
func (s *Store) PrepareBatch(ctx context.Context, q *Queue, returning string, settle ...string) (*Batch, error) {
	b := &Batch{store: s, queue: q, returning: returning, settleSet: settle}
	query, _ := s.dialect.ClaimBatch(q, returning, Request{})
	claim, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	query, _ = s.dialect.Settle(q, Owner{}, b.sets(make([]any, len(settle))))
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		claim.Close()
		return nil, err
	}
	b.claim, b.settle = claim, st
	return b, nil
}

func (b *Batch) sets(values []any) []Set {
	sets := make([]Set, len(b.settleSet))
	for i, c := range b.settleSet {
		sets[i] = Set{c, values[i]}
	}
	return sets
}

// Close releases the prepared statements.
func (b *Batch) Close() error { return errors.Join(b.claim.Close(), b.settle.Close()) }

// Store returns the store the batch works on.
func (b *Batch) Store() *Store { return b.store }

// ClaimTx claims up to r.Limit rows in one statement and scans each claimed
// row's returning columns, in no particular order.
func (b *Batch) ClaimTx(ctx context.Context, tx *sql.Tx, r Request, scan func(Scanner) error) error {
	_, args := b.store.dialect.ClaimBatch(b.queue, b.returning, r)
	return scanEach(tx.StmtContext(ctx, b.claim).QueryContext(ctx, args...))(scan)
}

// SettleTx is Store.SettleTx on the prepared statement: values are written
// to the columns PrepareBatch named, in order.
func (b *Batch) SettleTx(ctx context.Context, tx *sql.Tx, o Owner, values ...any) (bool, error) {
	_, args := b.store.dialect.Settle(b.queue, o, b.sets(values))
	return b.store.settled(tx.StmtContext(ctx, b.settle).ExecContext(ctx, args...))
}
