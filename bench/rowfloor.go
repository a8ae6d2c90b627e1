package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
)

// The least any claim and settlement can do on the lab's schema: every
// message's row is rewritten twice, once with what a claim writes (the
// claimed status, the owner, the lease, the attempt, the token) and once with
// what a completion writes (Processed, its time, the due time and the lease
// cleared), and the claimable index follows both. rowFloor does only that,
// on the rows of one batch found by their ids (one range, no search), with
// no gate, no fencing, no RETURNING and no worker, in the drain's two
// transactions per batch. With read it also reads the claimed messages
// (the columns the Batcher's claim returns), which a worker cannot do
// without. A design that keeps the schema (its columns and its claimable
// index) and the two transactions per batch does at least this much work
// for every message.
const (
	rowFloorRead  = `SELECT ` + floorColumns + ` FROM OutboxMessages WHERE Id >= ?1 AND Id < ?1 + ?2`
	rowFloorClaim = `UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?3, LockedUntilUtc = ?4,
	    AttemptCount = AttemptCount + 1, ClaimToken = ClaimToken + 1 WHERE Id >= ?1 AND Id < ?1 + ?2`
	rowFloorSettle = `UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = ?3, NextAttemptUtc = NULL,
	    LockedBy = NULL, LockedUntilUtc = NULL WHERE Id >= ?1 AND Id < ?1 + ?2`
)

func rowFloor(ctx context.Context, dir string, n, batch int, read bool) (result, error) {
	name := "the schema's two row writes alone"
	if read {
		name = "the two row writes and the read"
	}
	res := result{name: fmt.Sprintf("%s, claim %d", name, batch), n: n}
	store, send, err := openAndSend(ctx, filepath.Join(dir, fmt.Sprintf("rowfloor-%d-%t.db", batch, read)), n)
	if err != nil {
		return res, err
	}
	defer store.Close()
	res.send = send
	db := store.DB()
	var stmts [3]*sql.Stmt
	for i, q := range []string{rowFloorRead, rowFloorClaim, rowFloorSettle} {
		if stmts[i], err = db.PrepareContext(ctx, q); err != nil {
			return res, err
		}
		defer stmts[i].Close()
	}
	now := clock.ISO(clock.Start)
	lease := clock.ISO(clock.Start.Add(30 * time.Second))
	start, cpu := time.Now(), cpuTime()
	for first := 1; first <= n; first += batch {
		err := inTx(ctx, db, func(tx *sql.Tx) error {
			if read {
				if err := readRows(ctx, tx.StmtContext(ctx, stmts[0]), first, batch); err != nil {
					return err
				}
			}
			_, err := tx.StmtContext(ctx, stmts[1]).ExecContext(ctx, first, batch, "w1", lease)
			return err
		})
		if err != nil {
			return res, err
		}
		err = inTx(ctx, db, func(tx *sql.Tx) error {
			_, err := tx.StmtContext(ctx, stmts[2]).ExecContext(ctx, first, batch, now)
			return err
		})
		if err != nil {
			return res, err
		}
	}
	res.drain, res.cpu = time.Since(start), cpuTime()-cpu
	return res, rowFloorDone(ctx, store, n)
}

// readRows reads the claim's columns of the batch's rows, as a worker scans them.
func readRows(ctx context.Context, st *sql.Stmt, first, batch int) error {
	rows, err := st.QueryContext(ctx, first, batch)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if _, _, err := scanFloorRow(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// rowFloorDone checks that the floor did the drain's work: every row once
// claimed and then Processed, its lease released, as the engine leaves it.
func rowFloorDone(ctx context.Context, store *outbox.Store, n int) error {
	var done int
	err := store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM OutboxMessages WHERE Status = 'Processed'
	    AND AttemptCount = 1 AND ClaimToken = 1 AND LockedBy IS NULL AND LockedUntilUtc IS NULL
	    AND ProcessedAtUtc IS NOT NULL`).Scan(&done)
	if err != nil {
		return err
	}
	if done != n {
		return fmt.Errorf("row floor: %d of %d rows claimed once and Processed", done, n)
	}
	return nil
}
