package worker

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
)

func batcher(t *testing.T, s *outbox.Store) *outbox.Batcher {
	t.Helper()
	b, err := s.NewBatcher(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// drainBatch runs StepBatch to the end, moving the clock to the next due
// time itself when nothing is claimable, as a single-worker scenario would.
func drainBatch(t *testing.T, w *Worker, b *outbox.Batcher, limit int) []Event {
	t.Helper()
	ctx := context.Background()
	var events []Event
	for i := 0; i < limit; i++ {
		res, err := w.StepBatch(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, res.Events...)
		if res.Claimed > 0 {
			continue
		}
		due, ok, err := w.Store.NextWakeup(ctx, w.Clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return events
		}
		claim.Advance(w.Clock, due)
	}
	t.Fatalf("not drained after %d steps", limit)
	return nil
}

// StepBatch must tell the same story as Step: the seed's poison timeline.
func TestStepBatchMatchesStepOnTheSeed(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 3, "PAY-001", "PAY-002", "PAY-003", "PAY-004", "PAY-005", "PAY-006")
		w := &Worker{ID: "worker-1", Store: s, Clock: c, Handler: failFor("PAY-003"), Batch: 10,
			Policy: backoff.Policy{Backoff: backoff.Backoff{Base: 200 * ms}, DeadLetter: true}}
		events := drainBatch(t, w, batcher(t, s), 20)
		var got []string
		processed := 0
		for _, e := range events {
			if e.Key == "PAY-003" {
				got = append(got, clock.Stamp(e.At)+" "+string(e.Kind)+" "+clock.Millis(e.Delay)+" "+stampOrDash(e.NextAttempt))
			}
			if e.Kind == Processed {
				processed++
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
		if processed != 5 {
			t.Errorf("%d processed events, want 5", processed)
		}
		msgs, _ := s.Messages(context.Background())
		for _, m := range msgs {
			wantStatus, wantAttempts := outbox.Processed, 1
			if m.Key == "PAY-003" {
				wantStatus, wantAttempts = outbox.DeadLettered, 3
			}
			if m.Status != wantStatus || m.AttemptCount != wantAttempts {
				t.Errorf("%s: %s after %d attempts, want %s after %d", m.Key, m.Status, m.AttemptCount, wantStatus, wantAttempts)
			}
		}
		if audit, _ := s.Audit(context.Background()); len(audit) != 1 || audit[0].Action != "dead-lettered" {
			t.Errorf("audit = %+v, want one dead-lettered entry", audit)
		}
	})
}

func TestStepBatchDoesNotMoveTheClock(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 3, "PAY-001")
		w := &Worker{ID: "w1", Store: s, Clock: c, Handler: failFor("PAY-001"),
			Policy: backoff.Policy{Backoff: backoff.Backoff{Base: time.Second}, DeadLetter: true}}
		b := batcher(t, s)
		if res, err := w.StepBatch(context.Background(), b); err != nil || res.Claimed != 1 || res.Events[0].Kind != Retrying {
			t.Fatalf("first step = %+v, %v; want one retrying claim", res, err)
		}
		res, err := w.StepBatch(context.Background(), b)
		if err != nil || res.Claimed != 0 || len(res.Events) != 0 {
			t.Fatalf("second step = %+v, %v; want nothing claimed", res, err)
		}
		if !c.Now().Equal(clock.Start) {
			t.Errorf("clock at %s, want it left at the start", clock.Stamp(c.Now()))
		}
	})
}

func TestStepBatchCommitsApplyWithTheCompletionAndRefusesALostClaim(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 3, "PAY-001", "PAY-002", "PAY-003")
		ctx := context.Background()
		w := &Worker{ID: "w1", Store: s, Clock: c, Batch: 3,
			Handler: HandlerFunc(func(ctx context.Context, cl outbox.Claim, _ time.Time) (Outcome, error) {
				if cl.Key == "PAY-002" {
					// While w1 works, PAY-002's claim moves to another worker (a lease takeover).
					_, err := s.DB().ExecContext(ctx, `UPDATE OutboxMessages SET LockedBy = 'w2', ClaimToken = ClaimToken + 1 WHERE Id = $1`, cl.MessageID)
					if err != nil {
						return Outcome{}, err
					}
				}
				return Outcome{Detail: "paid", Apply: func(ctx context.Context, tx *sql.Tx) error {
					_, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{Key: cl.Key, AmountCents: 100, CreatedAt: clock.Start})
					return err
				}}, nil
			})}
		res, err := w.StepBatch(ctx, batcher(t, s))
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, e := range res.Events {
			kinds = append(kinds, e.Key+" "+string(e.Kind))
		}
		if got, want := strings.Join(kinds, ", "), "PAY-001 processed, PAY-002 refused, PAY-003 processed"; got != want {
			t.Errorf("events %s, want %s", got, want)
		}
		pays, _ := s.Payments(ctx)
		var keys []string
		for _, p := range pays {
			keys = append(keys, p.Key)
		}
		if got := strings.Join(keys, " "); got != "PAY-001 PAY-003" {
			t.Errorf("payments written: %s, want PAY-001 PAY-003 (the refused claim's change is not applied)", got)
		}
		if s.Refused() != 1 {
			t.Errorf("store refused %d transitions, want 1", s.Refused())
		}
	})
}

func TestStepBatchApplyErrorRollsTheBatchBack(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		s, c := setup(t, on, 3, "PAY-001", "PAY-002")
		ctx := context.Background()
		boom := errors.New("ledger full")
		w := &Worker{ID: "w1", Store: s, Clock: c, Batch: 2,
			Handler: HandlerFunc(func(_ context.Context, cl outbox.Claim, _ time.Time) (Outcome, error) {
				return Outcome{Apply: func(ctx context.Context, tx *sql.Tx) error {
					if cl.Key == "PAY-002" {
						return boom
					}
					_, err := outbox.InsertPaymentTx(ctx, tx, outbox.Payment{Key: cl.Key, AmountCents: 100, CreatedAt: clock.Start})
					return err
				}}, nil
			})}
		if _, err := w.StepBatch(ctx, batcher(t, s)); !errors.Is(err, boom) {
			t.Fatalf("StepBatch err = %v, want %v", err, boom)
		}
		counts, _ := s.Counts(ctx)
		pays, _ := s.Payments(ctx)
		if counts[outbox.Processing] != 2 || counts[outbox.Processed] != 0 || len(pays) != 0 {
			t.Errorf("after a failed settlement: %v and %d payments, want 2 Processing (leased), 0 Processed, 0 payments", counts, len(pays))
		}
	})
}
