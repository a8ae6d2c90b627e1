package claim

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/dialect"
)

// Scanner reads one row's columns (a *sql.Row or *sql.Rows).
type Scanner interface{ Scan(dest ...any) error }

// ClaimTx claims up to r.Limit claimable rows of q for r.Owner, oldest first,
// in one conditional update that leases each row until r.LeaseUntil(), moves
// its fencing token (and its attempt count, when q counts attempts); it scans
// the returning columns of each claimed row in claim order. Call it in a
// transaction of s (on SQLite, BEGIN IMMEDIATE) so that no two claims
// interleave; a claim of one row is one statement, which may also run on
// the store's pool where LoneWrites says so. Its statements are the
// store's, prepared once per connection.
func (s *Store) ClaimTx(ctx context.Context, on Querier, q *Queue, r Request, returning string, scan func(Scanner) error) error {
	if r.limit() == 1 {
		// One row has one order: the batch claim's single statement claims
		// the row the claim of many would take first.
		query, args := q.ClaimBatch(s.dialect, returning, r)
		return s.queryEach(ctx, on, "claim", query, args, scan)
	}
	tx, ok := on.(*sql.Tx)
	if !ok {
		return fmt.Errorf("claim %d rows outside a transaction: the claim and its read back are one transaction", r.limit())
	}
	// Many rows: one statement claims them all, RETURNING gives no order,
	// so a second reads them back in claim order. Both are set-based: two
	// statements whatever the claim's size.
	query, args := q.ClaimBatch(s.dialect, "Id", r)
	var ids []int64
	err := s.queryEach(ctx, tx, "claim", query, args, func(sc Scanner) error {
		var id int64
		err := sc.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil || len(ids) == 0 {
		return err
	}
	query, args = q.ClaimedRows(s.dialect, returning, ids)
	return s.queryEach(ctx, tx, "read back", query, args, scan)
}

// SettleTx writes sets on the row o claimed and releases the claim, only
// while the row is still held by o's owner and token. It reports whether the
// transition applied; a refused one changes nothing and is counted (Refused).
// It is one statement: on may be a transaction of s or, where LoneWrites
// says so, its pool.
func (s *Store) SettleTx(ctx context.Context, on Querier, q *Queue, o Owner, sets []Set) (bool, error) {
	query, args := q.Settle(s.dialect, o, sets)
	return s.settled(s.exec(ctx, on, settleKind(sets), query, args))
}

// RenewTx extends the lease of the row o claimed to until, keeping the claim
// (its owner, token and attempt): only while the row is still held by o's
// owner and token and its lease has not ended at now. It reports whether the
// renewal applied; a refused one changes nothing and is counted (Refused).
// It is one statement: on may be a transaction of s or its pool.
func (s *Store) RenewTx(ctx context.Context, on Querier, q *Queue, o Owner, now, until time.Time) (bool, error) {
	query, args := q.Renew(s.dialect, o, now, until)
	return s.settled(s.exec(ctx, on, "renew", query, args))
}

func (s *Store) settled(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	if n == 0 {
		s.refused.Add(1)
		return false, nil
	}
	return true, nil
}

// UpdateTx writes sets on row id and releases its claim whoever holds it,
// checking nothing: the unfenced write a BEFORE scenario reproduces.
func (s *Store) UpdateTx(ctx context.Context, tx *sql.Tx, q *Queue, id int64, sets []Set) error {
	query, args := q.Update(s.dialect, id, sets)
	_, err := s.exec(ctx, tx, "update (unfenced)", query, args)
	return err
}

// NextDue returns the earliest moment after now at which a live row of q
// that is not claimable now becomes claimable: a due time passing or a lease
// ending. ok is false when no live row is waiting on either.
func (s *Store) NextDue(ctx context.Context, q *Queue, now time.Time) (at time.Time, ok bool, err error) {
	query, args := q.NextDue(s.dialect, now)
	var next sql.NullString
	if err := s.dbQueryRow(ctx, query, args...).Scan(&next); err != nil {
		return time.Time{}, false, err
	}
	s.record(ctx, "next due", query, args, 1)
	at, err = dialect.ParseNullTime(next)
	return at, next.Valid, err
}

// scanEach returns a function that calls scan on each row of a query's
// result (rows, err) and closes it; the query's error comes first.
func scanEach(rows *sql.Rows, err error) func(scan func(Scanner) error) error {
	return func(scan func(Scanner) error) error {
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}
