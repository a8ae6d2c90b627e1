package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/pgdb"
	"outboxlab/core/worker"
)

// pgContender is one PostgreSQL drain: W workers, each with a connection of
// its own, drain n messages sent beforehand.
type pgContender struct {
	name    string
	workers int
	run     func(ctx context.Context, url string, n, workers int) (result, error)
}

// pgSend writes n messages into the fresh schema at location with
// multi-row INSERTs in one transaction, and returns the store.
func pgSend(ctx context.Context, location string, n int) (*outbox.Store, time.Duration, error) {
	store, err := openAt(ctx, location)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	err = store.InTx(ctx, func(tx *sql.Tx) error {
		const chunk = 500
		for from := 0; from < n; from += chunk {
			var q strings.Builder
			var args []any
			q.WriteString(`INSERT INTO OutboxMessages (MessageKey, Type, Payload, CreatedAtUtc) VALUES `)
			for i := from; i < min(n, from+chunk); i++ {
				if i > from {
					q.WriteString(", ")
				}
				q.WriteString("(?, ?, ?, ?)")
				args = append(args, fmt.Sprintf("MSG-%07d", i+1), "Bench", `{"n":1}`, clock.ISO(clock.Start))
			}
			query, args := store.Dialect().Bind(q.String(), args...)
			if _, err := tx.ExecContext(ctx, query, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		store.Close()
		return nil, 0, fmt.Errorf("send %d messages: %w", n, err)
	}
	return store, time.Since(start), nil
}

// pgLabDrain drains n messages in a fresh schema with workers workers, each
// opening the schema itself (a pool of its own, as a process would), with
// worker.Step (batch 1) or worker.StepBatch (batch > 1, claim batch).
func pgLabDrain(step bool, batch int) func(ctx context.Context, url string, n, workers int) (result, error) {
	return func(ctx context.Context, url string, n, workers int) (result, error) {
		return pgLabDrainObserved(ctx, url, n, workers, step, batch, nil)
	}
}

// pgLabDrainObserved is pgLabDrain's drain; observe, when set, is given the
// server process ids of the workers' sessions just before they start.
func pgLabDrainObserved(ctx context.Context, url string, n, workers int, step bool, batch int, observe func(pids []int)) (result, error) {
	var res result
	run, err := pgdb.CreateRunSchema(ctx, url, "bench")
	if err != nil {
		return res, err
	}
	defer run.Drop(ctx)
	store, send, err := pgSend(ctx, run.URL, n)
	if err != nil {
		return res, err
	}
	defer store.Close()
	res = result{n: n, send: send}
	var processed atomic.Int64
	errs := make([]error, workers)
	stores := make([]*outbox.Store, workers)
	for i := range stores {
		if stores[i], err = openExistingAt(ctx, run.URL); err != nil {
			return res, err
		}
		defer stores[i].Close()
		stores[i].DB().SetMaxOpenConns(1)
	}
	if observe != nil {
		pids := make([]int, workers)
		for i, s := range stores {
			if err := s.DB().QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pids[i]); err != nil {
				return res, err
			}
		}
		observe(pids)
	}
	var wg sync.WaitGroup
	start, busy := time.Now(), machineBusy()
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = pgWorker(ctx, stores[i], fmt.Sprintf("w%d", i+1), step, batch, &processed)
		}()
	}
	wg.Wait()
	res.drain, res.busy = time.Since(start), machineBusy()-busy
	for _, err := range errs {
		if err != nil {
			return res, err
		}
	}
	counts, err := store.Counts(ctx)
	if err != nil {
		return res, err
	}
	if processed.Load() != int64(n) || counts[outbox.Processed] != n {
		return res, fmt.Errorf("lab drain: %d processed, %d rows Processed, want %d", processed.Load(), counts[outbox.Processed], n)
	}
	return res, nil
}

// pgWorker claims and settles until a claim finds nothing claimable.
func pgWorker(ctx context.Context, store *outbox.Store, id string, step bool, batch int, processed *atomic.Int64) error {
	w := &worker.Worker{ID: id, Store: store, Clock: clock.New(), Batch: batch,
		Handler: worker.HandlerFunc(func(context.Context, outbox.Claim, time.Time) (worker.Outcome, error) {
			processed.Add(1)
			return worker.Outcome{}, nil
		})}
	if step {
		for {
			r, err := w.Step(ctx)
			if err != nil {
				return err
			}
			// Nothing claimable now: Step has moved this worker's own clock
			// to the next due time, which may be another worker's lease
			// expiry; a further Step would take over a message that worker
			// is still handling (as a lease that ran out should). Real time
			// never runs out a lease here, so the worker stops instead.
			if r.Idle || slices.ContainsFunc(r.Events, func(e worker.Event) bool { return e.Kind == worker.Advanced }) {
				return nil
			}
		}
	}
	b, err := store.NewBatcher(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	for {
		r, err := w.StepBatch(ctx, b)
		if err != nil {
			return err
		}
		if r.Claimed == 0 {
			return nil
		}
	}
}
