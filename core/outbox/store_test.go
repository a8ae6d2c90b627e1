package outbox

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

const ms = time.Millisecond

func enqueue(t *testing.T, s *Store, keys ...string) {
	t.Helper()
	for i, k := range keys {
		_, err := s.Enqueue(context.Background(), NewMessage{Key: k, Type: "ConfirmPayment", MaxAttempts: 3,
			CreatedAt: clock.Start.Add(time.Duration(i) * ms)})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func claimOne(t *testing.T, s *Store, worker string, now time.Time) (Claim, bool) {
	t.Helper()
	cs, err := s.Claim(context.Background(), worker, now, 30*time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		return Claim{}, false
	}
	return cs[0], true
}

func TestClaimIncrementsAttemptAndTakesOldestFirst(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s := newStore(t, on)
		enqueue(t, s, "PAY-001", "PAY-002")
		c, ok := claimOne(t, s, "w1", clock.Start)
		if !ok {
			t.Fatal("nothing claimed")
		}
		if c.Key != "PAY-001" || c.Attempt != 1 || c.Token != 1 || c.MaxAttempts != 3 {
			t.Fatalf("claim = %+v, want PAY-001 attempt 1 token 1 max 3", c)
		}
		if got, want := c.LeaseUntil, clock.Start.Add(30*time.Second); !got.Equal(want) {
			t.Errorf("lease until %v, want %v", got, want)
		}
		msgs, err := s.Messages(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if msgs[0].Status != Processing || msgs[0].AttemptCount != 1 || msgs[0].LockedBy != "w1" {
			t.Errorf("row after claim = %s attempts %d locked by %q, want Processing 1 w1",
				msgs[0].Status, msgs[0].AttemptCount, msgs[0].LockedBy)
		}
		if msgs[1].AttemptCount != 0 {
			t.Errorf("unclaimed row has AttemptCount %d, want 0", msgs[1].AttemptCount)
		}
	})
}

// TestClaimGating holds both forms of the claim (the engine's ClaimTx and the
// batched one-statement claim) to one gate: live, not leased, past its backoff.
func TestClaimGating(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		type claimFunc func(t *testing.T, s *Store, at time.Time) ([]Claim, error)
		claimers := map[string]claimFunc{
			"ClaimTx": func(_ *testing.T, s *Store, at time.Time) ([]Claim, error) {
				return s.Claim(ctx, "w2", at, 30*time.Second, 10)
			},
			"Batcher": func(t *testing.T, s *Store, at time.Time) ([]Claim, error) {
				return newBatcher(t, s).Claim(ctx, "w2", at, 30*time.Second, 10)
			},
		}
		tests := []struct {
			name      string
			prepare   func(t *testing.T, s *Store) // leaves PAY-001 in some state at clock.Start
			at        time.Duration                // claim time, after clock.Start
			wantClaim bool
		}{
			{"pending is claimable", func(*testing.T, *Store) {}, 0, true},
			{"leased row is not claimable", leased, 29 * time.Second, false},
			{"lease expiring now is not yet claimable", leased, 30 * time.Second, false},
			{"expired lease is claimable", leased, 30*time.Second + ms, true},
			{"backoff not elapsed", backedOff, 199 * ms, false},
			{"backoff elapsed exactly", backedOff, 200 * ms, true},
			{"dead-lettered never claimable", deadLettered, time.Hour, false},
			{"processed never claimable", processed, time.Hour, false},
		}
		for form, claim := range claimers {
			for _, tt := range tests {
				t.Run(form+"/"+tt.name, func(t *testing.T) {
					s := newStore(t, on)
					enqueue(t, s, "PAY-001")
					tt.prepare(t, s)
					cs, err := claim(t, s, clock.Start.Add(tt.at))
					if err != nil {
						t.Fatal(err)
					}
					if got := len(cs) == 1; got != tt.wantClaim {
						t.Errorf("claimed = %v, want %v", got, tt.wantClaim)
					}
				})
			}
		}
	})
}

func leased(t *testing.T, s *Store) { claimOne(t, s, "w1", clock.Start) }

func backedOff(t *testing.T, s *Store) {
	c, _ := claimOne(t, s, "w1", clock.Start)
	if err := s.Retry(context.Background(), c, clock.Start.Add(200*ms), "boom"); err != nil {
		t.Fatal(err)
	}
}

func deadLettered(t *testing.T, s *Store) {
	c, _ := claimOne(t, s, "w1", clock.Start)
	if err := s.DeadLetter(context.Background(), c, clock.Start, "boom"); err != nil {
		t.Fatal(err)
	}
}

func processed(t *testing.T, s *Store) {
	c, _ := claimOne(t, s, "w1", clock.Start)
	if err := s.Complete(context.Background(), c, clock.Start); err != nil {
		t.Fatal(err)
	}
}

