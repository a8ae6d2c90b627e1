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
	workers := river.NewWorkers()
	river.AddWorker(workers, &benchWorker{done: &done})
	client, err := river.NewClient(driver, &river.Config{
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: maxWorkers}},
		Workers:           workers,
		FetchCooldown:     time.Millisecond,
		FetchPollInterval: time.Millisecond,
		Logger:            slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return res, fmt.Errorf("river client: %w", err)
	}
	params := make([]river.InsertManyParams, n)
	for i := range params {
		params[i] = river.InsertManyParams{Args: benchArgs{N: i}}
	}
	start := time.Now()
	if _, err := client.InsertMany(ctx, params); err != nil {
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
	deadline := time.Now().Add(10 * time.Minute)
	for {
		var completed int
		err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE state = 'completed'`).Scan(&completed)
		if err != nil {
			return res, fmt.Errorf("count river completions: %w", err)
		}
		if completed >= n {
			break
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("river completed %d of %d in 10 minutes", completed, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	res.drain = time.Since(start)
	stopCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if err := client.Stop(stopCtx); err != nil {
		return res, fmt.Errorf("river stop: %w", err)
	}
	if got := done.Load(); got != int64(n) {
		return res, fmt.Errorf("river worked %d of %d", got, n)
	}
	return res, nil
}
