package workers

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/worker"
)

// overloadType is the outbox Type of every message part 2 produces.
const overloadType = "OverloadMessage"

// sample is the queue as the database shows it at the end of one tick.
type sample struct {
	At        time.Time
	Produced  int           // messages written so far
	Processed int           // messages the consumers finished so far
	Depth     int           // live rows (Pending or Processing)
	OldestAge time.Duration // At minus the oldest live row's CreatedAtUtc; 0 when empty
}

// overloadRun is part 2's record.
type overloadRun struct {
	samples     []sample
	model       []int // the depth the arithmetic predicts for each tick
	produced    int
	stopTick    int // index of the sample at which production ended
	ledger      ledgerFigures
	maxLatency  time.Duration // ProcessedAtUtc - CreatedAtUtc, worst message
	meanLatency time.Duration
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
// messages; then the tick's depth and oldest age are read from the database.
func (o *throughputOptions) overload(ctx context.Context, path string) (*overloadRun, error) {
	store, err := outbox.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if _, err := store.DB().ExecContext(ctx, deliveriesSchema); err != nil {
		return nil, fmt.Errorf("create the delivery ledger: %w", err)
	}
	clk := clock.New()
	b, err := store.NewBatcher(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	ledger, err := store.DB().PrepareContext(ctx, insertDelivery)
	if err != nil {
		return nil, fmt.Errorf("prepare the delivery ledger: %w", err)
	}
	defer ledger.Close()
	consumers := make([]*worker.Worker, o.Consumers)
	for i := range consumers {
		id := fmt.Sprintf("consumer-%d", i+1)
		consumers[i] = &worker.Worker{ID: id, Store: store, Clock: clk, Lease: o.Lease, Batch: o.perTick(),
			Handler: worker.HandlerFunc(func(ctx context.Context, c outbox.Claim, _ time.Time) (worker.Outcome, error) {
				return worker.Outcome{Apply: func(ctx context.Context, tx *sql.Tx) error {
					_, err := tx.StmtContext(ctx, ledger).ExecContext(ctx, c.MessageID, id, c.Attempt)
					return err
				}}, nil
			})}
	}

	run := &overloadRun{stopTick: -1}
	total, processed := o.total(), 0
	for k := 1; ; k++ {
		if k > maxTicks {
			return nil, fmt.Errorf("the queue did not drain within %d ticks", maxTicks)
		}
		end := clock.Start.Add(time.Duration(k) * o.Tick)
		if err := o.produce(ctx, store, &run.produced, total, end); err != nil {
			return nil, err
		}
		clk.AdvanceTo(end)
		for _, w := range consumers {
			res, err := w.StepBatch(ctx, b)
			if err != nil {
				return nil, err
			}
			for _, e := range res.Events {
				if e.Kind == worker.Processed {
					processed++
				}
			}
		}
		s, err := sampleQueue(ctx, store, end)
		if err != nil {
			return nil, err
		}
		s.Produced, s.Processed = run.produced, processed
		run.samples = append(run.samples, s)
		if run.produced == total && run.stopTick < 0 {
			run.stopTick = len(run.samples) - 1
		}
		if run.produced == total && s.Depth == 0 {
			break
		}
	}
	run.model = o.modelDepths(len(run.samples))
	if run.ledger, err = readLedger(ctx, store); err != nil {
		return nil, err
	}
	return run, o.latencies(ctx, store, run)
}

// produce writes, in one transaction, every message created before end.
func (o *throughputOptions) produce(ctx context.Context, store *outbox.Store, produced *int, total int, end time.Time) error {
	return store.InTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO OutboxMessages (MessageKey, Type, CreatedAtUtc) VALUES (?, ?, ?)`)
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
	err := store.DB().QueryRowContext(ctx,
		`SELECT COUNT(*), MIN(CreatedAtUtc) FROM OutboxMessages WHERE Status IN ('Pending', 'Processing')`).Scan(&s.Depth, &oldest)
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

// modelDepths is the depth each tick should show by arithmetic alone: what
// was produced by the tick's end, less what the consumers could have
// finished (never more than was there).
func (o *throughputOptions) modelDepths(ticks int) []int {
	out := make([]int, ticks)
	total, produced, done := o.total(), 0, 0
	for k := range ticks {
		end := clock.Start.Add(time.Duration(k+1) * o.Tick)
		for produced < total && o.createdAt(produced).Before(end) {
			produced++
		}
		done = min(done+o.Consumers*o.perTick(), produced)
		out[k] = produced - done
	}
	return out
}

// latencies reads every message's wait from creation to Processed.
func (o *throughputOptions) latencies(ctx context.Context, store *outbox.Store, run *overloadRun) error {
	msgs, err := store.Messages(ctx)
	if err != nil {
		return err
	}
	var sum time.Duration
	n := 0
	for _, m := range msgs {
		if m.Status != outbox.Processed {
			continue
		}
		d := m.ProcessedAt.Sub(m.CreatedAt)
		run.maxLatency = max(run.maxLatency, d)
		sum += d
		n++
	}
	if n > 0 {
		run.meanLatency = (sum / time.Duration(n)).Round(time.Millisecond)
	}
	return nil
}
