package claim

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"outboxlab/core/clock"
)

// Two runs on one server, each in a schema of its own with the same table
// and so the same statement texts, take turns: each run's claims,
// transitions and wake-ups see its own rows only, however their prepared
// statements interleave. A cache shared by text across pools, or a pool
// whose search_path a statement could outlive, would hand one run the
// other's rows (or fail with the other's statement).
func TestPreparedStatementsStayInTheirSchema(t *testing.T) {
	onEachDialect(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		one, two := openBare(t, be, 3)(), openBare(t, be, 2)()
		exec(t, two, `UPDATE Jobs SET CreatedAtUtc = ?`, clock.ISO(clock.Start.Add(time.Hour)))
		for _, s := range []*Store{one, two} {
			s.DB().SetMaxOpenConns(1) // one connection each: every statement prepared on it is reused there
		}
		claimed := map[*Store][]Owner{}
		for round := range 3 {
			for _, s := range []*Store{one, two} {
				o, ok := claimOne(t, s, "W", clock.Start.Add(2*time.Hour))
				if ok {
					claimed[s] = append(claimed[s], o)
				}
				if !ok && !(s == two && round == 2) {
					t.Fatalf("round %d: no claim", round+1)
				}
			}
		}
		if len(claimed[one]) != 3 || len(claimed[two]) != 2 {
			t.Fatalf("claims = %d and %d, want 3 in the first run and 2 in the second", len(claimed[one]), len(claimed[two]))
		}
		for s, os := range claimed {
			var done []bool
			rows := make([]Settlement, len(os))
			for i, o := range os {
				rows[i] = Settlement{Owner: o, Values: []any{"Done"}}
			}
			err := s.InTx(ctx, func(tx *sql.Tx) (err error) {
				done, err = s.SettleAllTx(ctx, tx, jobs, []string{"Status"}, rows)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range done {
				if !d {
					t.Fatalf("settlement %d of %d was refused in its own run", i+1, len(done))
				}
			}
		}
		for s, want := range map[*Store]int{one: 3, two: 2} {
			var done, other int
			err := s.DB().QueryRow(`SELECT COUNT(*) FILTER (WHERE Status = 'Done'), COUNT(*) FILTER (WHERE Status <> 'Done') FROM Jobs`).
				Scan(&done, &other)
			if err != nil || done != want || other != 0 {
				t.Fatalf("run's table: %d Done, %d not (%v); want %d Done, 0 not", done, other, err, want)
			}
			if _, ok, err := s.NextDue(ctx, jobs, clock.Start); ok || err != nil {
				t.Fatalf("NextDue on a settled run = %v, %v; want nothing", ok, err)
			}
		}
		for _, s := range []*Store{one, two} {
			s.stmts.mu.Lock()
			prepared := 0
			for _, st := range s.stmts.m {
				if st != nil {
					prepared++
				}
			}
			s.stmts.mu.Unlock()
			if prepared < 2 { // the claim and NextDue (the settlement, met last, waits for the next InTx)
				t.Fatalf("%d statements prepared, want the claim's and NextDue's", prepared)
			}
		}
	})
}

// A batch settles in one statement but judges each row by its own claim: a
// row taken over since (a later token), one settled by the wrong owner and
// one never claimed are refused and counted one by one; the rest apply,
// each with its own values.
func TestSettleAllRefusesRowByRow(t *testing.T) {
	onEachDialect(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		open := openBare(t, be, 5)
		s, other := open(), open()
		var a []Owner
		for range 4 {
			o, ok := claimOne(t, s, "A", clock.Start)
			if !ok {
				t.Fatal("no claim")
			}
			a = append(a, o)
		}
		taken, ok := claimOne(t, other, "B", clock.Start.Add(time.Minute)) // row 1's lease has ended
		if !ok || taken.ID != a[0].ID {
			t.Fatalf("takeover = %+v, %v; want row %d", taken, ok, a[0].ID)
		}
		rows := []Settlement{
			{a[0], []any{"Stale"}},  // taken over: refused
			{a[1], []any{"Done-2"}}, // applies
			{Owner{ID: a[2].ID, Owner: "B", Token: a[2].Token}, []any{"Wrong"}}, // not B's: refused
			{a[3], []any{"Done-4"}},                              // applies
			{Owner{ID: 5, Owner: "A", Token: 1}, []any{"Never"}}, // never claimed: refused
		}
		var done []bool
		err := s.InTx(ctx, func(tx *sql.Tx) (err error) {
			done, err = s.SettleAllTx(ctx, tx, jobs, []string{"Status"}, rows)
			return err
		})
		want := []bool{false, true, false, true, false}
		if err != nil || len(done) != len(want) {
			t.Fatalf("SettleAllTx = %v, %v; want %v", done, err, want)
		}
		for i := range want {
			if done[i] != want[i] {
				t.Fatalf("SettleAllTx = %v, want %v", done, want)
			}
		}
		if got := s.Refused(); got != 3 {
			t.Fatalf("Refused() = %d, want 3 (one per refused row)", got)
		}
		got := map[int64]string{}
		rs, err := s.DB().Query(`SELECT Id, Status, COALESCE(LockedBy, '') FROM Jobs ORDER BY Id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		for rs.Next() {
			var id int64
			var status, owner string
			if err := rs.Scan(&id, &status, &owner); err != nil {
				t.Fatal(err)
			}
			got[id] = status + "/" + owner
		}
		wantRows := map[int64]string{1: "Processing/B", 2: "Done-2/", 3: "Processing/A", 4: "Done-4/", 5: "Pending/"}
		for id, w := range wantRows {
			if got[id] != w {
				t.Fatalf("rows = %v, want %v", got, wantRows)
			}
		}
	})
}

// A claim of many rows hands them out in claim order, and a batch larger
// than one settlement statement takes (settleChunk) still settles every
// row, each judged by its own claim.
func TestLargeBatchClaimsInOrderAndSettlesInChunks(t *testing.T) {
	onEachDialect(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s := openBare(t, be, 0)()
		n := settleChunk + 76
		// Created newest first, so that claim order (CreatedAtUtc) is the reverse of Id order.
		exec(t, s, `INSERT INTO Jobs (CreatedAtUtc)
			WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
			SELECT '2026-01-16T09:' || (100000 + ? - i) FROM seq`, n, n)
		var claimed []Owner
		err := s.InTx(ctx, func(tx *sql.Tx) error {
			return s.ClaimTx(ctx, tx, jobs, Request{Owner: "W", Now: clock.Start.Add(24 * time.Hour), Limit: n},
				"Id, LockedBy, ClaimToken", func(sc Scanner) error {
					var o Owner
					claimed = append(claimed, o)
					return sc.Scan(&claimed[len(claimed)-1].ID, &claimed[len(claimed)-1].Owner, &claimed[len(claimed)-1].Token)
				})
		})
		if err != nil || len(claimed) != n {
			t.Fatalf("claim of %d = %d rows, %v", n, len(claimed), err)
		}
		for i, o := range claimed {
			if want := int64(n - i); o.ID != want {
				t.Fatalf("claim %d is row %d, want row %d (oldest first)", i+1, o.ID, want)
			}
		}
		rows := make([]Settlement, n)
		for i, o := range claimed {
			rows[i] = Settlement{Owner: o, Values: []any{"Done"}}
		}
		rows[n-1].Owner.Token++ // a claim that is not the row's: refused
		var done []bool
		err = s.InTx(ctx, func(tx *sql.Tx) (err error) {
			done, err = s.SettleAllTx(ctx, tx, jobs, []string{"Status"}, rows)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		applied := 0
		for _, d := range done {
			if d {
				applied++
			}
		}
		if applied != n-1 || done[n-1] || s.Refused() != 1 {
			t.Fatalf("%d of %d applied, last %v, Refused() = %d; want %d, false, 1", applied, n, done[n-1], s.Refused(), n-1)
		}
		var settled int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM Jobs WHERE Status = 'Done' AND LockedBy IS NULL`).Scan(&settled); err != nil || settled != n-1 {
			t.Fatalf("%d rows Done and released (%v), want %d", settled, err, n-1)
		}
	})
}
