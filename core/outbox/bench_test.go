package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// Every benchmark here counts one op per message, so ns/op compares across
// batch sizes. Run them with: go test -run '^$' -bench . ./core/outbox

func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s, err := Open(context.Background(), dialect.File(filepath.Join(b.TempDir(), "bench.db")))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	// One statement seeds them all: the benchmark measures the drain, not the producer.
	_, err = s.DB().Exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		INSERT INTO OutboxMessages (MessageKey, Type, MaxAttempts, CreatedAtUtc)
		SELECT printf('MSG-%07d', i), 'Bench', 3, ? FROM seq`, n, clock.ISO(clock.Start))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func benchBatcher(b *testing.B, s *Store) *Batcher {
	b.Helper()
	bt, err := s.NewBatcher(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bt.Close() })
	return bt
}

// claimAll claims every message (outside the timer) for the transition benchmarks.
func claimAll(b *testing.B, s *Store, n int) []Claim {
	b.Helper()
	bt := benchBatcher(b, s)
	var out []Claim
	for len(out) < n {
		cs, err := bt.Claim(context.Background(), "w1", clock.Start, time.Hour, 1000)
		if err != nil || len(cs) == 0 {
			b.Fatalf("claim for setup: %d claims, %v", len(cs), err)
		}
		out = append(out, cs...)
	}
	return out
}

// BenchmarkClaim times the claim alone. Each claimed message is completed
// off the clock, as a drain would, so the claim never has to walk past
// leased rows that no worker would leave behind.
func BenchmarkClaim(b *testing.B) {
	ctx := context.Background()
	b.Run("ClaimTx/batch=1", func(b *testing.B) {
		s := benchStore(b, b.N)
		b.ResetTimer()
		for range b.N {
			cs, err := s.Claim(ctx, "w1", clock.Start, time.Hour, 1)
			if err != nil || len(cs) != 1 {
				b.Fatalf("claim: %d, %v", len(cs), err)
			}
			b.StopTimer()
			completeOffClock(b, s, cs)
			b.StartTimer()
		}
	})
	for _, k := range []int{1, 100} {
		b.Run(fmt.Sprintf("Batcher/batch=%d", k), func(b *testing.B) {
			s := benchStore(b, b.N)
			bt := benchBatcher(b, s)
			b.ResetTimer()
			for i := 0; i < b.N; i += k {
				cs, err := bt.Claim(ctx, "w1", clock.Start, time.Hour, k)
				if err != nil || len(cs) == 0 {
					b.Fatalf("claim: %d, %v", len(cs), err)
				}
				b.StopTimer()
				completeOffClock(b, s, cs)
				b.StartTimer()
			}
		})
	}
}

func completeOffClock(b *testing.B, s *Store, cs []Claim) {
	b.Helper()
	err := s.InTx(context.Background(), func(tx *sql.Tx) error {
		for _, c := range cs {
			if err := s.CompleteTx(context.Background(), tx, c, clock.Start); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkComplete(b *testing.B) {
	ctx := context.Background()
	b.Run("Complete", func(b *testing.B) {
		s := benchStore(b, b.N)
		claims := claimAll(b, s, b.N)
		b.ResetTimer()
		for i := range b.N {
			if err := s.Complete(ctx, claims[i], clock.Start); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CompleteBatchTx/batch=100", func(b *testing.B) {
		s := benchStore(b, b.N)
		claims := claimAll(b, s, b.N)
		bt := benchBatcher(b, s)
		b.ResetTimer()
		for i := 0; i < b.N; i += 100 {
			batch := claims[i:min(i+100, b.N)]
			err := s.InTx(ctx, func(tx *sql.Tx) error {
				_, err := bt.CompleteBatchTx(ctx, tx, batch, clock.Start)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkFailWithBackoff(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, b.N)
	claims := claimAll(b, s, b.N)
	b.ResetTimer()
	for i := range b.N {
		if err := s.Retry(ctx, claims[i], clock.Start.Add(200*time.Millisecond), "provider unavailable (503)"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDeadLetter(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, b.N)
	claims := claimAll(b, s, b.N)
	b.ResetTimer()
	for i := range b.N {
		if err := s.DeadLetter(ctx, claims[i], clock.Start, "provider unavailable (503)"); err != nil {
			b.Fatal(err)
		}
	}
}
