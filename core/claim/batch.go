package claim

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// Settlement is one row's part of a batch's transition: the claim the row
// must still carry and its values of the columns the batch writes (a nil
// writes NULL, a time.Time is written as the dialect stores times).
type Settlement struct {
	Owner  Owner
	Values []any
}

// settleChunk is the most rows one settlement statement takes: SQLite
// binds at most 32766 values, and a row takes up to eight.
const settleChunk = 1024

// SettleAllTx is SettleTx for a whole batch in one statement: each row of
// rows gets its own values of columns and its claim released, only while it
// is still held by that row's owner and token. It reports, row by row,
// whether the transition applied; each refused row changes nothing and is
// counted (Refused), and does not undo the others.
func (s *Store) SettleAllTx(ctx context.Context, tx *sql.Tx, q *Queue, columns []string, rows []Settlement) ([]bool, error) {
	done := make([]bool, len(rows))
	if len(rows) == 0 {
		return done, nil
	}
	for _, r := range rows {
		if len(r.Values) != len(columns) {
			return nil, fmt.Errorf("settle row %d: %d values for %d columns", r.Owner.ID, len(r.Values), len(columns))
		}
	}
	changed := make([]int64, 0, len(rows))
	for from := 0; from < len(rows); from += settleChunk {
		query, args := q.SettleAll(s.dialect, columns, rows[from:min(len(rows), from+settleChunk)])
		err := s.queryEach(ctx, tx, settleValuesKind(columns, rows[from].Values), query, args, func(sc Scanner) error {
			var id int64
			err := sc.Scan(&id)
			changed = append(changed, id)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(changed)
	refused := 0
	for i, r := range rows {
		_, done[i] = slices.BinarySearch(changed, r.Owner.ID)
		if !done[i] {
			refused++
		}
	}
	s.refused.Add(int64(refused))
	return done, nil
}

// Batch is the drain's fast path on one queue: a claim of many rows in one
// statement and one owner-checked transition for the whole batch, on the
// store's prepared statements. The gates are ClaimTx's and SettleTx's. A
// Batch is safe for use by several goroutines.
type Batch struct {
	store     *Store
	queue     *Queue
	returning string
	settleSet []string
}

// PrepareBatch prepares the claim of q (RETURNING returning) and a
// transition that writes the columns settle, in that order, in the store's
// statement cache. Close it before s.
func (s *Store) PrepareBatch(ctx context.Context, q *Queue, returning string, settle ...string) (*Batch, error) {
	b := &Batch{store: s, queue: q, returning: returning, settleSet: settle}
	query, _ := q.ClaimBatch(s.dialect, returning, Request{})
	if _, err := s.stmts.prepared(ctx, s.db, query); err != nil {
		return nil, err
	}
	return b, nil
}

// Close releases nothing of its own: the statements are the store's, closed
// with it. It stays so that a Batch reads like the handle it is.
func (b *Batch) Close() error { return nil }

// Store returns the store the batch works on.
func (b *Batch) Store() *Store { return b.store }

// ClaimTx claims up to r.Limit rows in one statement and scans each claimed
// row's returning columns, in no particular order.
func (b *Batch) ClaimTx(ctx context.Context, tx *sql.Tx, r Request, scan func(Scanner) error) error {
	query, args := b.queue.ClaimBatch(b.store.dialect, b.returning, r)
	return b.store.queryEach(ctx, tx, "claim", query, args, scan)
}

// SettleTx is Store.SettleTx of one row: values are written to the columns
// PrepareBatch named, in order.
func (b *Batch) SettleTx(ctx context.Context, tx *sql.Tx, o Owner, values ...any) (bool, error) {
	sets := make([]Set, len(b.settleSet))
	for i, c := range b.settleSet {
		sets[i] = Set{c, values[i]}
	}
	return b.store.SettleTx(ctx, tx, b.queue, o, sets)
}

// SettleAllTx settles every claim of owners in one statement, writing the
// same values to the columns PrepareBatch named (see Store.SettleAllTx).
func (b *Batch) SettleAllTx(ctx context.Context, tx *sql.Tx, owners []Owner, values ...any) ([]bool, error) {
	rows := make([]Settlement, len(owners))
	for i, o := range owners {
		rows[i] = Settlement{Owner: o, Values: values}
	}
	return b.store.SettleAllTx(ctx, tx, b.queue, b.settleSet, rows)
}
