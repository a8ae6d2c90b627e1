package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

type benchArgs struct {
	N int `json:"n"`
}

func (benchArgs) Kind() string { return "bench" }

type benchWorker struct {
	river.WorkerDefaults[benchArgs]
	done *atomic.Int64
}

func (w *benchWorker) Work(context.Context, *river.Job[benchArgs]) error {
	w.done.Add(1)
	return nil
}

// riverDrain inserts n jobs (InsertMany) and works them with one River
// client on the SQLite driver, polling every millisecond. River fetches at
// most MaxWorkers jobs per poll, so MaxWorkers is the batch outboxlab claims:
// with 1 a poll brings one job and the cooldown bounds the rate. The drain is
// timed from Start to the n-th completion event.
func riverDrain(ctx context.Context, dir string, n, maxWorkers int) (result, error) {
	res := result{name: fmt.Sprintf("River v0.51.2 (riversqlite), MaxWorkers %d", maxWorkers), n: n}
	db, err := openDB(filepath.Join(dir, "river.db"))
	if err != nil {
		return res, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // riversqlite's advice: River runs operations in parallel, SQLite does not
	driver := riversqlite.New(db)
	migrator, err := rivermigrate.New(driver, nil)
	if err != nil {
		return res, fmt.Errorf("river migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return res, fmt.Errorf("river migrate: %w", err)
	}
	var done atomic.Int64
	client, err := river.NewClient(driver, riverConfig("", maxWorkers, &done))
	if err != nil {
		return res, fmt.Errorf("river client: %w", err)
	}
	start := time.Now()
	if _, err := client.InsertMany(ctx, riverJobs(n)); err != nil {
		return res, fmt.Errorf("river insert: %w", err)
	}
	res.send = time.Since(start)
	start = time.Now()
	if err := client.Start(ctx); err != nil {
		return res, fmt.Errorf("river start: %w", err)
	}
	// Count completions in the database, not through Subscribe: a subscription
	// channel drops events once its buffer is full, which lost a few hundred of
	// 20,000 completions and made the drain look as if it never finished.
	res.drain, err = finishRiver(ctx, start, n, func() (completed int, err error) {
		err = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE state = 'completed'`).Scan(&completed)
		return completed, err
	}, client.Stop)
	if err != nil {
		return res, err
	}
	if got := done.Load(); got != int64(n) {
		return res, fmt.Errorf("river worked %d of %d", got, n)
	}
	return res, nil
}

// finishRiver waits until count, River's completed jobs, reaches n, takes
// the drain's time since start, then stops every client.
func finishRiver(ctx context.Context, start time.Time, n int, count func() (int, error),
	stops ...func(context.Context) error) (time.Duration, error) {
	if err := awaitCompleted(ctx, n, count); err != nil {
		return 0, err
	}
	took := time.Since(start)
	stopCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	for _, s := range stops {
		if err := s(stopCtx); err != nil {
			return took, fmt.Errorf("river stop: %w", err)
		}
	}
	return took, nil
}

// awaitCompleted polls count, River's completed jobs, until it reaches n,
// for ten minutes at most.
func awaitCompleted(ctx context.Context, n int, count func() (int, error)) error {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		completed, err := count()
		if err != nil {
			return fmt.Errorf("count river completions: %w", err)
		}
		if completed >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("river completed %d of %d in 10 minutes", completed, n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// riverConfig is every River client's configuration: one queue fetching up
// to maxWorkers jobs, polling every millisecond, the bench worker counting
// into done, in schema ("": the driver's default).
func riverConfig(schema string, maxWorkers int, done *atomic.Int64) *river.Config {
	workers := river.NewWorkers()
	river.AddWorker(workers, &benchWorker{done: done})
	return &river.Config{
		Schema:            schema,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: maxWorkers}},
		Workers:           workers,
		FetchCooldown:     time.Millisecond,
		FetchPollInterval: time.Millisecond,
		Logger:            slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// riverJobs are n bench jobs to insert at once.
func riverJobs(n int) []river.InsertManyParams {
	params := make([]river.InsertManyParams, n)
	for i := range params {
		params[i] = river.InsertManyParams{Args: benchArgs{N: i}}
	}
	return params
}