func TestStaleOwnerTransitionRefused(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		s := newStore(t, on)
		enqueue(t, s, "PAY-001")
		stale, _ := claimOne(t, s, "w1", clock.Start)
		// w1's lease expires; w2 takes the message over and dead-letters it.
		fresh, ok := claimOne(t, s, "w2", clock.Start.Add(31*time.Second))
		if !ok || fresh.Attempt != 2 || fresh.Token != 2 {
			t.Fatalf("takeover claim = %+v ok=%v, want attempt 2 token 2", fresh, ok)
		}
		if err := s.DeadLetter(ctx, fresh, clock.Start.Add(31*time.Second), "gave up"); err != nil {
			t.Fatal(err)
		}
		// w1 reports late: every transition must be refused.
		for name, err := range map[string]error{
			"complete":    s.Complete(ctx, stale, clock.Start.Add(32*time.Second)),
			"retry":       s.Retry(ctx, stale, time.Time{}, "late"),
			"dead-letter": s.DeadLetter(ctx, stale, clock.Start.Add(32*time.Second), "late"),
		} {
			if !errors.Is(err, ErrNotOwner) {
				t.Errorf("stale %s: err = %v, want ErrNotOwner", name, err)
			}
		}
		if got := s.Refused(); got != 3 {
			t.Errorf("Refused() = %d, want 3", got)
		}
		msgs, _ := s.Messages(ctx)
		m := msgs[0]
		if m.Status != DeadLettered || m.LastError != "gave up" || m.LockedBy != "" || !m.LockedUntil.IsZero() || !m.NextAttemptAt.IsZero() {
			t.Errorf("row = %s %q locked %q/%v next %v, want DeadLettered \"gave up\" with no owner and no next attempt",
				m.Status, m.LastError, m.LockedBy, m.LockedUntil, m.NextAttemptAt)
		}
		audit, _ := s.Audit(ctx)
		if len(audit) != 1 || audit[0].Action != "dead-lettered" || audit[0].Actor != "w2" {
			t.Errorf("audit = %+v, want one dead-lettered entry by w2", audit)
		}
	})
}

func TestNextWakeup(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		s := newStore(t, on)
		enqueue(t, s, "PAY-001", "PAY-002")
		if _, ok, _ := s.NextWakeup(ctx, clock.Start); ok {
			t.Fatal("pending rows with no backoff should not need a wake-up")
		}
		cs, _ := s.Claim(ctx, "w1", clock.Start, 30*time.Second, 2)
		if err := s.Retry(ctx, cs[0], clock.Start.Add(200*ms), "boom"); err != nil {
			t.Fatal(err)
		}
		at, ok, err := s.NextWakeup(ctx, clock.Start)
		if err != nil || !ok || !at.Equal(clock.Start.Add(200*ms)) {
			t.Fatalf("NextWakeup = %v %v %v, want 09:00:00.200Z", at, ok, err)
		}
		// Past the backoff, the lease of the other message is what is left to wait for.
		at, ok, _ = s.NextWakeup(ctx, clock.Start.Add(time.Second))
		if !ok || !at.Equal(clock.Start.Add(30*time.Second)) {
			t.Fatalf("NextWakeup = %v %v, want the lease end 09:00:30.000Z", at, ok)
		}
	})
}

func TestTransactionRollsBackBusinessRowAndOutboxTogether(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		s := newStore(t, on)
		boom := errors.New("crash between the writes")
		err := s.InTx(ctx, func(tx *sql.Tx) error {
			if _, err := InsertPaymentTx(ctx, tx, Payment{Key: "PAY-001", AmountCents: 100, CreatedAt: clock.Start}); err != nil {
				return err
			}
			if _, err := EnqueueTx(ctx, tx, NewMessage{Key: "PAY-001", Type: "ConfirmPayment", CreatedAt: clock.Start}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx err = %v, want %v", err, boom)
		}
		pays, _ := s.Payments(ctx)
		msgs, _ := s.Messages(ctx)
		if len(pays) != 0 || len(msgs) != 0 {
			t.Errorf("after rollback: %d payments, %d messages, want 0 and 0", len(pays), len(msgs))
		}
	})
}

func TestOpenExistingRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	if _, err := OpenExisting(context.Background(), dialect.File(path)); err == nil {
		t.Fatal("OpenExisting on a missing file succeeded")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("OpenExisting created %s", path)
	}
	if err := os.WriteFile(path, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenExisting(context.Background(), dialect.File(path)); err == nil {
		t.Fatal("OpenExisting on a text file succeeded")
	}
}

// Release gives the message back uncounted: Pending, no owner or lease, the
// AttemptCount the claim made taken back, the token kept (the next claim is
// token 2, attempt 1 again), claimable at once; a release by a claim that
// was already lost is refused and changes nothing.
func TestReleaseGivesBackTheAttempt(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		s := newStore(t, on)
		enqueue(t, s, "PAY-001")
		first, _ := claimOne(t, s, "w1", clock.Start)
		if err := s.Release(ctx, first); err != nil {
			t.Fatal(err)
		}
		msgs, _ := s.Messages(ctx)
		m := msgs[0]
		if m.Status != Pending || m.AttemptCount != 0 || m.ClaimToken != 1 || m.LockedBy != "" || !m.LockedUntil.IsZero() {
			t.Fatalf("row after release = %s attempts %d token %d locked %q/%v, want Pending 0 1 and no owner",
				m.Status, m.AttemptCount, m.ClaimToken, m.LockedBy, m.LockedUntil)
		}
		again, ok := claimOne(t, s, "w2", clock.Start.Add(ms))
		if !ok || again.Attempt != 1 || again.Token != 2 {
			t.Fatalf("claim after release = %+v ok=%v, want attempt 1 token 2 at once", again, ok)
		}
		if err := s.Release(ctx, first); !errors.Is(err, ErrNotOwner) {
			t.Errorf("release by the lost claim: err = %v, want ErrNotOwner", err)
		}
		msgs, _ = s.Messages(ctx)
		if m := msgs[0]; m.Status != Processing || m.AttemptCount != 1 || m.LockedBy != "w2" {
			t.Errorf("row after the refused release = %s attempts %d locked %q, want w2's claim untouched",
				m.Status, m.AttemptCount, m.LockedBy)
		}
	})
}
