package claim

import (
	"context"
	"testing"
	"time"

	"outboxlab/core/clock"
)

// A renewal moves the lease and keeps the claim, only for the holder's owner
// and token and only while the lease is live; a takeover needs the renewed
// lease to end, and the old holder's renewal after that is refused.
func TestRenewGuardedByOwnerTokenAndLease(t *testing.T) {
	onEachDialect(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		open := openBare(t, be, 1)
		sa, sb := open(), open()
		a, ok := claimOne(t, sa, "A", clock.Start) // lease until +10s
		if !ok {
			t.Fatal("A claimed nothing")
		}
		renew := func(s *Store, o Owner, now, until time.Duration) bool {
			t.Helper()
			ok, err := s.RenewTx(ctx, s.DB(), jobs, o, clock.Start.Add(now), clock.Start.Add(until))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		lease := func() string {
			var until string
			sa.DB().QueryRow(`SELECT LockedUntilUtc FROM Jobs`).Scan(&until)
			return until
		}
		if renew(sa, Owner{ID: a.ID, Owner: "B", Token: a.Token}, 5*time.Second, 20*time.Second) {
			t.Fatal("a renewal by another owner applied")
		}
		if renew(sa, Owner{ID: a.ID, Owner: "A", Token: a.Token + 1}, 5*time.Second, 20*time.Second) {
			t.Fatal("a renewal with another token applied")
		}
		if !renew(sa, a, 8*time.Second, 20*time.Second) {
			t.Fatal("the holder's renewal before its lease ended was refused")
		}
		if got, want := lease(), clock.ISO(clock.Start.Add(20*time.Second)); got != want {
			t.Fatalf("lease after renewal = %s, want %s", got, want)
		}
		if !renew(sa, a, 20*time.Second, 25*time.Second) {
			t.Fatal("a renewal at the lease's last instant was refused (a lease ending at now is still held)")
		}
		if _, ok := claimOne(t, sb, "B", clock.Start.Add(15*time.Second)); ok {
			t.Fatal("B took a row whose lease A renewed")
		}
		if renew(sa, a, 25*time.Second+time.Millisecond, 40*time.Second) {
			t.Fatal("a renewal after the lease ended applied")
		}
		b, ok := claimOne(t, sb, "B", clock.Start.Add(26*time.Second))
		if !ok || b.Token != a.Token+1 {
			t.Fatalf("takeover after the renewed lease = %+v, %v", b, ok)
		}
		if renew(sa, a, 27*time.Second, 40*time.Second) {
			t.Fatal("the old holder renewed a row another worker holds")
		}
		if got := sa.Refused(); got != 4 {
			t.Fatalf("Refused() = %d, want 4", got)
		}
	})
}
