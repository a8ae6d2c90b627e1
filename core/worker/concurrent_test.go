package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
)

// Workers in goroutines, each on its own store (its own pool, as separate
// processes would be), drain one outbox with Step: on SQLite in BEGIN
// IMMEDIATE transactions, on PostgreSQL in READ COMMITTED ones whose claim
// skips locked rows. Each worker has a clock of its own that stays at the
// start (a worker stops at its first empty claim, before its idle step
// could move it), so no lease lapses: every message ends Processed after
// exactly one attempt, its business row written exactly once, and no
// handler ever runs for a message another handler is running for. Without
// a business row (no Apply) the completion is one statement, on
// PostgreSQL a transaction of its own on the pool, as the claim of one
// message is: each message is then handled exactly once.
func TestConcurrentWorkersProcessEachMessageOnce(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		for _, apply := range []bool{true, false} {
			t.Run(map[bool]string{true: "with a business row", false: "completion alone"}[apply], func(t *testing.T) {
				concurrentWorkers(t, on, apply)
			})
		}
	})
}

func concurrentWorkers(t *testing.T, on backend, apply bool) {
	const workers, messages = 8, 120
	{
		ctx := context.Background()
		keys := make([]string, messages)
		for i := range keys {
			keys[i] = fmt.Sprintf("PAY-%03d", i+1)
		}
		s, _ := setup(t, on, 3, keys...)
		var (
			handled sync.Map // message id -> *atomic.Int64, the handler's calls
			running sync.Map // message id -> worker, while its handler runs
			overlap atomic.Int64
			done    atomic.Int64
			wg      sync.WaitGroup
			errs    = make([]error, workers)
		)
		for i := range workers {
			store, err := outbox.Open(ctx, s.Database())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			w := &Worker{ID: fmt.Sprintf("w%d", i+1), Store: store, Clock: clock.New(), Policy: backoff.Policy{DeadLetter: true},
				Handler: HandlerFunc(func(_ context.Context, c outbox.Claim, _ time.Time) (Outcome, error) {
					if other, busy := running.LoadOrStore(c.MessageID, c.Worker); busy {
						overlap.Add(1)
						t.Errorf("%s handled by %s while %s still held it", c.Key, c.Worker, other)
					}
					time.Sleep(100 * time.Microsecond) // let the others try to take it
					running.Delete(c.MessageID)
					calls, _ := handled.LoadOrStore(c.MessageID, new(atomic.Int64))
					calls.(*atomic.Int64).Add(1)
					if !apply {
						return Outcome{Detail: "paid"}, nil
					}
					return Outcome{Detail: "paid", Apply: func(ctx context.Context, tx *sql.Tx) error {
						_, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{Key: c.Key, AmountCents: 100, CreatedAt: clock.Start})
						return err
					}}, nil
				})}
			wg.Go(func() {
				for {
					res, err := w.Step(ctx)
					if err != nil {
						errs[i] = err
						return
					}
					if res.Claimed == 0 {
						return
					}
					for _, e := range res.Events {
						if e.Kind == Processed {
							done.Add(1)
						}
					}
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		msgs, err := s.Messages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Status != outbox.Processed || m.AttemptCount != 1 || m.LockedBy != "" {
				t.Errorf("%s: %s after %d attempts, locked by %q; want Processed after 1, unlocked", m.Key, m.Status, m.AttemptCount, m.LockedBy)
			}
			if calls, ok := handled.Load(m.ID); !ok || calls.(*atomic.Int64).Load() != 1 {
				t.Errorf("%s: handled %v times, want 1", m.Key, calls)
			}
		}
		if !apply {
			if len(msgs) != messages || done.Load() != messages || overlap.Load() != 0 {
				t.Errorf("%d messages, %d processed events, %d overlaps; want %d, %d, 0", len(msgs), done.Load(), overlap.Load(), messages, messages)
			}
			return
		}
		pays, err := s.Payments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		perKey := map[string]int{}
		for _, p := range pays {
			perKey[p.Key]++
		}
		for _, k := range keys {
			if perKey[k] != 1 {
				t.Errorf("%s: %d payment rows, want exactly 1", k, perKey[k])
			}
		}
		if len(msgs) != messages || done.Load() != messages || overlap.Load() != 0 {
			t.Errorf("%d messages, %d processed events, %d overlaps; want %d, %d, 0", len(msgs), done.Load(), overlap.Load(), messages, messages)
		}
	}
}
