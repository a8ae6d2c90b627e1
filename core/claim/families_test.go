package claim_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/emission"
	"outboxlab/core/outbox"
)

// family is one outbox family's store, driven through its own API: claim by
// A, take over by B after A's lease, then A's late transition.
type family struct {
	name  string
	stale func(t *testing.T, dir string) (refused int64, err error)
}

// TestStaleOwnerRefusedInEveryFamily proves that the one fencing check the
// engine writes refuses a stale owner whichever family's store it goes through.
func TestStaleOwnerRefusedInEveryFamily(t *testing.T) {
	ctx := context.Background()
	lease := 30 * time.Second
	after := clock.Start.Add(lease + time.Millisecond)
	families := []family{
		{"outbox", func(t *testing.T, dir string) (int64, error) {
			s, err := outbox.Open(ctx, dialect.File(filepath.Join(dir, "outbox.db")))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Enqueue(ctx, outbox.NewMessage{Key: "PAY-001", Type: "ChargePayment", CreatedAt: clock.Start}); err != nil {
				t.Fatal(err)
			}
			a, err := s.Claim(ctx, "A", clock.Start, lease, 1)
			if err != nil || len(a) != 1 {
				t.Fatalf("A's claim = %v, %v", a, err)
			}
			if b, err := s.Claim(ctx, "B", after, lease, 1); err != nil || len(b) != 1 || b[0].Token != 2 {
				t.Fatalf("B's takeover = %+v, %v; want token 2", b, err)
			}
			err = s.Complete(ctx, a[0], after)
			return s.Refused(), err
		}},
		{"governance", func(t *testing.T, dir string) (int64, error) {
			s, err := emission.Open(ctx, dialect.File(filepath.Join(dir, "governance.db")))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Insert(ctx, emission.NewEntry{Key: "GOV-001", CreatedAt: clock.Start}); err != nil {
				t.Fatal(err)
			}
			a, err := s.Claim(ctx, "A", clock.Start, lease, 1)
			if err != nil || len(a) != 1 {
				t.Fatalf("A's claim = %v, %v", a, err)
			}
			if b, err := s.Claim(ctx, "B", after, lease, 1); err != nil || len(b) != 1 || b[0].Token != 2 {
				t.Fatalf("B's takeover = %+v, %v; want token 2", b, err)
			}
			err = s.ApplyClaimed(ctx, a[0], emission.Transition{To: emission.Delivered, At: after})
			return s.Refused(), err
		}},
	}
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			refused, err := f.stale(t, t.TempDir())
			if !errors.Is(err, claim.ErrNotOwner) {
				t.Errorf("A's late transition = %v, want claim.ErrNotOwner", err)
			}
			if refused != 1 {
				t.Errorf("Refused() = %d, want 1", refused)
			}
		})
	}
}
