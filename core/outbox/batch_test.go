package outbox

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"outboxlab/core/clock"
)

func newBatcher(t *testing.T, s *Store) *Batcher {
	t.Helper()
	b, err := s.NewBatcher(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestBatchClaimTakesOldestFirstAndCountsTheAttempt(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		s := newStore(t, on)
		// Created out of insertion order: the claim must follow CreatedAtUtc, then Id.
		for _, m := range []struct {
			key string
			at  time.Duration
		}{{"PAY-003", 2 * ms}, {"PAY-001", 0}, {"PAY-002", ms}, {"PAY-004", 2 * ms}} {
			if _, err := s.Enqueue(ctx, NewMessage{Key: m.key, Type: "T", MaxAttempts: 3, CreatedAt: clock.Start.Add(m.at)}); err != nil {
				t.Fatal(err)
			}
		}
		b := newBatcher(t, s)
		cs, err := b.Claim(ctx, "w1", clock.Start, 30*time.Second, 3)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, c := range cs {
			keys = append(keys, c.Key)
			if c.Attempt != 1 || c.Token != 1 || c.MaxAttempts != 3 || c.Worker != "w1" ||
				!c.LeaseUntil.Equal(clock.Start.Add(30*time.Second)) {
				t.Errorf("claim %s = attempt %d token %d max %d worker %s lease %v, want 1 1 3 w1 09:00:30",
					c.Key, c.Attempt, c.Token, c.MaxAttempts, c.Worker, c.LeaseUntil)
			}
		}
		if got, want := fmtKeys(keys), "PAY-001 PAY-002 PAY-003"; got != want {
			t.Errorf("claimed %s, want %s", got, want)
		}
		msgs, _ := s.Messages(ctx)
		for _, m := range msgs {
			wantAttempts, wantStatus := 1, Processing
			if m.Key == "PAY-004" {
				wantAttempts, wantStatus = 0, Pending
			}
			if m.AttemptCount != wantAttempts || m.Status != wantStatus {
				t.Errorf("%s: %s with %d attempts, want %s with %d", m.Key, m.Status, m.AttemptCount, wantStatus, wantAttempts)
			}
		}
	})
}

func fmtKeys(keys []string) string {
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += " "
		}
		out += k
	}
	return out
}

// The batch claim must gate exactly as ClaimTx does.
func TestCompleteBatchRefusesOnlyTheStaleClaim(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		s := newStore(t, on)
		enqueue(t, s, "PAY-001", "PAY-002", "PAY-003")
		b := newBatcher(t, s)
		mine, err := b.Claim(ctx, "w1", clock.Start, 30*time.Second, 3)
		if err != nil || len(mine) != 3 {
			t.Fatalf("claim = %d claims, %v; want 3", len(mine), err)
		}
		// PAY-002 goes back to the queue and w2 claims it: w1's claim on it is stale.
		if err := s.Retry(ctx, mine[1], time.Time{}, "boom"); err != nil {
			t.Fatal(err)
		}
		theirs, _ := b.Claim(ctx, "w2", clock.Start.Add(ms), 30*time.Second, 3)
		if len(theirs) != 1 || theirs[0].Key != "PAY-002" || theirs[0].Attempt != 2 || theirs[0].Token != 2 {
			t.Fatalf("w2 claimed %+v, want PAY-002 attempt 2 token 2", theirs)
		}
		var done []bool
		err = s.InTx(ctx, func(tx *sql.Tx) error {
			var err error
			done, err = b.CompleteBatchTx(ctx, tx, mine, clock.Start.Add(2*ms))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !done[0] || done[1] || !done[2] {
			t.Errorf("completed %v, want [true false true]: PAY-002 belongs to w2 now", done)
		}
		if got := s.Refused(); got != 1 {
			t.Errorf("Refused() = %d, want 1", got)
		}
		msgs, _ := s.Messages(ctx)
		want := map[string]Status{"PAY-001": Processed, "PAY-002": Processing, "PAY-003": Processed}
		for _, m := range msgs {
			if m.Status != want[m.Key] {
				t.Errorf("%s: %s, want %s", m.Key, m.Status, want[m.Key])
			}
			if m.Status == Processed && (!m.ProcessedAt.Equal(clock.Start.Add(2*ms)) || m.LockedBy != "") {
				t.Errorf("%s: processed at %v locked by %q, want 09:00:00.002Z and no owner", m.Key, m.ProcessedAt, m.LockedBy)
			}
			if m.Key == "PAY-002" && m.LockedBy != "w2" {
				t.Errorf("PAY-002 locked by %q, want w2", m.LockedBy)
			}
		}
	})
}
