package outbox

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"outboxlab/core/clock"
)

func TestScheduledReminderIsNotClaimableBeforeItsTime(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		s := newStore(t, on)
		due := clock.Start.Add(5 * time.Second)
		var id int64
		err := s.InTx(ctx, func(tx *sql.Tx) error {
			var err error
			if id, err = EnqueueTx(ctx, tx, NewMessage{Key: "PAY-003", Type: "Confirm", CreatedAt: clock.Start}); err != nil {
				return err
			}
			return ScheduleTx(ctx, tx, id, due)
		})
		if err != nil {
			t.Fatal(err)
		}
		if cs, _ := s.Claim(ctx, "w", due.Add(-time.Millisecond), time.Second, 1); len(cs) != 0 {
			t.Errorf("claimed %v 1 ms before the reminder is due", cs)
		}
		if at, ok, _ := s.NextWakeup(ctx, clock.Start); !ok || !at.Equal(due) {
			t.Errorf("NextWakeup = %v, %v; want %v", at, ok, due)
		}
		if cs, _ := s.Claim(ctx, "w", due, time.Second, 1); len(cs) != 1 || cs[0].Attempt != 1 {
			t.Errorf("at its time the claim got %v, want the reminder at attempt 1", cs)
		}
	})
}

func TestCloseUnclaimedLeavesClaimedMessagesAlone(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		s := newStore(t, on)
		enqueue(t, s, "PAY-001", "PAY-002")
		claimed, _ := claimOne(t, s, "w", clock.Start)
		var closedFirst, closedSecond bool
		err := s.InTx(ctx, func(tx *sql.Tx) error {
			var err error
			if closedFirst, err = CloseUnclaimedTx(ctx, tx, claimed.MessageID, clock.Start); err != nil {
				return err
			}
			closedSecond, err = CloseUnclaimedTx(ctx, tx, claimed.MessageID+1, clock.Start)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		msgs, _ := s.Messages(ctx)
		if closedFirst || msgs[0].Status != Processing {
			t.Errorf("closing the claimed message: changed %v, status %s; want untouched Processing", closedFirst, msgs[0].Status)
		}
		if !closedSecond || msgs[1].Status != Processed || msgs[1].AttemptCount != 0 {
			t.Errorf("closing the unclaimed one: changed %v, %s after %d attempts; want Processed, 0 attempts", closedSecond, msgs[1].Status, msgs[1].AttemptCount)
		}
	})
}
