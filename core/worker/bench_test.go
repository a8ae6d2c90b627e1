package worker

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
)

// BenchmarkDrain drains b.N messages with one worker; one op is one message.
// Step is the engine's general path (a transaction per completion);
// StepBatch the drain's fast path (one claim statement and one settlement
// transaction per batch).
func BenchmarkDrain(b *testing.B) {
	ok := HandlerFunc(func(context.Context, outbox.Claim, time.Time) (Outcome, error) { return Outcome{}, nil })
	for _, k := range []int{1, 100} {
		b.Run(fmt.Sprintf("Step/batch=%d", k), func(b *testing.B) {
			s := drainStore(b)
			w := &Worker{ID: "w1", Store: s, Clock: clock.New(), Handler: ok, Batch: k}
			b.ResetTimer()
			for {
				res, err := w.Step(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if res.Idle {
					break
				}
			}
		})
		b.Run(fmt.Sprintf("StepBatch/batch=%d", k), func(b *testing.B) {
			s := drainStore(b)
			bt, err := s.NewBatcher(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			defer bt.Close()
			w := &Worker{ID: "w1", Store: s, Clock: clock.New(), Handler: ok, Batch: k}
			b.ResetTimer()
			for {
				res, err := w.StepBatch(context.Background(), bt)
				if err != nil {
					b.Fatal(err)
				}
				if res.Claimed == 0 {
					break
				}
			}
		})
	}
}

func drainStore(b *testing.B) *outbox.Store {
	b.Helper()
	s, err := outbox.Open(context.Background(), dialect.File(filepath.Join(b.TempDir(), "drain.db")))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	_, err = s.DB().Exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		INSERT INTO OutboxMessages (MessageKey, Type, CreatedAtUtc) SELECT printf('MSG-%07d', i), 'Bench', ? FROM seq`,
		b.N, clock.ISO(clock.Start))
	if err != nil {
		b.Fatal(err)
	}
	return s
}
