package workers

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

// drainType is the outbox Type of every backlog message.
const drainType = "DrainMessage"

// seedChunk is how many backlog messages one INSERT writes.
const seedChunk = 250

// seedBacklog writes n messages, all created at the scenario's start, into a
// new lab database at location, with an empty Deliveries ledger beside them.
func seedBacklog(ctx context.Context, location string, n int) error {
	store, err := openWithLedger(ctx, location)
	if err != nil {
		return err
	}
	defer store.Close()
	created := clock.ISO(clock.Start)
	err = store.InTx(ctx, func(tx *sql.Tx) error {
		for from := 1; from <= n; from += seedChunk {
			var q strings.Builder
			var args []any
			q.WriteString(`INSERT INTO OutboxMessages (MessageKey, Type, CreatedAtUtc) VALUES `)
			for i := from; i <= min(n, from+seedChunk-1); i++ {
				if i > from {
					q.WriteString(", ")
				}
				q.WriteString("(?, ?, ?)")
				args = append(args, fmt.Sprintf("MSG-%06d", i), drainType, created)
			}
			query, args := store.Dialect().Bind(q.String(), args...)
			if _, err := tx.ExecContext(ctx, query, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("seed the backlog: %w", err)
	}
	return nil
}

// backlog fills each drain's database with the same n messages: on SQLite
// by copying one seeded file (template), on PostgreSQL, where a schema
// cannot be copied as a file, by seeding each schema with the same code.
type backlog struct {
	template string // a seeded SQLite file; "" on PostgreSQL
	n        int
}

// newBacklog prepares the backlog of a run in env.
func newBacklog(ctx context.Context, env scenarios.Env, n int) (*backlog, error) {
	if !env.Dialect().CanCopy() {
		return &backlog{n: n}, nil
	}
	template, err := env.DB(ctx, "backlog")
	if err != nil {
		return nil, err
	}
	if err := seedBacklog(ctx, template, n); err != nil {
		return nil, err
	}
	return &backlog{template: template, n: n}, nil
}

// fill writes the backlog into the new database at location.
func (b *backlog) fill(ctx context.Context, location string) error {
	if b.template == "" {
		return seedBacklog(ctx, location, b.n)
	}
	store, err := outbox.OpenExisting(ctx, b.template)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.Dialect().CopyTo(ctx, store.DB(), location); err != nil {
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

// label names the configuration the same way for goroutines and processes,
// so that a run on PostgreSQL (processes) prints SQLite's table.
func (c drainConfig) label() string {
	return fmt.Sprintf("%s, claim %d", report.Plural(c.Workers, "worker"), c.Batch)
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
	ledger  ledgerMetrics
}

func (d *drainRun) rate() float64 { return float64(d.cfg.Messages) / d.wall.Seconds() }

// drain fills the database at path with the backlog and drains it with
// cfg's workers.
func drain(ctx context.Context, from *backlog, path string, cfg drainConfig, prog *progress) (*drainRun, error) {
	if err := from.fill(ctx, path); err != nil {
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
	stmts, err := prepareDeliveries(ctx, store)
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
const ceilingTransactions = 500

// measureCeiling times single-row write transactions (BEGIN IMMEDIATE;
// UPDATE; COMMIT on SQLite) on a lab database at location and returns them
// per second.
func measureCeiling(ctx context.Context, location string) (float64, error) {
	store, err := outbox.Open(ctx, location)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	var id int64
	err = store.QueryRow(ctx, store.DB(), `INSERT INTO OutboxMessages (MessageKey, Type, CreatedAtUtc) VALUES (?, ?, ?) RETURNING Id`,
		"CEILING", drainType, clock.ISO(clock.Start)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("write the ceiling's row: %w", err)
	}
	stmt, err := store.DB().PrepareContext(ctx, prepared(store, `UPDATE OutboxMessages SET AttemptCount = AttemptCount + 1 WHERE Id = ?`, 1))
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
