package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
)

// scaleRun is the claim's latency on an outbox of a given size.
type scaleRun struct {
	rows, live, dead   int
	claimTx, batcher   time.Duration // median of the samples
	claimTxP99, batP99 time.Duration
}

// liveRows is how many Pending messages wait at the end of every outbox.
const liveRows = 1000

// claimLatency fills an outbox with rows rows (1% DeadLettered, liveRows
// Pending as the newest, the rest Processed) and times samples claims of one
// message with the engine's ClaimTx and with the Batcher. Each claim runs in
// a BEGIN IMMEDIATE transaction that is rolled back, so every sample sees the
// same table.
func claimLatency(ctx context.Context, dir string, rows, samples int) (scaleRun, error) {
	run := scaleRun{rows: rows, live: liveRows}
	store, err := outbox.Open(ctx, filepath.Join(dir, fmt.Sprintf("scale-%d.db", rows)))
	if err != nil {
		return run, err
	}
	defer store.Close()
	_, err = store.DB().ExecContext(ctx, `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < :rows)
		INSERT INTO OutboxMessages (MessageKey, Type, Status, AttemptCount, CreatedAtUtc, ProcessedAtUtc, DeadLetteredAtUtc, LastError)
		SELECT printf('MSG-%07d', i), 'Bench',
		       CASE WHEN i > :rows - :live THEN 'Pending' WHEN i % 100 = 0 THEN 'DeadLettered' ELSE 'Processed' END,
		       CASE WHEN i > :rows - :live THEN 0 WHEN i % 100 = 0 THEN 3 ELSE 1 END,
		       :at,
		       CASE WHEN i <= :rows - :live AND i % 100 <> 0 THEN :at END,
		       CASE WHEN i <= :rows - :live AND i % 100 = 0 THEN :at END,
		       CASE WHEN i <= :rows - :live AND i % 100 = 0 THEN 'provider unavailable (503)' END
		  FROM seq`,
		sql.Named("rows", rows), sql.Named("live", liveRows), sql.Named("at", clock.ISO(clock.Start)))
	if err != nil {
		return run, fmt.Errorf("fill %d rows: %w", rows, err)
	}
	counts, err := store.Counts(ctx)
	if err != nil {
		return run, err
	}
	run.dead = counts[outbox.DeadLettered]
	b, err := store.NewBatcher(ctx)
	if err != nil {
		return run, err
	}
	defer b.Close()
	claimTx := func(tx *sql.Tx) ([]outbox.Claim, error) {
		return outbox.ClaimTx(ctx, tx, "w1", clock.Start, time.Minute, 1)
	}
	batcher := func(tx *sql.Tx) ([]outbox.Claim, error) {
		return b.ClaimTx(ctx, tx, "w1", clock.Start, time.Minute, 1)
	}
	if run.claimTx, run.claimTxP99, err = timeClaims(ctx, store, samples, claimTx); err != nil {
		return run, err
	}
	run.batcher, run.batP99, err = timeClaims(ctx, store, samples, batcher)
	return run, err
}

// timeClaims returns the median and the 99th percentile of samples claims.
func timeClaims(ctx context.Context, store *outbox.Store, samples int, claim func(tx *sql.Tx) ([]outbox.Claim, error)) (time.Duration, time.Duration, error) {
	took := make([]time.Duration, samples)
	for i := range took {
		start := time.Now()
		tx, err := store.DB().BeginTx(ctx, nil)
		if err != nil {
			return 0, 0, err
		}
		cs, err := claim(tx)
		tx.Rollback()
		took[i] = time.Since(start)
		if err != nil {
			return 0, 0, err
		}
		if len(cs) != 1 {
			return 0, 0, fmt.Errorf("claim found %d messages, want 1", len(cs))
		}
	}
	slices.Sort(took)
	return took[len(took)/2], took[len(took)*99/100], nil
}
