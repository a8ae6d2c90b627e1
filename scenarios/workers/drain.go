package workers

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
)

// drainType is the outbox Type of every backlog message.
const drainType = "DrainMessage"

// seedBacklog writes n messages, all created at the scenario's start, into a
// new lab database at path, with an empty Deliveries ledger beside them.
// Every drain starts from a copy of it.
func seedBacklog(ctx context.Context, path string, n int) error {
	store, err := outbox.Open(ctx, path)
	if err != nil {
		return err
	}
	defer store.Close()
	if _, err := store.DB().ExecContext(ctx, deliveriesSchema); err != nil {
		return fmt.Errorf("create the delivery ledger: %w", err)
	}
	_, err = store.DB().ExecContext(ctx, `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		INSERT INTO OutboxMessages (MessageKey, Type, CreatedAtUtc) SELECT printf('MSG-%06d', i), ?, ? FROM seq`,
		n, drainType, clock.ISO(clock.Start))
	if err != nil {
		return fmt.Errorf("seed the backlog: %w", err)
	}
	return nil
}

// copyDatabase writes a consistent copy of the database at from to to.
func copyDatabase(ctx context.Context, from, to string) error {
	store, err := outbox.OpenExisting(ctx, from)
	if err != nil {
		return err
	}
	defer store.Close()
	if _, err := store.DB().ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		return fmt.Errorf("copy the backlog: %w", err)
	}
	return nil
}

// drainConfig is one configuration of part 1.
type drainConfig struct {
	Messages     int
	Workers      int
	Batch        int
	Processes    bool
	HandlerDelay time.Duration
	Lease        time.Duration
}

func (c drainConfig) label() string {
	unit := report.Plural(c.Workers, "worker")
	if c.Processes {
		unit = fmt.Sprintf("%d process", c.Workers)
		if c.Workers != 1 {
			unit += "es"
		}
	}
	return fmt.Sprintf("%s, claim %d", unit, c.Batch)
}

// workerTally is what one worker did in a drain; a child process prints it as JSON.
type workerTally struct {
	Worker      string `json:"worker"`
	Calls       int    `json:"calls"` // handler calls
	Processed   int    `json:"processed"`
	Refused     int    `json:"refused"`
	Claims      int    `json:"claims"` // claim transactions, the last of them empty
	Settlements int    `json:"settlements"`
	Start       int64  `json:"start"` // wall clock, Unix nanoseconds
	End         int64  `json:"end"`
}

// drainRun is one finished configuration.
type drainRun struct {
	cfg     drainConfig
	wall    time.Duration // first claim to last settlement, wall clock
	tallies []workerTally
	ledger  ledgerFigures
}

func (d *drainRun) rate() float64 { return float64(d.cfg.Messages) / d.wall.Seconds() }

// drain copies the backlog to path and drains it with cfg's workers.
func drain(ctx context.Context, template, path string, cfg drainConfig, prog *progress) (*drainRun, error) {
	if err := copyDatabase(ctx, template, path); err != nil {
		return nil, err
	}
	var (
		run = &drainRun{cfg: cfg}
		err error
	)
	if cfg.Processes {
		err = drainProcesses(ctx, path, cfg, run, prog)
	} else {
		err = drainGoroutines(ctx, path, cfg, run, prog)
	}
	if err != nil {
		return nil, err
	}
	store, err := outbox.OpenExisting(ctx, path)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	run.ledger, err = readLedger(ctx, store)
	return run, err
}

// drainGoroutines runs cfg.Workers workers as goroutines sharing one store.
func drainGoroutines(ctx context.Context, path string, cfg drainConfig, run *drainRun, prog *progress) error {
	store, err := outbox.Open(ctx, path)
	if err != nil {
		return err
	}
	defer store.Close()
	var done atomic.Int64
	stop := prog.start(cfg.label(), cfg.Messages, func() int { return int(done.Load()) })
	defer stop()

	run.tallies = make([]workerTally, cfg.Workers)
	errs := make([]error, cfg.Workers)
	clk := clock.New() // never moves: no lease expires during a drain
	var wg sync.WaitGroup
	begin := make(chan struct{})
	for i := range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-begin
			run.tallies[i], errs[i] = runWorker(ctx, store, fmt.Sprintf("worker-%d", i+1), cfg, clk, &done)
		}()
	}
	start := time.Now()
	close(begin)
	wg.Wait()
	run.wall = time.Since(start)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runWorker claims and settles until a claim comes back empty.
func runWorker(ctx context.Context, store *outbox.Store, id string, cfg drainConfig, clk *clock.ScenarioClock, done *atomic.Int64) (workerTally, error) {
	t := workerTally{Worker: id, Start: time.Now().UnixNano()}
	b, err := store.NewBatcher(ctx)
	if err != nil {
		return t, err
	}
	defer b.Close()
	stmts, err := prepareDeliveries(ctx, store.DB())
	if err != nil {
		return t, err
	}
	defer stmts.Close()
	ledger := &deliveryLedger{stmts: stmts, worker: id}
	w := &worker.Worker{ID: id, Store: store, Clock: clk, Lease: cfg.Lease, Batch: cfg.Batch,
		Handler: worker.HandlerFunc(func(ctx context.Context, c outbox.Claim, _ time.Time) (worker.Outcome, error) {
			t.Calls++
			if cfg.HandlerDelay > 0 {
				time.Sleep(cfg.HandlerDelay)
			}
			return worker.Outcome{Apply: func(ctx context.Context, tx *sql.Tx) error {
				return ledger.record(ctx, tx, c)
			}}, nil
		})}
	for {
		res, err := w.StepBatch(ctx, b)
		if err != nil {
			return t, err
		}
		t.Claims++
		if res.Claimed == 0 {
			break
		}
		t.Settlements++
		for _, e := range res.Events {
			switch e.Kind {
			case worker.Processed:
				t.Processed++
			case worker.Refused:
				t.Refused++
			}
		}
		if done != nil {
			done.Add(int64(res.Claimed))
		}
	}
	t.End = time.Now().UnixNano()
	return t, nil
}

// ceilingTransactions is how many single-row write transactions the raw
// ceiling times.
const ceilingTransactions = 2000

// measureCeiling times single-row BEGIN IMMEDIATE; UPDATE; COMMIT
// transactions on a lab file at path and returns them per second.
func measureCeiling(ctx context.Context, path string) (float64, error) {
	store, err := outbox.Open(ctx, path)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	id, err := store.Enqueue(ctx, outbox.NewMessage{Key: "CEILING", Type: drainType, CreatedAt: clock.Start})
	if err != nil {
		return 0, err
	}
	stmt, err := store.DB().PrepareContext(ctx, `UPDATE OutboxMessages SET AttemptCount = AttemptCount + 1 WHERE Id = ?`)
	if err != nil {
		return 0, fmt.Errorf("prepare the ceiling update: %w", err)
	}
	defer stmt.Close()
	start := time.Now()
	for range ceilingTransactions {
		err := store.InTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, id)
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("time the write ceiling: %w", err)
		}
	}
	return ceilingTransactions / time.Since(start).Seconds(), nil
}
