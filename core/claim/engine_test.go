package claim

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"outboxlab/core/clock"
)

// bare is a Day 14-15 table: a lease and a token, no attempt count, no backoff gate.
const bare = `CREATE TABLE IF NOT EXISTS Jobs (
    Id INTEGER PRIMARY KEY, Status TEXT NOT NULL DEFAULT 'Pending',
    LockedBy TEXT, LockedUntilUtc TEXT, ClaimToken INTEGER NOT NULL DEFAULT 0,
    CreatedAtUtc TEXT NOT NULL) STRICT;`

var jobs = &Queue{Table: "Jobs", Live: []string{"Pending", "Processing"}, Claimed: "Processing",
	Owner: "LockedBy", LeaseUntil: "LockedUntilUtc", Token: "ClaimToken", Order: "CreatedAtUtc, Id"}

func openBare(t *testing.T, n int) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "lab.db"), "outboxlab/claim-test", bare)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for i := range n {
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO Jobs (CreatedAtUtc) VALUES (?)`,
			clock.ISO(clock.Start.Add(time.Duration(i)*time.Millisecond))); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func claimOne(t *testing.T, s *Store, owner string, now time.Time) (Owner, bool) {
	t.Helper()
	var o Owner
	var got bool
	err := s.InTx(context.Background(), func(tx *sql.Tx) error {
		return s.ClaimTx(context.Background(), tx, jobs, Request{Owner: owner, Now: now, Lease: 10 * time.Second, Limit: 1},
			"Id, LockedBy, ClaimToken", func(sc Scanner) error {
				got = true
				return sc.Scan(&o.ID, &o.Owner, &o.Token)
			})
	})
	if err != nil {
		t.Fatal(err)
	}
	return o, got
}

func settle(t *testing.T, s *Store, o Owner) bool {
	t.Helper()
	var ok bool
	err := s.InTx(context.Background(), func(tx *sql.Tx) (err error) {
		ok, err = s.SettleTx(context.Background(), tx, jobs, o, []Set{{"Status", "Done"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// A table without retry columns: claim, lease, takeover and fencing still hold.
func TestStaleOwnerRefusedOnBareTable(t *testing.T) {
	s := openBare(t, 1)
	a, ok := claimOne(t, s, "A", clock.Start)
	if !ok || a.Token != 1 {
		t.Fatalf("first claim = %+v, %v; want token 1", a, ok)
	}
	if _, ok := claimOne(t, s, "B", clock.Start.Add(5*time.Second)); ok {
		t.Fatal("B claimed a row A still leases")
	}
	at, ok, err := s.NextDue(context.Background(), jobs, clock.Start)
	if err != nil || !ok || !at.Equal(clock.Start.Add(10*time.Second)) {
		t.Fatalf("NextDue = %s, %v, %v; want the lease end %s", at, ok, err, clock.Start.Add(10*time.Second))
	}
	b, ok := claimOne(t, s, "B", clock.Start.Add(11*time.Second))
	if !ok || b.Token != 2 {
		t.Fatalf("takeover = %+v, %v; want token 2", b, ok)
	}
	if settle(t, s, a) {
		t.Fatal("A's stale transition applied")
	}
	if got := s.Refused(); got != 1 {
		t.Fatalf("Refused() = %d, want 1", got)
	}
	if !settle(t, s, b) {
		t.Fatal("B's transition was refused")
	}
	var status string
	var owner sql.NullString
	s.DB().QueryRow(`SELECT Status, LockedBy FROM Jobs`).Scan(&status, &owner)
	if status != "Done" || owner.Valid {
		t.Fatalf("row = %s owned by %v, want Done and released", status, owner)
	}
	if _, ok, _ := s.NextDue(context.Background(), jobs, clock.Start); ok {
		t.Fatal("NextDue found something on a settled table")
	}
}

// The claim hands rows out oldest first and counts no attempt where the table has none.
func TestClaimOrderAndBatch(t *testing.T) {
	s := openBare(t, 3)
	ctx := context.Background()
	b, err := s.PrepareBatch(ctx, jobs, "Id, ClaimToken", "Status")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var ids []int64
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		return b.ClaimTx(ctx, tx, Request{Owner: "W", Now: clock.Start, Limit: 2}, func(sc Scanner) error {
			var id, tok int64
			ids = append(ids, id)
			return errors.Join(sc.Scan(&ids[len(ids)-1], &tok))
		})
	})
	if err != nil || len(ids) != 2 {
		t.Fatalf("batch claim = %v, %v; want 2 rows", ids, err)
	}
	first, ok := claimOne(t, s, "X", clock.Start)
	if !ok || first.ID != 3 {
		t.Fatalf("next claim = %+v; want row 3, the only one left", first)
	}
	var done bool
	err = s.InTx(ctx, func(tx *sql.Tx) (err error) {
		done, err = b.SettleTx(ctx, tx, Owner{ID: ids[0], Owner: "X", Token: 1}, "Done")
		return err
	})
	if err != nil || done {
		t.Fatalf("settle by the wrong owner = %v, %v; want refused", done, err)
	}
}
