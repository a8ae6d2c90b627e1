package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
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

// scaleTable is one filled outbox with its two claims ready to time.
type scaleTable struct {
	run              scaleRun
	store            *outbox.Store
	batcher          *outbox.Batcher
	claimTx, batched []time.Duration
}

// fillTable fills the outbox at location (a SQLite file or a PostgreSQL
// schema's URL) with rows rows (1% DeadLettered, liveRows Pending as the
// newest, the rest Processed).
func fillTable(ctx context.Context, location string, rows int) (*scaleTable, error) {
	t := &scaleTable{run: scaleRun{rows: rows, live: liveRows}}
	store, err := openAt(ctx, location)
	if err != nil {
		return nil, err
	}
	t.store = store
	postgres := store.Dialect() == dialect.Postgres // the bench fills and settles each its fastest way
	seq, key := `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < :rows)`, `printf('MSG-%07d', i)`
	if postgres {
		seq, key = `WITH seq(i) AS (SELECT generate_series(1, :rows))`, `'MSG-' || lpad(i::text, 7, '0')`
	}
	_, err = store.Exec(ctx, store.DB(), seq+`
		INSERT INTO OutboxMessages (MessageKey, Type, Status, AttemptCount, CreatedAtUtc, ProcessedAtUtc, DeadLetteredAtUtc, LastError)
		SELECT `+key+`, 'Bench',
		       CASE WHEN i > :rows - :live THEN 'Pending' WHEN i % 100 = 0 THEN 'DeadLettered' ELSE 'Processed' END,
		       CASE WHEN i > :rows - :live THEN 0 WHEN i % 100 = 0 THEN 3 ELSE 1 END,
		       :at,
		       CASE WHEN i <= :rows - :live AND i % 100 <> 0 THEN :at END,
		       CASE WHEN i <= :rows - :live AND i % 100 = 0 THEN :at END,
		       CASE WHEN i <= :rows - :live AND i % 100 = 0 THEN 'provider unavailable (503)' END
		  FROM seq`,
		sql.Named("rows", rows), sql.Named("live", liveRows), sql.Named("at", clock.ISO(clock.Start)))
	if err != nil {
		t.close()
		return nil, fmt.Errorf("fill %d rows: %w", rows, err)
	}
	// Let the claims read a settled table: on SQLite the database file, not
	// a long write-ahead log; on PostgreSQL with fresh planner statistics.
	settle := `PRAGMA wal_checkpoint(TRUNCATE)`
	if postgres {
		settle = `ANALYZE OutboxMessages`
	}
	if _, err := store.Exec(ctx, store.DB(), settle); err != nil {
		t.close()
		return nil, fmt.Errorf("settle %d rows: %w", rows, err)
	}
	counts, err := store.Counts(ctx)
	if err != nil {
		t.close()
		return nil, err
	}
	t.run.dead = counts[outbox.DeadLettered]
	if t.batcher, err = store.NewBatcher(ctx); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

func (t *scaleTable) close() {
	if t.batcher != nil {
		t.batcher.Close()
	}
	t.store.Close()
}

// claimLatency times samples claims of one message on each table, with the
// engine's ClaimTx and with the Batcher. Each claim runs in a transaction
// (BEGIN IMMEDIATE on SQLite) that is rolled back, so every sample sees the same
// table; the tables take turns in rounds, so that the machine's load drifts
// over both alike.
func claimLatency(ctx context.Context, locations []string, rows []int, samples int) ([]scaleRun, error) {
	var tables []*scaleTable
	defer func() {
		for _, t := range tables {
			t.close()
		}
	}()
	for i, n := range rows {
		progress(fmt.Sprintf("fill %d rows", n))
		t, err := fillTable(ctx, locations[i], n)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	const rounds = 10
	for range rounds {
		for _, t := range tables {
			claimTx := func(tx *sql.Tx) ([]outbox.Claim, error) {
				return t.store.ClaimTx(ctx, tx, "w1", clock.Start, time.Minute, 1)
			}
			batched := func(tx *sql.Tx) ([]outbox.Claim, error) {
				return t.batcher.ClaimTx(ctx, tx, "w1", clock.Start, time.Minute, 1)
			}
			a, err := timeClaims(ctx, t.store, samples/rounds, claimTx)
			if err != nil {
				return nil, err
			}
			b, err := timeClaims(ctx, t.store, samples/rounds, batched)
			if err != nil {
				return nil, err
			}
			t.claimTx, t.batched = append(t.claimTx, a...), append(t.batched, b...)
		}
	}
	out := make([]scaleRun, len(tables))
	for i, t := range tables {
		t.run.claimTx, t.run.claimTxP99 = percentiles(t.claimTx)
		t.run.batcher, t.run.batP99 = percentiles(t.batched)
		out[i] = t.run
	}
	return out, nil
}

// timeClaims times n claims.
func timeClaims(ctx context.Context, store *outbox.Store, n int, claim func(tx *sql.Tx) ([]outbox.Claim, error)) ([]time.Duration, error) {
	took := make([]time.Duration, n)
	for i := range took {
		start := time.Now()
		tx, err := store.DB().BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		cs, err := claim(tx)
		tx.Rollback()
		took[i] = time.Since(start)
		if err != nil {
			return nil, err
		}
		if len(cs) != 1 {
			return nil, fmt.Errorf("claim found %d messages, want 1", len(cs))
		}
	}
	return took, nil
}

// percentiles returns the median and the 99th percentile.
func percentiles(took []time.Duration) (time.Duration, time.Duration) {
	slices.Sort(took)
	return took[len(took)/2], took[len(took)*99/100]
}
