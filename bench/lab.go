package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/worker"
)

// result is one contender's run: how long sending and draining n messages took.
type result struct {
	name  string
	n     int
	send  time.Duration
	drain time.Duration
	cpu   time.Duration // the process's user+sys CPU time over the drain, where measured
	// busy is every core's busy time over the drain (machineBusy), where
	// measured: on PostgreSQL, the worker's and the server's CPU together
	busy time.Duration
}

// cpuTime is the process's user+sys CPU time so far. The machine's load
// moves it less than wall time: a drain's CPU per message and the ceiling's
// per transaction compare the work each does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuPer is r's CPU time per message.
func (r result) cpuPer() time.Duration { return r.cpu / time.Duration(max(r.n, 1)) }

func (r result) rate() float64 { return float64(r.n) / r.drain.Seconds() }

// labDrain sends n messages through the outbox (EnqueueTx, one transaction)
// and drains them with one worker on the fast path, claiming batch at a time.
// Processing is a counter; the Processed transition is owner-checked.
func labDrain(ctx context.Context, dir string, n, batch int) (result, error) {
	res := result{name: fmt.Sprintf("outboxlab StepBatch, claim %d", batch), n: n}
	store, send, err := openAndSend(ctx, filepath.Join(dir, fmt.Sprintf("lab-%d.db", batch)), n)
	if err != nil {
		return res, err
	}
	defer store.Close()
	res.send = send

	b, err := store.NewBatcher(ctx)
	if err != nil {
		return res, err
	}
	defer b.Close()
	processed := 0
	w := &worker.Worker{ID: "w1", Store: store, Clock: clock.New(), Batch: batch,
		Handler: worker.HandlerFunc(func(context.Context, outbox.Claim, time.Time) (worker.Outcome, error) {
			processed++
			return worker.Outcome{}, nil
		})}
	start, cpu := time.Now(), cpuTime()
	for {
		r, err := w.StepBatch(ctx, b)
		if err != nil {
			return res, err
		}
		if r.Claimed == 0 {
			break
		}
	}
	res.drain, res.cpu = time.Since(start), cpuTime()-cpu
	counts, err := store.Counts(ctx)
	if err != nil {
		return res, err
	}
	if processed != n || counts[outbox.Processed] != n {
		return res, fmt.Errorf("lab drain: %d processed, %d rows Processed, want %d", processed, counts[outbox.Processed], n)
	}
	return res, nil
}

// openAndSend opens a fresh outbox at path and enqueues n messages in one
// transaction (EnqueueTx), returning the store and how long the send took.
// The caller closes the store.
func openAndSend(ctx context.Context, path string, n int) (*outbox.Store, time.Duration, error) {
	store, err := openAt(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	err = store.InTx(ctx, func(tx *sql.Tx) error {
		for i := range n {
			if _, err := outbox.EnqueueTx(ctx, tx, outbox.NewMessage{Key: fmt.Sprintf("MSG-%07d", i+1), Type: "Bench",
				Payload: `{"n":1}`, CreatedAt: clock.Start}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		store.Close()
		return nil, 0, err
	}
	return store, time.Since(start), nil
}

// labStepDrain is the engine's general path, for reference: worker.Step,
// whose completions take one transaction each.
func labStepDrain(ctx context.Context, dir string, n, batch int) (result, error) {
	res := result{name: fmt.Sprintf("outboxlab Step, claim %d", batch), n: n}
	store, send, err := openAndSend(ctx, filepath.Join(dir, fmt.Sprintf("lab-step-%d.db", batch)), n)
	if err != nil {
		return res, err
	}
	defer store.Close()
	res.send = send
	w := &worker.Worker{ID: "w1", Store: store, Clock: clock.New(), Batch: batch,
		Handler: worker.HandlerFunc(func(context.Context, outbox.Claim, time.Time) (worker.Outcome, error) {
			return worker.Outcome{}, nil
		})}
	start := time.Now()
	for {
		r, err := w.Step(ctx)
		if err != nil {
			return res, err
		}
		if r.Idle {
			break
		}
	}
	res.drain = time.Since(start)
	return res, nil
}

// ceiling times single-row BEGIN IMMEDIATE; UPDATE; COMMIT transactions:
// how many a second, and the CPU time each takes.
func ceiling(ctx context.Context, dir string, count int) (float64, time.Duration, error) {
	db, err := openDB(filepath.Join(dir, "ceiling.db"))
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE T (Id INTEGER PRIMARY KEY, N INTEGER NOT NULL) STRICT; INSERT INTO T VALUES (1, 0);`); err != nil {
		return 0, 0, err
	}
	stmt, err := db.PrepareContext(ctx, `UPDATE T SET N = N + 1 WHERE Id = 1`)
	if err != nil {
		return 0, 0, err
	}
	defer stmt.Close()
	start, cpu := time.Now(), cpuTime()
	for range count {
		if err := inTx(ctx, db, func(tx *sql.Tx) error {
			_, err := tx.StmtContext(ctx, stmt).ExecContext(ctx)
			return err
		}); err != nil {
			return 0, 0, err
		}
	}
	took, used := time.Since(start), cpuTime()-cpu
	return float64(count) / took.Seconds(), used / time.Duration(count), nil
}
