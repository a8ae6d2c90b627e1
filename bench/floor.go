package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
)

// floorColumns are the columns the Batcher's claim returns.
const floorColumns = "Id, MessageKey, Type, Payload, AttemptCount, MaxAttempts, ClaimToken, CreatedAtUtc"

// floorDrain is StepBatch's floor on SQLite: the engine's own claim and
// settlement statements (the texts the claim engine writes for the
// outbox in SQLite's dialect), prepared once and run bare in the same two transactions per
// batch, with no worker, no handler, no events and no ordering. What
// StepBatch costs beyond it is the engine's Go; what it costs itself is
// SQLite's work on each claimed row (rewriting it, its index entry, the
// RETURNING rows) and the two commits.
func floorDrain(ctx context.Context, dir string, n, batch int) (result, error) {
	res := result{name: fmt.Sprintf("the engine's statements bare, claim %d", batch), n: n}
	store, send, err := openAndSend(ctx, filepath.Join(dir, fmt.Sprintf("floor-%d.db", batch)), n)
	if err != nil {
		return res, err
	}
	defer store.Close()
	res.send = send
	db := store.DB()
	claimQuery, _ := outbox.Messages.ClaimBatch(dialect.SQLite, floorColumns, claim.Request{})
	claimStmt, err := db.PrepareContext(ctx, claimQuery)
	if err != nil {
		return res, err
	}
	defer claimStmt.Close()
	settleStmts := map[string]*sql.Stmt{}
	defer func() {
		for _, st := range settleStmts {
			st.Close()
		}
	}()
	columns := []string{"Status", "ProcessedAtUtc", outbox.Messages.Due}
	clk := clock.New()
	start, cpu := time.Now(), cpuTime()
	settled := 0
	for {
		now := clk.Now()
		r := claim.Request{Owner: "w1", Now: now, Lease: 30 * time.Second, Limit: batch}
		_, args := outbox.Messages.ClaimBatch(dialect.SQLite, floorColumns, r)
		rows, err := floorClaim(ctx, db, claimStmt, args, now)
		if err != nil {
			return res, err
		}
		if len(rows) == 0 {
			break
		}
		query, args := outbox.Messages.SettleAll(dialect.SQLite, columns, rows)
		st, ok := settleStmts[query]
		if !ok {
			if st, err = db.PrepareContext(ctx, query); err != nil {
				return res, err
			}
			settleStmts[query] = st
		}
		err = inTx(ctx, db, func(tx *sql.Tx) error {
			changed, err := tx.StmtContext(ctx, st).QueryContext(ctx, args...)
			if err != nil {
				return err
			}
			defer changed.Close()
			for changed.Next() {
				settled++
			}
			return changed.Err()
		})
		if err != nil {
			return res, err
		}
	}
	res.drain, res.cpu = time.Since(start), cpuTime()-cpu
	if settled != n {
		return res, fmt.Errorf("floor drain: %d settled, want %d", settled, n)
	}
	return res, nil
}

// floorClaim runs the prepared claim with args in one transaction and
// returns each claimed row's settlement as Processed at now.
func floorClaim(ctx context.Context, db *sql.DB, claimStmt *sql.Stmt, args []any, now time.Time) ([]claim.Settlement, error) {
	var rows []claim.Settlement
	err := inTx(ctx, db, func(tx *sql.Tx) error {
		got, err := tx.StmtContext(ctx, claimStmt).QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		defer got.Close()
		for got.Next() {
			id, token, err := scanFloorRow(got)
			if err != nil {
				return err
			}
			rows = append(rows, claim.Settlement{Owner: claim.Owner{ID: id, Owner: "w1", Token: token},
				Values: []any{string(outbox.Processed), now, nil}})
		}
		return got.Err()
	})
	return rows, err
}

// scanFloorRow scans one row of floorColumns as a worker would (every
// column into Go values) and returns its id and claim token.
func scanFloorRow(rows *sql.Rows) (id, token int64, err error) {
	var attempt int64
	var key, typ, payload, created string
	var maxAttempts sql.NullInt64
	err = rows.Scan(&id, &key, &typ, &payload, &attempt, &maxAttempts, &token, &created)
	return id, token, err
}
