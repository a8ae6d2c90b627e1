package wassal

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/internal/pgtest"
)

// Two workers that both read before either writes take the same message, and
// both completions commit: the failure the atomic claim exists to prevent.
func TestNaiveClaimLetsTwoWorkersTakeTheSameMessage(t *testing.T) {
	pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
		ctx := context.Background()
		s := openDesign(t, on, outbox.Full)
		dayEnqueue(t, s, "PAY-001", "PAY-002", "PAY-003")

		readA, err := naiveSelectPending(ctx, s, 2)
		if err != nil {
			t.Fatal(err)
		}
		readB, err := naiveSelectPending(ctx, s, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(readA) != 2 || len(readB) != 2 || readA[0] != readB[0] || readA[1] != readB[1] {
			t.Fatalf("A read %v, B read %v; want the same two oldest ids", readA, readB)
		}
		a, err := naiveMarkProcessing(ctx, s, readA[0], "worker-a")
		if err != nil {
			t.Fatal(err)
		}
		b, err := naiveMarkProcessing(ctx, s, readB[0], "worker-b")
		if err != nil {
			t.Fatal(err)
		}
		if a.Key != "PAY-001" || a.Attempt != 1 || b.Attempt != 2 || b.Token != 0 {
			t.Errorf("claims %+v and %+v: want PAY-001 counted twice (attempts 1, 2) and no claim token", a, b)
		}
		now := clock.Start.Add(time.Second)
		for _, c := range []outbox.Claim{a, b} {
			err := s.InTx(ctx, func(tx *sql.Tx) error {
				changed, err := naiveCompleteTx(ctx, s, tx, c.MessageID, now)
				if !changed {
					t.Errorf("%s's completion changed no row", c.Worker)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		msgs, _ := s.Messages(ctx)
		if m := msgs[0]; m.Status != outbox.Processed || m.AttemptCount != 2 || m.LockedBy != "" {
			t.Errorf("PAY-001 = %s, %d attempts, locked by %q; want Processed after 2 attempts, unlocked", m.Status, m.AttemptCount, m.LockedBy)
		}
	})
}

// A naive Processing row has no lease: neither the naive read nor the atomic
// claim ever takes it again.
func TestNaiveProcessingRowIsStuckForever(t *testing.T) {
	pgtest.OnEach(t, func(t *testing.T, on pgtest.Backend) {
		ctx := context.Background()
		s := openDesign(t, on, outbox.Full)
		dayEnqueue(t, s, "PAY-001")
		ids, _ := naiveSelectPending(ctx, s, 1)
		if _, err := naiveMarkProcessing(ctx, s, ids[0], "worker-c"); err != nil {
			t.Fatal(err)
		}
		if again, _ := naiveSelectPending(ctx, s, 1); len(again) != 0 {
			t.Errorf("naive read found %v, want nothing: the row is Processing", again)
		}
		if cs, _ := s.Claim(ctx, "worker-b", clock.Start.Add(24*time.Hour), time.Second, 1); len(cs) != 0 {
			t.Errorf("a day later the atomic claim took %v, want nothing: the naive row has no lease to expire", cs)
		}
	})
}
