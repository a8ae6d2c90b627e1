package workers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/worker"
)

// overloadType is the outbox Type of every message part 2 produces.
const overloadType = "OverloadMessage"

// sample is the queue as the database shows it at the end of one tick.
type sample struct {
	At        time.Time
	Produced  int           // messages the producer wrote so far
	Processed int           // rows in the delivery ledger, each written with a Processed transition
	Depth     int           // live rows (Pending or Processing)
	OldestAge time.Duration // At minus the oldest live row's CreatedAtUtc; 0 when empty
}

// overloadRun is part 2's record.
type overloadRun struct {
	plan        overloadPlan // what the arithmetic says each tick should show
	samples     []sample
	stopTick    int // index of the sample at which production ended
	ledger      ledgerMetrics
	maxLatency  time.Duration // ProcessedAtUtc - CreatedAtUtc, worst message
	meanLatency time.Duration
}

// overfed reports whether the producer writes faster than the consumers finish.
func (o *throughputOptions) overfed() bool { return float64(o.ProduceRate) > o.capacity() }

// tickEnd is the end of tick k (1-based) in scenario time.
func (o *throughputOptions) tickEnd(k int) time.Time {
	return clock.Start.Add(time.Duration(k) * o.Tick)
}

// createdAt is when the producer writes message j (0-based): evenly spaced at ProduceRate.
func (o *throughputOptions) createdAt(j int) time.Time {
	return clock.Start.Add(time.Duration(int64(j) * int64(time.Second) / int64(o.ProduceRate)))
}

// total is how many messages the producer writes.
func (o *throughputOptions) total() int {
	return int(int64(o.ProduceRate) * int64(o.ProduceFor) / int64(time.Second))
}

// overload drives part 2 on the scenario clock. Each tick the producer writes
// the messages created during it (one transaction), the clock moves to the
// tick's end, and each consumer claims and settles up to Tick/ServiceTime
// messages; then the tick's depth, ledger and oldest age are read from the
// database. It stops once production has ended and the queue is empty, or a
// few ticks after the arithmetic says it should have drained: then the last
// sample shows what was left.
func (o *throughputOptions) overload(ctx context.Context, db dialect.Database) (*overloadRun, error) {
	store, err := openWithLedger(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	clk := clock.New()
	b, err := store.NewBatcher(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	stmts, err := prepareDeliveries(ctx, store)
	if err != nil {
		return nil, err
	}
	defer stmts.Close()
	consumers := make([]*worker.Worker, o.Consumers)
	for i := range consumers {
		ledger := &deliveryLedger{stmts: stmts, worker: fmt.Sprintf("consumer-%d", i+1)}
		consumers[i] = &worker.Worker{ID: ledger.worker, Store: store, Clock: clk, Lease: o.Lease, Batch: o.perTick(),
			Handler: worker.HandlerFunc(func(ctx context.Context, c outbox.Claim, _ time.Time) (worker.Outcome, error) {
				return worker.Outcome{Apply: func(ctx context.Context, tx *sql.Tx) error { return ledger.record(ctx, tx, c) }}, nil
			})}
	}

	run := &overloadRun{plan: o.plan(), stopTick: -1}
	planned := len(run.plan.depths)
	total, produced := o.total(), 0
	for k := 1; k <= planned+max(10, planned/10); k++ {
		end := o.tickEnd(k)
		if err := o.produce(ctx, store, &produced, total, end); err != nil {
			return nil, err
		}
		clk.AdvanceTo(end)
		for _, w := range consumers {
			if _, err := w.StepBatch(ctx, b); err != nil {
				return nil, err
			}
		}
		s, err := sampleQueue(ctx, store, end)
		if err != nil {
			return nil, err
		}
		s.Produced = produced
		run.samples = append(run.samples, s)
		if produced == total && run.stopTick < 0 {
			run.stopTick = len(run.samples) - 1
		}
		if produced == total && s.Depth == 0 {
			break
		}
	}
	if run.ledger, err = readLedger(ctx, store); err != nil {
		return nil, err
	}
	return run, o.latencies(ctx, store, run)
}

// produce writes, in one transaction, every message created before end.
func (o *throughputOptions) produce(ctx context.Context, store *outbox.Store, produced *int, total int, end time.Time) error {
	return store.InTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, prepared(store, `INSERT INTO OutboxMessages (MessageKey, Type, CreatedAtUtc) VALUES (?, ?, ?)`, 3))
		if err != nil {
			return fmt.Errorf("prepare the producer: %w", err)
		}
		defer stmt.Close()
		for ; *produced < total && o.createdAt(*produced).Before(end); *produced++ {
			j := *produced
			if _, err := stmt.ExecContext(ctx, fmt.Sprintf("OVL-%06d", j+1), overloadType, clock.ISO(o.createdAt(j))); err != nil {
				return fmt.Errorf("produce message %d: %w", j+1, err)
			}
		}
		return nil
	})
}

func sampleQueue(ctx context.Context, store *outbox.Store, at time.Time) (sample, error) {
	s := sample{At: at}
	var oldest sql.NullString
	err := store.QueryRow(ctx, store.DB(),
		`SELECT COUNT(*), MIN(CreatedAtUtc), (SELECT COUNT(*) FROM Deliveries)
		   FROM OutboxMessages WHERE Status IN ('Pending', 'Processing')`).Scan(&s.Depth, &oldest, &s.Processed)
	if err != nil {
		return s, fmt.Errorf("sample the queue: %w", err)
	}
	if oldest.Valid {
		t, err := time.Parse(clock.ISOLayout, oldest.String)
		if err != nil {
			return s, fmt.Errorf("sample the queue: %w", err)
		}
		s.OldestAge = at.Sub(t)
	}
	return s, nil
}

// latencies reads every Processed message's wait from creation to Processed,
// one row at a time.
func (o *throughputOptions) latencies(ctx context.Context, store *outbox.Store, run *overloadRun) error {
	rows, err := store.Query(ctx, store.DB(), `SELECT CreatedAtUtc, ProcessedAtUtc FROM OutboxMessages WHERE Status = 'Processed'`)
	if err != nil {
		return fmt.Errorf("read the latencies: %w", err)
	}
	defer rows.Close()
	var sum time.Duration
	n := 0
	for rows.Next() {
		var created, processed string
		if err := rows.Scan(&created, &processed); err != nil {
			return fmt.Errorf("read the latencies: %w", err)
		}
		c, err1 := time.Parse(clock.ISOLayout, created)
		p, err2 := time.Parse(clock.ISOLayout, processed)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("read the latencies: %w", err)
		}
		d := p.Sub(c)
		run.maxLatency = max(run.maxLatency, d)
		sum += d
		n++
	}
	if n > 0 {
		run.meanLatency = (sum / time.Duration(n)).Round(time.Millisecond)
	}
	return rows.Err()
}
