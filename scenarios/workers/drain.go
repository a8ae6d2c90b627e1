package workers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
)

// drainType is the outbox Type of every backlog message.
const drainType = "DrainMessage"

// seedChunk is how many backlog messages one INSERT writes.
const seedChunk = 250

// seedRange writes the backlog's messages from..to (numbered from 1), all
// created at the scenario's start, into store, in one transaction.
func seedRange(ctx context.Context, store *outbox.Store, from, to int) error {
	created := clock.ISO(clock.Start)
	err := store.InTx(ctx, func(tx *sql.Tx) error {
		for first := from; first <= to; first += seedChunk {
			var q strings.Builder
			var args []any
			q.WriteString(`INSERT INTO OutboxMessages (MessageKey, Type, CreatedAtUtc) VALUES `)
			for i := first; i <= min(to, first+seedChunk-1); i++ {
				if i > first {
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

// rounds splits a backlog of n messages into up to repeats rounds, as even
// as they can be, the larger first; every round has at least one message,
// so a backlog smaller than repeats has n rounds of 1.
func rounds(n, repeats int) []int {
	k := min(n, repeats)
	sizes := make([]int, k)
	for i := range sizes {
		sizes[i] = n / k
		if i < n%k {
			sizes[i]++
		}
	}
	return sizes
}

// drainConfig is one configuration of part 1.
type drainConfig struct {
	Messages     int // the configuration's backlog, over all its rounds
	Workers      int
	Series       int // 0; 1 for the second series of a worker count --workers lists twice
	Batch        int
	Processes    bool
	HandlerDelay time.Duration
	Lease        time.Duration
}

// label names the configuration (a second series of its worker count
// with a #2) the same way for goroutines and processes,
// so that a run on PostgreSQL (processes) prints SQLite's table.
func (c drainConfig) label() string {
	again := ""
	if c.Series > 0 {
		again = " #2"
	}
	return fmt.Sprintf("%s%s, claim %d", report.Plural(c.Workers, "worker"), again, c.Batch)
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

// drainRun is one configuration, drained in rounds on one database.
type drainRun struct {
	cfg     drainConfig
	rounds  []roundRun    // in the order they ran
	tallies []workerTally // each worker's, summed over the rounds
	ledger  ledgerMetrics // read back once every round has run
}

// roundRun is one round of a configuration: a fresh part of the backlog,
// written and then drained by the configuration's workers.
type roundRun struct {
	messages int
	wall     time.Duration // first claim to last settlement, wall clock
}

func (r roundRun) rate() float64 { return float64(r.messages) / r.wall.Seconds() }

// crew is a configuration's database and workers, kept from round to round:
// only the rounds are timed, and a round costs its messages' writing and
// the workers' start, not a new database.
type crew struct {
	run     *drainRun
	store   *outbox.Store
	db      dialect.Database
	workers []*drainWorker // goroutines; nil with processes
	written int            // backlog messages written so far
}

// newCrew opens the new database db for cfg, with the delivery ledger
// and no messages yet, and prepares cfg's goroutine workers on it.
func newCrew(ctx context.Context, db dialect.Database, cfg drainConfig) (*crew, error) {
	store, err := openWithLedger(ctx, db)
	if err != nil {
		return nil, err
	}
	c := &crew{run: &drainRun{cfg: cfg, tallies: make([]workerTally, cfg.Workers)}, store: store, db: db}
	for i := range cfg.Workers {
		c.run.tallies[i].Worker = workerID(i)
	}
	if !cfg.Processes {
		if err := c.openConnections(ctx); err != nil {
			c.Close()
			return nil, err
		}
		for i := range cfg.Workers {
			w, err := newDrainWorker(ctx, store, workerID(i), cfg, clock.New())
			if err != nil {
				c.Close()
				return nil, err
			}
			c.workers = append(c.workers, w)
		}
	}
	return c, nil
}

// openConnections opens a connection for each goroutine worker and keeps
// them from round to round, so that no round is timed opening one.
func (c *crew) openConnections(ctx context.Context) error {
	db := c.store.DB()
	db.SetMaxIdleConns(c.run.cfg.Workers + 1) // the workers', and the one that writes each round's messages
	conns := make([]*sql.Conn, 0, c.run.cfg.Workers)
	defer func() {
		for _, conn := range conns {
			conn.Close() // back to the pool, which keeps it
		}
	}()
	for range c.run.cfg.Workers {
		conn, err := db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("open a worker's connection: %w", err)
		}
		conns = append(conns, conn)
		if err := conn.PingContext(ctx); err != nil {
			return fmt.Errorf("open a worker's connection: %w", err)
		}
	}
	return nil
}

// round writes the backlog's next n messages and drains them.
func (c *crew) round(ctx context.Context, n int, prog *progress) error {
	if err := seedRange(ctx, c.store, c.written+1, c.written+n); err != nil {
		return err
	}
	c.written += n
	var (
		r   = roundRun{messages: n}
		got []workerTally
		err error
	)
	if c.run.cfg.Processes {
		r.wall, got, err = drainProcesses(ctx, c.db, c.run.cfg, n, prog)
	} else {
		r.wall, got, err = c.drainGoroutines(ctx, n, prog)
	}
	if err != nil {
		return err
	}
	for i, t := range got {
		c.run.tallies[i].add(t)
	}
	c.run.rounds = append(c.run.rounds, r)
	return nil
}

// finish reads the drained database back and closes the crew.
func (c *crew) finish(ctx context.Context) (*drainRun, error) {
	defer c.Close()
	var err error
	c.run.ledger, err = readLedger(ctx, c.store)
	return c.run, err
}

// Close releases the workers' statements and the database.
func (c *crew) Close() error {
	if c.store == nil {
		return nil
	}
	var errs []error
	for _, w := range c.workers {
		errs = append(errs, w.Close())
	}
	errs = append(errs, c.store.Close())
	c.workers, c.store = nil, nil
	return errors.Join(errs...)
}

func workerID(i int) string { return fmt.Sprintf("worker-%d", i+1) }

// drainGoroutines runs the crew's workers as goroutines on its store until
// a claim of each comes back empty; the round's time starts once they are
// all waiting to begin.
func (c *crew) drainGoroutines(ctx context.Context, n int, prog *progress) (time.Duration, []workerTally, error) {
	var done atomic.Int64
	stop := prog.start(c.run.cfg.label(), n, func() int { return int(done.Load()) })
	defer stop()
	tallies := make([]workerTally, len(c.workers))
	errs := make([]error, len(c.workers))
	var wg sync.WaitGroup
	begin := make(chan struct{})
	for i, w := range c.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-begin
			tallies[i], errs[i] = w.drain(ctx, &done)
		}()
	}
	start := time.Now()
	close(begin)
	wg.Wait()
	wall := time.Since(start)
	return wall, tallies, errors.Join(errs...)
}

// drainWorker is one worker with its statements prepared, ready to drain.
type drainWorker struct {
	w       *worker.Worker
	batcher *outbox.Batcher
	stmts   *deliveryStatements
	calls   int // handler calls in the current round
}

func newDrainWorker(ctx context.Context, store *outbox.Store, id string, cfg drainConfig, clk *clock.ScenarioClock) (*drainWorker, error) {
	b, err := store.NewBatcher(ctx)
	if err != nil {
		return nil, err
	}
	stmts, err := prepareDeliveries(ctx, store)
	if err != nil {
		b.Close()
		return nil, err
	}
	d := &drainWorker{batcher: b, stmts: stmts}
	ledger := &deliveryLedger{stmts: stmts, worker: id}
	d.w = &worker.Worker{ID: id, Store: store, Clock: clk, Lease: cfg.Lease, Batch: cfg.Batch,
		Handler: worker.HandlerFunc(func(ctx context.Context, c outbox.Claim, _ time.Time) (worker.Outcome, error) {
			d.calls++
			if cfg.HandlerDelay > 0 {
				time.Sleep(cfg.HandlerDelay)
			}
			return worker.Outcome{Apply: func(ctx context.Context, tx *sql.Tx) error {
				return ledger.record(ctx, tx, c)
			}}, nil
		})}
	return d, nil
}

func (d *drainWorker) Close() error { return errors.Join(d.stmts.Close(), d.batcher.Close()) }

// drain claims and settles until a claim comes back empty, and returns
// what it did.
func (d *drainWorker) drain(ctx context.Context, done *atomic.Int64) (workerTally, error) {
	t := workerTally{Worker: d.w.ID, Start: time.Now().UnixNano()}
	d.calls = 0
	for {
		res, err := d.w.StepBatch(ctx, d.batcher)
		t.Calls = d.calls
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

// add counts t's round into a's totals; Start and End are a round's own.
func (a *workerTally) add(t workerTally) {
	a.Calls += t.Calls
	a.Processed += t.Processed
	a.Refused += t.Refused
	a.Claims += t.Claims
	a.Settlements += t.Settlements
}

// ceilingTransactions is how many single-row write transactions the raw
// ceiling times.
const ceilingTransactions = 500

// measureCeiling times single-row write transactions (BEGIN IMMEDIATE;
// UPDATE; COMMIT on SQLite) on a lab database at location and returns them
// per second.
func measureCeiling(ctx context.Context, db dialect.Database) (float64, error) {
	store, err := outbox.Open(ctx, db)
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
