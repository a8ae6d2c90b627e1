package worker

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
)

const ms = time.Millisecond

// setup opens an outbox on a fresh database of on, holding keys.
func setup(t *testing.T, on backend, maxAttempts int, keys ...string) (*outbox.Store, *clock.ScenarioClock) {
	t.Helper()
	ctx := context.Background()
	s, err := outbox.Open(ctx, on.Database(t, "outbox"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, k := range keys {
		if _, err := s.Enqueue(ctx, outbox.NewMessage{Key: k, Type: "ConfirmPayment", MaxAttempts: maxAttempts, CreatedAt: clock.Start}); err != nil {
			t.Fatal(err)
		}
	}
	return s, clock.New()
}

// failFor fails every attempt for the poison key and succeeds for the rest.
func failFor(poison string) Handler {
	return HandlerFunc(func(_ context.Context, c outbox.Claim, _ time.Time) (Outcome, error) {
		if c.Key == poison {
			return Outcome{}, errors.New("status check failed")
		}
		return Outcome{Detail: "ok"}, nil
	})
}

func drain(t *testing.T, w *Worker, limit int) []Event {
	t.Helper()
	var events []Event
	for i := 0; i < limit; i++ {
		res, err := w.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, res.Events...)
		if res.Idle {
			return events
		}
	}
	t.Fatalf("not idle after %d steps", limit)
	return nil
}

func TestBoundedRetryTimelineMatchesTheSeed(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 3, "PAY-001", "PAY-002", "PAY-003", "PAY-004", "PAY-005", "PAY-006")
		w := &Worker{ID: "worker-1", Store: s, Clock: c, Handler: failFor("PAY-003"), Batch: 10,
			Policy: backoff.Policy{Backoff: backoff.Backoff{Base: 200 * ms}, DeadLetter: true}}
		events := drain(t, w, 20)

		var got []string
		for _, e := range events {
			if e.Key == "PAY-003" {
				got = append(got, clock.Stamp(e.At)+" "+string(e.Kind)+" "+clock.Millis(e.Delay)+" "+stampOrDash(e.NextAttempt))
			}
		}
		want := []string{
			"09:00:00.000Z retrying 200 ms 09:00:00.200Z",
			"09:00:00.201Z retrying 400 ms 09:00:00.601Z",
			"09:00:00.602Z dead-lettered 0 ms -",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("PAY-003 timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		counts, _ := s.Counts(context.Background())
		if counts[outbox.Processed] != 5 || counts[outbox.DeadLettered] != 1 || counts[outbox.Pending] != 0 {
			t.Errorf("counts = %v, want 5 Processed, 1 DeadLettered, 0 Pending", counts)
		}
	})
}

func stampOrDash(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return clock.Stamp(t)
}

func TestNaivePolicyRetriesAtOnceWithoutLimit(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 0, "PAY-001", "PAY-003")
		w := &Worker{ID: "worker-1", Store: s, Clock: c, Handler: failFor("PAY-003"), Batch: 10}
		for i := 0; i < 12; i++ {
			if _, err := w.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		msgs, _ := s.Messages(context.Background())
		poison := msgs[1]
		if poison.Status != outbox.Pending || poison.AttemptCount != 12 || !poison.NextAttemptAt.IsZero() {
			t.Errorf("poison = %s attempts %d next %v, want Pending, 12 attempts, no backoff",
				poison.Status, poison.AttemptCount, poison.NextAttemptAt)
		}
		if !c.Now().Equal(clock.Start) {
			t.Errorf("clock moved to %s; immediate retries never wait", clock.Stamp(c.Now()))
		}
	})
}

func TestPanickingHandlerIsAFailedAttempt(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 1, "PAY-001")
		w := &Worker{ID: "worker-1", Store: s, Clock: c, Policy: backoff.Policy{DeadLetter: true},
			Handler: HandlerFunc(func(context.Context, outbox.Claim, time.Time) (Outcome, error) { panic("bad body") })}
		res, err := w.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) != 1 || res.Events[0].Kind != DeadLettered || !strings.Contains(res.Events[0].Detail, "bad body") {
			t.Errorf("events = %+v, want one dead-lettered event naming the panic", res.Events)
		}
	})
}

// outlived is a worker ("slow", a lease of 1 s) that outlives its lease:
// while it works the clock moves on 2 s and another worker ("thief") takes
// the message over and processes it; then slow's handler returns out.
func outlived(s *outbox.Store, c *clock.ScenarioClock, out Outcome) *Worker {
	thief := &Worker{ID: "thief", Store: s, Clock: c, Handler: failFor("none")}
	return &Worker{ID: "slow", Store: s, Clock: c, Lease: time.Second,
		Handler: HandlerFunc(func(ctx context.Context, _ outbox.Claim, _ time.Time) (Outcome, error) {
			c.Advance(2 * time.Second)
			if _, err := thief.Step(ctx); err != nil {
				return Outcome{}, err
			}
			return out, nil
		})}
}

func TestLostClaimIsRefusedAndBusinessChangeRolledBack(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 3, "PAY-001")
		ctx := context.Background()
		slow := outlived(s, c, Outcome{Detail: "late", Apply: func(ctx context.Context, tx *sql.Tx) error {
			_, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{Key: "PAY-001", AmountCents: 100, CreatedAt: clock.Start})
			return err
		}})
		res, err := slow.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) != 1 || res.Events[0].Kind != Refused {
			t.Fatalf("slow worker events = %+v, want one refused", res.Events)
		}
		if pays, _ := s.Payments(ctx); len(pays) != 0 {
			t.Errorf("%d payment rows written by the refused worker, want 0 (rolled back with the transition)", len(pays))
		}
		if s.Refused() != 1 {
			t.Errorf("store refused %d transitions, want 1", s.Refused())
		}
		msgs, _ := s.Messages(ctx)
		if msgs[0].Status != outbox.Processed || msgs[0].AttemptCount != 2 {
			t.Errorf("message = %s after %d attempts, want Processed by the thief on attempt 2", msgs[0].Status, msgs[0].AttemptCount)
		}
	})
}

// A completion without a business row is one statement (on PostgreSQL, a
// transaction of its own on the pool): a worker whose lease ran out while
// it worked is still refused, and the row stays as the thief left it.
func TestLostClaimWithoutApplyIsRefused(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 3, "PAY-001")
		ctx := context.Background()
		slow := outlived(s, c, Outcome{Detail: "late"})
		res, err := slow.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) != 1 || res.Events[0].Kind != Refused || !strings.Contains(res.Events[0].Detail, "complete outbox message") {
			t.Fatalf("slow worker events = %+v, want one refused completion", res.Events)
		}
		if s.Refused() != 1 {
			t.Errorf("store refused %d transitions, want 1", s.Refused())
		}
		msgs, _ := s.Messages(ctx)
		if m := msgs[0]; m.Status != outbox.Processed || m.AttemptCount != 2 || m.ClaimToken != 2 || m.LockedBy != "" {
			t.Errorf("message = %s after %d attempts, token %d, locked by %q; want Processed by the thief on attempt 2, token 2, unlocked",
				m.Status, m.AttemptCount, m.ClaimToken, m.LockedBy)
		}
	})
}
