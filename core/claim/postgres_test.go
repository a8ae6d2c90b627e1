package claim

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// A claim whose transaction is still open holds its row: a second claimer
// on another connection passes it over (SKIP LOCKED) at once and takes the
// next, rather than waiting for it or taking it too.
func TestPostgresClaimSkipsLockedRows(t *testing.T) {
	open := openBare(t, postgres, 2)
	sa, sb := open(), open()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := sa.InTx(ctx, func(tx *sql.Tx) error {
		var a int64
		err := sa.ClaimTx(ctx, tx, jobs, Request{Owner: "A", Now: clock.Start}, "Id", func(sc Scanner) error { return sc.Scan(&a) })
		if err != nil || a != 1 {
			t.Fatalf("A's claim = row %d, %v; want row 1", a, err)
		}
		// A has not committed: row 1 is still Pending to everyone else, but locked.
		b, ok := claimOne(t, sb, "B", clock.Start)
		if !ok || b.ID != 2 {
			t.Fatalf("B's claim while A's transaction is open = %+v, %v; want row 2", b, ok)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("A's transaction: %v (a claim that waits on a locked row runs into the timeout)", err)
	}
	if _, ok := claimOne(t, sb, "C", clock.Start); ok {
		t.Fatal("a third claim found a row; both are held")
	}
}

// A text column that sorts by the server's collation is refused at open:
// the engine's comparisons and orders of times must go by bytes, as on SQLite.
func TestPostgresRefusesTextWithoutCollateC(t *testing.T) {
	run := postgres.database(t, ddl{})
	s := run() // the marker table alone
	err := dialect.OpenPostgres(context.Background(), s.DB(), testVersion, `CREATE TABLE Loose (Id BIGINT PRIMARY KEY, Name TEXT)`)
	if err == nil || !strings.Contains(err.Error(), "loose.name") {
		t.Fatalf("open with a TEXT column without COLLATE \"C\" = %v, want a refusal naming loose.name", err)
	}
}
