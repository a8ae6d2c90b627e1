package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"outboxlab/core/pgdb"
)

// pgRiverDrain inserts n jobs and works them with workers River clients on
// the pgx driver (one per worker, as one per host), each fetching up to
// maxWorkers jobs at a time, in a schema of its own on the server at url.
// Completions are counted in river_job, as on SQLite.
func pgRiverDrain(maxWorkers int) func(ctx context.Context, url string, n, workers int) (result, error) {
	return func(ctx context.Context, url string, n, workers int) (result, error) {
		var res result
		run, err := pgdb.CreateRunSchema(ctx, url, "bench-river")
		if err != nil {
			return res, err
		}
		defer run.Drop(ctx)
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			return res, fmt.Errorf("river pool: %w", err)
		}
		defer pool.Close()
		driver := riverpgxv5.New(pool)
		migrator, err := rivermigrate.New(driver, &rivermigrate.Config{Schema: run.Schema,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			return res, fmt.Errorf("river migrator: %w", err)
		}
		if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return res, fmt.Errorf("river migrate: %w", err)
		}
		var done atomic.Int64
		clients := make([]*river.Client[pgx.Tx], workers)
		for i := range clients {
			// Each client its own worker set; they share done.
			if clients[i], err = river.NewClient(driver, riverConfig(run.Schema, maxWorkers, &done)); err != nil {
				return res, fmt.Errorf("river client: %w", err)
			}
		}
		start := time.Now()
		if _, err := clients[0].InsertMany(ctx, riverJobs(n)); err != nil {
			return res, fmt.Errorf("river insert: %w", err)
		}
		res = result{n: n, send: time.Since(start)}
		start = time.Now()
		for _, c := range clients {
			if err := c.Start(ctx); err != nil {
				return res, fmt.Errorf("river start: %w", err)
			}
		}
		count := fmt.Sprintf(`SELECT COUNT(*) FROM %q.river_job WHERE state = 'completed'`, run.Schema)
		stops := make([]func(context.Context) error, len(clients))
		for i, c := range clients {
			stops[i] = c.Stop
		}
		res.drain, err = finishRiver(ctx, start, n, func() (completed int, err error) {
			err = pool.QueryRow(ctx, count).Scan(&completed)
			return completed, err
		}, stops...)
		if err != nil {
			return res, err
		}
		if got := done.Load(); got != int64(n) {
			return res, fmt.Errorf("river worked %d of %d", got, n)
		}
		return res, nil
	}
}
